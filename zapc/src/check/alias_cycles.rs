//! Aliases end at a concrete type: `type a = b` + `type b = a` is an error.

use super::Context;
use crate::ast::{AliasDecl, TypeKind};
use crate::diag::Diagnostic;
use crate::resolve::{Symbol, Symbols};

/// Each alias cycle, reported once at its first-declared member.
pub(super) fn alias_cycles(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let symbols = &cx.symbols;
    for alias in file.aliases() {
        let Some(cycle) = cycle_through(alias, symbols) else {
            continue;
        };
        let first_declared = cycle
            .iter()
            .all(|a| a.name.span.start >= alias.name.span.start);
        if first_declared {
            errors.push(cycle_error(&cycle));
        }
    }
}

/// The aliases met from `start` until `start` is reached again, if it is.
fn cycle_through<'a>(start: &'a AliasDecl, symbols: &Symbols<'a>) -> Option<Vec<&'a AliasDecl>> {
    let mut chain = vec![start];
    let mut current = start;
    loop {
        let TypeKind::Named(name) = &current.target.kind else {
            return None;
        };
        let Some(Symbol::Alias(next)) = symbols.get(&name.text) else {
            return None;
        };
        if std::ptr::eq(next, start) {
            return Some(chain);
        }
        if chain.iter().any(|a| std::ptr::eq(*a, next)) {
            return None; // a cycle that `start` only leads into
        }
        chain.push(next);
        current = next;
    }
}

fn cycle_error(cycle: &[&AliasDecl]) -> Diagnostic {
    let path: Vec<String> = cycle
        .iter()
        .chain(cycle.first())
        .map(|a| format!("`{}`", a.name.text))
        .collect();
    let head = cycle[0];
    let mut error = Diagnostic::error(
        format!("alias cycle: {}", path.join(" -> ")),
        head.name.span.clone(),
        "this alias never reaches a concrete type",
    );
    for alias in &cycle[1..] {
        error = error.with_secondary(alias.name.span.clone(), "part of the cycle");
    }
    error.with_hint("make one alias in the cycle name a concrete type such as `bytes_fixed[32]`")
}

//! Names are declared once: top-level names share one namespace; field names are unique
//! within their struct and method names within their interface.

use std::collections::HashMap;

use super::Context;
use crate::ast::{Declaration, Ident};
use crate::diag::Diagnostic;

/// A struct, alias, interface or enum whose name an earlier declaration already took.
pub(super) fn duplicate_declarations(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let named = file.declarations.iter().filter_map(|d| match d {
        Declaration::Struct(s) => Some((&s.name, "struct")),
        Declaration::Alias(a) => Some((&a.name, "alias")),
        Declaration::Interface(i) => Some((&i.name, "interface")),
        Declaration::Enum(e) => Some((&e.name, "enum")),
        Declaration::Const(c) => Some((&c.name, "constant")),
        Declaration::Package(_) | Declaration::Import(_) => None,
    });
    let mut first_seen: HashMap<&str, (&Ident, &str)> = HashMap::new();
    for (name, kind) in named {
        match first_seen.get(name.text.as_str()) {
            Some((first, first_kind)) => {
                errors.push(already_declared(name, kind, first, first_kind))
            }
            None => {
                first_seen.insert(&name.text, (name, kind));
            }
        }
    }
}

fn already_declared(name: &Ident, kind: &str, first: &Ident, first_kind: &str) -> Diagnostic {
    let message = if kind == first_kind {
        format!("duplicate {kind} `{}`", name.text)
    } else {
        format!(
            "{kind} `{}` has the same name as {}",
            name.text,
            with_article(first_kind)
        )
    };
    let hint = if kind == "constant" || first_kind == "constant" {
        "structs, aliases, interfaces and constants share one namespace; rename one of them"
    } else if kind == "enum" || first_kind == "enum" {
        "structs, aliases, interfaces and enums share one namespace; rename one of them"
    } else {
        "structs, aliases and interfaces share one namespace; rename one of them"
    };
    Diagnostic::error(message, name.span.clone(), "declared again here")
        .with_secondary(
            first.span.clone(),
            format!("first declared here as {}", with_article(first_kind)),
        )
        .with_hint(hint)
}

/// A field name used twice in one struct. A reserved slot keeps its name: a field taking
/// it is told so.
pub(super) fn duplicate_fields(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for decl in file.structs() {
        if !decl.fields.iter().any(|f| f.is_reserved()) {
            // The common case: one map, as for methods.
            let names = decl.fields.iter().map(|f| &f.name);
            report_repeats(names, "field", &decl.name.text, errors);
            continue;
        }
        let mut first: HashMap<&str, bool> = HashMap::new();
        let mut plain = Vec::new();
        for field in &decl.fields {
            match first.get(field.name.text.as_str()) {
                Some(true) => {
                    errors.push(super::evolution::reserved_name_reused(decl, &field.name))
                }
                Some(false) => plain.push(&field.name),
                None => {
                    first.insert(&field.name.text, field.is_reserved());
                    plain.push(&field.name);
                }
            }
        }
        report_repeats(plain.into_iter(), "field", &decl.name.text, errors);
    }
}

/// A method name used twice in one interface.
pub(super) fn duplicate_methods(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for decl in file.interfaces() {
        let names = decl.methods.iter().map(|m| &m.name);
        report_repeats(names, "method", &decl.name.text, errors);
    }
}

fn report_repeats<'a>(
    names: impl Iterator<Item = &'a Ident>,
    kind: &str,
    owner: &str,
    errors: &mut Vec<Diagnostic>,
) {
    let mut first_seen: HashMap<&str, &Ident> = HashMap::new();
    for name in names {
        let Some(first) = first_seen.get(name.text.as_str()) else {
            first_seen.insert(&name.text, name);
            continue;
        };
        errors.push(
            Diagnostic::error(
                format!("duplicate {kind} `{}` in `{owner}`", name.text),
                name.span.clone(),
                "declared again here",
            )
            .with_secondary(first.span.clone(), "first declared here")
            .with_hint(format!("every {kind} of `{owner}` needs its own name")),
        );
    }
}

/// "a struct", "an alias", "an interface".
fn with_article(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

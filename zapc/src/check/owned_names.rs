//! The generated `<method>_owned` items must not collide with another method.
//!
//! For a method with a parameter the handler trait gets `<method>_owned` (the request
//! owned), and for a method with a result the client gets `<method>_owned` (the answer
//! owned), both in snake case. A method whose own Rust name is that (`getOwned` beside
//! `get`) would be generated twice.

use std::collections::HashMap;

use heck::ToSnakeCase;

use super::Context;
use crate::diag::Diagnostic;

/// A method named like the `<other>_owned` item of another method of its interface.
pub(super) fn owned_name_collisions(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for iface in cx.file.interfaces() {
        let by_rust_name: HashMap<String, _> = iface
            .methods
            .iter()
            .map(|m| (m.name.text.to_snake_case(), m))
            .collect();
        for method in &iface.methods {
            if method.params.is_empty() && method.results.is_empty() {
                continue;
            }
            let owned = format!("{}_owned", method.name.text.to_snake_case());
            let Some(taken) = by_rust_name.get(&owned) else {
                continue;
            };
            let what = match (method.params.is_empty(), method.results.is_empty()) {
                (false, false) => {
                    "a handler taking its request owned and a client stub returning its answer owned"
                }
                (false, true) => "a handler taking its request owned",
                _ => "a client stub returning its answer owned",
            };
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` of `{}` has the Rust name `{owned}` that zapc generates for `{}`",
                        taken.name.text, iface.name.text, method.name.text
                    ),
                    taken.name.span.clone(),
                    format!("its Rust name is `{owned}`"),
                )
                .with_secondary(
                    method.name.span.clone(),
                    format!("zapc generates `{owned}` for this method: {what}"),
                )
                .with_hint(format!(
                    "rename `{}`: a method's name with `_owned` added is kept for the owned variant",
                    taken.name.text
                )),
            );
        }
    }
}

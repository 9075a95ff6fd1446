//! `ptr<T>` exists only as a list element (`list<ptr<T>>`), and `T` is a struct.

use super::Context;
use crate::ast::TypeKind;
use crate::diag::Diagnostic;
use crate::resolve::Resolved;

use super::{for_each_type, Position};

/// A `ptr<T>` anywhere but directly inside `list<...>`.
pub(super) fn ptr_outside_list(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for_each_type(file, &mut |ty, position| {
        if matches!(ty.kind, TypeKind::Ptr(_)) && position != Position::ListElement {
            errors.push(
                Diagnostic::error(
                    format!("`{}` outside a list", ty.to_schema_syntax()),
                    ty.span.clone(),
                    "`ptr<T>` is only allowed as a list element",
                )
                .with_hint("write `list<ptr<T>>`; a field of struct type `T` is already a pointer"),
            );
        }
    });
}

/// A `ptr<T>` whose `T` is not a struct.
pub(super) fn ptr_to_non_struct(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let symbols = &cx.symbols;
    for_each_type(file, &mut |ty, _| {
        let TypeKind::Ptr(target) = &ty.kind else {
            return;
        };
        match symbols.resolve(target) {
            None | Some(Resolved::Struct(_)) => {}
            Some(_) => errors.push(
                Diagnostic::error(
                    format!(
                        "`ptr` to `{}`, which is not a struct",
                        target.to_schema_syntax()
                    ),
                    target.span.clone(),
                    "not a struct",
                )
                .with_hint("only structs can be pointed at; use `list<T>` for a list of values"),
            ),
        }
    });
}

//! A list element is never itself a list, also not through an alias.

use super::Context;
use crate::ast::{TypeExpr, TypeKind};
use crate::diag::Diagnostic;
use crate::resolve::Resolved;

use super::for_each_type;

/// `list<list<T>>`, or `list<A>` where `A` is an alias of a list.
pub(super) fn list_of_lists(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let symbols = &cx.symbols;
    for_each_type(file, &mut |ty, _| {
        let TypeKind::List(elem) = &ty.kind else {
            return;
        };
        if let Some(Resolved::List(inner)) = symbols.resolve(elem) {
            errors.push(
                Diagnostic::error("list of lists", elem.span.clone(), element_label(elem, inner))
                    .with_hint(
                        "wrap the inner list in a struct (`struct Row { Items list<u8> }`) and use `list<Row>`",
                    ),
            );
        }
    });
}

fn element_label(elem: &TypeExpr, inner: &TypeExpr) -> String {
    match &elem.kind {
        TypeKind::Named(alias) => format!(
            "`{}` is an alias of `list<{}>`",
            alias.text,
            inner.to_schema_syntax()
        ),
        _ => "the element is a list".to_owned(),
    }
}

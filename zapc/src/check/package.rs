//! A file declares at most one package.

use super::Context;
use crate::diag::Diagnostic;

/// Every `package` after the first is an error.
pub(super) fn more_than_one_package(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let mut packages = file.packages();
    let Some(first) = packages.next() else {
        return;
    };
    for extra in packages {
        errors.push(
            Diagnostic::error(
                format!("second package declaration `{}`", extra.name.text),
                extra.keyword.start..extra.name.span.end,
                "a file has one package",
            )
            .with_secondary(
                first.name.span.clone(),
                format!("package `{}` declared here", first.name.text),
            )
            .with_hint("remove this line, or split the schema into one file per package"),
        );
    }
}

//! Whitespace-form blocks are indented with spaces only.

use super::Context;
use crate::diag::Diagnostic;

/// A tab in the indentation of a whitespace-form line.
pub(super) fn tabs_in_indentation(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for tab in file.block_indents.iter().filter_map(|i| i.first_tab()) {
        errors.push(
            Diagnostic::error("tab in indentation", tab..tab + 1, "this is a tab")
                .with_hint("indent the lines of a whitespace-form block with spaces only"),
        );
    }
}

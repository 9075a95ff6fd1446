//! The changes as diagnostics in the style of `zapc check`.

use super::*;
use crate::diag::{Diagnostic, Severity};

/// The changes as `zapc check`-style diagnostics (plain text, ASCII, no colour), one per
/// change: `error[wire-breaking]`, `error[json-breaking]`, `note[safe]`; a breaking class in
/// `allowed` is shown as a `warning`.
pub fn render(old: &Version, new: &Version, changes: &[Change], allowed: &[Class]) -> String {
    let mut out = Vec::new();
    for change in changes {
        let (version, label) = match change.side {
            Side::Old => (old, "in the old version"),
            Side::New => (new, "here"),
        };
        let severity = match change.class {
            Class::Safe => Severity::Note,
            class if allowed.contains(&class) => Severity::Warning,
            _ => Severity::Error,
        };
        let diagnostic =
            Diagnostic::error(change.message.clone(), version.span_of(&change.item), label)
                .with_severity(severity)
                .with_code(change.class.name());
        crate::diag::emit(&mut out, &version.name, &version.text, &diagnostic);
    }
    String::from_utf8_lossy(&out).into_owned()
}

//! The changes as diagnostics in the style of `zapc check`.

use super::*;

/// The changes as `zapc check`-style diagnostics (plain text, ASCII, no colour), one per
/// change: `error[wire-breaking]`, `error[json-breaking]`, `note[safe]`; a breaking class in
/// `allowed` is shown as a `warning`.
pub fn render(old: &Version, new: &Version, changes: &[Change], allowed: &[Class]) -> String {
    let mut files = SimpleFiles::new();
    let old_id = files.add(old.name.as_str(), old.text.as_str());
    let new_id = files.add(new.name.as_str(), new.text.as_str());
    let config = Config {
        display_style: DisplayStyle::Rich,
        chars: Chars::ascii(),
        ..Config::default()
    };
    let mut out = NoColor::new(Vec::new());
    for change in changes {
        let (id, version) = match change.side {
            Side::Old => (old_id, old),
            Side::New => (new_id, new),
        };
        let severity = match change.class {
            Class::Safe => Severity::Note,
            class if allowed.contains(&class) => Severity::Warning,
            _ => Severity::Error,
        };
        let label = match change.side {
            Side::Old => "in the old version",
            Side::New => "here",
        };
        let diagnostic = CsDiagnostic::new(severity)
            .with_code(change.class.name())
            .with_message(change.message.clone())
            .with_labels(vec![
                Label::primary(id, version.span_of(&change.item)).with_message(label)
            ]);
        if term::emit(&mut out, &config, &files, &diagnostic).is_err() {
            let line = format!("{}: {}\n", change.class, change.message);
            out.get_mut().extend_from_slice(line.as_bytes());
        }
    }
    String::from_utf8_lossy(out.get_ref()).into_owned()
}

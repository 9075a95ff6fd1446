//! Errors found in a schema (and the warnings and notes of `zapc compat`), and their
//! plain-text rendering.
//!
//! Rendering uses codespan-reporting with no colour and ASCII drawing characters, so the
//! output is the same on every terminal and can be snapshot-tested:
//!
//! ```text
//! error: unknown type `u63`
//!   --> bad.zap:3:9
//!   |
//! 3 |     Id  u63 @0
//!   |         ^^^ not a built-in type, struct or alias
//!   |
//!   = hint: did you mean `u64`?
//! ```

use std::fmt;

use codespan_reporting::diagnostic::{
    Diagnostic as CsDiagnostic, Label as CsLabel, Severity as CsSeverity,
};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config, DisplayStyle};

use crate::ast::Span;

/// A marked piece of source text with a short message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// How serious a diagnostic is: the word it starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Severity {
    /// `error`: the schema (or a change) is refused.
    #[default]
    Error,
    /// `warning`: reported, not refused.
    Warning,
    /// `note`: for information.
    Note,
}

/// One diagnostic (an error unless said otherwise): a message, the token it is about,
/// optional related tokens and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// A code shown after the severity (`error[wire-breaking]`), if any.
    pub code: Option<&'static str>,
    /// One line saying what is wrong.
    pub message: String,
    /// The offending token (the caret goes here).
    pub primary: Label,
    /// Related places (e.g. the earlier of two overlapping fields).
    pub secondary: Box<[Label]>,
    /// One line saying how to fix it.
    pub hint: Option<Box<str>>,
}

impl Diagnostic {
    /// An error about the text at `span`.
    pub fn error(message: impl Into<String>, span: Span, label: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            message: message.into(),
            primary: Label {
                span,
                message: label.into(),
            },
            secondary: Box::default(),
            hint: None,
        }
    }

    /// Also point at a related place.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        let mut secondary = std::mem::take(&mut self.secondary).into_vec();
        secondary.push(Label {
            span,
            message: message.into(),
        });
        self.secondary = secondary.into_boxed_slice();
        self
    }

    /// Add the one-line hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into().into_boxed_str());
        self
    }

    /// The same diagnostic as a warning or a note.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Show `code` after the severity.
    pub fn with_code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }
}

/// Render one diagnostic about `source` (named `name`) as plain text onto `out`: the
/// one renderer of `zapc check`'s errors and `zapc compat`'s reports.
pub(crate) fn emit(out: &mut Vec<u8>, name: &str, source: &str, item: &Diagnostic) {
    let file = SimpleFile::new(name, source);
    let mut writer = NoColor::new(std::mem::take(out));
    if term::emit(
        &mut writer,
        &render_config(),
        &file,
        &to_codespan(source, item),
    )
    .is_err()
    {
        // Unreachable with clamped spans; still, never lose a diagnostic.
        let line = format!("error: {}\n", item.message);
        writer.get_mut().extend_from_slice(line.as_bytes());
    }
    *out = writer.into_inner();
}

fn to_codespan(source: &str, item: &Diagnostic) -> CsDiagnostic<()> {
    let mut labels = vec![CsLabel::primary((), clamp(source, &item.primary.span))
        .with_message(item.primary.message.clone())];
    labels.extend(item.secondary.iter().map(|label| {
        CsLabel::secondary((), clamp(source, &label.span)).with_message(label.message.clone())
    }));
    let notes = item.hint.iter().map(|h| format!("hint: {h}")).collect();
    let severity = match item.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Note => CsSeverity::Note,
    };
    let mut report = CsDiagnostic::new(severity)
        .with_message(item.message.clone())
        .with_labels(labels)
        .with_notes(notes);
    if let Some(code) = item.code {
        report = report.with_code(code);
    }
    report
}

/// Keep a span inside the source and on character boundaries.
fn clamp(source: &str, span: &Span) -> Span {
    let start = char_boundary_at_or_before(source, span.start);
    let end = char_boundary_at_or_before(source, span.end.max(start));
    start..end
}

/// Every error found in one source file, in source order, with the text needed to render them.
///
/// `Display` and `Debug` both print [`Diagnostics::render`]'s text, so a build script's
/// `fn main() -> Result<(), Box<dyn Error>>` shows the caret diagnostics rather than the
/// schema as an escaped string; `{:#?}` shows the fields.
#[derive(Clone, PartialEq, Eq)]
pub struct Diagnostics {
    source_name: String,
    source: String,
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Collect `items` about `source`, sorting them by position (stable, so errors at the
    /// same place keep the order the checker found them in).
    pub fn new(source_name: &str, source: &str, mut items: Vec<Diagnostic>) -> Self {
        items.sort_by_key(|d| d.primary.span.start);
        Diagnostics {
            source_name: source_name.to_owned(),
            source: source.to_owned(),
            items,
        }
    }

    /// Number of errors.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are no errors.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The errors, in source order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// The name of the file the errors are about.
    pub fn source_name(&self) -> &str {
        &self.source_name
    }

    /// All errors as plain text: no colour, ASCII only, no dependence on terminal width.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        for item in &self.items {
            emit(&mut out, &self.source_name, &self.source, item);
        }
        let count = |severity, one: &str, many: &str| match self
            .items
            .iter()
            .filter(|d| d.severity == severity)
            .count()
        {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        };
        let counts: Vec<String> = [
            count(Severity::Error, "error", "errors"),
            count(Severity::Warning, "warning", "warnings"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let summary = match counts.is_empty() {
            true => format!("{}: 0 errors\n", self.source_name),
            false => format!("{}: {}\n", self.source_name, counts.join(", ")),
        };
        out.extend_from_slice(summary.as_bytes());
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn render_config() -> Config {
    Config {
        display_style: DisplayStyle::Rich,
        chars: Chars::ascii(),
        ..Config::default()
    }
}

fn char_boundary_at_or_before(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_struct("Diagnostics")
                .field("source_name", &self.source_name)
                .field("items", &self.items)
                .finish_non_exhaustive()
        } else {
            f.write_str(&self.render())
        }
    }
}

impl std::error::Error for Diagnostics {}

//! `zapc fmt`: the canonical layout of a `.zap` file.
//!
//! The formatter works on tokens, not on the syntax tree, so it keeps every comment where
//! it was and needs to know little about the language: new declarations and item kinds
//! format without changes here. The parse tree says only where things start:
//!
//! - every top-level declaration starts a line in column one;
//! - a declaration with a block (`{ ... }`, or the whitespace form: a header line followed
//!   by indented lines) puts each item of the block (a field, a method, an enum value) on
//!   its own line, indented by four spaces; the brace form closes with `}` on its own line;
//! - a line break inside an item (only possible inside `(...)` and `[...]`, e.g. a long
//!   `json(...)`) is kept, and the next line is indented one more level.
//!
//! Within a line, tokens are separated by one space, except: none after `(` `[` `<` `.`
//! `@` and a unary `-`; none before `)` `]` `>` `,` `.` `:` (but `enum Name : u8` keeps
//! its spaced colon); none before `<` (`list<T>`), before `[` after a name
//! (`bytes_fixed[32]`), or before `(` after a name other than `returns` (`get(a: A)`,
//! `json(quantity)`, but `returns (b: B)` and `ping @2 ()`). So: `Name type @8`,
//! `f(a: T, b: U) returns (r: R)`, `list<T>`, `json(name = "x", params = [A, B])`.
//!
//! Comments are kept verbatim (trailing spaces removed): a comment after code stays on that
//! line, two spaces after it (the trailing comments of consecutive lines line up); a comment on its own line takes the indentation of the next
//! line of code (one level deeper when that line is a closing `}`), so doc comments stay
//! with what they document. Runs of blank lines become one; blank lines at the start and
//! end of the file and of a block are removed. The file ends with one line break.
//!
//! [`Style::Indented`] writes the whitespace form instead of braces (and a blank line after
//! each block that was closed by a `}`, so that a comment before that `}` can never become
//! the doc comment of the next declaration). A file can choose its style with a comment
//! line `# zapc fmt: indent` ([`Style::of_file`]).
//!
//! [`format_checked`] is what `zapc fmt` uses: it formats, then loads both the input and
//! the output and refuses the result unless both give the same laid-out IR and the same
//! comments in the same order.

use std::ops::Range;

use pest::iterators::Pair;
use pest::Parser as _;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir;
use crate::parse::grammar::{Rule, ZapParser};

/// Which block form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// `struct Name {` ... `}` (the default).
    #[default]
    Braces,
    /// The whitespace form: `struct Name`, then the items on indented lines.
    Indented,
}

impl Style {
    /// The style a file asks for with a comment line `# zapc fmt: indent` (or
    /// `# zapc fmt: braces`) anywhere in it, else `default`.
    pub fn of_file(source: &str, default: Style) -> Style {
        lex(source)
            .iter()
            .filter(|t| t.kind == Kind::Comment)
            .find_map(|t| match source[t.span.clone()].trim_end() {
                "# zapc fmt: indent" => Some(Style::Indented),
                "# zapc fmt: braces" => Some(Style::Braces),
                _ => None,
            })
            .unwrap_or(default)
    }
}

/// Why a file was not formatted.
#[derive(Debug, thiserror::Error)]
pub enum FmtError {
    /// The input is not a valid schema (formatting only valid schemas keeps it safe).
    #[error("{0}")]
    Invalid(Diagnostics),
    /// The formatted text would mean something else: a bug in the formatter, caught before
    /// anything is written.
    #[error("{source_name}: formatting would change the schema ({what}); the file is left as it is. This is a bug in zapc fmt; please report it with this file")]
    Changed { source_name: String, what: String },
}

/// Format `source` (which must parse) in `style`. Comments and blank lines are kept (see
/// the module docs); nothing is checked beyond syntax. Prefer [`format_checked`].
pub fn format(source: &str, style: Style) -> Result<String, Diagnostic> {
    let tokens = lex(source);
    let blocks = plan(source, &tokens)?;
    Ok(Printer::new(source, &tokens, &blocks, style).print())
}

/// Format `source`, then make sure that the result means the same: `load` (the front end,
/// e.g. [`crate::load_str`]) must give the same IR for the input and the output, and the
/// comments must be the same, in the same order. Returns the formatted text.
pub fn format_checked<L>(
    source_name: &str,
    source: &str,
    style: Style,
    load: L,
) -> Result<String, FmtError>
where
    L: Fn(&str, &str) -> Result<ir::Schema, Diagnostics>,
{
    let before = load(source_name, source).map_err(FmtError::Invalid)?;
    let changed = |what: String| FmtError::Changed {
        source_name: source_name.to_owned(),
        what,
    };
    let formatted = format(source, style)
        .map_err(|error| FmtError::Invalid(Diagnostics::new(source_name, source, vec![error])))?;
    let after = load(source_name, &formatted)
        .map_err(|errors| changed(format!("the result does not load: {errors}")))?;
    if before != after {
        return Err(changed("the laid-out IR differs".to_owned()));
    }
    if comments(source) != comments(&formatted) {
        return Err(changed("the comments differ".to_owned()));
    }
    Ok(formatted)
}

/// Every comment of `source`, trailing spaces removed, in order.
fn comments(source: &str) -> Vec<&str> {
    lex(source)
        .iter()
        .filter(|t| t.kind == Kind::Comment)
        .map(|t| source[t.span.clone()].trim_end())
        .collect()
}

// ---- tokens ------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A name, keyword or number (`Foo`, `u64`, `0x1`).
    Word,
    /// A quoted string, quotes included.
    Str,
    /// One character of punctuation.
    Punct,
    /// `#` to the end of the line.
    Comment,
    /// `\n` or `\r\n`.
    Newline,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    span: Range<usize>,
}

/// Split `source` into tokens; spaces and tabs separate them and are dropped. Never fails:
/// anything unexpected becomes a one-character [`Kind::Punct`].
fn lex(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        let start = i;
        let kind = match bytes[i] {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'\n' => {
                i += 1;
                Kind::Newline
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                Kind::Newline
            }
            b'#' => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                if i > start && bytes[i - 1] == b'\r' {
                    i -= 1;
                }
                Kind::Comment
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                Kind::Str
            }
            b if is_word(b) => {
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                Kind::Word
            }
            _ => {
                i += source[i..].chars().next().map_or(1, char::len_utf8);
                Kind::Punct
            }
        };
        i = i.min(bytes.len());
        while !source.is_char_boundary(i) {
            i += 1;
        }
        tokens.push(Token {
            kind,
            span: start..i,
        });
    }
    tokens
}

// ---- structure from the parse tree ---------------------------------------------------------

/// Where one top-level declaration and its block are.
#[derive(Debug, Default)]
struct Block {
    /// The whole declaration.
    span: Range<usize>,
    /// The header (everything before the block, or the whole declaration if it has none).
    header: Range<usize>,
    /// End of the header's last token of code: `{` goes after it.
    header_code_end: usize,
    /// Position of `{` and `}` when written with braces.
    open: Option<usize>,
    close: Option<usize>,
    /// True for the whitespace form.
    indented: bool,
    /// True when the declaration has a block at all.
    has_block: bool,
    /// Each item of the block.
    items: Vec<Range<usize>>,
}

fn plan(source: &str, tokens: &[Token]) -> Result<Vec<Block>, Diagnostic> {
    // Syntax errors are reported with the parser's own message.
    crate::parse::parse(source)?;
    let internal = |what: &str| {
        Diagnostic::error(
            format!("internal formatter error: {what}"),
            0..0,
            "in this file",
        )
    };
    let root = ZapParser::parse(Rule::schema, source)
        .map_err(|_| internal("the file parses once but not twice"))?
        .next()
        .ok_or_else(|| internal("no schema"))?;
    let mut blocks = Vec::new();
    for decl in root.into_inner() {
        if matches!(decl.as_rule(), Rule::line_break | Rule::EOI) {
            continue;
        }
        blocks.push(trimmed(block_of(&decl), tokens));
    }
    Ok(blocks)
}

/// Pest spans can end with the spaces and the comment skipped before an optional part
/// that was not there: end each range at its last token of code instead.
fn trimmed(mut block: Block, tokens: &[Token]) -> Block {
    let code_end = |range: &Range<usize>| {
        tokens
            .iter()
            .filter(|t| !matches!(t.kind, Kind::Comment | Kind::Newline))
            .filter(|t| range.start <= t.span.start && t.span.end <= range.end)
            .map(|t| t.span.end)
            .max()
            .unwrap_or(range.start)
    };
    block.span.end = code_end(&block.span);
    block.header_code_end = code_end(&(block.header.start..block.header_code_end));
    for item in &mut block.items {
        item.end = code_end(item);
    }
    block
}

fn span(pair: &Pair<'_, Rule>) -> Range<usize> {
    pair.as_span().start()..pair.as_span().end()
}

/// The pair (the declaration or one of its descendants) whose children are a block.
fn block_parent<'i>(pair: &Pair<'i, Rule>) -> Option<Pair<'i, Rule>> {
    let children = || pair.clone().into_inner();
    if children().any(|c| matches!(c.as_rule(), Rule::open_brace | Rule::indented_line)) {
        return Some(pair.clone());
    }
    // An item with `(...)` has no block; only look inside what is not a leaf.
    children().find_map(|c| block_parent(&c))
}

fn block_of(decl: &Pair<'_, Rule>) -> Block {
    let span = span(decl);
    let mut block = Block {
        span: span.clone(),
        header: span.clone(),
        header_code_end: span.end,
        ..Block::default()
    };
    let Some(parent) = block_parent(decl) else {
        return block;
    };
    block.has_block = true;
    let mut after_indent = false;
    let mut inside_braces = false;
    let mut block_start = None;
    let mut last_header_end = span.start;
    for child in parent.into_inner() {
        let child_span = child.as_span();
        match child.as_rule() {
            Rule::open_brace => {
                block.open = Some(child_span.start());
                block_start.get_or_insert(child_span.start());
                last_header_end = child_span.end();
                inside_braces = true;
            }
            Rule::close_brace => {
                block.close = Some(child_span.start());
                inside_braces = false;
            }
            Rule::indented_line => {
                block.indented = true;
                block_start.get_or_insert(child_span.start());
                after_indent = true;
            }
            Rule::line_break => {}
            _ if inside_braces || after_indent => {
                block.items.push(child_span.start()..child_span.end());
                after_indent = false;
            }
            _ if block_start.is_none() => last_header_end = child_span.end(),
            _ => {}
        }
    }
    // The header may end before the block parent does (`struct Name deprecated {`).
    let block_start = block_start.unwrap_or(span.end);
    block.header = span.start..block_start;
    block.header_code_end = if block.open.is_some() {
        last_header_end
    } else {
        last_header_end.min(block_start)
    };
    block
}

// ---- printing --------------------------------------------------------------------------------

/// One output line.
#[derive(Debug, Default)]
struct Line {
    /// Indentation level; `None` for a comment line until the next code line decides.
    depth: Option<usize>,
    code: String,
    comment: Option<String>,
    /// The line opens a block (ends with `{`, or is a whitespace-form header).
    opens_block: bool,
    /// Not printed: stands for a `}` left out by [`Style::Indented`], so comment lines
    /// above it stay inside the block.
    hidden: bool,
    /// A blank line goes before this one.
    blank_before: bool,
}

impl Line {
    fn starts_with_close(&self) -> bool {
        self.code.starts_with('}')
    }
}

struct Printer<'a> {
    source: &'a str,
    tokens: &'a [Token],
    blocks: &'a [Block],
    style: Style,
    lines: Vec<Line>,
    current: Option<Line>,
    /// Last code token on the current line (for spacing).
    prev: Option<usize>,
    prev2: Option<usize>,
    /// Depth of the next line when it continues an item or a header.
    continuation: Option<usize>,
    pending_blank: bool,
    /// Nothing but spaces seen on this source line so far.
    source_line_empty: bool,
    /// The next comment on this source line belongs to the last printed line (after a `}`
    /// that the whitespace form leaves out).
    comment_to_previous: bool,
    /// A `}` to add when the current source line ends (whitespace-form input).
    close_at_line_end: bool,
}

impl<'a> Printer<'a> {
    fn new(source: &'a str, tokens: &'a [Token], blocks: &'a [Block], style: Style) -> Self {
        Printer {
            source,
            tokens,
            blocks,
            style,
            lines: Vec::new(),
            current: None,
            prev: None,
            prev2: None,
            continuation: None,
            pending_blank: false,
            source_line_empty: true,
            comment_to_previous: false,
            close_at_line_end: false,
        }
    }

    fn text(&self, index: usize) -> &'a str {
        &self.source[self.tokens[index].span.clone()]
    }

    fn block_at(&self, pos: usize) -> Option<&'a Block> {
        self.blocks
            .iter()
            .find(|b| b.span.start <= pos && pos < b.span.end.max(b.span.start + 1))
    }

    fn print(mut self) -> String {
        for index in 0..self.tokens.len() {
            let token = &self.tokens[index];
            match token.kind {
                Kind::Newline => self.newline(token.span.start),
                Kind::Comment => self.comment(index),
                _ => self.code(index),
            }
        }
        self.end_line();
        if self.close_at_line_end {
            self.close_inserted();
        }
        self.render()
    }

    fn newline(&mut self, pos: usize) {
        if self.source_line_empty && self.current.is_none() && self.continuation.is_none() {
            self.pending_blank = true;
        }
        self.end_line();
        if self.close_at_line_end {
            self.close_inserted();
        }
        self.source_line_empty = true;
        self.comment_to_previous = false;
        self.continuation = self.continuation_depth(pos);
    }

    /// Depth of the line after a line break at `pos`, if the break is inside an item or a
    /// header (a continuation) rather than between lines of the block structure.
    fn continuation_depth(&self, pos: usize) -> Option<usize> {
        let block = self.block_at(pos)?;
        if block
            .items
            .iter()
            .any(|item| item.start < pos && pos < item.end)
        {
            return Some(2);
        }
        (block.header.start < pos && pos < block.header.end).then_some(1)
    }

    fn comment(&mut self, index: usize) {
        let text = self.text(index).trim_end().to_owned();
        self.source_line_empty = false;
        if self.comment_to_previous {
            // After a `}` that the whitespace form leaves out: on the last line of the
            // block, or on a line of its own at the end of the block.
            self.comment_to_previous = false;
            let Some(hidden) = self.lines.iter().rposition(|l| l.hidden) else {
                return;
            };
            if let Some(line) = self.lines[..hidden].last_mut() {
                if line.comment.is_none() && !line.code.is_empty() {
                    line.comment = Some(text);
                    return;
                }
            }
            let line = Line {
                depth: Some(1),
                comment: Some(text),
                ..Line::default()
            };
            self.lines.insert(hidden, line);
            return;
        }
        if let Some(line) = &mut self.current {
            line.comment = Some(text);
            return;
        }
        let depth = self.continuation;
        self.push(Line {
            depth,
            comment: Some(text),
            ..Line::default()
        });
    }

    fn code(&mut self, index: usize) {
        let pos = self.tokens[index].span.start;
        self.source_line_empty = false;
        let block = self.block_at(pos);
        let is_open = block.is_some_and(|b| b.open == Some(pos));
        let is_close = block.is_some_and(|b| b.close == Some(pos));
        if is_open {
            if let Some(line) = &mut self.current {
                line.opens_block = true;
            }
            if self.style == Style::Indented {
                return;
            }
        }
        if is_close {
            self.close_brace(block.is_some_and(|b| b.items.is_empty()));
            return;
        }
        let start_depth = match block {
            Some(b) if b.span.start == pos => Some(0),
            Some(b) if b.items.iter().any(|item| item.start == pos) => Some(1),
            _ => None,
        };
        if let Some(depth) = start_depth {
            self.end_line();
            self.start_line(depth);
        } else if self.current.is_none() {
            // A line that starts by closing what the line before opened: one level less.
            let closing = matches!(self.text(index), ")" | "]");
            let depth = self.continuation.unwrap_or(0);
            self.start_line(depth - usize::from(closing && depth > 0));
        }
        self.append(index);
        let block =
            block.filter(|b| b.has_block && b.header_code_end == self.tokens[index].span.end);
        if let Some(block) = block {
            if let Some(line) = &mut self.current {
                line.opens_block = true;
            }
            if block.indented {
                if self.style == Style::Braces {
                    self.append_text("{");
                }
                if block.items.is_empty() {
                    self.close_at_line_end = true;
                }
            }
        }
        // The end of the last item of a whitespace-form block ends the block.
        let ends_block = |b: &Block| {
            b.indented
                && b.items
                    .last()
                    .is_some_and(|i| i.end == self.tokens[index].span.end)
        };
        if self.block_at(pos).is_some_and(ends_block) {
            self.close_at_line_end = true;
        }
    }

    /// A `}` written in the input.
    fn close_brace(&mut self, empty: bool) {
        match self.style {
            Style::Braces => {
                if empty && self.current.is_none() {
                    let reopen = self.lines.last().is_some_and(|l| {
                        l.opens_block && l.comment.is_none() && !l.hidden && l.code.ends_with('{')
                    });
                    if reopen {
                        self.current = self.lines.pop();
                        self.pending_blank = false;
                    }
                }
                let after_open = self
                    .current
                    .as_ref()
                    .is_some_and(|l| l.opens_block && l.comment.is_none());
                if empty && after_open {
                    if let Some(line) = &mut self.current {
                        line.code.push('}');
                    }
                    return;
                }
                self.end_line();
                self.start_line(0);
                self.append_text("}");
            }
            Style::Indented => {
                self.end_line();
                self.push(Line {
                    depth: Some(0),
                    code: "}".to_owned(),
                    hidden: true,
                    ..Line::default()
                });
                self.comment_to_previous = true;
                self.pending_blank = true;
            }
        }
    }

    /// The end of a whitespace-form block (after its last item's line).
    fn close_inserted(&mut self) {
        self.close_at_line_end = false;
        self.end_line();
        match self.style {
            Style::Braces => {
                let last = self
                    .lines
                    .iter_mut()
                    .rev()
                    .find(|l| l.depth.is_some() && !l.code.is_empty());
                if let Some(line) = last.filter(|l| l.opens_block && l.code.ends_with('{')) {
                    line.code.push('}');
                    line.opens_block = false;
                    return;
                }
                self.push(Line {
                    depth: Some(0),
                    code: "}".to_owned(),
                    ..Line::default()
                });
            }
            Style::Indented => {}
        }
    }

    fn start_line(&mut self, depth: usize) {
        self.current = Some(Line {
            depth: Some(depth),
            ..Line::default()
        });
        self.prev = None;
        self.prev2 = None;
    }

    fn end_line(&mut self) {
        if let Some(line) = self.current.take() {
            self.push(line);
        }
        self.prev = None;
        self.prev2 = None;
    }

    fn push(&mut self, mut line: Line) {
        if std::mem::take(&mut self.pending_blank) {
            let previous = self.lines.iter().rev().find(|l| !l.hidden);
            let after_open = previous.is_some_and(|l| l.opens_block);
            line.blank_before = previous.is_some() && !after_open && !line.starts_with_close();
        }
        self.lines.push(line);
    }

    fn append(&mut self, index: usize) {
        let space = match self.prev {
            Some(prev) => self.space_between(prev, index),
            None => false,
        };
        let text = self.text(index);
        if let Some(line) = &mut self.current {
            if space {
                line.code.push(' ');
            }
            line.code.push_str(text);
        }
        self.prev2 = self.prev;
        self.prev = Some(index);
    }

    /// Append text that is not a source token (a `{` or `}` the output adds).
    fn append_text(&mut self, text: &str) {
        if let Some(line) = &mut self.current {
            if !line.code.is_empty() {
                line.code.push(' ');
            }
            line.code.push_str(text);
        }
        self.prev = None;
        self.prev2 = None;
    }

    fn space_between(&self, prev: usize, next: usize) -> bool {
        let p = self.text(prev);
        let n = self.text(next);
        let prev_is_name = self.tokens[prev].kind == Kind::Word
            && p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        match n {
            ")" | "]" | ">" | "," | "." => return false,
            ":" => return self.prev2.is_some_and(|i| self.text(i) == "enum"),
            _ => {}
        }
        if matches!(p, "(" | "[" | "<" | "." | "@" | "-") {
            return false;
        }
        match n {
            "<" => false,
            "[" => !prev_is_name,
            "(" => !prev_is_name || p == "returns",
            _ => true,
        }
    }

    fn render(mut self) -> String {
        // A comment line takes the depth of the next code line (one deeper above a `}`),
        // or, when a blank line comes first, of the line of code before it (one deeper
        // after a block header): a comment stays with what it is next to.
        let is_code = |l: &Line| !l.code.is_empty();
        for i in 0..self.lines.len() {
            if self.lines[i].depth.is_some() {
                continue;
            }
            let next = self.lines[i + 1..]
                .iter()
                .take_while(|l| !l.blank_before)
                .find(|l| is_code(l));
            let depth = match next {
                Some(line) => line.depth.unwrap_or(0) + usize::from(line.starts_with_close()),
                None => self.lines[..i]
                    .iter()
                    .rev()
                    .find(|l| is_code(l))
                    .map_or(0, |l| l.depth.unwrap_or(0) + usize::from(l.opens_block)),
            };
            self.lines[i].depth = Some(depth);
        }
        // Trailing comments of consecutive lines line up, two spaces after the longest code.
        let shown: Vec<&Line> = self.lines.iter().filter(|l| !l.hidden).collect();
        let width = |l: &Line| l.depth.unwrap_or(0) * 4 + l.code.chars().count();
        let trailing = |l: &Line| !l.code.is_empty() && l.comment.is_some();
        let mut comment_column = vec![0; shown.len()];
        let mut start = 0;
        while start < shown.len() {
            let mut end = start;
            while end < shown.len()
                && trailing(shown[end])
                && (end == start || !shown[end].blank_before)
            {
                end += 1;
            }
            let column = shown[start..end]
                .iter()
                .map(|l| width(l))
                .max()
                .unwrap_or(0);
            for slot in &mut comment_column[start..end] {
                *slot = column;
            }
            start = end.max(start + 1);
        }
        let mut out = String::new();
        for (line, column) in shown.iter().zip(comment_column) {
            if line.blank_before && !out.is_empty() {
                out.push('\n');
            }
            for _ in 0..line.depth.unwrap_or(0) {
                out.push_str("    ");
            }
            out.push_str(&line.code);
            if let Some(comment) = &line.comment {
                if !line.code.is_empty() {
                    let pad = column.saturating_sub(width(line)) + 2;
                    out.extend(std::iter::repeat_n(' ', pad));
                }
                out.push_str(comment);
            }
            out.push('\n');
        }
        out
    }
}

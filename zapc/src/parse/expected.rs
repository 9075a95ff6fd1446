//! Turns a pest error into a diagnostic that says, in words, what was expected and what
//! was found instead. Grammar rule names never reach the user.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::grammar::Rule;
use crate::diag::Diagnostic;

/// The diagnostic for a pest syntax error in `source`.
pub(super) fn syntax_error(source: &str, error: &Error<Rule>) -> Diagnostic {
    let position = match error.location {
        InputLocation::Pos(pos) => pos,
        InputLocation::Span((start, _)) => start,
    };
    let (expected, hint) = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            (expected_phrase(positives), hint_for(positives))
        }
        ErrorVariant::CustomError { message } => (message.clone(), None),
    };
    let (found, span) = found_at(source, position);
    let mut diagnostic = Diagnostic::error(
        format!("syntax error: expected {expected}, found {found}"),
        span,
        format!("expected {expected}"),
    );
    if position >= source.len() {
        if let Some(open) = unclosed_brace(source) {
            diagnostic = diagnostic.with_secondary(open..open + 1, "this `{` is never closed");
        }
    }
    diagnostic.with_hint(hint.unwrap_or("the syntax of .zap files is described in spec/schema.md"))
}

/// The position of the last `{` without a matching `}` (comments skipped).
fn unclosed_brace(source: &str) -> Option<usize> {
    let mut open = Vec::new();
    let mut in_comment = false;
    for (index, ch) in source.char_indices() {
        match ch {
            '\n' => in_comment = false,
            '#' => in_comment = true,
            '{' if !in_comment => open.push(index),
            '}' if !in_comment => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// "a, b or c", in the order pest tried them, without repeats.
fn expected_phrase(rules: &[Rule]) -> String {
    let mut phrases: Vec<&str> = Vec::new();
    for rule in relevant(rules) {
        let phrase = describe(rule);
        if !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    match phrases.split_last() {
        None => "something else".to_owned(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

const DECLARATION_KEYWORDS: [Rule; 7] = [
    Rule::kw_package,
    Rule::kw_import,
    Rule::kw_type,
    Rule::kw_const,
    Rule::kw_struct,
    Rule::kw_interface,
    Rule::kw_enum,
];

/// The expectations worth telling: a line break or the end of the file is possible almost
/// everywhere, so it is only mentioned when nothing else was expected; the
/// declaration keywords are told as one "declaration".
fn relevant(rules: &[Rule]) -> Vec<Rule> {
    // `misplaced_part` is tried where its words are, and they are told on their own.
    let is_filler = |r: &Rule| matches!(r, Rule::line_break | Rule::EOI | Rule::misplaced_part);
    let mut kept: Vec<Rule> = if rules.iter().all(is_filler) {
        rules.to_vec()
    } else {
        rules.iter().copied().filter(|r| !is_filler(r)).collect()
    };
    if DECLARATION_KEYWORDS.iter().all(|k| kept.contains(k)) {
        kept.retain(|r| !DECLARATION_KEYWORDS.contains(r));
        kept.insert(0, Rule::declaration);
    }
    kept
}

/// What the writer of a schema calls the thing a rule matches.
fn describe(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::schema => "a schema",
        Rule::line_break => "a line break",
        Rule::package_decl => "a package declaration",
        Rule::import_decl => "an import",
        Rule::import_path => "a quoted file path like `\"common.zap\"`",
        Rule::kw_import => "`import`",
        Rule::alias_decl => "a type alias",
        Rule::struct_decl => "a struct",
        Rule::interface_decl => "an interface",
        Rule::enum_decl => "an enum",
        Rule::enum_value => "an enum value like `Red = 0`",
        Rule::indented_line | Rule::indentation => "an indented line",
        Rule::field => "a field",
        Rule::offset => "an offset like `@8`",
        Rule::method => "a method",
        Rule::parameters => "parameters",
        Rule::parameter => "a parameter",
        Rule::method_result => "`returns`",
        Rule::requirement | Rule::kw_requires => "`requires`",
        Rule::idempotency | Rule::kw_idempotent => "`idempotent`",
        Rule::kw_no_side_effects => "`no_side_effects`",
        Rule::permission_bits => "permission bits like `0x1`",
        Rule::json_options | Rule::kw_json => "`json(...)`",
        Rule::json_option | Rule::option_name => "a JSON option like `quantity` or `name = \"x\"`",
        Rule::option_value => "an option value",
        Rule::option_names => "a list of field names like `[A, B]`",
        Rule::option_word => "a name",
        Rule::option_text => "a quoted string",
        Rule::type_expr => "a type",
        Rule::list_type => "a list type",
        Rule::ptr_type => "a pointer type",
        Rule::bytes_fixed_type => "`bytes_fixed[N]`",
        Rule::package_name => "a package name",
        Rule::alias_name => "an alias name",
        Rule::struct_name => "a struct name",
        Rule::interface_name => "an interface name",
        Rule::field_name => "a field name",
        Rule::method_name => "a method name",
        Rule::parameter_name => "a parameter name",
        Rule::type_name => "a type name",
        Rule::enum_name => "an enum name",
        Rule::enum_repr => "the enum's integer type (`u8`, `u16` or `u32`)",
        Rule::value_name => "an enum value name",
        Rule::value_number => "an enum value number",
        Rule::offset_number => "an offset number",
        Rule::byte_count => "a byte count",
        Rule::kw_package => "`package`",
        Rule::kw_type => "`type`",
        Rule::kw_struct => "`struct`",
        Rule::kw_interface => "`interface`",
        Rule::kw_enum => "`enum`",
        Rule::kw_returns => "`returns`",
        Rule::kw_stream => "`stream`",
        Rule::kw_list => "`list`",
        Rule::kw_ptr => "`ptr`",
        Rule::kw_bytes_fixed => "`bytes_fixed`",
        Rule::equals_sign | Rule::value_equals => "`=`",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::open_paren => "`(`",
        Rule::close_paren => "`)`",
        Rule::open_angle => "`<`",
        Rule::close_angle => "`>`",
        Rule::open_bracket => "`[`",
        Rule::close_bracket => "`]`",
        Rule::colon | Rule::repr_colon => "`:`",
        Rule::comma => "`,`",
        Rule::const_decl => "a constant",
        Rule::const_name => "a constant name",
        Rule::const_value => "a constant value (a number, `true`, `false` or a quoted text)",
        Rule::const_bool => "`true` or `false`",
        Rule::const_integer => "an integer",
        Rule::const_text => "a quoted text",
        Rule::kw_const => "`const`",
        Rule::deprecation | Rule::kw_deprecated => "`deprecated`",
        Rule::ordinal => "an ordinal like `@1`",
        Rule::ordinal_number => "an ordinal number",
        Rule::reserved_field | Rule::reserved_method | Rule::kw_reserved => "`reserved`",
        Rule::struct_item => "a field",
        Rule::misplaced_part => "the end of the item",
        Rule::interface_item => "a method",
        // Silent rules: pest never reports them, but they are named for completeness.
        Rule::WHITESPACE | Rule::blank_line_rest => "a space",
        Rule::COMMENT => "a comment",
        Rule::declaration => {
            "a declaration (`package`, `import`, `type`, `const`, `struct`, `interface` or `enum`)"
        }
        Rule::end_of_declaration => "the end of the declaration",
        Rule::item_end => "the end of the line",
        Rule::brace_fields | Rule::indented_fields => "fields",
        Rule::brace_methods | Rule::indented_methods => "methods",
        Rule::brace_values | Rule::indented_values => "enum values",
        Rule::ident_char | Rule::identifier => "a name",
    }
}

/// A one-line reminder of the syntax of what was expected, the most specific first.
fn hint_for(rules: &[Rule]) -> Option<&'static str> {
    const BY_PRIORITY: [(Rule, &str); 20] = [
        (Rule::repr_colon, "an enum is written `enum Name : u8 { A = 0  B = 1 }`"),
        (Rule::value_number, "an enum value is written `Name = N`, e.g. `Red = 0`"),
        (Rule::value_equals, "an enum value is written `Name = N`, e.g. `Red = 0`"),
        (Rule::enum_repr, "an enum is written `enum Name : u8 { A = 0  B = 1 }`"),
        (Rule::offset_number, "an offset is `@` followed by a byte offset, e.g. `@16`"),
        (Rule::ordinal_number, "an ordinal is `@` followed by a number from 1, e.g. `getBalance @1 (req: Request)` or `reserved @3`"),
        (Rule::const_value, "a constant is written `const NAME: type = value`, e.g. `const MAX_LOGS: u32 = 1000`"),
        (Rule::const_name, "a constant is written `const NAME: type = value`, e.g. `const MAX_LOGS: u32 = 1000`"),
        (Rule::byte_count, "a fixed byte array is written `bytes_fixed[N]`, e.g. `bytes_fixed[32]`"),
        (Rule::type_expr, "a type is a scalar like `u64`, `text`, `bytes`, `bytes_fixed[N]`, `list<T>`, a struct or an alias"),
        (Rule::close_angle, "a list is written `list<T>` and a pointer list `list<ptr<T>>`"),
        (Rule::open_angle, "a list is written `list<T>` and a pointer list `list<ptr<T>>`"),
        (Rule::equals_sign, "an alias is written `type name = Type`"),
        (Rule::method_name, "a method is written `name(req: Request) returns (resp: Response)`"),
        (Rule::kw_returns, "a method is written `name(req: Request) returns (resp: Response)`"),
        (Rule::parameter, "a method is written `name(req: Request) returns (resp: Response)`"),
        (Rule::close_paren, "a method is written `name(req: Request) returns (resp: Response)`"),
        (Rule::field_name, "a field is written `Name Type [@Offset]`, e.g. `Id u64 @0`"),
        (Rule::import_path, "an import is written `import \"other.zap\"`, a path relative to this file"),
        (Rule::kw_struct, "a file is a sequence of `package`, `import`, `type`, `const`, `struct`, `interface` and `enum` declarations"),
    ];
    BY_PRIORITY
        .iter()
        .find(|(rule, _)| rules.contains(rule))
        .map(|(_, hint)| *hint)
}

/// Describe the text at `position` and the span of the token there.
fn found_at(source: &str, position: usize) -> (String, std::ops::Range<usize>) {
    let rest = source.get(position..).unwrap_or("");
    let Some(first) = rest.chars().next() else {
        return ("end of file".to_owned(), position..position);
    };
    let word_len: usize = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    match first {
        '\n' | '\r' => ("a line break".to_owned(), position..position),
        '\t' => ("a tab".to_owned(), position..position + 1),
        _ if word_len > 0 => {
            let word = &rest[..word_len];
            (format!("`{word}`"), position..position + word_len)
        }
        _ => {
            let len = first.len_utf8();
            (format!("`{first}`"), position..position + len)
        }
    }
}

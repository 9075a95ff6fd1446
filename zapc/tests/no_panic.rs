//! Hostile input: `load_str` answers every string with `Ok` or `Err`, never a panic or a
//! stack overflow. Inputs are arbitrary strings, token soups that reach deep into the
//! grammar, and mutations of the valid schemas in `schemas/`.

use proptest::prelude::*;
use zapc::load_str;

const VALID_SCHEMAS: [&str; 13] = [
    include_str!("../../schemas/eth.zap"),
    include_str!("../../schemas/kitchen.zap"),
    include_str!("../../schemas/aliases.zap"),
    include_str!("../../schemas/indent.zap"),
    include_str!("../../schemas/lists.zap"),
    include_str!("../../schemas/offsets.zap"),
    include_str!("../../schemas/service.zap"),
    include_str!("../../schemas/docs.zap"),
    include_str!("../../schemas/golden.zap"),
    include_str!("../../schemas/tails.zap"),
    include_str!("../../schemas/evolution.zap"),
    include_str!("../../schemas/enums.zap"),
    include_str!("../../schemas/enums_indent.zap"),
];

/// Pieces of schema syntax, plus things that should never appear.
const TOKENS: &[&str] = &[
    "package",
    "type",
    "struct",
    "interface",
    "import",
    "\"common.zap\"",
    "\"/dev/zero\"",
    "common.Kind",
    "enum",
    "enum E : u8 {",
    "A = 0",
    "Unknown = 1",
    "u16",
    "u32",
    "= 255",
    "= 65536",
    "returns",
    "list",
    "ptr",
    "bytes_fixed",
    // Schema evolution: constants, ordinals, reserved slots, deprecation.
    "const",
    "reserved",
    "deprecated",
    "true",
    "false",
    "\"text\"",
    "-",
    "-129",
    "0x10000",
    "@4294967295",
    "u8",
    "u64",
    "i32",
    "f64",
    "bool",
    "text",
    "bytes",
    "Foo",
    "Bar",
    "x",
    "{",
    "}",
    "<",
    ">",
    "[",
    "]",
    "(",
    ")",
    ":",
    ",",
    "=",
    "@",
    "@0",
    "@8",
    "@99999999999999999999",
    "0",
    "4294967296",
    "18446744073709551616",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "    ",
    "# c\n",
    "#",
    "é",
    "🦀",
    "\u{0}",
    "\u{feff}",
    "\u{202e}",
];

fn load_never_panics(text: &str) {
    // The result does not matter; reaching this line without a panic does.
    let _ = zapc::fmt::format(text, zapc::fmt::Style::Braces);
    let _ = zapc::fmt::format(text, zapc::fmt::Style::Indented);
    let outcome = load_str("fuzz.zap", text);
    if let Err(errors) = outcome {
        assert!(!errors.is_empty());
        let _ = errors.render();
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Delete(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let piece = prop_oneof![
        prop::sample::select(TOKENS).prop_map(str::to_owned),
        any::<char>().prop_map(String::from),
    ];
    prop_oneof![
        (any::<usize>(), piece).prop_map(|(at, s)| Edit::Insert(at, s)),
        (any::<usize>(), 1usize..8).prop_map(|(at, n)| Edit::Delete(at, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// Clamp `at` into the text and back to a character boundary.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &mut String, edit: &Edit) {
    match edit {
        Edit::Insert(at, piece) => {
            let at = boundary(text, *at);
            text.insert_str(at, piece);
        }
        Edit::Delete(at, len) => {
            let start = boundary(text, *at);
            let end = boundary(text, start.saturating_add(*len).min(text.len()));
            text.replace_range(start..end.max(start), "");
        }
        Edit::Truncate(at) => {
            let at = boundary(text, *at);
            text.truncate(at);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        load_never_panics(&text);
    }

    #[test]
    fn token_soup(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..80)) {
        load_never_panics(&tokens.concat());
    }

    #[test]
    fn mutated_valid_schemas(
        which in 0..VALID_SCHEMAS.len(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        let mut text = VALID_SCHEMAS[which].to_owned();
        for edit in &edits {
            apply(&mut text, edit);
        }
        load_never_panics(&text);
    }
}

#[test]
fn deeply_nested_lists_are_refused_without_overflow() {
    for depth in [1, 2, 31, 32, 33, 1_000, 100_000] {
        let ty = format!("{}u8{}", "list<".repeat(depth), ">".repeat(depth));
        let text = format!("struct Deep {{ X {ty} }}\ntype t = {ty}\n");
        let outcome = load_str("deep.zap", &text);
        assert_eq!(outcome.is_ok(), depth == 1, "depth {depth}");
    }
    let unclosed = format!("struct Deep {{ X {} }}", "list<".repeat(100_000));
    assert!(load_str("deep.zap", &unclosed).is_err());
}

#[test]
fn huge_numbers_are_errors_not_panics() {
    for text in [
        "struct A { X u8 @99999999999999999999 }",
        "struct A { X u8 @4294967295 }",
        "struct A { X u64 @4294967295 }",
        "struct A { X bytes_fixed[4294967296] }",
        "struct A { X bytes_fixed[4294967295] Y bytes_fixed[4294967295] }",
        "struct A { X bytes_fixed[4294967295] @4294967295 }",
        "struct A { X list<bytes_fixed[99999999999999999999999]> }",
        "enum E : u8 { A = 99999999999999999999999 }",
        "enum E : u32 { A = 4294967296 }",
        "enum E : u64 { A = 18446744073709551615 }",
    ] {
        assert!(load_str("huge.zap", text).is_err(), "{text}");
    }
    let max_fit = load_str("fit.zap", "struct A { X u8 @4294967294 }").unwrap();
    assert_eq!(max_fit.structs[0].size, u32::MAX);
}

#[test]
fn odd_whitespace_and_unicode_do_not_panic() {
    for text in [
        "",
        "\n\n\n",
        "\t",
        "struct A\n\t\tX u8\n",
        "struct A\n \t X u8\n",
        "struct Ä { X u8 }",
        "struct A { X u8 } # é 🦀\n",
        "# 🦀\nstruct A {\n  # 🦀\n  X u8\n}",
        "\u{feff}struct A { X u8 }",
        "struct A {\r\n X u8\r}",
        "interface I\n\tm()\n",
    ] {
        load_never_panics(text);
    }
}

#[test]
fn evolution_edge_cases_are_errors_or_code_not_panics() {
    let cases = [
        (
            "const X: i64 = -170141183460469231731687303715884105729",
            false,
        ),
        (
            "const X: u64 = 0x1ffffffffffffffffffffffffffffffffffff",
            false,
        ),
        (
            "const X: i8 = -128\nconst Y: u64 = 18446744073709551615",
            true,
        ),
        ("const _A: u8 = 1", true),
        ("const __: u8 = 1", false),
        ("const X: text = \"\"", true),
        ("const X: text = \"é 🦀 \u{202e}\"", true),
        ("interface I { a @4294967295 () b () }", false),
        ("interface I { a @4294967039 () b () }", true),
        ("interface I { reserved @4294967295 a () }", true),
        ("interface I { a @4294967296 () }", false),
        ("interface I { a () reserved @1 }", false),
        (
            "interface I\n    reserved @1\n    reserved() deprecated\n",
            false,
        ),
        ("interface I { reserved @2 reserved @3 }", true),
        ("struct A { reserved X u8 @4294967294 }", true),
        ("struct A deprecated { reserved X u8 }", true),
        ("struct A { reserved X bytes_fixed[4294967295] @1 }", false),
        ("struct A { reserved reserved u8 reserved u8 }", false),
        ("struct A { X u8 deprecated json(name = \"x\") }", true),
    ];
    for (text, loads) in cases {
        match load_str("edge.zap", text) {
            Ok(schema) => {
                assert!(loads, "{text:?} must be refused");
                let code = zapc::codegen::render(&schema, &zapc::codegen::Options::default());
                let body = code.split_once("\n\n").map_or("", |(_, body)| body);
                syn::parse_file(body).unwrap_or_else(|e| panic!("{text:?}: {e}\n{code}"));
            }
            Err(errors) => {
                assert!(!loads, "{text:?}: {}", errors.render());
                let _ = errors.render();
            }
        }
    }
}

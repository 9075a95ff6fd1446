//! `zapc fmt`: the canonical layout keeps the meaning (the same laid-out IR, the same
//! comments), is idempotent, and looks as documented (snapshots of `tests/fmt/*.zap`).

use std::path::Path;

use proptest::prelude::*;
use zapc::fmt::{format, format_checked, Style};
use zapc::{load_str, load_str_in};

fn schemas_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

/// The front end, with imports read from `schemas/`.
fn load(name: &str, text: &str) -> Result<zapc::ir::Schema, zapc::Diagnostics> {
    load_str_in(name, text, &schemas_dir())
}

fn checked(name: &str, text: &str, style: Style) -> String {
    format_checked(name, text, style, load).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Both styles keep the IR, are idempotent, and turn into each other.
fn assert_round_trips(name: &str, text: &str) {
    let braces = checked(name, text, Style::Braces);
    let indented = checked(name, text, Style::Indented);
    assert_eq!(
        checked(name, &braces, Style::Braces),
        braces,
        "{name}: not idempotent"
    );
    assert_eq!(
        checked(name, &indented, Style::Indented),
        indented,
        "{name}: --indent is not idempotent"
    );
    assert_eq!(
        load(name, &checked(name, &indented, Style::Braces)).unwrap(),
        load(name, text).unwrap(),
        "{name}: braces of the whitespace form"
    );
}

fn schema_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(schemas_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "zap"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_schema_is_formatted_and_round_trips() {
    let files = schema_files();
    assert!(files.len() >= 10);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_round_trips(&name, &text);
        assert_eq!(
            checked(&name, &text, Style::of_file(&text, Style::Braces)),
            text,
            "schemas/{name} is not formatted: run `zapc fmt schemas/`"
        );
    }
}

/// Snapshots `fmt__formatted@<file>.snap`: the input, the brace form and the whitespace form.
#[test]
fn formatted() {
    insta::glob!("fmt/*.zap", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_round_trips(&name, &text);
        let braces = checked(&name, &text, Style::Braces);
        let indented = checked(&name, &text, Style::Indented);
        insta::assert_snapshot!(format!(
            "==== input\n{}==== zapc fmt\n{braces}==== zapc fmt --indent\n{indented}",
            text.replace('\r', "\\r")
        ));
    });
}

#[test]
fn an_invalid_schema_is_not_formatted() {
    let error = format_checked("bad.zap", "struct A { X u65 }\n", Style::Braces, load_str)
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown type `u65`"), "{error}");
    assert!(error.contains("bad.zap:1:14"), "{error}");
    let error = format("struct A {\n", Style::Braces).unwrap_err();
    assert!(error.message.contains("syntax error"), "{error:?}");
}

#[test]
fn a_result_that_means_something_else_is_refused() {
    // A front end that sees the formatting (here: the length of the text) stands for a
    // formatter bug; the result must be refused, not returned.
    let load = |name: &str, text: &str| {
        let mut schema = load_str(name, text)?;
        schema.package = Some(text.len().to_string());
        Ok(schema)
    };
    let error = format_checked("odd.zap", "struct A {  X u8 }\n", Style::Braces, load)
        .unwrap_err()
        .to_string();
    assert!(error.contains("would change the schema"), "{error}");
    assert!(error.contains("the laid-out IR differs"), "{error}");
}

// ---- random schemas --------------------------------------------------------------------------

const TYPES: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "i32",
    "bool",
    "f64",
    "text",
    "bytes",
    "bytes_fixed[20]",
    "list<u32>",
    "list<text>",
    "list < bytes_fixed [ 4 ] >",
    "id",
];

/// Spaces the writer may put between tokens (a generated schema is never formatted).
fn gap() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&[" ", "  ", "\t", "   "][..])
}

fn comment() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(
        &["# c", "#d", "# a { b } (c) @8", "#"][..],
    ))
    .prop_map(|c| c.map(str::to_owned))
}

#[derive(Debug, Clone)]
struct Field {
    ty: &'static str,
    json: bool,
    doc: Option<String>,
    trailing: Option<String>,
    blank_before: bool,
    gap: &'static str,
}

fn field() -> impl Strategy<Value = Field> {
    (
        prop::sample::select(TYPES),
        any::<bool>(),
        comment(),
        comment(),
        prop::bool::weighted(0.2),
        gap(),
    )
        .prop_map(|(ty, json, doc, trailing, blank_before, gap)| Field {
            ty,
            json,
            doc,
            trailing,
            blank_before,
            gap,
        })
}

#[derive(Debug, Clone)]
enum Form {
    /// One item per line in braces.
    Braces,
    /// All items on the header line.
    OneLine,
    /// The whitespace form.
    Indented,
}

fn form() -> impl Strategy<Value = Form> {
    prop_oneof![
        Just(Form::Braces),
        Just(Form::OneLine),
        Just(Form::Indented)
    ]
}

#[derive(Debug, Clone)]
struct Decl {
    form: Form,
    doc: Option<String>,
    fields: Vec<Field>,
    blank_after: usize,
}

fn decl() -> impl Strategy<Value = Decl> {
    (
        form(),
        comment(),
        prop::collection::vec(field(), 0..6),
        0usize..3,
    )
        .prop_map(|(form, doc, fields, blank_after)| Decl {
            form,
            doc,
            fields,
            blank_after,
        })
}

fn schema_text(decls: &[Decl], methods: &[(bool, bool)], crlf: bool) -> String {
    let mut out = String::from("package random  # the package\ntype id = bytes_fixed[8]\n");
    for (d, decl) in decls.iter().enumerate() {
        if let Some(doc) = &decl.doc {
            out.push_str(&format!("{doc}\n"));
        }
        let name = format!("S{d}");
        let field_text = |i: usize, f: &Field| {
            let json = if f.json {
                format!(" json( name = \"k{i}\" )")
            } else {
                String::new()
            };
            format!("F{i}{}{}{json}", f.gap, f.ty)
        };
        match decl.form {
            Form::OneLine => {
                let items: Vec<String> = decl
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| field_text(i, f))
                    .collect();
                out.push_str(&format!("struct {name} {{ {} }}\n", items.join("  ")));
            }
            Form::Braces | Form::Indented => {
                let braces = matches!(decl.form, Form::Braces);
                out.push_str(&format!(
                    "struct {name}{}\n",
                    if braces { " {" } else { "" }
                ));
                for (i, f) in decl.fields.iter().enumerate() {
                    if f.blank_before {
                        out.push('\n');
                    }
                    if let Some(doc) = &f.doc {
                        out.push_str(&format!("  {doc}\n"));
                    }
                    out.push_str(&format!("  {}", field_text(i, f)));
                    if let Some(c) = &f.trailing {
                        out.push_str(&format!(" {c}"));
                    }
                    out.push('\n');
                }
                if braces {
                    out.push_str("}\n");
                }
            }
        }
        out.push_str(&"\n".repeat(decl.blank_after));
    }
    if !methods.is_empty() && !decls.is_empty() {
        out.push_str("interface Api {\n");
        for (i, (result, wrap)) in methods.iter().enumerate() {
            out.push_str(&format!("    m{i}( a : S0 )"));
            if *result {
                out.push_str(" returns(r: S0)");
            }
            if *wrap {
                out.push_str(&format!(
                    " json(\n   name = \"m{i}\",\n        params = [])"
                ));
            }
            out.push('\n');
        }
        out.push_str("}\n");
    }
    if crlf {
        out = out.replace('\n', "\r\n");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_schemas_keep_their_ir_and_format_idempotently(
        decls in prop::collection::vec(decl(), 0..5),
        methods in prop::collection::vec((any::<bool>(), any::<bool>()), 0..4),
        crlf in prop::bool::weighted(0.1),
    ) {
        let text = schema_text(&decls, &methods, crlf);
        prop_assert!(load_str("random.zap", &text).is_ok(), "generated an invalid schema:\n{}", text);
        assert_round_trips("random.zap", &text);
    }
}

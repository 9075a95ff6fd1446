//! Every schema in `tests/invalid/` is refused, and its rendered diagnostics are
//! snapshot-tested (one snapshot per file, in `tests/snapshots/`).

use std::path::Path;

use zapc::load_str;

/// Render the errors of one invalid schema, naming it by its path under `tests/`.
fn render_invalid(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let name = format!("invalid/{}", path.file_name().unwrap().to_string_lossy());
    match load_str(&name, &text) {
        Ok(_) => panic!("{name} must be refused"),
        Err(errors) => errors.render(),
    }
}

/// Snapshots are named `diagnostics__invalid@<file>.snap`.
#[test]
fn invalid() {
    insta::glob!("invalid/*.zap", |path| {
        insta::assert_snapshot!(render_invalid(path));
    });
}

/// The errors of a schema with imports, loaded from its file (imports are relative to it),
/// naming every file by its path under `tests/`.
fn render_invalid_import(path: &Path) -> String {
    let name = format!(
        "tests/invalid/imports/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    match zapc::load_file(Path::new(&name)) {
        Ok(_) => panic!("{name} must be refused"),
        Err(error) => error.to_string(),
    }
}

/// Snapshots `diagnostics__invalid_imports@import_<case>.zap.snap`: each `import_*.zap`
/// in `tests/invalid/imports/` with the `lib_*.zap` files it imports.
#[test]
fn invalid_imports() {
    insta::glob!("invalid/imports/import_*.zap", |path| {
        insta::assert_snapshot!(render_invalid_import(path));
    });
}

#[test]
fn the_corpus_is_large_enough() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid");
    let count = std::fs::read_dir(dir).unwrap().count();
    assert!(count >= 15, "only {count} invalid schemas");
}

#[test]
fn all_errors_of_a_file_are_reported_in_one_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid/many_errors.zap");
    let text = std::fs::read_to_string(path).unwrap();
    let errors = load_str("many_errors.zap", &text).unwrap_err();
    let messages: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
    for expected in [
        "second package declaration",
        "alias cycle",
        "unknown type `u65`",
        "duplicate field `Id`",
        "`bytes_fixed[0]` holds no bytes",
        "outside a list",
        "list of lists",
        "duplicate struct `Order`",
        "takes 2 parameters",
        "not a struct",
    ] {
        assert!(
            messages.iter().any(|m| m.contains(expected)),
            "missing {expected:?} in {messages:#?}"
        );
    }
}

#[test]
fn errors_are_sorted_by_position() {
    let text = "struct B { X nope }\nstruct A { Y u63 }\ntype a = a\n";
    let errors = load_str("order.zap", text).unwrap_err();
    let starts: Vec<usize> = errors.iter().map(|d| d.primary.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    assert_eq!(starts, sorted);
    assert_eq!(errors.len(), 3);
}

#[test]
fn syntax_errors_name_what_was_expected_in_words() {
    let cases = [
        ("struct { X u8 }", "expected a struct name"),
        ("struct A { X }", "expected a type"),
        ("type a bytes", "expected `=`"),
        ("struct A { X bytes_fixed[] }", "expected a byte count"),
        ("interface I { m(a: A }", "expected `)` or `,`"),
        ("struct A { X u8 @ }", "expected an offset number"),
    ];
    for (text, expected) in cases {
        let errors = load_str("syntax.zap", text).unwrap_err();
        let rendered = errors.render();
        assert!(rendered.contains(expected), "{text:?}:\n{rendered}");
        assert!(!rendered.contains("_decl"), "rule name leaked:\n{rendered}");
        assert!(
            !rendered.contains("type_expr"),
            "rule name leaked:\n{rendered}"
        );
    }
}

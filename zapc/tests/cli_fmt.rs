//! The real `zapc fmt`: rewriting in place, standard input, `--check` and its exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ZAPC: &str = env!("CARGO_BIN_EXE_zapc");
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn zapc(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(ZAPC)
        .args(args)
        .current_dir(WORKSPACE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the zapc binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_fmt_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MESSY: &str = "package p\nstruct A { X u8 @0  Y u16 @2 }   # two fields\n";
const TIDY: &str = "package p\nstruct A {\n    X u8 @0\n    Y u16 @2\n}  # two fields\n";

#[test]
fn standard_input_goes_to_standard_output() {
    for args in [&["fmt"][..], &["fmt", "-"]] {
        let output = zapc(args, MESSY);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout), TIDY);
    }
    let output = zapc(&["fmt", "--indent"], MESSY);
    assert_eq!(
        text(&output.stdout),
        "package p\nstruct A\n    X u8 @0\n    Y u16 @2  # two fields\n"
    );
}

#[test]
fn files_and_directories_are_rewritten_in_place() {
    let dir = scratch("in_place");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.zap"), MESSY).unwrap();
    std::fs::write(dir.join("sub/b.zap"), TIDY).unwrap();
    std::fs::write(dir.join("notes.txt"), MESSY).unwrap();
    let output = zapc(&["fmt", dir.to_str().unwrap()], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("a.zap")).unwrap(), TIDY);
    assert_eq!(
        std::fs::read_to_string(dir.join("sub/b.zap")).unwrap(),
        TIDY
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        MESSY
    );
}

#[test]
fn check_names_the_files_that_would_change_and_exits_1() {
    let dir = scratch("check");
    std::fs::write(dir.join("messy.zap"), MESSY).unwrap();
    std::fs::write(dir.join("tidy.zap"), TIDY).unwrap();
    let output = zapc(&["fmt", "--check", dir.to_str().unwrap()], "");
    assert_eq!(output.status.code(), Some(1));
    let out = text(&output.stdout);
    let messy = dir.join("messy.zap").display().to_string();
    assert!(
        out.starts_with(&format!("--- {messy}\n+++ {messy} (formatted)\n")),
        "{out}"
    );
    assert!(out.contains("@@ -2 +2 @@\n-struct A { X u8 @0  Y u16 @2 }   # two fields\n+struct A {\n+    X u8 @0\n"), "{out}");
    assert!(!out.contains("tidy.zap"), "{out}");
    assert_eq!(
        text(&output.stderr),
        "1 file is not formatted; run `zapc fmt` on it\n"
    );
    // Nothing was written.
    assert_eq!(
        std::fs::read_to_string(dir.join("messy.zap")).unwrap(),
        MESSY
    );
}

#[test]
fn check_passes_on_the_repository_schemas() {
    let output = zapc(&["fmt", "--check", "schemas/"], "");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn invalid_schemas_and_missing_files_exit_2() {
    let output = zapc(
        &["fmt", "--check", "zapc/tests/invalid/unknown_type.zap"],
        "",
    );
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(
        err.contains("--> zapc/tests/invalid/unknown_type.zap:"),
        "{err}"
    );
    let output = zapc(&["fmt"], "struct A {\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--> <stdin>:2:1"),
        "{}",
        text(&output.stderr)
    );
    assert!(output.stdout.is_empty());
    let output = zapc(&["fmt", "no/such.zap"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).starts_with("error: cannot read no/such.zap"));
    let output = zapc(&["fmt", "--bogus"], "");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn help_has_examples() {
    let output = zapc(&["fmt", "--help"], "");
    let help = text(&output.stdout);
    assert!(help.contains("zapc fmt --check schemas/"), "{help}");
    assert!(help.contains("--indent"), "{help}");
}

//! Every subcommand that takes schema files takes folders the same way (every `*.zap`
//! file directly in the folder, in name order); an empty folder is an error saying so;
//! an option that names the one schema of a message refuses a folder, saying why.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ZAPC: &str = env!("CARGO_BIN_EXE_zapc");
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn zapc(args: &[&str]) -> Output {
    Command::new(ZAPC)
        .args(args)
        .current_dir(WORKSPACE)
        .output()
        .expect("the zapc binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh folder under the target directory.
fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `.zap` files of `schemas/`, sorted, as the commands name them.
fn corpus() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(WORKSPACE).join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".zap"))
        .map(|n| format!("schemas/{n}"))
        .collect();
    names.sort();
    names
}

#[test]
fn check_takes_a_folder() {
    let output = zapc(&["check", "schemas/"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let checked: Vec<String> = stdout(&output)
        .lines()
        .map(|l| {
            l.strip_prefix("ok: ")
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(checked, corpus());
}

#[test]
fn layout_takes_a_folder_and_names_each_file() {
    let output = zapc(&["layout", "schemas"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("==> ")).collect();
    let expected: Vec<String> = corpus().iter().map(|f| format!("==> {f} <==")).collect();
    assert_eq!(headers, expected);
    assert!(text.starts_with("==> schemas/aliases.zap <==\n"), "{text}");
    // One file: the layout alone, as before.
    let one = stdout(&zapc(&["layout", "schemas/eth.zap"]));
    assert!(one.starts_with("package eth\n"), "{one}");
    assert!(
        text.contains(&format!("==> schemas/eth.zap <==\n{one}")),
        "{text}"
    );
}

#[test]
fn openrpc_takes_a_folder_and_writes_one_document_per_schema() {
    let output = zapc(&["openrpc", "schemas/"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("OpenRPC documents: give -o DIR"),
        "{}",
        stderr(&output)
    );
    let out = fresh("cli_folders_openrpc");
    let output = zapc(&["openrpc", "schemas/", "-o", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let eth = std::fs::read_to_string(out.join("eth.json")).unwrap();
    let alone = stdout(&zapc(&["openrpc", "schemas/eth.zap"]));
    assert_eq!(eth, alone);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), corpus().len());
}

#[test]
fn an_empty_folder_is_an_error_for_every_subcommand() {
    let empty = fresh("cli_folders_empty");
    std::fs::write(empty.join("notes.txt"), "not a schema").unwrap();
    let dir = empty.to_str().unwrap();
    let out = fresh("cli_folders_empty_out");
    for (args, code) in [
        (vec!["check", dir], 1),
        (vec!["layout", dir], 1),
        (vec!["openrpc", dir], 1),
        (vec!["generate", dir, "-o", out.to_str().unwrap()], 1),
        (vec!["fmt", "--check", dir], 2),
    ] {
        let output = zapc(&args);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        let errors = stderr(&output);
        assert!(
            errors.starts_with(&format!("error: {dir} contains no .zap files")),
            "{args:?}: {errors}"
        );
        assert!(stdout(&output).is_empty(), "{args:?}");
    }
}

#[test]
fn encode_and_decode_refuse_a_folder_and_say_why() {
    for command in ["encode", "decode"] {
        let output = zapc(&[command, "--schema", "schemas/", "--type", "BalanceRequest"]);
        assert_eq!(output.status.code(), Some(1), "{command}");
        let errors = stderr(&output);
        assert!(
            errors.starts_with(
                "error: --schema schemas/ is a folder: a message is one struct of one schema"
            ),
            "{command}: {errors}"
        );
        assert!(!errors.contains("Is a directory"), "{errors}");
    }
}

#[test]
fn a_missing_file_among_folders_is_reported_and_check_goes_on() {
    let output = zapc(&["check", "schemas/no_such.zap", "schemas/"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).starts_with("cannot read schemas/no_such.zap:"));
    assert!(stdout(&output).contains("ok: schemas/eth.zap"));
}

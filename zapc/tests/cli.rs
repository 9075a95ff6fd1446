//! The real `zapc` binary: exit codes and output of `check` and `layout`; and folders:
//! every subcommand that takes schema files takes folders the same way (every `*.zap`
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

#[test]
fn check_accepts_a_valid_file() {
    let output = zapc(&["check", "schemas/eth.zap"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "ok: schemas/eth.zap (7 structs, 1 interface)\n"
    );
    assert!(stderr(&output).is_empty());
}

#[test]
fn check_reports_every_error_of_an_invalid_file() {
    let output = zapc(&["check", "zapc/tests/invalid/many_errors.zap"]);
    assert_eq!(output.status.code(), Some(1));
    let errors = stderr(&output);
    assert!(
        errors.contains("--> zapc/tests/invalid/many_errors.zap:8:13"),
        "{errors}"
    );
    assert!(errors.contains("unknown type `u65`"), "{errors}");
    assert!(errors.ends_with("many_errors.zap: 10 errors\n"), "{errors}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn check_goes_on_after_a_bad_file_and_fails_overall() {
    let output = zapc(&[
        "check",
        "zapc/tests/invalid/overlap.zap",
        "schemas/golden.zap",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("ok: schemas/golden.zap"));
    assert!(stderr(&output).contains("overlaps field `Length`"));
}

#[test]
fn check_of_a_missing_file_is_a_clear_error() {
    let output = zapc(&["check", "schemas/no_such_file.zap"]);
    assert_eq!(output.status.code(), Some(1));
    let errors = stderr(&output);
    assert!(
        errors.starts_with("cannot read schemas/no_such_file.zap:"),
        "{errors}"
    );
    assert!(!errors.contains("panicked"), "{errors}");
}

#[test]
fn usage_errors_exit_with_2() {
    assert_eq!(zapc(&["check"]).status.code(), Some(2));
    assert_eq!(zapc(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(zapc(&[]).status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for subcommand in [
        "check", "layout", "generate", "encode", "decode", "openrpc", "compat", "export",
    ] {
        let output = zapc(&[subcommand, "--help"]);
        assert_eq!(output.status.code(), Some(0));
        let help = stdout(&output);
        assert!(help.contains("Example"), "{subcommand}: {help}");
        assert!(help.contains(&format!("zapc {subcommand} ")), "{help}");
    }
}

#[test]
fn layout_prints_offsets_widths_sizes_and_shapes() {
    let output = zapc(&["layout", "schemas/eth.zap"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = "\
package eth

struct BalanceRequest: size 36, list strided (36 bytes per element)
  field    type             offset  width
  Id       u64                   0      8
  Block    u64                   8      8
  Account  bytes_fixed[20]      16     20

struct BalanceResponse: size 56, list strided (56 bytes per element)
  field      type             offset  width
  Id         u64                   0      8
  Balance    u64                   8      8
  Nonce      u64                  16      8
  BlockHash  bytes_fixed[32]      24     32

struct ChainIdResponse: size 8, list strided (8 bytes per element)
  field    type  offset  width
  ChainId  u64        0      8

struct BlockNumberResponse: size 8, list strided (8 bytes per element)
  field   type  offset  width
  Number  u64        0      8

struct VersionResponse: size 8, list framed
  field    type  offset  width
  Version  text       0      8

struct BlockHeader: size 80, list strided (80 bytes per element)
  field       type             offset  width
  Number      u64                   0      8
  Timestamp   u64                   8      8
  Hash        bytes_fixed[32]      16     32
  ParentHash  bytes_fixed[32]      48     32

struct HeadsRequest: size 4, list strided (4 bytes per element)
  field  type  offset  width
  Count  u32        0      4

interface Eth
                                                                        JSON-RPC
    1  getBalance(req: BalanceRequest) returns (resp: BalanceResponse)  eth_getBalance
    2  chainId() returns (ChainIdResponse)                              eth_chainId
    3  blockNumber() returns (BlockNumberResponse)                      eth_blockNumber
    4  netVersion() returns (VersionResponse)                           net_version
    5  clientVersion() returns (VersionResponse)                        web3_clientVersion
    6  newHeads(HeadsRequest) returns stream BlockHeader                eth_subscribe(\"newHeads\")
";
    assert_eq!(stdout(&output), expected);
}

#[test]
fn layout_and_check_show_enums() {
    let output = zapc(&["layout", "schemas/enums_indent.zap"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = "\
package enums_indent

struct Message: size 18, list framed
  field     type           offset  width
  Priority  Priority            0      2
  Channels  list<Channel>       2      8
  Body      text               10      8

enum Priority: u16 (2 bytes)
      0  Low
    500  High
  65535  Urgent

enum Channel: u8 (1 byte)
  1  Mail
  2  Phone
";
    assert_eq!(stdout(&output), expected);
    let output = zapc(&["check", "schemas/enums.zap"]);
    assert_eq!(
        stdout(&output),
        "ok: schemas/enums.zap (5 structs, 1 interface, 4 enums)\n"
    );
}

#[test]
fn layout_writes_list_types_in_schema_syntax() {
    let output = zapc(&["layout", "schemas/lists.zap"]);
    assert_eq!(output.status.code(), Some(0));
    let table = stdout(&output);
    for written in [
        "list<bytes_fixed[32]>",
        "list<Point>",
        "list<ptr<Named>>",
        "framed",
    ] {
        assert!(table.contains(written), "{written} missing:\n{table}");
    }
}

#[test]
fn layout_of_an_invalid_file_fails_with_diagnostics() {
    let output = zapc(&["layout", "zapc/tests/invalid/overlap.zap"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("overlap.zap:6:17"));
    assert!(stdout(&output).is_empty());
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

/// The Go zapgen's own test schemas (beside the Go peer's sources).
fn zapgen_testdata(name: &str) -> String {
    let path = format!("../shared/peers/zap-go/zapgen/testdata/{name}");
    assert!(
        Path::new(WORKSPACE).join(&path).is_file(),
        "{path} not found (the Go peer's sources, beside this checkout)"
    );
    path
}

#[test]
#[ignore = "needs the Go peer's sources in ../shared/peers/zap-go: cargo test -p zapc --test cli zapgen_ -- --ignored"]
fn zapgen_testdata_is_read_or_refused_with_the_fix() {
    let echo = zapgen_testdata("echo.zap");
    let output = zapc(&["check", &echo]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!("ok: {echo} (2 structs, 1 interface)\n")
    );

    // basetx.zap uses two structs declared in other files of its Go package: zapc names
    // each and says how to give it.
    let output = zapc(&["check", &zapgen_testdata("basetx.zap")]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    for missing in ["TransferableOutput", "TransferableInput"] {
        assert!(
            err.contains(&format!("unknown type `{missing}`"))
                && err.contains(&format!("then `pkg.{missing}`")),
            "{err}"
        );
    }
    assert!(err.contains("2 errors"), "{err}");
}

/// The `name = N` constants of a Go golden file zapgen wrote (`baseTxMemoOff = 52`).
fn golden_constants(name: &str) -> std::collections::BTreeMap<String, u64> {
    let text = std::fs::read_to_string(Path::new(WORKSPACE).join(zapgen_testdata(name))).unwrap();
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            let key = key.split_whitespace().next()?.to_owned();
            Some((key, value.trim().parse().ok()?))
        })
        .collect()
}

#[test]
#[ignore = "needs the Go peer's sources in ../shared/peers/zap-go: cargo test -p zapc --test cli zapgen_ -- --ignored"]
fn zapgen_testdata_lays_out_as_its_goldens() {
    // basetx.zap and its whitespace twin, with the two structs its Go package declares
    // elsewhere given beside it: zapc places every field where zapgen's golden does.
    let golden = golden_constants("base_tx_zap.go.golden");
    for file in ["basetx.zap", "ws/basetx_ws.zap"] {
        let text = std::fs::read_to_string(Path::new(WORKSPACE).join(zapgen_testdata(file)))
            .unwrap()
            + "\nstruct TransferableOutput {\n    Amount u64 @0\n}\nstruct TransferableInput {\n    Amount u64 @0\n}\n";
        let schema = zapc::load_str(file, &text).unwrap();
        let base = schema.struct_named("BaseTx").unwrap();
        assert_eq!(u64::from(base.size), golden["baseTxSize"], "{file}");
        for field in &base.fields {
            assert_eq!(
                u64::from(field.offset),
                golden[&format!("baseTx{}Off", field.name)],
                "{file}: {}",
                field.name
            );
        }
        assert_eq!(base.fields.len(), 5, "{file}");
    }
    // echo.zap: the methods' ordinals are those zapgen numbers.
    let golden = golden_constants("echo_zap.go.golden");
    let text =
        std::fs::read_to_string(Path::new(WORKSPACE).join(zapgen_testdata("echo.zap"))).unwrap();
    let schema = zapc::load_str("echo.zap", &text).unwrap();
    let echo = &schema.interfaces[0];
    assert_eq!(echo.methods.len(), 4);
    for method in &echo.methods {
        let mut name = method.name.clone();
        name[..1].make_ascii_uppercase();
        assert_eq!(
            u64::from(method.ordinal),
            golden[&format!("Echo{name}Ordinal")],
            "{}",
            method.name
        );
    }
}

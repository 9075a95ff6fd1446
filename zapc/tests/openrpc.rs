//! The OpenRPC document (`zapc::openrpc`): snapshot-tested for every schema in
//! `schemas/`, valid against the OpenRPC meta-schema (npm `@open-rpc/meta-schema`,
//! checked with `ajv`, both installed into `target/node/` on first use), and its JSON
//! Schemas accept what the JSON mapping reads and refuse what it refuses.

#[path = "../../zap-runtime/tests/support/npm.rs"]
mod npm;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use serde_json::{json, Value};
use zapc::openrpc;

/// The validator's packages, pinned.
const PACKAGES: [(&str, &str); 3] = [
    ("@open-rpc/meta-schema", "1.14.9"),
    ("@json-schema-tools/meta-schema", "1.8.0"),
    ("ajv", "8.20.0"),
];

fn validator() -> &'static npm::NodeModules {
    static NODE: OnceLock<npm::NodeModules> = OnceLock::new();
    NODE.get_or_init(|| npm::install("openrpc-validate", &PACKAGES, "The OpenRPC tests"))
}

fn schema_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "zap"))
        .collect();
    files.sort();
    files
}

/// The front end; imports are read from `schemas/`.
fn load(name: &str, text: &str) -> zapc::ir::Schema {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    zapc::load_str_in(name, text, &dir).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn document_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let name = format!("schemas/{}", path.file_name().unwrap().to_string_lossy());
    openrpc::document(&load(&name, &text))
}

/// Run the validator over `cases` (see `openrpc/validate.mjs`); panics with every
/// problem it reports.
fn validate(cases: &Value) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openrpc/validate.mjs");
    let mut child = validator()
        .command(&script, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start node");
    let input = serde_json::to_vec(cases).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "the validator found problems ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Snapshots are named `openrpc__schemas@<file>.snap`.
#[test]
fn snapshots() {
    insta::glob!("../../schemas", "*.zap", |path| {
        insta::assert_snapshot!(document_of(path));
    });
}

#[test]
fn compact_and_pretty_documents_are_the_same_json() {
    for path in schema_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let schema = load("x.zap", &text);
        let pretty: Value = serde_json::from_str(&openrpc::document(&schema)).unwrap();
        let compact = openrpc::document_json(&schema);
        assert!(!compact.contains('\n'), "{}", path.display());
        assert_eq!(
            pretty,
            serde_json::from_str::<Value>(&compact).unwrap(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn every_schema_gives_a_valid_openrpc_document() {
    let cases: Vec<Value> = schema_files()
        .iter()
        .map(|path| {
            let document: Value = serde_json::from_str(&document_of(path)).unwrap();
            json!({ "name": path.file_name().unwrap().to_string_lossy(), "document": document })
        })
        .collect();
    assert!(cases.len() > 5, "the schema corpus is there");
    validate(&Value::Array(cases));
}

/// Every kind of field, documented.
const EVERY_KIND: &str = r#"
package every

# A leaf.
struct Leaf { Tag u32 @0  Note text @4 }

# All the kinds.
struct All {
    # A flag.
    Flag   bool           @0
    Small  u8             @1
    Signed i32            @4
    Big    u64            @8
    Neg    i64            @16
    Real   f64            @24
    Name   text           @32
    Blob   bytes          @40
    Id     bytes_fixed[4] @48
    Child  Leaf           @52
    Leaves list<Leaf>     @56
    Ptrs   list<ptr<Leaf>> @64
    Nums   list<u64>      @72
}

# The service.
interface Svc {
    # Echo all the kinds.
    echo(a: All) returns (b: All)
    ping()
}
"#;

/// Where the schema of param `param` of method `method` is in `document`.
fn param_pointer(document: &Value, method: &str, param: &str) -> String {
    let methods = document["methods"].as_array().unwrap();
    let m = methods
        .iter()
        .position(|m| m["name"] == method)
        .unwrap_or_else(|| panic!("no method {method}"));
    let p = methods[m]["params"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p["name"] == param)
        .unwrap_or_else(|| panic!("no param {param} of {method}"));
    format!("/methods/{m}/params/{p}/schema")
}

#[test]
fn field_schemas_follow_the_json_mapping() {
    let document: Value =
        serde_json::from_str(&openrpc::document(&load("every.zap", EVERY_KIND))).unwrap();
    let echo = &document["methods"][0];
    assert_eq!(echo["name"], "svc_echo");
    assert_eq!(echo["description"], "Echo all the kinds.");
    assert_eq!(echo["paramStructure"], "either");
    assert_eq!(echo["params"][0]["description"], "A flag.");
    assert_eq!(echo["result"]["schema"]["$ref"], "#/components/schemas/All");
    let ping = &document["methods"][1];
    assert_eq!(ping["params"], json!([]));
    assert_eq!(ping["result"]["schema"], json!({ "type": "null" }));
    assert_eq!(
        document["components"]["schemas"]["Leaf"]["description"],
        "A leaf."
    );

    let at = |param: &str| param_pointer(&document, "svc_echo", param);
    let leaf = json!({ "tag": 1, "note": "x" });
    let table: Vec<(&str, Value, bool)> = vec![
        ("flag", json!(true), true),
        ("flag", json!(1), false),
        ("small", json!(255), true),
        ("small", json!(256), false),
        ("small", json!("1"), false),
        ("signed", json!(-2147483648i64), true),
        ("signed", json!(2147483648i64), false),
        ("big", json!(u64::MAX), true),
        ("big", json!("18446744073709551615"), true),
        ("big", json!("0xff"), true),
        ("big", json!(-1), false),
        ("big", json!(1.5), false),
        ("big", json!("ten"), false),
        ("neg", json!(i64::MIN), true),
        ("neg", json!("-5"), true),
        ("real", json!(0.25), true),
        ("real", json!("0.25"), false),
        ("name", json!("text"), true),
        ("name", json!(null), false),
        ("blob", json!("0x"), true),
        ("blob", json!("0x00ff"), true),
        ("blob", json!("0x0"), false),
        ("id", json!("0x01020304"), true),
        ("id", json!("0x010203"), false),
        ("child", leaf.clone(), true),
        ("child", json!(null), true),
        ("child", json!({ "tag": "one" }), false),
        ("leaves", json!([leaf.clone()]), true),
        ("leaves", json!([null]), false),
        ("ptrs", json!([leaf, null]), true),
        ("nums", json!([1, "2", "0x3"]), true),
        ("nums", json!([-1]), false),
    ];
    let checks: Vec<Value> = table
        .into_iter()
        .map(
            |(param, value, valid)| json!({ "pointer": at(param), "value": value, "valid": valid }),
        )
        .collect();
    validate(&json!([{ "name": "every.zap", "document": document, "checks": checks }]));
}

/// The validator is not a rubber stamp: a document the meta-schema refuses fails.
#[test]
fn the_validator_refuses_a_broken_document() {
    let mut document: Value =
        serde_json::from_str(&openrpc::document(&load("every.zap", EVERY_KIND))).unwrap();
    document["methods"][0]
        .as_object_mut()
        .unwrap()
        .remove("params");
    let outcome = std::panic::catch_unwind(|| {
        validate(&json!([{ "name": "broken", "document": document }]));
    });
    let message = *outcome
        .expect_err("a method without params is refused")
        .downcast::<String>()
        .unwrap();
    assert!(message.contains("params"), "{message}");
}

/// `zapc openrpc FILE` prints the document; `-o OUT` writes the same bytes; a schema
/// with errors prints them and exits 1.
#[cfg(feature = "cli")]
#[test]
fn the_command_line_writes_the_document() {
    use std::process::Command;
    let zapc = env!("CARGO_BIN_EXE_zapc");
    let eth = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/eth.zap");
    let text = std::fs::read_to_string(&eth).unwrap();
    let expected = openrpc::document(&load(&eth.to_string_lossy(), &text));

    let out = Command::new(zapc)
        .arg("openrpc")
        .arg(&eth)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);

    let dir = std::env::temp_dir().join(format!("zapc-openrpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("eth.json");
    let out = Command::new(zapc)
        .arg("openrpc")
        .arg(&eth)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);

    let bad = dir.join("bad.zap");
    std::fs::write(&bad, "struct A { X u64 @0  X u64 @8 }\n").unwrap();
    let out = Command::new(zapc)
        .arg("openrpc")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(!out.stderr.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every JSON option.
const OPTIONS: &str = r#"
package opts

struct Req {
    Id    u64              @0
    Block u64              @8  json(quantity, block_tags)
    Plain u64              @16 json(block_tags)
    Small u32              @24 json(quantity)
    Who   bytes_fixed[20]  @28 json(name = "address")
}

struct Resp {
    # The value.
    Value u64  @0 json(quantity)
    Note  text @8
}

interface Q {
    # One value.
    get(r: Req) returns (a: Resp) json(name = "q_value", params = [Who, Block], result = Value)
    whole(r: Req) returns (a: Resp)
}
"#;

#[test]
fn json_options_shape_methods_and_schemas() {
    let document: Value =
        serde_json::from_str(&openrpc::document(&load("opts.zap", OPTIONS))).unwrap();
    let get = &document["methods"][0];
    assert_eq!(get["name"], "q_value");
    assert_eq!(get["paramStructure"], "by-position");
    let names = |m: &Value| -> Vec<Value> {
        m["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect()
    };
    assert_eq!(names(get), vec![json!("address"), json!("block")]);
    assert_eq!(get["result"]["name"], "value");
    assert_eq!(get["result"]["description"], "The value.");
    let whole = &document["methods"][1];
    assert_eq!(whole["name"], "q_whole");
    assert_eq!(whole["paramStructure"], "either");
    assert_eq!(
        names(whole),
        ["id", "block", "plain", "small", "address"].map(|n| json!(n))
    );
    assert_eq!(
        whole["result"]["schema"]["$ref"],
        "#/components/schemas/Resp"
    );

    let table: Vec<(&str, &str, Value, bool)> = vec![
        ("q_value", "block", json!("latest"), true),
        ("q_value", "block", json!("pending"), true),
        ("q_value", "block", json!("finalized"), true),
        ("q_value", "block", json!("0x0"), true),
        ("q_value", "block", json!("0x10d4f"), true),
        ("q_value", "block", json!("0x01"), false),
        ("q_value", "block", json!("0x"), false),
        ("q_value", "block", json!("newest"), false),
        ("q_value", "block", json!(5), false),
        (
            "q_value",
            "address",
            json!(format!("0x{}", "ab".repeat(20))),
            true,
        ),
        ("q_whole", "plain", json!(5), true),
        ("q_whole", "plain", json!("latest"), true),
        ("q_whole", "plain", json!("5"), true),
        ("q_whole", "plain", json!("recent"), false),
        ("q_whole", "small", json!("0xff"), true),
        ("q_whole", "small", json!(255), false),
    ];
    let mut checks: Vec<Value> = table
        .into_iter()
        .map(|(method, param, value, valid)| {
            json!({ "pointer": param_pointer(&document, method, param), "value": value, "valid": valid })
        })
        .collect();
    for (value, valid) in [(json!("0x1"), true), (json!(1), false)] {
        checks
            .push(json!({ "pointer": "/methods/0/result/schema", "value": value, "valid": valid }));
    }
    validate(&json!([{ "name": "opts.zap", "document": document, "checks": checks }]));
}

#[test]
fn the_version_constant_is_the_documents_version() {
    let version = |text: &str| {
        let doc: Value =
            serde_json::from_str(&zapc::openrpc::document(&load("v.zap", text))).unwrap();
        doc["info"]["version"].clone()
    };
    let api = "package v\nstruct Q { Id u64 }\ninterface V { get(Q) returns (Q) }\n";
    assert_eq!(version(api), "0.0.0");
    assert_eq!(
        version(&format!("{api}const VERSION: text = \"2.1.0\"\n")),
        "2.1.0"
    );
    // Only a text constant of exactly that name.
    assert_eq!(version(&format!("{api}const VERSION: u32 = 2\n")), "0.0.0");
    assert_eq!(
        version(&format!("{api}const API_VERSION: text = \"2\"\n")),
        "0.0.0"
    );
}

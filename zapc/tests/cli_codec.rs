//! `zapc generate`, `zapc encode` and `zapc decode` driven as a user would: the real
//! binary, real files, and the real Python runtime (zap-proto 1.4.1) on the other side.

#[path = "../../zap-runtime/tests/support/python.rs"]
mod python;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use zapc::ir::{ListShape, Schema, Type};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run the zapc binary with `args`, feeding `stdin`; returns (status, stdout, stderr).
fn zapc(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zapc"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run that fails before reading its input (unknown type, missing schema) may close
    // stdin first: a broken pipe here is that race, not a failure.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A type in schema syntax, for the Python peer (which has no enums: an enum is its
/// representation).
fn type_name(ty: &Type) -> String {
    match ty {
        Type::Scalar(s) | Type::Enum { repr: s, .. } => s.keyword().to_string(),
        Type::Text => "text".into(),
        Type::Bytes => "bytes".into(),
        Type::BytesFixed(n) => format!("bytes_fixed[{n}]"),
        Type::Struct(name) => name.clone(),
        Type::List(list) => match (&list.elem, list.shape) {
            (Type::Struct(name), ListShape::Strided { .. }) => format!("strided<{name}>"),
            (elem, _) => format!("list<{}>", type_name(elem)),
        },
    }
}

/// The layout the Python peer builds and reads with, taken from zapc's own IR.
fn layout(schema: &Schema, root: &str) -> Value {
    // Imported structs too, by their qualified names (`common.Location`).
    let structs: serde_json::Map<String, Value> = schema
        .all_structs()
        .map(|s| {
            let fields: Vec<Value> = s
                .fields
                .iter()
                .map(|f| json!({"key": f.json_key(), "type": type_name(&f.ty), "offset": f.offset}))
                .collect();
            (s.name.clone(), json!({"size": s.size, "fields": fields}))
        })
        .collect();
    json!({"root": root, "structs": structs})
}

fn hex(rng: &mut StdRng, len: usize) -> String {
    let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    format!(
        "0x{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn text(rng: &mut StdRng) -> String {
    const PARTS: &[&str] = &[
        "",
        "a",
        "zap",
        "é",
        "日本",
        "🦀",
        " ",
        "\u{0}",
        "long text ",
    ];
    (0..rng.gen_range(0..5))
        .map(|_| PARTS[rng.gen_range(0..PARTS.len())])
        .collect()
}

fn leaf(rng: &mut StdRng) -> Value {
    json!({"tag": rng.gen::<u32>(), "note": text(rng)})
}

fn kitchen(rng: &mut StdRng) -> Value {
    let items: Vec<Value> = (0..rng.gen_range(0..4)).map(|_| leaf(rng)).collect();
    let nums: Vec<u32> = (0..rng.gen_range(0..6)).map(|_| rng.gen()).collect();
    let inner = if rng.gen_bool(0.7) {
        leaf(rng)
    } else {
        Value::Null
    };
    let blob_len = rng.gen_range(0..12);
    json!({
        "flag": rng.gen::<bool>(), "a8": rng.gen::<u8>(), "a16": rng.gen::<u16>(),
        "a32": rng.gen::<u32>(), "a64": rng.gen::<u64>(), "s8": rng.gen::<i8>(),
        "s16": rng.gen::<i16>(), "s32": rng.gen::<i32>(), "s64": rng.gen::<i64>(),
        // Quarters are exact in f32 and f64, so both sides print the same number.
        "f32": f64::from(rng.gen_range(-4000i32..4000)) / 4.0,
        "f64": f64::from(rng.gen_range(-4_000_000i32..4_000_000)) / 4.0,
        "name": text(rng), "blob": hex(rng, blob_len), "id": hex(rng, 16),
        "items": items, "inner": inner, "nums": nums,
    })
}

fn seed() -> u64 {
    let seed = std::env::var("ZAPC_INTEROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("seed {seed} (rerun with ZAPC_INTEROP_SEED={seed})");
    seed
}

/// `value` of struct `ty` with every enum value, at any depth (child objects, lists of
/// structs), replaced by its number: what the Python runtime, which has no enums, sees.
fn numbers_deep(schema: &Schema, ty: &str, value: &Value) -> Value {
    let Some(fields) = value.as_object() else {
        return value.clone();
    };
    let structure = schema.struct_named(ty).unwrap();
    let one = |t: &Type, v: &Value| match (t, v) {
        (Type::Enum { name, .. }, Value::String(n)) => {
            json!(schema.enum_named(name).unwrap().value_named(n).unwrap())
        }
        (Type::Struct(name), v) => numbers_deep(schema, name, v),
        (_, v) => v.clone(),
    };
    let mut out = fields.clone();
    for f in &structure.fields {
        if let Some(v) = out.get_mut(&f.json_key()) {
            *v = match (&f.ty, &*v) {
                (Type::List(list), Value::Array(items)) => {
                    Value::Array(items.iter().map(|i| one(&list.elem, i)).collect())
                }
                (t, v) => one(t, v),
            };
        }
    }
    Value::Object(out)
}

/// `values` of type `ty` of `schema_file`, both directions: zapc encode -> Python reads,
/// Python builds -> zapc decode; each side must get back exactly the values (enums as
/// their numbers on the Python side).
fn both_ways_with_python(schema_file: &str, ty: &str, values: &[Value]) {
    let py = python::zap_proto();
    let peer = root().join("zapc/tests/interop/kitchen_peer.py");
    let schema = zapc::load_file(&root().join(schema_file)).unwrap();
    let numbers: Vec<Value> = values
        .iter()
        .map(|v| numbers_deep(&schema, ty, v))
        .collect();
    // Rust (zapc encode) builds, Python reads.
    let hexes: Vec<String> = values
        .iter()
        .map(|v| {
            let (code, out, err) = zapc(
                &["encode", "--schema", schema_file, "--type", ty, "--hex"],
                v.to_string().as_bytes(),
            );
            assert_eq!(code, 0, "zapc encode failed: {err}");
            String::from_utf8(out).unwrap().trim().to_string()
        })
        .collect();
    let request = json!({"mode": "read", "layout": layout(&schema, ty), "messages": hexes});
    let read: Vec<Value> =
        serde_json::from_slice(&py.run(&peer, request.to_string().as_bytes())).unwrap();
    assert_eq!(read.len(), values.len());
    for (got, want) in read.iter().zip(&numbers) {
        assert_eq!(got, want, "{ty}: Python read of zapc's encoding");
    }

    // Python builds, Rust (zapc decode) reads.
    let request = json!({"mode": "build", "layout": layout(&schema, ty), "messages": numbers});
    let built: Vec<String> =
        serde_json::from_slice(&py.run(&peer, request.to_string().as_bytes())).unwrap();
    assert_eq!(built.len(), values.len());
    for (hex, want) in built.iter().zip(values) {
        let (code, out, err) = zapc(
            &["decode", "--schema", schema_file, "--type", ty, "--hex"],
            hex.as_bytes(),
        );
        assert_eq!(code, 0, "zapc decode failed: {err}");
        let got: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(&got, want, "{ty}: zapc decode of Python's encoding");
    }
}

/// Every type of kitchen.zap (Leaf and Kitchen), both directions, through the binary.
#[test]
fn encode_decode_round_trip_with_the_python_runtime() {
    let mut rng = StdRng::seed_from_u64(seed());
    let kitchens: Vec<Value> = (0..25).map(|_| kitchen(&mut rng)).collect();
    both_ways_with_python("schemas/kitchen.zap", "Kitchen", &kitchens);
    let leaves: Vec<Value> = (0..10).map(|_| leaf(&mut rng)).collect();
    both_ways_with_python("schemas/kitchen.zap", "Leaf", &leaves);
}

fn location(rng: &mut StdRng) -> Value {
    json!({"line": rng.gen::<u32>(), "column": rng.gen::<u32>()})
}

fn note(rng: &mut StdRng) -> Value {
    let at = if rng.gen_bool(0.7) {
        location(rng)
    } else {
        Value::Null
    };
    // An imported enum: mostly declared names, sometimes an undeclared number.
    let level = match rng.gen_range(0..4) {
        0 => json!("Info"),
        1 => json!("Warning"),
        2 => json!("Error"),
        _ => json!(rng.gen_range(3..=255u8)),
    };
    json!({"text": text(rng), "at": at, "digest": hex(rng, 32), "level": level})
}

/// A schema with an import (schemas/imports.zap imports schemas/common.zap): its messages
/// hold imported structs behind a pointer, in a framed list and in a strided list, and an
/// imported enum (also inside the imported structs), and the Python runtime reads and
/// writes them like any other.
#[test]
fn a_schema_with_an_import_round_trips_with_the_python_runtime() {
    let mut rng = StdRng::seed_from_u64(seed());
    let reports: Vec<Value> = (0..20)
        .map(|_| {
            let notes: Vec<Value> = (0..rng.gen_range(0..4)).map(|_| note(&mut rng)).collect();
            let corners: Vec<Value> = (0..rng.gen_range(0..5))
                .map(|_| location(&mut rng))
                .collect();
            let place = if rng.gen_bool(0.8) {
                location(&mut rng)
            } else {
                Value::Null
            };
            let worst = ["Info", "Warning", "Error"][rng.gen_range(0..3)];
            json!({
                "id": rng.gen::<u64>(), "where": place, "notes": notes,
                "corners": corners, "digest": hex(&mut rng, 32),
                "worst": worst,
            })
        })
        .collect();
    both_ways_with_python("schemas/imports.zap", "Report", &reports);
    // An imported type as the message root, named by its qualified name.
    let notes: Vec<Value> = (0..10).map(|_| note(&mut rng)).collect();
    both_ways_with_python("schemas/imports.zap", "common.Note", &notes);
}

#[test]
fn encode_and_decode_speak_raw_bytes_too() {
    let req =
        r#"{"id":1,"block":"0x10d4f","account":"0xdeadbeef00112233445566778899aabbccddeeff"}"#;
    let (code, wire, err) = zapc(
        &[
            "encode",
            "--schema",
            "schemas/eth.zap",
            "--type",
            "BalanceRequest",
        ],
        req.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    // The payload of the rpc.json `request_eth` vector, byte for byte.
    assert_eq!(
        wire.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "5a41500001000000100000003400000001000000000000004f0d010000000000deadbeef00112233445566778899aabbccddeeff"
    );
    let (code, json, err) = zapc(
        &[
            "decode",
            "--schema",
            "schemas/eth.zap",
            "--type",
            "BalanceRequest",
        ],
        &wire,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        serde_json::from_slice::<Value>(&json).unwrap(),
        serde_json::from_str::<Value>(req).unwrap()
    );
}

#[test]
fn encode_and_decode_errors_are_clear() {
    // (subcommand, schema, type, stdin, what the error must say); each exits with 1.
    let cases: [(&str, &str, &str, &[u8], &str); 6] = [
        (
            "encode",
            "schemas/eth.zap",
            "Nope",
            b"{}",
            "has no struct named \"Nope\"; it declares: BalanceRequest, BalanceResponse, ChainIdResponse",
        ),
        (
            "encode",
            "schemas/missing.zap",
            "X",
            b"{}",
            "schemas/missing.zap",
        ),
        (
            "encode",
            "schemas/eth.zap",
            "BalanceRequest",
            br#"{"id": "x"}"#,
            "$.id: expected an integer, found a string",
        ),
        (
            "encode",
            "schemas/eth.zap",
            "BalanceRequest",
            br#"{"acount": "0x00"}"#,
            "has no field \"acount\"",
        ),
        (
            "encode",
            "schemas/eth.zap",
            "BalanceRequest",
            br#"{"account": "0x00"}"#,
            "$.account: expected 20 bytes of hex, found 1",
        ),
        (
            "decode",
            "schemas/eth.zap",
            "BalanceRequest",
            b"not zap",
            "input is not a ZAP message",
        ),
    ];
    for (command, schema, ty, stdin, expected) in cases {
        let (code, _, err) = zapc(&[command, "--schema", schema, "--type", ty], stdin);
        assert_eq!(code, 1, "zapc {command} --type {ty}: {err}");
        assert!(err.contains(expected), "zapc {command} --type {ty}: {err}");
    }
}

#[test]
fn generate_writes_a_module_per_schema_and_only_changed_files() {
    let out = std::env::temp_dir().join(format!("zapc-generate-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let out_s = out.to_str().unwrap();
    let (code, stdout, err) = zapc(&["generate", "schemas/", "-o", out_s], b"");
    assert_eq!(code, 0, "{err}");
    let stdout = String::from_utf8(stdout).unwrap();
    let schemas = std::fs::read_dir(root().join("schemas")).unwrap().count();
    assert_eq!(stdout.matches("wrote").count(), schemas + 1, "{stdout}");
    let mod_rs = std::fs::read_to_string(out.join("mod.rs")).unwrap();
    assert!(
        mod_rs.contains("pub mod eth;") && mod_rs.contains("pub mod kitchen;"),
        "{mod_rs}"
    );
    assert!(std::fs::read_to_string(out.join("eth.rs"))
        .unwrap()
        .starts_with("// @generated by zapc"));

    let (code, stdout, _) = zapc(&["generate", "schemas/", "-o", out_s], b"");
    assert_eq!(code, 0);
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(
        !stdout.contains("wrote"),
        "a second run must rewrite nothing: {stdout}"
    );

    // With rustfmt on the PATH (as in CI), the files pass `rustfmt --check`.
    if Command::new("rustfmt")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let files: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let status = Command::new("rustfmt")
            .args(["--edition", "2021", "--check"])
            .args(&files)
            .status()
            .unwrap();
        assert!(status.success(), "generated files are not rustfmt-clean");
    }
    let (code, _, err) = zapc(&["generate", "no/such/dir", "-o", out_s], b"");
    assert_eq!(code, 1);
    assert!(err.starts_with("cannot read no/such/dir: "), "{err}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// `zapc decode` on hostile graphs: a two-object cycle and a root whose pointer list
/// points back at the root twice (each level doubles). Both decode in bounded time and
/// memory: 64 levels at most, twice the message length plus 64 struct values in all.
#[test]
fn decode_of_a_cycle_or_fan_out_is_bounded() {
    use zap_runtime::Builder;
    let hex_of = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();

    let mut b = Builder::new();
    let mut a = b.start_object(12);
    a.set_u64(0, 1);
    let a_at = a.offset();
    let mut other = a.builder().start_object(12);
    other.set_u64(0, 2);
    other.set_object(8, a_at);
    let other_at = other.finish();
    a.set_object(8, other_at);
    a.finish_as_root();
    let cycle = hex_of(b.finish().unwrap());
    let (code, out, err) = zapc(
        &[
            "decode",
            "--schema",
            "schemas/recursive.zap",
            "--type",
            "Node",
            "--hex",
        ],
        cycle.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    let mut node: Value = serde_json::from_slice(&out).unwrap();
    let mut depth = 0;
    while !node["next"].is_null() {
        node = node["next"].take();
        depth += 1;
    }
    assert_eq!(depth, zap_runtime::DecodeBudget::MAX_DEPTH as usize);

    let mut b = Builder::new();
    let mut root = b.start_object(24);
    let root_at = root.offset();
    let refs = root.builder().start_pointer_list(2);
    root.builder().set_pointer(refs, 0, root_at);
    root.builder().set_pointer(refs, 1, root_at);
    let list = refs.list(root.builder());
    root.set_list(16, list);
    root.finish_as_root();
    let wire_len = b.as_bytes().len();
    let fan_out = hex_of(b.finish().unwrap());
    let (code, out, err) = zapc(
        &[
            "decode",
            "--schema",
            "schemas/recursive.zap",
            "--type",
            "Tree",
            "--hex",
        ],
        fan_out.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    let objects = String::from_utf8(out).unwrap().matches("\"label\"").count();
    assert!(
        objects <= 2 * wire_len + 64 + 1,
        "{objects} objects from {wire_len} bytes"
    );
}

/// `value` (the JSON mapping of a struct of `schema`) with every enum value replaced by
/// its number: what the Python runtime, which has no enums, reads and writes.
fn enum_numbers(schema: &Schema, ty: &str, value: &Value) -> Value {
    let structure = schema.struct_named(ty).unwrap();
    let number = |enum_name: &str, v: &Value| match v {
        Value::String(name) => json!(schema
            .enum_named(enum_name)
            .unwrap()
            .value_named(name)
            .unwrap()),
        other => other.clone(),
    };
    let mut out = value.as_object().unwrap().clone();
    for f in &structure.fields {
        let Some(v) = out.get_mut(&f.json_key()) else {
            continue;
        };
        match &f.ty {
            Type::Enum { name, .. } => *v = number(name, v),
            Type::List(list) => {
                if let (Type::Enum { name, .. }, Value::Array(items)) = (&list.elem, &mut *v) {
                    items.iter_mut().for_each(|item| *item = number(name, item));
                }
            }
            _ => {}
        }
    }
    Value::Object(out)
}

/// A value of enum `name`: mostly declared names, sometimes a number the schema does not
/// declare (kept as a number in JSON, and on the wire).
fn enum_value(schema: &Schema, name: &str, rng: &mut StdRng) -> Value {
    let e = schema.enum_named(name).unwrap();
    if rng.gen_bool(0.7) {
        return json!(e.values[rng.gen_range(0..e.values.len())].name);
    }
    let max = (1u64 << (8 * e.repr.width())) - 1;
    loop {
        let n = rng.gen_range(0..=max);
        if e.name_of(n).is_none() {
            return json!(n);
        }
    }
}

/// Enums of every width, as fields and in lists, both directions through the binary: the
/// Python runtime reads each as its integer, and writes integers zapc decodes to names
/// (numbers the schema does not declare stay numbers).
#[test]
fn enums_round_trip_with_the_python_runtime() {
    let py = python::zap_proto();
    let peer = root().join("zapc/tests/interop/kitchen_peer.py");
    let schema = zapc::load_file(&root().join("schemas/enums.zap")).unwrap();
    let mut rng = StdRng::seed_from_u64(seed());
    let mut values: Vec<Value> = (0..20)
        .map(|_| {
            let flags: Vec<Value> = (0..rng.gen_range(0..4))
                .map(|_| enum_value(&schema, "Flag", &mut rng))
                .collect();
            let colors: Vec<Value> = (0..rng.gen_range(0..6))
                .map(|_| enum_value(&schema, "Color", &mut rng))
                .collect();
            json!({
                "main": enum_value(&schema, "Color", &mut rng),
                "level": enum_value(&schema, "Level", &mut rng),
                "flags": flags, "colors": colors,
                "mode": enum_value(&schema, "mode", &mut rng),
                "name": text(&mut rng),
            })
        })
        .collect();
    // Fixed cases: the largest number of each width, and the values numbered 0.
    values.push(
        json!({"main": 255, "level": 65535, "flags": [4294967295u32, "High"],
        "colors": ["Red", 255], "mode": "fast", "name": ""}),
    );
    values.push(
        json!({"main": "Red", "level": 0, "flags": [0], "colors": [], "mode": 255, "name": "z"}),
    );
    let numbers: Vec<Value> = values
        .iter()
        .map(|v| enum_numbers(&schema, "Palette", v))
        .collect();
    let args = |mode| {
        [
            mode,
            "--schema",
            "schemas/enums.zap",
            "--type",
            "Palette",
            "--hex",
        ]
    };

    // zapc encode (names) -> Python reads the integers.
    let hexes: Vec<String> = values
        .iter()
        .map(|v| {
            let (code, out, err) = zapc(&args("encode"), v.to_string().as_bytes());
            assert_eq!(code, 0, "zapc encode failed: {err}");
            String::from_utf8(out).unwrap().trim().to_string()
        })
        .collect();
    let request = json!({"mode": "read", "layout": layout(&schema, "Palette"), "messages": hexes});
    let read: Vec<Value> =
        serde_json::from_slice(&py.run(&peer, request.to_string().as_bytes())).unwrap();
    assert_eq!(read, numbers, "Python read of zapc's encoding");

    // Python writes the integers -> zapc decode gives the names back.
    let request =
        json!({"mode": "build", "layout": layout(&schema, "Palette"), "messages": numbers});
    let built: Vec<String> =
        serde_json::from_slice(&py.run(&peer, request.to_string().as_bytes())).unwrap();
    assert_eq!(built, hexes, "Python and zapc build the same bytes");
    for (hex, want) in built.iter().zip(&values) {
        let (code, out, err) = zapc(&args("decode"), hex.as_bytes());
        assert_eq!(code, 0, "zapc decode failed: {err}");
        let got: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(&got, want, "zapc decode of Python's encoding");
    }
}

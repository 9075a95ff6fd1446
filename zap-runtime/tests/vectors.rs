//! The shared test vectors, produced by the independent Python runtime (zap-proto 1.4.1):
//! flat and rpc messages must be built byte for byte, the nested message read back to
//! its listed values, hostile messages refused or read as listed.
//!
//! Everything is driven by the JSON files in `tests/data/` (copied from the project's
//! shared vectors), so a new vector is a new test case without new code.

use serde_json::Value;
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::{Builder, Message, Object, ObjectBuilder};

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// `(name, type, offset)` triples of a one-line schema like
/// `struct Golden { Magic u32 @0  Name text @8 }`.
fn schema_fields(schema: &str) -> Vec<(String, String, usize)> {
    let body = &schema[schema.find('{').unwrap() + 1..schema.find('}').unwrap()];
    let words: Vec<&str> = body.split_whitespace().collect();
    words
        .chunks(3)
        .map(|c| {
            (
                c[0].to_string(),
                c[1].to_string(),
                c[2][1..].parse().unwrap(),
            )
        })
        .collect()
}

fn set_field(obj: &mut ObjectBuilder<'_>, ty: &str, off: usize, v: &Value) {
    match ty {
        "u32" => obj.set_u32(off, v.as_u64().unwrap() as u32),
        "u64" => obj.set_u64(off, v.as_u64().unwrap()),
        "text" => obj.set_text(off, v.as_str().unwrap()),
        "bytes" => obj.set_bytes(off, &unhex(v.as_str().unwrap())),
        t if t.starts_with("bytes_fixed[") => obj.set_bytes_fixed(off, &unhex(v.as_str().unwrap())),
        other => panic!("vector uses a type this test does not know: {other}"),
    }
}

/// Read a field of `ty` at `off` and compare it with the JSON value the vector lists.
fn check_read(obj: Object<'_>, ty: &str, off: usize, want: &Value, ctx: &str) {
    let ok = match ty {
        "bool" => obj.bool(off) == want.as_bool().unwrap(),
        "u8" => u64::from(obj.u8(off)) == want.as_u64().unwrap(),
        "u16" => u64::from(obj.u16(off)) == want.as_u64().unwrap(),
        "u32" => u64::from(obj.u32(off)) == want.as_u64().unwrap(),
        "u64" => obj.u64(off) == want.as_u64().unwrap(),
        "i8" => i64::from(obj.i8(off)) == want.as_i64().unwrap(),
        "i16" => i64::from(obj.i16(off)) == want.as_i64().unwrap(),
        "i32" => i64::from(obj.i32(off)) == want.as_i64().unwrap(),
        "i64" => obj.i64(off) == want.as_i64().unwrap(),
        "f32" => f64::from(obj.f32(off)) == want.as_f64().unwrap(),
        "f64" => obj.f64(off) == want.as_f64().unwrap(),
        "text" => obj.text(off) == want.as_str().unwrap(),
        "bytes" => obj.bytes(off) == unhex(want.as_str().unwrap()),
        "object_is_null" => obj.object(off).is_null() == want.as_bool().unwrap(),
        "list_len" => obj.list(off).len() as u64 == want.as_u64().unwrap(),
        t if t.starts_with("bytes_fixed[") => {
            let n: usize = t["bytes_fixed[".len()..t.len() - 1].parse().unwrap();
            obj.bytes_fixed_slice(off, n) == unhex(want.as_str().unwrap())
        }
        other => panic!("{ctx}: unknown read type {other}"),
    };
    assert!(ok, "{ctx}: {ty} at {off} should read {want}");
}

#[test]
fn flat_vectors_build_byte_identical_and_read_back() {
    let doc = load("flat.json");
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 6);
    // One builder for every vector: reuse after clear() must not change the bytes.
    let mut reused = Builder::new();
    for v in vectors {
        let name = v["name"].as_str().unwrap();
        let want = unhex(v["hex"].as_str().unwrap());
        let version = u16::from_le_bytes([want[4], want[5]]);
        let fields = v["fields"].as_array().unwrap();
        let build = |b: &mut Builder| -> Vec<u8> {
            b.set_version(version);
            let mut obj = b.start_object(v["size"].as_u64().unwrap() as usize);
            for f in fields {
                set_field(
                    &mut obj,
                    f[1].as_str().unwrap(),
                    f[2].as_u64().unwrap() as usize,
                    &f[3],
                );
            }
            obj.finish_as_root();
            b.finish().unwrap().to_vec()
        };
        assert_eq!(
            hex::encode(build(&mut Builder::new())),
            hex::encode(&want),
            "{name}: fresh builder"
        );
        reused.clear();
        assert_eq!(
            hex::encode(build(&mut reused)),
            hex::encode(&want),
            "{name}: reused builder"
        );

        let msg = Message::parse(&want).unwrap();
        assert_eq!(msg.version(), version);
        for f in fields {
            let (ty, off) = (f[1].as_str().unwrap(), f[2].as_u64().unwrap() as usize);
            check_read(msg.root(), ty, off, &f[3], name);
        }
    }
}

#[test]
fn rpc_vectors_encode_byte_identical_and_parse_back() {
    let doc = load("rpc.json");
    let mut b = Builder::new();
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let want = unhex(v["hex"].as_str().unwrap());
        let promise_id = v["promise_id"].as_u64().unwrap() as u32;
        match v["kind"].as_str().unwrap() {
            "request" => {
                let (cap, payload) = (
                    unhex(v["cap"].as_str().unwrap()),
                    unhex(v["payload"].as_str().unwrap()),
                );
                let req = Request {
                    method: v["method"].as_u64().unwrap() as u32,
                    promise_id,
                    target: v["target"].as_u64().unwrap() as u32,
                    cap: &cap,
                    payload: &payload,
                };
                assert_eq!(
                    hex::encode(req.encode(&mut b).unwrap()),
                    hex::encode(&want),
                    "{name}"
                );
                assert_eq!(Request::parse(&want).unwrap(), req, "{name}");
            }
            "response" => {
                let body = unhex(v["body"].as_str().unwrap());
                let resp = Response {
                    status: Status(v["status"].as_u64().unwrap() as u32),
                    promise_id,
                    body: &body,
                };
                assert_eq!(
                    hex::encode(resp.encode(&mut b).unwrap()),
                    hex::encode(&want),
                    "{name}"
                );
                assert_eq!(Response::parse(&want).unwrap(), resp, "{name}");
            }
            other => panic!("{name}: unknown kind {other}"),
        }
        let msg = Message::parse(&want).unwrap();
        assert_eq!(
            (msg.version(), msg.flags()),
            (2, 0xC800),
            "{name}: envelope header"
        );
    }
}

/// The nested vector: every scalar, text, bytes, bytes_fixed, a framed struct list,
/// a child struct and a strided u32 list, read back to the listed values.
#[test]
fn nested_vector_reads_back() {
    let doc = load("nested.json");
    let wire = unhex(doc["hex"].as_str().unwrap());
    let schema = doc["schema"].as_str().unwrap();
    let (leaf_schema, kitchen_schema) = schema.split_once('\n').unwrap();
    let leaf = schema_fields(leaf_schema);
    let kitchen = schema_fields(kitchen_schema);
    let values = &doc["values"];
    let root = Message::parse(&wire).unwrap().root();

    let check_leaf = |obj: Object<'_>, want: &Value, ctx: &str| {
        for (name, ty, off) in &leaf {
            check_read(obj, ty, *off, &want[name], ctx);
        }
    };
    let mut checked = 0;
    for (name, ty, off) in &kitchen {
        let want = &values[name];
        match ty.as_str() {
            "list<Leaf>" => {
                // Leaf has a text field, so the list is framed: each element a message.
                let items: Vec<Object<'_>> = root.list(*off).messages().collect();
                let want = want.as_array().unwrap();
                assert_eq!(items.len(), want.len());
                for (i, (item, w)) in items.iter().zip(want).enumerate() {
                    check_leaf(*item, w, &format!("Items[{i}]"));
                }
            }
            "Leaf" => check_leaf(root.object(*off), want, "Inner"),
            "list<u32>" => {
                let nums: Vec<u64> = root.list(*off).scalars::<u32>().map(u64::from).collect();
                let want: Vec<u64> = want
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                assert_eq!(nums, want);
                assert_eq!(root.list(*off).get::<u32>(3), u32::MAX);
                assert_eq!(
                    root.list(*off).get::<u32>(4),
                    0,
                    "past the count reads zero"
                );
            }
            _ => check_read(root, ty, *off, want, name),
        }
        checked += 1;
    }
    assert_eq!(
        checked,
        values.as_object().unwrap().len(),
        "every listed value checked"
    );
}

#[test]
fn hostile_vectors_refused_or_read_as_listed() {
    let doc = load("hostile.json");
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let wire = unhex(v["hex"].as_str().unwrap());
        match v["parse"].as_str().unwrap() {
            "error" => {
                let err = Message::parse(&wire).expect_err(name);
                assert!(!err.to_string().is_empty());
            }
            "ok" => {
                let root = Message::parse(&wire)
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
                    .root();
                for r in v["reads"].as_array().unwrap() {
                    check_read(
                        root,
                        r[0].as_str().unwrap(),
                        r[1].as_u64().unwrap() as usize,
                        &r[2],
                        name,
                    );
                }
            }
            other => panic!("{name}: unknown expectation {other}"),
        }
    }
}

/// Each refusal names what was wrong and where.
#[test]
fn parse_errors_say_what_and_where() {
    let doc = load("hostile.json");
    let by_name = |n: &str| {
        let v = doc["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == n)
            .unwrap();
        Message::parse(&unhex(v["hex"].as_str().unwrap()))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        by_name("short_header"),
        "buffer too small for a ZAP header: 15 bytes, expected at least 16"
    );
    assert!(by_name("bad_magic").contains("found 5a415100"));
    assert!(by_name("bad_version").contains("expected 1 or 2, found 3"));
    assert_eq!(
        by_name("size_past_end"),
        "declared size 48 at offset 12 exceeds the buffer length 47"
    );
    assert!(by_name("size_below_header").contains("size 15"));
}

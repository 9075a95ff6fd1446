//! The seed corpus of every target, generated from the shared test vectors in
//! `zap-runtime/tests/data/*.json` (so nothing binary is committed). Deterministic: the
//! same vectors give the same seeds in the same order.
//!
//! Two users: `tests/corpus.rs` runs every target's body over these seeds and mutations
//! of them, and `examples/seed.rs` (behind `./seed.sh`) writes them to `corpus/<target>/`
//! for libFuzzer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The directory of the shared vectors.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data")
}

/// The seeds of every target, by target name.
pub fn all() -> BTreeMap<&'static str, Vec<Vec<u8>>> {
    let vectors = Vectors::load(&data_dir());
    let mut seeds = BTreeMap::new();
    seeds.insert("reader", reader(&vectors));
    seeds.insert("envelope", envelope(&vectors));
    seeds.insert("frame_decoder", frame_decoder(&vectors));
    seeds.insert("kitchen_reader", vectors.messages.clone());
    seeds.insert("roundtrip", roundtrip());
    seeds.insert("stream_dispatch", stream_dispatch(&vectors));
    seeds.insert("jsonrpc", jsonrpc());
    seeds.insert("cap_verify", cap_verify(&vectors));
    seeds.insert("node_framing", node_framing(&vectors));
    seeds.insert("http_request", http_request());
    seeds.insert("zap_conn", zap_conn());
    seeds.insert("ws_session", ws_session());
    seeds.insert("quic_stream", quic_stream());
    seeds.insert("zaphttp_conn", zaphttp_conn());
    seeds
}

/// A message with the shapes the vectors lack (a pointer list @16, a strided struct list
/// @24, a framed text list with a non-UTF-8 element @32, a framed list of embedded
/// messages @40, a child pointer @48), as built by zap-runtime's `Builder`.
const BUILT: &str = concat!(
    "5a4150000100000010000000f200000007000000da000000040000000000000028000000030000004800",
    "000003000000580000000300000068000000020000002000000000000000100000000000000010000000",
    "000000002a000000000000000900000008000000040000006c65616600000000ffff000001000000ffff",
    "000002000000ffff0000030000006f6e6502000000fffe0000000000000000000000230000005a415000",
    "010000001000000023000000000000000000000008000000030000006d7367230000005a415000010000",
    "001000000023000000010000000000000008000000030000006d7367726f6f74",
);

/// The shared vectors, sorted by what they are.
pub struct Vectors {
    /// Every message-shaped vector, good or hostile, including the payloads and bodies
    /// embedded in the envelopes, `nested.json` and [`BUILT`].
    pub messages: Vec<Vec<u8>>,
    /// The request envelopes of `rpc.json`.
    pub requests: Vec<Vec<u8>>,
    /// The response envelopes of `rpc.json`.
    pub responses: Vec<Vec<u8>>,
}

impl Vectors {
    /// Read `flat.json`, `rpc.json`, `hostile.json` and `nested.json` from `dir`.
    /// Panics with the file's name when one is missing or malformed: the corpus must not
    /// silently shrink.
    pub fn load(dir: &Path) -> Self {
        let load = |name: &str| -> Value {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
        };
        let hex = |v: &Value, key: &str| -> Option<Vec<u8>> {
            let text = v.get(key)?.as_str()?;
            Some(decode_hex(text).unwrap_or_else(|| panic!("{key} is not hex: {text}")))
        };
        let mut out = Vectors {
            messages: Vec::new(),
            requests: Vec::new(),
            responses: Vec::new(),
        };
        for name in ["flat.json", "rpc.json", "hostile.json"] {
            let file = load(name);
            let vectors = file["vectors"].as_array().expect("a `vectors` array");
            assert!(!vectors.is_empty(), "{name} has no vectors");
            for v in vectors {
                let raw = hex(v, "hex").expect("every vector has `hex`");
                out.messages.push(raw.clone());
                match v.get("kind").and_then(Value::as_str) {
                    Some("request") => {
                        out.requests.push(raw);
                        out.messages
                            .extend(hex(v, "payload").filter(|p| !p.is_empty()));
                    }
                    Some("response") => {
                        out.responses.push(raw);
                        out.messages
                            .extend(hex(v, "body").filter(|b| !b.is_empty()));
                    }
                    _ => {}
                }
            }
        }
        out.messages
            .push(hex(&load("nested.json"), "hex").expect("nested.json has `hex`"));
        out.messages.push(decode_hex(BUILT).unwrap());
        out
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Every message, and each with 4 trailing bytes (the bytes after the message seed the
/// walk).
fn reader(v: &Vectors) -> Vec<Vec<u8>> {
    v.messages
        .iter()
        .flat_map(|m| [m.clone(), [&m[..], &[1, 2, 3, 4]].concat()])
        .collect()
}

fn envelope(v: &Vectors) -> Vec<Vec<u8>> {
    // Each request again with a call context extension after it (a deadline and two
    // pairs), as a frame carries one.
    let mut metadata = zap_runtime::context::Metadata::new();
    metadata
        .insert("request-id", &b"7f3a"[..])
        .expect("a valid pair");
    metadata
        .insert("bin", &[0u8, 255][..])
        .expect("a valid pair");
    let extended = v.requests.iter().map(|r| {
        let mut r = r.clone();
        zap_runtime::context::write_extension(
            &mut r,
            Some(std::time::Duration::from_millis(2500)),
            &metadata,
        );
        r
    });
    [&v.requests[..], &v.responses[..], &v.messages[..]]
        .concat()
        .into_iter()
        .chain(extended)
        .collect()
}

/// A frame of spec §6: length (direction byte included), direction, envelope.
pub fn frame(direction: u8, envelope: &[u8]) -> Vec<u8> {
    let len = u32::try_from(envelope.len() + 1).expect("a small test frame");
    [&len.to_le_bytes()[..], &[direction], envelope].concat()
}

/// The envelopes framed into streams under control bytes covering every chunking
/// pattern and several maximum lengths, plus a zero-length, an unknown-direction and an
/// oversized frame.
fn frame_decoder(v: &Vectors) -> Vec<Vec<u8>> {
    let stream: Vec<u8> = v
        .requests
        .iter()
        .map(|r| frame(1, r))
        .chain(v.responses.iter().map(|r| frame(2, r)))
        .flatten()
        .collect();
    let small = [frame(3, b""), frame(4, b"x"), frame(5, b"")].concat();
    let mut out = Vec::new();
    for control in [0u8, 1, 2, 3, 4, 5, 6, 7, 0x20 | 5, 0xA0 | 1, 0xE0] {
        out.push([&[control][..], &stream].concat());
        out.push([&[control][..], &small, &stream[..37.min(stream.len())]].concat());
    }
    out.push([1, 0, 0, 0, 0].to_vec()); // length 0
    out.push([&[1u8, 5, 0, 0, 0, 9][..], b"abcd"].concat()); // unknown direction
    out.push([0, 0xff, 0xff, 0xff, 0xff].to_vec()); // oversized
    out
}

/// Raw material for `arbitrary`: a few byte shapes.
fn roundtrip() -> Vec<Vec<u8>> {
    vec![
        Vec::new(),
        (0..=255).collect(),
        vec![0xff; 512],
        vec![0; 512],
        b"zap kitchen".repeat(40),
    ]
}

/// A flat message: the root object at 16 with `fixed` as its fixed section, then the
/// `(slot, payload)` tails in order, each non-empty one pointed at from its slot.
fn message(fixed: &[u8], tails: &[(usize, &[u8])], version: u16, flags: u16) -> Vec<u8> {
    let mut body = fixed.to_vec();
    let mut out_tails = Vec::new();
    for &(slot, payload) in tails {
        if !payload.is_empty() {
            let rel = (16 + body.len() + out_tails.len() - (16 + slot)) as u32;
            body[slot..slot + 4].copy_from_slice(&rel.to_le_bytes());
            body[slot + 4..slot + 8].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            out_tails.extend_from_slice(payload);
        }
    }
    let size = (16 + body.len() + out_tails.len()) as u32;
    let mut m = b"ZAP\0".to_vec();
    m.extend_from_slice(&version.to_le_bytes());
    m.extend_from_slice(&flags.to_le_bytes());
    m.extend_from_slice(&16u32.to_le_bytes());
    m.extend_from_slice(&size.to_le_bytes());
    m.extend_from_slice(&body);
    m.extend_from_slice(&out_tails);
    m
}

/// A `Query { Id u64 @0 }` of `schemas/service.zap`.
fn query(id: u64) -> Vec<u8> {
    message(&id.to_le_bytes(), &[], 1, 0)
}

/// A stream frame (dir 4 message, dir 5 end): the stream id, then the message.
fn stream_frame(direction: u8, id: u32, message: &[u8]) -> Vec<u8> {
    frame(direction, &[&id.to_le_bytes()[..], message].concat())
}

/// Connections to the `zap_conn` target's `Streamer`: calls, pipelined calls, every
/// kind of stream with its messages and ends, and the hostile cases (an id reused while
/// open, id 0 and u32::MAX, messages and ends for streams never opened or already
/// ended, a cancel for a call that is done, a stream method called, a call opened as a
/// stream, the built-in methods, a response sent by the client), under control bytes
/// covering every setting.
fn zap_conn() -> Vec<Vec<u8>> {
    let calls = [
        frame(1, &request(1, 1, b"hello", 0)),
        frame(1, &request(2, 2, b"", 0)),
        frame(1, &request(1, 3, b"", 1)),
        frame(1, &request(9, 4, b"", 0)),
        frame(1, &request(3, 5, b"", 0)),
        frame(6, &5u32.to_le_bytes()),
        frame(1, &request(0xFFFF_FF01, 6, b"", 0)),
        frame(1, &request(0xFFFF_FF02, 7, b"", 0)),
        frame(1, &request(0xFFFF_FF03, 8, b"", 0)),
    ]
    .concat();
    let streams = [
        frame(3, &request(3, 10, &[3], 0)),
        frame(3, &request(4, 11, b"", 0)),
        stream_frame(4, 11, b"one"),
        stream_frame(4, 11, b"two"),
        stream_frame(5, 11, b""),
        frame(3, &request(5, 12, b"", 0)),
        stream_frame(4, 12, b"x"),
        stream_frame(5, 12, b""),
        frame(3, &request(0xFFFF_FF03, 13, b"", 0)),
        frame(3, &request(1, 14, b"", 0)),
    ]
    .concat();
    let hostile = [
        frame(3, &request(4, 20, b"", 0)),
        frame(3, &request(4, 20, b"", 0)),
        frame(3, &request(4, 0, b"", 0)),
        frame(3, &request(4, u32::MAX, b"", 0)),
        stream_frame(4, u32::MAX, b"max"),
        stream_frame(4, 99, b"never opened"),
        stream_frame(5, 99, b""),
        stream_frame(5, 20, b""),
        stream_frame(4, 20, b"after its end"),
        frame(4, &[1, 0]),
        frame(6, &77u32.to_le_bytes()),
        frame(3, &request(4, 21, b"", 5)),
        frame(2, &request(1, 22, b"", 0)),
    ]
    .concat();
    let mut out = Vec::new();
    for control in [0x00u8, 0x01, 0x05, 0x0A, 0x13, 0x27, 0x40, 0x7F] {
        out.push([&[control][..], &calls].concat());
        out.push([&[control][..], &streams].concat());
        out.push([&[control][..], &calls, &streams, &hostile].concat());
    }
    out.push([&[0x00][..], &calls[..calls.len() - 3]].concat());
    out
}

/// WebSocket sessions for the `ws_session` target: calls, a batch, subscribing,
/// notifications, unsubscribing (a live and an unknown id), pings, a close, and the
/// hostile cases (invalid JSON, a binary frame, fragments, a frame with RSV1 set, an
/// unknown opcode, an oversized message), under every setting.
fn ws_session() -> Vec<Vec<u8>> {
    use crate::targets::ws_session::frame;
    let text = |json: &str| frame(0x81, json.as_bytes());
    let session = [
        text(r#"{"jsonrpc":"2.0","id":1,"method":"ticker_ping"}"#),
        text(r#"[{"jsonrpc":"2.0","id":2,"method":"ticker_ping"},{"jsonrpc":"2.0","method":"ticker_ping"}]"#),
        text(r#"{"jsonrpc":"2.0","id":3,"method":"ticker_subscribe","params":["ticks"]}"#),
        text(r#"{"jsonrpc":"2.0","id":4,"method":"ticker_subscribe","params":["ticks"]}"#),
        text(r#"{"jsonrpc":"2.0","id":5,"method":"ticker_unsubscribe","params":["0x1"]}"#),
        text(r#"{"jsonrpc":"2.0","id":6,"method":"ticker_subscribe","params":["nope"]}"#),
        text(r#"{"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["ticks"]}"#),
        frame(0x89, b"ping"),
    ]
    .concat();
    let hostile = [
        text("{not json"),
        frame(0x82, b"\x00binary"),
        frame(0x01, br#"{"jsonrpc":"2.0","id":8,"#),
        frame(0x80, br#""method":"ticker_ping"}"#),
        frame(0xC1, b"{}"),
        frame(0x83, b""),
        text(&format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ticker_ping","params":["{}"]}}"#,
            "x".repeat(300)
        )),
        frame(0x88, &[0x03, 0xE8]),
        text(r#"{"jsonrpc":"2.0","id":10,"method":"ticker_ping"}"#),
    ]
    .concat();
    let mut out = Vec::new();
    for control in [0u8, 1, 2, 4, 7] {
        out.push([&[control][..], &session].concat());
        out.push([&[control][..], &session, &hostile].concat());
    }
    out
}

/// QUIC streams for the `quic_stream` target: a call of each kind (answered, failing,
/// unknown, a reflection and a health check), a stream of each kind with messages
/// after its first frame, and the refusals (an unknown op, an empty first frame, a
/// frame longer than what follows, a first frame cut short, an envelope that does not
/// read, a call opened as a stream, messages after a call).
fn quic_stream() -> Vec<Vec<u8>> {
    let first = |op: u8, envelope: &[u8]| frame(op, envelope);
    let later = |bytes: &[u8]| [&(bytes.len() as u32).to_le_bytes()[..], bytes].concat();
    vec![
        first(1, &request(1, 1, b"hello", 0)),
        first(1, &request(2, 2, b"", 0)),
        first(1, &request(9, 3, b"", 0)),
        first(1, &request(0xFFFF_FF01, 4, b"", 0)),
        first(1, &request(0xFFFF_FF02, 5, b"", 0)),
        first(2, &request(3, 6, &[3], 0)),
        [
            first(2, &request(4, 7, b"", 0)),
            later(b"one"),
            later(b"two"),
        ]
        .concat(),
        [first(2, &request(5, 8, b"", 0)), later(b"x")].concat(),
        first(2, &request(0xFFFF_FF03, 9, b"", 0)),
        first(2, &request(1, 10, b"", 0)),
        [first(1, &request(1, 11, b"", 0)), later(b"after a call")].concat(),
        first(7, &request(1, 12, b"", 0)),
        0u32.to_le_bytes().to_vec(),
        [&100u32.to_le_bytes()[..], &[1, 2, 3]].concat(),
        vec![5, 0],
        first(1, b"not an envelope"),
    ]
}

/// A request envelope of spec §5: method, PromiseID and target, cap @12, payload @20.
pub fn request(method: u32, promise: u32, payload: &[u8], target: u32) -> Vec<u8> {
    let mut fixed = Vec::with_capacity(28);
    for word in [method, promise, target] {
        fixed.extend_from_slice(&word.to_le_bytes());
    }
    fixed.extend_from_slice(&[0; 16]);
    message(&fixed, &[(12, b""), (20, payload)], 2, 0xC800)
}

/// Streams of calls to the `Store` interface of `schemas/service.zap` (every method, a
/// handler error, an unknown method, a bad payload, PromiseID 0, a pipelined and an
/// unknown `Target`) under several control bytes, and every message as a lone request.
fn stream_dispatch(v: &Vectors) -> Vec<Vec<u8>> {
    let calls = [
        request(1, 1, &query(7), 0),
        request(2, 2, &query(8), 0),
        request(3, 3, b"", 0),
        request(4, 4, &query(9), 0), // odd id: the handler fails, 500
        request(4, 5, &query(10), 0),
        request(5, 6, b"", 0),
        request(9, 7, b"", 0),        // unknown method, 404
        request(1, 8, b"garbage", 0), // bad payload, 400
        request(1, 0, &query(1), 0),  // PromiseID 0, 400
        request(1, 9, b"", 3),        // pipelined on `latest`'s Answer
        request(2, 10, b"", 77),      // unknown target
    ];
    let stream: Vec<u8> = calls.iter().flat_map(|c| frame(1, c)).collect();
    let mut out = Vec::new();
    for control in [0x00u8, 0x01, 0x03, 0x07, 0x42, 0x85, 0xC4] {
        out.push([&[control][..], &stream].concat());
    }
    out.push([&[0x07][..], &stream, &frame(2, &calls[0]), &stream].concat());
    out.push([&[0x02][..], &stream[..50]].concat());
    for m in calls.iter().chain(&v.messages) {
        out.push([&[0x07][..], &frame(1, m)].concat());
    }
    out
}

/// JSON-RPC bodies behind the control byte 3 (`max_batch` 16): single calls of every
/// method, notifications, wrong params, batches (mixed, empty, over the limit), and
/// bodies that are not JSON-RPC or not JSON at all.
fn jsonrpc() -> Vec<Vec<u8>> {
    let bodies: [&[u8]; 23] = [
        br#"{"jsonrpc":"2.0","method":"store_get","params":{"id":5},"id":1}"#,
        br#"{"jsonrpc":"2.0","method":"store_put","params":[6],"id":"six"}"#,
        br#"{"jsonrpc":"2.0","method":"store_latest"}"#,
        br#"{"jsonrpc":"2.0","method":"store_forget","params":{"id":3}}"#,
        br#"{"jsonrpc":"2.0","method":"store_forget","params":{"id":3},"id":1}"#,
        br#"{"jsonrpc":"2.0","method":"store_ping"}"#,
        br#"{"jsonrpc":"2.0","method":"store_nope","id":1}"#,
        br#"{"jsonrpc":"2.0","method":"store_get","params":{"id":"x"},"id":1}"#,
        br#"{"jsonrpc":"2.0","method":"store_get","params":{"id":18446744073709551615},"id":1}"#,
        br#"[{"jsonrpc":"2.0","method":"store_get","params":{"id":1},"id":1}, {"jsonrpc":"2.0","method":"store_ping"}, 5, {"jsonrpc":"1.0"}]"#,
        b"[]",
        br#"{"jsonrpc":"2.0","method":7,"id":[1]}"#,
        b"",
        b"{",
        b"[1,2",
        b"nul",
        b"\x0c[]",
        br#"{"jsonrpc":"2.0","id":1e400}"#,
        br#"{"jsonrpc":"2.0","method":"store_put","params":{"id":4},"id":null}"#,
        b"[\xff]",
        // members named twice (the second through an escape): refused, id null
        br#"{"jsonrpc":"2.0","method":"store_get","m\u0065thod":"store_put","params":{"id":5},"id":1}"#,
        br#"[{"jsonrpc":"2.0","method":"store_ping","id":1,"id":2},{"jsonrpc":"2.0","method":"store_latest","id":3}]"#,
        br#"{"jsonrpc":"2.0","method":"store_ping","params":[],"params":{}}"#,
    ];
    let mut out: Vec<Vec<u8>> = bodies.iter().map(|b| [&[3u8][..], b].concat()).collect();
    // a batch over the limit, and deep nesting
    let batch: Vec<String> = (0..20)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","method":"store_latest","id":{i}}}"#))
        .collect();
    out.push(format!("\x03[{}]", batch.join(",")).into_bytes());
    out.push([&[3u8][..], &b"[".repeat(200), &b"]".repeat(200)].concat());
    out
}

/// Whole connections' worth of requests: a JSON-RPC call and a batch (one with a
/// body in chunks), pipelined requests, health, the explorer, refusals (content type,
/// Host, size, method, path), a CORS preflight, `Expect: 100-continue`, and the same
/// calls with a valid and a forged capability, under several control bytes.
fn http_request() -> Vec<Vec<u8>> {
    use crate::targets::http_request::authorization;
    let post = |extra: &str, body: &str| {
        format!(
            "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let call = r#"{"jsonrpc":"2.0","method":"store_get","params":{"id":5},"id":1}"#;
    let batch = r#"[{"jsonrpc":"2.0","method":"store_put","params":[6],"id":"a"},{"jsonrpc":"2.0","method":"store_ping"},{"jsonrpc":"2.0","method":"rpc.discover","id":2}]"#;
    let chunked = format!(
        "POST / HTTP/1.1\r\nHost: b.example\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{}\r\n{:x}\r\n{}\r\n0\r\n\r\n",
        20,
        &batch[..20],
        batch.len() - 20,
        &batch[20..]
    );
    let connections: Vec<String> = vec![
        post("", call),
        post("", batch),
        chunked,
        format!("{}{}", post("", call), post("Connection: close\r\n", batch)),
        "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nHEAD /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET / HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}".to_owned(),
        "POST /rpc HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".to_owned(),
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n[".to_owned(),
        "PUT /rpc HTTP/1.1\r\nHost: localhost\r\n\r\nGET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n".to_owned(),
        "OPTIONS /rpc HTTP/1.1\r\nHost: localhost\r\nOrigin: http://a.example\r\nAccess-Control-Request-Method: POST\r\n\r\n".to_owned(),
        post("Origin: http://a.example\r\n", call),
        post("Expect: 100-continue\r\n", call),
        post(&format!("{}\r\n", authorization(false)), batch),
        post(&format!("{}\r\n", authorization(true)), batch),
        post("Authorization: Bearer x\r\n", call),
        "GET /rpc HTTP/1.0\r\n\r\n".to_owned(),
        "\r\n\r\nBROKEN\r\n".to_owned(),
    ];
    let mut out = Vec::new();
    for (i, connection) in connections.iter().enumerate() {
        for control in [0u8, 1, 2, 8, 16] {
            if control != 0 && i % 3 != usize::from(control) % 3 {
                continue;
            }
            out.push([&[control][..], connection.as_bytes()].concat());
        }
    }
    // A capability with capabilities on, and a small answer limit.
    out.push(
        [
            &[1u8 | 8][..],
            post(&format!("{}\r\n", authorization(false)), batch).as_bytes(),
        ]
        .concat(),
    );
    out
}

/// A file name for `blob`: its FNV-1a hash and length, so writing the corpus twice
/// gives the same files.
pub fn file_name(blob: &[u8]) -> String {
    format!("{:016x}-{}", crate::seed_of(blob), blob.len())
}

/// The capabilities the fuzzed policy's issuer minted, one of them with a flipped
/// signature byte, and the message vectors (which are no capabilities at all).
fn cap_verify(v: &Vectors) -> Vec<Vec<u8>> {
    let minted = crate::targets::cap_verify::minted();
    let mut seeds = minted.to_vec();
    let mut flipped = minted[0].clone();
    let last = flipped.len() - 1;
    flipped[last - 200] ^= 1;
    seeds.push(flipped);
    seeds.extend(v.messages.iter().take(8).cloned());
    seeds
}

/// A node-transport handshake followed by calls carrying the request envelopes, and the
/// RPC frame streams, each behind both control bits (before and after the handshake).
fn node_framing(v: &Vectors) -> Vec<Vec<u8>> {
    use zap_runtime::frame::node::{encode_handshake, encode_node_frame, Flag, NodeId};
    let mut stream = Vec::new();
    encode_handshake(
        &mut stream,
        &NodeId::new("fuzz-node").expect("a valid NodeID"),
    );
    for (i, env) in (1u32..).zip(&v.requests) {
        encode_node_frame(&mut stream, i, Flag::Request, env).expect("a small frame");
    }
    let rpc: Vec<u8> = v.requests.iter().flat_map(|e| frame(1, e)).collect();
    let mut seeds = Vec::new();
    for control in [0u8, 1] {
        for body in [&stream, &rpc] {
            seeds.push([&[control][..], body].concat());
        }
    }
    // Each envelope alone in a call frame, as a connection past its handshake reads it.
    for (i, env) in (1u32..).zip(&v.requests) {
        let mut one = vec![1u8];
        encode_node_frame(&mut one, i, Flag::Request, env).expect("a small frame");
        seeds.push(one);
    }
    seeds
}

/// A zaphttp request frame (with its length prefix), as the Go client writes one.
pub fn zaphttp_request(method: &[u8], target: &[u8], body: &[u8]) -> Vec<u8> {
    use zap_runtime::zaphttp::codec::{request, Encoder, FrameKind};
    let mut out = Vec::new();
    let mut e = Encoder::begin(&mut out, FrameKind::Request);
    e.bytes(request::METHOD, method)
        .bytes(request::TARGET, target)
        .bytes(request::PROTO, b"HTTP/1.1")
        .pairs(
            request::HEADERS,
            [
                (&b"Host"[..], &b"example.com"[..]),
                (b"X-A", b"1"),
                (b"X-A", b"2"),
            ],
            false,
        )
        .bytes(request::BODY, body)
        .pairs(request::TRAILER, [(&b"X-T"[..], &b"v"[..])], false);
    e.finish();
    out
}

/// Connections to the `zaphttp_conn` target: requests as Go writes them (kept alive,
/// streamed answers, a failing service), and the Go implementation's own frames from the goldens
/// (`../tests/data/zaphttp/go-frames.txt`: responses where requests go, refused).
fn zaphttp_conn() -> Vec<Vec<u8>> {
    let calls = [
        zaphttp_request(b"POST", b"/echo", b"hello"),
        zaphttp_request(b"", b"", b""),
        zaphttp_request(b"GET", b"/stream", b"0123456789"),
        zaphttp_request(b"GET", b"/fail", b""),
        zaphttp_request(b"PUT", b"/echo?a=1&b=2", &[0xff; 40]),
    ]
    .concat();
    let mut seeds = Vec::new();
    for settings in [0u8, 1, 2] {
        seeds.push([&[settings][..], &calls].concat());
    }
    let goldens =
        std::fs::read_to_string(data_dir().join("zaphttp/go-frames.txt")).unwrap_or_default();
    for line in goldens.lines().filter(|l| !l.starts_with('#')) {
        if let Some((_, hex)) = line.split_once(' ') {
            if let Ok(frame) = hex::decode(hex) {
                let mut seed = vec![0u8];
                seed.extend_from_slice(&(frame.len() as u32).to_be_bytes());
                seed.extend_from_slice(&frame);
                seeds.push(seed);
            }
        }
    }
    seeds
}

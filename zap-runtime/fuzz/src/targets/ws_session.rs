//! The `ws_session` target: JSON-RPC over WebSocket, subscriptions included, on the
//! whole HTTP path (`zap_runtime::http::serve_stream`: the upgrade, the WebSocket
//! codec, the session's calls, batches, `ticker_subscribe`/`ticker_unsubscribe`, pings,
//! closes) with [`Ticker`] behind it, a service with a call and a subscription.
//!
//! Input: byte 0 picks the server's settings: bit 0 one subscription at most, bit 1 a
//! 64-byte `max_body` (the largest message), bit 2 a 512-byte `max_answer`. The rest
//! is a sequence of frames the client sends after a valid upgrade request, each
//! `[head][len u16 LE][payload]`: the head's low 4 bits are the opcode (any, invalid
//! ones included), bit 7 FIN, bit 6 an RSV1 bit the server did not agree to; the
//! harness masks each frame as a client must. The client then waits for the server to
//! close (its idle timeout, on tokio's paused clock).
//!
//! Checked: the connection ends without a panic; the server answers the upgrade with
//! `101`, then writes only whole, unmasked WebSocket frames; every text frame is
//! well-formed JSON-RPC 2.0: a response (the `jsonrpc` target's check, or a batch of
//! them) or a `ticker_subscription` notification naming a subscription the server
//! handed out.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;
use zap_runtime::http::{serve_stream, HttpConfig};
use zap_runtime::stream::{StreamIo, Streaming};
use zap_runtime::{json, Builder, Bytes, CallError, MethodInfo, Reply, Service};

/// `ticker_ping` (answers `null`) and the subscription `ticks`, which sends three
/// notifications and ends.
pub struct Ticker;

impl Service for Ticker {
    const NAME: &'static str = "Ticker";
    const METHODS: &'static [MethodInfo] = &[
        MethodInfo {
            ordinal: 1,
            permissions: 0,
            name: "ping",
            streaming: Streaming::Unary,
            json_name: "ticker_ping",
            request: None,
            response: None,
            positional: &[],
            result_field: None,
            params_to_wire: json::no_params,
            result_to_json: json::no_result,
            subscription: None,
        },
        MethodInfo {
            ordinal: 2,
            permissions: 0,
            name: "ticks",
            streaming: Streaming::Server,
            json_name: "ticker_ticks",
            request: None,
            response: None,
            positional: &[],
            result_field: None,
            params_to_wire: json::no_params,
            result_to_json: json::no_result,
            subscription: Some("ticks"),
        },
    ];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _payload: &'a [u8],
        _out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            1 => Ok(Reply::Empty),
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }

    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        _open: Bytes,
        mut io: StreamIo,
    ) -> Result<(), CallError> {
        if ordinal != 2 {
            return Err(CallError::unknown_method(Self::NAME, ordinal));
        }
        for _ in 0..3 {
            io.outbound.send(b"").await?;
        }
        Ok(())
    }
}

/// The server's settings for control byte `control` (see the module docs).
pub fn config(control: u8) -> HttpConfig {
    let mut config = HttpConfig::default();
    if control & 1 != 0 {
        config.ws_max_subscriptions = 1;
    }
    if control & 2 != 0 {
        config.max_body = 64;
    }
    if control & 4 != 0 {
        config.max_answer = 512;
    }
    config
}

/// The upgrade request every session starts with.
const UPGRADE: &[u8] = b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\n\
Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

/// The frames of `data` (see the module docs), masked as a client sends them.
pub fn client_frames(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = data;
    let mut n = 0u32;
    while let [head, a, b, tail @ ..] = rest {
        let len = usize::from(u16::from_le_bytes([*a, *b])).min(tail.len());
        let (payload, next) = tail.split_at(len);
        rest = next;
        out.push(head & 0xCF);
        if len < 126 {
            out.push(0x80 | len as u8);
        } else {
            out.push(0x80 | 126);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        n = n.wrapping_mul(0x9E37_79B9).wrapping_add(1);
        let mask = n.to_be_bytes();
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    }
    out
}

/// A client's frame for a seed: `head`, then the payload.
pub fn frame(head: u8, payload: &[u8]) -> Vec<u8> {
    let len = u16::try_from(payload.len()).expect("a short seed frame");
    [&[head][..], &len.to_le_bytes(), payload].concat()
}

/// What the server writes back for the upgrade and then `frames` on one connection.
pub fn exchange(config: HttpConfig, frames: &[u8]) -> Vec<u8> {
    crate::support::over_duplex(
        |server| serve_stream(Arc::new(Ticker), config, server),
        &[UPGRADE, frames],
    )
}

/// The server's frames after its `101`: (opcode, payload) each, or a panic at the first
/// byte that does not start a whole, unmasked frame.
pub fn server_frames(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut frames = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        assert!(rest.len() >= 2, "a frame head cut at {at}");
        let (head, second) = (rest[0], rest[1]);
        assert_eq!(second & 0x80, 0, "a server frame is never masked");
        let (len, start) = match second & 0x7F {
            126 => (usize::from(u16::from_be_bytes([rest[2], rest[3]])), 4),
            127 => {
                let len = u64::from_be_bytes(rest[2..10].try_into().expect("8 bytes"));
                (usize::try_from(len).expect("a length that fits"), 10)
            }
            n => (usize::from(n), 2),
        };
        assert!(rest.len() >= start + len, "a frame cut at {at}");
        frames.push((head & 0x0F, rest[start..start + len].to_vec()));
        at += start + len;
    }
    frames
}

pub fn run(data: &[u8]) {
    let Some((&control, frames)) = data.split_first() else {
        return;
    };
    let answer = exchange(config(control), &client_frames(frames));
    let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        panic!(
            "no complete upgrade answer: {:?}",
            String::from_utf8_lossy(&answer)
        );
    };
    assert!(
        answer.starts_with(b"HTTP/1.1 101 "),
        "the upgrade is answered 101: {:?}",
        String::from_utf8_lossy(&answer[..end])
    );
    let mut subscriptions = HashSet::new();
    for (opcode, payload) in server_frames(&answer[end + 4..]) {
        match opcode {
            // Text: JSON-RPC. Binary is never sent; ping, pong and close may be.
            1 => check_text(&payload, &mut subscriptions),
            8..=10 => {}
            other => panic!("the server sent a frame of opcode {other}"),
        }
    }
}

/// One text frame of the server: a response, a batch of them, or a notification of a
/// subscription it answered before.
fn check_text(payload: &[u8], subscriptions: &mut HashSet<String>) {
    let value: Value = serde_json::from_slice(payload).expect("a text frame is JSON");
    let answers = match &value {
        Value::Array(items) => {
            assert!(!items.is_empty(), "an empty batch answer");
            items.iter().collect::<Vec<_>>()
        }
        one => vec![one],
    };
    for answer in answers {
        if answer.get("method").is_some() {
            assert_eq!(answer["method"], "ticker_subscription", "{answer}");
            let id = answer["params"]["subscription"]
                .as_str()
                .expect("a subscription id");
            assert!(
                subscriptions.contains(id),
                "a notification of {id}, never handed out"
            );
            continue;
        }
        let obj = super::jsonrpc::check_response(answer);
        // A subscription's id, as a subscribe answers it.
        if let Some(Value::String(id)) = obj.get("result") {
            subscriptions.insert(id.clone());
        }
    }
}

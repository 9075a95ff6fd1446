//! The `http_request` target: the whole HTTP path (`zap_runtime::http::serve_stream`:
//! hyper's HTTP/1.1 parser, the routes, the browser rules, the header checks, the
//! capped body read, the `Authorization` header, the JSON-RPC path with batches) on the
//! bytes a client sends on one connection, with the generated `StoreService` behind it.
//!
//! Input: byte 0 picks the server's settings: bit 0 requires capabilities (a policy
//! trusting [`issuer`]; the seeds carry a valid `Authorization: ZAP-Cap` header and a
//! forged one), bits 1-2 `max_body` (default, 64, 4096, 300), bit 3 a 512-byte
//! `max_answer`, bit 4 CORS for `http://a.example`. The rest is what the client sends;
//! it then waits for the server to close. Time is virtual (tokio's paused clock), so a
//! path that waits on a timeout (the idle timeout that ends every connection here) ends
//! at once.
//!
//! Checked: the connection ends; everything the server wrote is a sequence of complete
//! HTTP/1.1 responses (`httparse`), each with a status this server answers with and a
//! `Content-Length` its body has (no body for a `HEAD` answer, a `204` or an interim
//! `100`); a JSON
//! answer is a health document or well-formed JSON-RPC 2.0 (the `jsonrpc` target's
//! check of each response object); an error answered for a JSON-RPC request names a
//! code this server uses.

use std::sync::{Arc, OnceLock};

use base64::Engine as _;
use serde_json::Value;
use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};
use zap_runtime::http::{serve_stream, AllowedHosts, HttpConfig};
use zap_runtime::{Authorizer, Service};

use crate::schemas::service::StoreService;
use crate::support::EchoStore;

/// The target id of the server's policy.
pub const TARGET: [u8; 32] = [0x5b; 32];

/// The issuer the server trusts when capabilities are on.
pub fn issuer() -> SigningKey {
    SigningKey::from_secret(Scheme::Ed25519, &[0x44; 32]).expect("a fixed test key")
}

/// `Authorization: ZAP-Cap …` with a capability the trusted issuer signed (valid at any
/// time, every permission), or, `forged`, the same with one signature byte flipped.
pub fn authorization(forged: bool) -> String {
    let mut cap = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: u64::MAX >> 1,
            ..Default::default()
        },
        &issuer(),
    )
    .expect("issue");
    if forged {
        let at = cap.len() - 100;
        cap[at] ^= 1;
    }
    let token = base64::engine::general_purpose::STANDARD.encode(cap);
    format!("Authorization: ZAP-Cap {token}")
}

fn authorizer() -> Authorizer {
    static POLICY: OnceLock<Authorizer> = OnceLock::new();
    POLICY
        .get_or_init(|| {
            Authorizer::new(
                Policy::builder(TARGET)
                    .trust(issuer().public_key().clone())
                    .methods(StoreService::<EchoStore>::METHODS)
                    .build(),
            )
        })
        .clone()
}

/// The server's settings for control byte `control` (see the module docs).
pub fn config(control: u8) -> HttpConfig {
    let mut config = HttpConfig {
        allowed_hosts: AllowedHosts::parse("localhost,b.example"),
        ..HttpConfig::default()
    };
    if control & 1 != 0 {
        config.authorize = Some(authorizer());
    }
    config.max_body = [HttpConfig::DEFAULT_MAX_BODY, 64, 4096, 300][usize::from(control >> 1 & 3)];
    if control & 8 != 0 {
        config.max_answer = 512;
    }
    if control & 16 != 0 {
        config.cors_origins = vec!["http://a.example".to_owned()];
    }
    config
}

/// What the server writes back for `sent` on one connection.
pub fn exchange(config: HttpConfig, sent: &[u8]) -> Vec<u8> {
    // The client does not close its side (hyper ends a connection whose peer
    // half-closes without answering): the server closes once it has answered
    // everything and its idle (header-read) timeout passes, at once on the paused
    // clock.
    let service = Arc::new(StoreService::new(EchoStore));
    crate::support::over_duplex(|server| serve_stream(service, config, server), &[sent])
}

/// The statuses this server answers with (hyper's own for malformed requests among
/// them), and `100 Continue`.
const STATUSES: [u16; 15] = [
    100, 200, 204, 400, 401, 403, 404, 405, 408, 413, 415, 431, 500, 501, 505,
];

/// One response at the front of `bytes`: its status, content type and body, and the
/// bytes it takes. A `Content-Length` body is taken only if it does not itself start
/// like a response and the bytes after it are the next response or the end (else it
/// answered a `HEAD`, and has none).
fn next_response(bytes: &[u8]) -> (u16, Option<String>, &[u8], usize) {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let head = match response.parse(bytes) {
        Ok(httparse::Status::Complete(n)) => n,
        other => panic!(
            "not a complete response: {other:?} at {:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        ),
    };
    // HTTP/1.0 requests are answered in HTTP/1.0.
    assert!(matches!(response.version, Some(0 | 1)), "HTTP/1.x");
    let status = response.code.expect("a status");
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).into_owned())
    };
    let content_type = header("content-type");
    // An interim 100 and a 204 have no body (and no Content-Length).
    if status == 100 || status == 204 {
        return (status, None, &[], head);
    }
    let length: usize = header("content-length")
        .expect("every answer has a Content-Length")
        .parse()
        .expect("a number");
    let rest = &bytes[head..];
    // What follows the head is the next response, not a body, when it starts like one:
    // no body this server sends does (JSON, plain text, the explorer's HTML). Otherwise
    // a `HEAD` answer followed by answers whose heads happen to add up to its
    // `Content-Length` would pass for a response with a body.
    let with_body = !rest.starts_with(b"HTTP/1.")
        && rest.len() >= length
        && (rest.len() == length || rest[length..].starts_with(b"HTTP/1."));
    if with_body {
        (status, content_type, &rest[..length], head + length)
    } else {
        assert!(
            rest.is_empty() || rest.starts_with(b"HTTP/1."),
            "a body shorter than its Content-Length"
        );
        (status, content_type, &[], head)
    }
}

/// A JSON answer: a health document, or JSON-RPC.
fn check_json(body: &[u8]) {
    let value: Value = serde_json::from_slice(body).expect("a JSON answer is JSON");
    if value.get("status").is_some() {
        return;
    }
    match &value {
        Value::Array(items) => {
            assert!(!items.is_empty());
            items.iter().for_each(|r| {
                super::jsonrpc::check_response(r);
            });
        }
        single => {
            super::jsonrpc::check_response(single);
        }
    }
}

/// The body of the `http_request` target.
pub fn run(data: &[u8]) {
    let Some((&control, sent)) = data.split_first() else {
        return;
    };
    let answer = exchange(config(control), sent);
    let mut at = 0;
    while at < answer.len() {
        let (status, content_type, body, used) = next_response(&answer[at..]);
        assert!(STATUSES.contains(&status), "status {status}");
        if content_type.as_deref() == Some("application/json") && !body.is_empty() {
            check_json(body);
        }
        at += used;
    }
}

//! `http::serve_stream` over a stream that does not write vectored: what the server
//! writes is a sequence of whole responses, in order, whatever the client pipelines
//! behind a large answer (a malformed request, `Expect: 100-continue`, a body).
//!
//! The inputs are fuzzing findings (`zap-runtime/fuzz`, target `http_request`): byte 0
//! is that target's control byte, the rest what the client sent.

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use zap_runtime::http::{serve_stream, AllowedHosts, HttpConfig};

use crate::http_support::Calc;

/// The fuzz target's settings for control byte 0x0a: a 64-byte body limit, a 512-byte
/// answer limit.
fn config() -> HttpConfig {
    HttpConfig {
        allowed_hosts: AllowedHosts::parse("localhost,b.example"),
        max_body: 64,
        max_answer: 512,
        ..HttpConfig::default()
    }
}

/// What the server writes for `sent` on one duplex connection (not vectored), with the
/// client reading as the server writes, and the clock paused.
async fn exchange(sent: &[u8], buffer: usize) -> Vec<u8> {
    let (client, server) = tokio::io::duplex(buffer);
    let (mut from_server, mut to_server) = tokio::io::split(client);
    let served = tokio::spawn(serve_stream(Arc::new(Calc), config(), server));
    let write = async {
        let _ = to_server.write_all(sent).await;
    };
    let mut answer = Vec::new();
    let (read, ()) = tokio::join!(from_server.read_to_end(&mut answer), write);
    read.expect("read the answers");
    served.await.expect("the connection ends without a panic");
    answer
}

/// Every response in `bytes` (status, body length), checking each is whole: a head,
/// then as many body bytes as its `Content-Length` says, then the next head or the end.
fn responses(bytes: &[u8]) -> Vec<(u16, usize)> {
    let mut at = 0;
    let mut seen = Vec::new();
    while at < bytes.len() {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        let head = match response.parse(&bytes[at..]) {
            Ok(httparse::Status::Complete(n)) => n,
            other => panic!(
                "response {} is not whole ({other:?}) at {:?}",
                seen.len(),
                String::from_utf8_lossy(&bytes[at..bytes.len().min(at + 120)])
            ),
        };
        let status = response.code.expect("a status");
        let length = if status == 100 || status == 204 {
            0
        } else {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .map(|h| std::str::from_utf8(h.value).unwrap().parse().unwrap())
                .expect("a Content-Length")
        };
        let rest = &bytes[at + head..];
        assert!(
            rest.len() >= length,
            "response {} ({status}) has {} of its {length} body bytes",
            seen.len(),
            rest.len()
        );
        let after = &rest[length..];
        assert!(
            after.is_empty() || after.starts_with(b"HTTP/1."),
            "response {} ({status}): its {length}-byte body is followed by {:?}, not a response",
            seen.len(),
            String::from_utf8_lossy(&after[..after.len().min(80)])
        );
        seen.push((status, length));
        at += head + length;
    }
    seen
}

/// A finding's input without its control byte.
fn finding(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/http")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes[0], 0x0a, "the control byte these settings stand for");
    bytes[1..].to_vec()
}

#[tokio::test(start_paused = true)]
async fn malformed_request_after_a_large_answer_is_refused_after_it() {
    let sent = finding("interleaved-400.bin");
    // A small pipe (the fuzz target's), and one that holds every answer at once.
    for buffer in [16 << 10, 1 << 20] {
        let seen = responses(&exchange(&sent, buffer).await);
        assert!(
            seen.iter()
                .any(|&(status, length)| status == 200 && length > 4096),
            "the explorer page is among the answers: {seen:?}"
        );
        assert_eq!(seen.last().map(|r| r.0), Some(400), "{seen:?}");
    }
}

/// A WebSocket upgrade pipelined behind a large answer: the page whole, then the
/// `101`, then the session's frames (here the answer to one call), nothing inside
/// another.
#[tokio::test(start_paused = true)]
async fn upgrade_after_a_large_answer_follows_it() {
    let (client, server) = tokio::io::duplex(4 << 10);
    let (mut from_server, mut to_server) = tokio::io::split(client);
    let served = tokio::spawn(serve_stream(Arc::new(Calc), config(), server));
    let sent = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n\
GET /rpc HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
    to_server.write_all(sent).await.expect("send");
    // Read until the upgrade's head is complete.
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    let page_end = loop {
        let n = from_server.read(&mut chunk).await.expect("read");
        assert!(n > 0, "the server closed before the upgrade: {answer:?}");
        answer.extend_from_slice(&chunk[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut page = httparse::Response::new(&mut headers);
            page.parse(&answer).expect("the page's head");
            let length: usize = page
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .map(|h| std::str::from_utf8(h.value).unwrap().parse().unwrap())
                .expect("a Content-Length");
            let body_end = end + 4 + length;
            if answer.len() > body_end && answer[body_end..].windows(4).any(|w| w == b"\r\n\r\n") {
                break body_end;
            }
        }
    };
    let seen = responses(&answer[..page_end]);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, 200);
    assert!(
        answer[page_end..].starts_with(b"HTTP/1.1 101 "),
        "after the page: {:?}",
        String::from_utf8_lossy(&answer[page_end..answer.len().min(page_end + 60)])
    );
    drop(to_server);
    drop(from_server);
    served.await.expect("the connection ends without a panic");
}

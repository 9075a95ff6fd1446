//! `POST /echo` with a JSON body (an `eth_getBalance` request, as a JSON API would post
//! one), answered with the same body: over HTTP over ZAP frames (target `zaphttp`: one
//! exchange at a time per connection, as zaphttp has no pipelining) and over HTTP/1.1
//! keep-alive (target `http-echo`, pipelined up to the depth). Every answer must be a
//! 200 whose body is the request's.

use std::collections::VecDeque;
use std::io::Write as _;
use std::time::Instant;

use tokio::net::TcpStream;
use zap_runtime::zaphttp::codec::{self, Encoder, Frame, FrameKind};

use super::{write_then_read, Clock, ConnStats, LoadConfig, Target, BLOCK};

struct Sent {
    body: Vec<u8>,
    at: Instant,
}

fn body(out: &mut Vec<u8>, id: u64, account: &str) {
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBalance","params":["{account}","{BLOCK:#x}"]}}"#
    );
}

/// Append a zaphttp request frame, as the Go client writes one.
fn put_zaphttp(out: &mut Vec<u8>, body: &[u8]) {
    let mut e = Encoder::begin(out, FrameKind::Request);
    e.bytes(codec::request::METHOD, b"POST")
        .bytes(codec::request::TARGET, b"/echo")
        .bytes(codec::request::PROTO, b"HTTP/1.1")
        .pairs(
            codec::request::HEADERS,
            [
                (&b"Host"[..], &b"127.0.0.1"[..]),
                (b"Content-Type", b"application/json"),
            ],
            false,
        )
        .bytes(codec::request::BODY, body);
    e.finish();
}

fn put_http(out: &mut Vec<u8>, body: &[u8]) {
    let _ = write!(
        out,
        "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    out.extend_from_slice(body);
}

/// One whole zaphttp response at the start of `buf`: (status, body, bytes used).
fn parse_zaphttp(buf: &[u8]) -> Result<Option<super::http::Parsed<'_>>, String> {
    let Some(len) = buf.get(..4) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let Some(frame) = buf.get(4..4 + len) else {
        return Ok(None);
    };
    match Frame::parse(frame).map_err(|e| e.to_string())? {
        Frame::Response(r) => Ok(Some((r.status, r.body, 4 + len))),
        other => Err(format!(
            "a {} frame where a whole response goes",
            other.kind()
        )),
    }
}

pub(super) async fn drive(
    mut stream: TcpStream,
    config: &LoadConfig,
    clock: &Clock,
    ledger: &eth_rpc::ledger::Ledger,
    first_id: u64,
) -> Result<ConnStats, String> {
    if config.target == Target::ZapHttp && config.depth != 1 {
        return Err("zaphttp has one exchange at a time per connection: use --depth 1".into());
    }
    let accounts: Vec<String> = (0..ledger.len())
        .map(|i| zap_runtime::json::to_hex(&ledger.address(i).copied().unwrap_or_default()))
        .collect();
    let mut stats = ConnStats::default();
    let mut inflight: VecDeque<Sent> = VecDeque::with_capacity(config.depth);
    let mut write = Vec::with_capacity(config.depth * 512);
    let mut read = Vec::with_capacity(64 << 10);
    let mut next_id = first_id;
    let mut sending = true;
    loop {
        let now = Instant::now();
        while sending && inflight.len() < config.depth {
            if !clock.take(now) {
                sending = false;
                break;
            }
            let mut sent = Sent {
                body: Vec::with_capacity(160),
                at: now,
            };
            body(
                &mut sent.body,
                next_id,
                &accounts[next_id as usize % accounts.len()],
            );
            match config.target {
                Target::ZapHttp => put_zaphttp(&mut write, &sent.body),
                _ => put_http(&mut write, &sent.body),
            }
            inflight.push_back(sent);
            next_id += 1;
        }
        if inflight.is_empty() {
            return Ok(stats);
        }
        write_then_read(
            &mut stream,
            &mut write,
            &mut read,
            inflight.len(),
            config.stall_timeout,
        )
        .await?;
        let done = Instant::now();
        let mut pos = 0;
        loop {
            let parsed = match config.target {
                Target::ZapHttp => parse_zaphttp(&read[pos..])?,
                _ => super::http::parse_response(&read[pos..])?,
            };
            let Some((status, answer, used)) = parsed else {
                break;
            };
            let sent = inflight.pop_front().ok_or("an answer nobody asked for")?;
            if status != 200 || answer != sent.body {
                return Err(format!(
                    "HTTP {status} with body {:?}, want 200 with {:?}",
                    String::from_utf8_lossy(answer),
                    String::from_utf8_lossy(&sent.body)
                ));
            }
            stats.answered_at(clock, sent.at, done);
            pos += used;
        }
        read.drain(..pos);
    }
}

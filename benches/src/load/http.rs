//! JSON-RPC over HTTP/1.1 keep-alive, with a minimal hand-written client: requests are
//! written back to back (pipelined up to the depth), responses parsed in order
//! (status line, Content-Length, body).

use std::collections::VecDeque;
use std::io::Write as _;
use std::time::Instant;

use serde::Deserialize;
use tokio::net::TcpStream;

use super::baseline::FIXED_BODY;
use super::{expected, write_then_read, Clock, ConnStats, Expected, LoadConfig, Target, BLOCK};

struct Sent {
    id: u64,
    want: Expected,
    at: Instant,
}

/// Ethereum's answer: the balance as a quantity (`0x`-hex).
#[derive(Deserialize)]
struct Answer<'a> {
    id: u64,
    result: &'a str,
}

/// Append one `eth_getBalance` request, as Ethereum clients write it: `[address, block]`.
fn put_request(out: &mut Vec<u8>, body: &mut Vec<u8>, id: u64, account: &str) {
    body.clear();
    let _ = write!(
        body,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBalance","params":["{account}","{BLOCK:#x}"]}}"#
    );
    let _ = write!(
        out,
        "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    out.extend_from_slice(body);
}

/// A response: status, body, bytes it took.
pub(super) type Parsed<'a> = (u16, &'a [u8], usize);

/// One complete response at the start of `buf`: (status, body, bytes used), or `None`
/// if more bytes are needed.
pub(super) fn parse_response(buf: &[u8]) -> Result<Option<Parsed<'_>>, String> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        if buf.len() > 16 << 10 {
            return Err("response header over 16 KiB".into());
        }
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..end]).map_err(|_| "response header is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut length = None;
    for line in lines {
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(format!(
                "unsupported {line:?} (this client reads Content-Length)"
            ));
        }
    }
    let length = length.ok_or("response without Content-Length")?;
    let start = end + 4;
    Ok(buf
        .get(start..start + length)
        .map(|body| (status, body, start + length)))
}

pub(super) async fn drive(
    mut stream: TcpStream,
    config: &LoadConfig,
    clock: &Clock,
    ledger: &eth_rpc::ledger::Ledger,
    first_id: u64,
) -> Result<ConnStats, String> {
    let accounts: Vec<(String, Expected)> = (0..ledger.len())
        .map(|i| {
            let (address, want) = expected(ledger, i);
            (zap_runtime::json::to_hex(&address), want)
        })
        .collect();
    let mut stats = ConnStats::default();
    let mut inflight: VecDeque<Sent> = VecDeque::with_capacity(config.depth);
    let mut write = Vec::with_capacity(config.depth * 512);
    let mut body = Vec::with_capacity(256);
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
            let (account, want) = &accounts[(next_id as usize) % accounts.len()];
            put_request(&mut write, &mut body, next_id, account);
            inflight.push_back(Sent {
                id: next_id,
                want: *want,
                at: now,
            });
            next_id += 1;
        }
        if inflight.is_empty() {
            // Nothing in flight and nothing more to send: the run is over for this
            // connection (a request is always sent before it can be in flight).
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
        while let Some((status, answer, used)) = parse_response(&read[pos..])? {
            let sent = inflight.pop_front().ok_or("an answer nobody asked for")?;
            check(config.target, status, answer, &sent)?;
            stats.answered_at(clock, sent.at, done);
            pos += used;
        }
        read.drain(..pos);
    }
}

fn check(target: Target, status: u16, body: &[u8], sent: &Sent) -> Result<(), String> {
    if status != 200 {
        return Err(format!(
            "request {}: HTTP {status}: {}",
            sent.id,
            String::from_utf8_lossy(body)
        ));
    }
    if target == Target::HttpFixed {
        if body != FIXED_BODY.as_bytes() {
            return Err(format!(
                "unexpected body {:?}",
                String::from_utf8_lossy(body)
            ));
        }
        return Ok(());
    }
    let a: Answer<'_> = serde_json::from_slice(body).map_err(|e| {
        format!(
            "request {}: {e} in {:?}",
            sent.id,
            String::from_utf8_lossy(body)
        )
    })?;
    let balance = zap_runtime::json::parse_quantity(a.result, 64)
        .map_err(|e| format!("request {}: result {:?}: {e}", sent.id, a.result))?;
    let got = (a.id, balance);
    let want = (sent.id, sent.want.balance);
    if got != want {
        return Err(format!(
            "request {}: got (id, balance) {got:?}, want {want:?}",
            sent.id
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pipelined_responses_and_waits_for_partial_ones() {
        let two = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        let (status, body, used) = parse_response(two).unwrap().unwrap();
        assert_eq!((status, body), (200, &b"{}"[..]));
        let (status, body, _) = parse_response(&two[used..]).unwrap().unwrap();
        assert_eq!((status, body), (404, &b""[..]));
        assert_eq!(parse_response(&two[..30]).unwrap(), None);
        assert_eq!(parse_response(&two[..used - 1]).unwrap(), None);
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").is_err());
    }

    #[test]
    fn request_is_well_formed() {
        let (mut out, mut body) = (Vec::new(), Vec::new());
        put_request(&mut out, &mut body, 7, "0xab");
        let text = String::from_utf8(out).unwrap();
        let (head, json) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.ends_with(&format!("Content-Length: {}", json.len())));
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["params"][0], "0xab");
        assert_eq!(v["params"][1], format!("{BLOCK:#x}"));
        assert_eq!(v["id"], 7);
    }
}

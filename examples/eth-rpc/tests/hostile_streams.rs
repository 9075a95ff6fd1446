//! Hostile stream peers against the real `eth-rpc` binary, in raw frames: a flood of
//! opens past the per-connection limit, frames for streams that do not exist or have
//! ended, a reader that never reads an endless `newHeads`, and a peer that vanishes
//! mid-stream. The server's memory stays bounded, its handlers end, and other
//! connections are served throughout.

use crate::process;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use eth_rpc::eth::{BalanceRequest, EthClient, HeadsRequest};
use process::{get_body, rss_kib, EthRpc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::client::Client;
use zap_runtime::frame::{encode_frame, Direction};
use zap_runtime::rpc::Request;
use zap_runtime::{Builder, ZapStruct};

/// The ordinal of `newHeads`.
const NEW_HEADS: u32 = 6;

/// A dir-3 frame opening `newHeads` as stream `id`, for `count` heads (0: endless).
fn open(id: u32, count: u32) -> Vec<u8> {
    let payload = HeadsRequest { count }.to_bytes().unwrap();
    let mut b = Builder::new();
    let envelope = Request {
        method: NEW_HEADS,
        promise_id: id,
        target: 0,
        cap: b"",
        payload: &payload,
    }
    .encode(&mut b)
    .unwrap();
    let mut frame = Vec::new();
    encode_frame(&mut frame, Direction::StreamOpen, envelope).unwrap();
    frame
}

/// A dir-4 or dir-5 frame for stream `id`.
fn stream_frame(dir: Direction, id: u32, message: &[u8]) -> Vec<u8> {
    let mut body = id.to_le_bytes().to_vec();
    body.extend_from_slice(message);
    let mut frame = Vec::new();
    encode_frame(&mut frame, dir, &body).unwrap();
    frame
}

/// `zap_streams_active` of `newHeads` (0 when absent).
async fn active_streams(http: SocketAddr) -> u64 {
    metric(http, "zap_streams_active{").await
}

async fn metric(http: SocketAddr, prefix: &str) -> u64 {
    let text = get_body(http, "/metrics").await.unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with(prefix) && l.contains("method=\"newHeads\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Poll until `zap_streams_active` is `want` (at most 10 s).
async fn until_active(http: SocketAddr, want: u64) {
    let start = Instant::now();
    loop {
        let now = active_streams(http).await;
        if now == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "zap_streams_active stayed {now}, not {want}, for 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Another client is served: a balance, and a short stream of its own.
async fn others_are_served(zap: SocketAddr) {
    let eth = EthClient::new(Client::connect(zap).await.unwrap());
    eth.get_balance(&BalanceRequest::default()).await.unwrap();
    let mut heads = eth.new_heads(&HeadsRequest { count: 2 }).await.unwrap();
    assert!(heads.next().await.unwrap().is_some());
    assert!(heads.next().await.unwrap().is_some());
    assert!(heads.next().await.unwrap().is_none());
}

/// Read frames from `conn` for `window`; how many dir-5 (end) frames came.
async fn count_ends(conn: &mut TcpStream, window: Duration) -> usize {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let deadline = tokio::time::Instant::now() + window;
    while let Ok(Ok(n)) = tokio::time::timeout_at(deadline, conn.read(&mut chunk)).await {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let (mut at, mut ends) = (0, 0);
    while at + 5 <= buf.len() {
        let len = u32::from_le_bytes(buf[at..at + 4].try_into().unwrap()) as usize;
        if at + 4 + len > buf.len() {
            break;
        }
        if buf[at + 4] == Direction::StreamEnd as u8 {
            ends += 1;
        }
        at += 4 + len;
    }
    ends
}

#[tokio::test]
async fn a_flood_of_opens_and_stray_frames_is_bounded() {
    let server = EthRpc::start(&["--block-time", "0.05", "--zap-max-streams", "50"]).await;
    let before = rss_kib(server.pid);
    let mut conn = TcpStream::connect(server.zap).await.unwrap();
    let mut flood = Vec::new();
    for id in 1..=5000 {
        flood.extend(open(id, 0));
        // Messages and ends for streams that do not exist, and frames too short to
        // name a stream.
        flood.extend(stream_frame(
            Direction::StreamMessage,
            1_000_000 + id,
            b"junk",
        ));
        flood.extend(stream_frame(Direction::StreamEnd, 2_000_000 + id, b""));
    }
    flood.extend([1, 0, 0, 0, Direction::StreamEnd as u8]);
    conn.write_all(&flood).await.unwrap();
    // Opens past the 50th are ended at once: 4,950 end frames come back among the heads.
    let ends = count_ends(&mut conn, Duration::from_secs(3)).await;
    assert!(ends >= 4950, "{ends} end frames");
    assert_eq!(active_streams(server.http).await, 50);
    others_are_served(server.zap).await;
    // Ending our side of a stream does not end the server's (a half-close).
    conn.write_all(&stream_frame(Direction::StreamEnd, 1, b""))
        .await
        .unwrap();
    assert_eq!(active_streams(server.http).await, 50);
    let grown = rss_kib(server.pid).saturating_sub(before);
    assert!(grown < 32 << 10, "the server grew by {grown} KiB");
    // The peer goes: every handler ends.
    drop(conn);
    until_active(server.http, 0).await;
}

#[tokio::test]
async fn a_reader_that_never_reads_holds_its_streams_back() {
    let server = EthRpc::start(&["--block-time", "0.001"]).await;
    let before = rss_kib(server.pid);
    let mut conn = TcpStream::connect(server.zap).await.unwrap();
    let opens: Vec<u8> = (1..=100).flat_map(|id| open(id, 0)).collect();
    conn.write_all(&opens).await.unwrap();
    until_active(server.http, 100).await;
    // Heads pile up in the socket buffers until they are full; then every handler
    // waits for room instead of buffering more. Wait until the bytes sent stop growing.
    let sent = || async { metric_server(server.http, "zap_sent_bytes_total{").await };
    let mut last = (sent().await, Instant::now());
    while last.1.elapsed() < Duration::from_secs(1) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = sent().await;
        if now > last.0 + 4096 {
            last = (now, Instant::now());
        }
    }
    let out = metric(server.http, "zap_stream_messages_total{").await;
    let grown = rss_kib(server.pid).saturating_sub(before);
    assert!(grown < 32 << 10, "the server grew by {grown} KiB");
    others_are_served(server.zap).await;
    // Still held back: a second later hardly more messages went out.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let later = metric(server.http, "zap_stream_messages_total{").await;
    assert!(later < out + 2000, "{out} then {later} messages");
    drop(conn);
    until_active(server.http, 0).await;
}

/// A per-server counter (`server="zap"`).
async fn metric_server(http: SocketAddr, prefix: &str) -> u64 {
    let text = get_body(http, "/metrics").await.unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with(prefix) && l.contains("server=\"zap\""))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_peer_that_vanishes_mid_stream_ends_its_handlers() {
    let server = EthRpc::start(&["--block-time", "0.01"]).await;
    for round in 0..3 {
        let mut conn = TcpStream::connect(server.zap).await.unwrap();
        let opens: Vec<u8> = (1..=20).flat_map(|id| open(id, 0)).collect();
        conn.write_all(&opens).await.unwrap();
        let mut first = [0u8; 512];
        conn.read_exact(&mut first).await.unwrap();
        until_active(server.http, 20).await;
        // Gone with unread heads: the kernel resets the connection.
        drop(conn);
        until_active(server.http, 0).await;
        assert_eq!(
            metric(server.http, "zap_streams_opened_total{").await,
            20 * (round + 1)
        );
    }
    others_are_served(server.zap).await;
}

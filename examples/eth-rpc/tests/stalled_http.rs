//! HTTP clients that send requests and never read the answers, against the real binary:
//! each holds its connection (and the answer waiting in it) no longer than
//! `--http-write-stall-timeout`, and `/health` answers throughout.

mod process;

use std::time::{Duration, Instant};

use process::{get_body, EthRpc};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

/// Stalled connections at once.
const STALLED: usize = 20;
/// `rpc.discover` calls per batch (the server's limit): an answer of about 4 MiB, more
/// than a loopback socket's send buffer grows to (Linux: `tcp_wmem` at most 4 MiB) with
/// a receiver that reads nothing.
const BATCH: usize = 1000;

/// The server's `zap_connections_active` for its HTTP listener.
async fn active_http(server: &EthRpc) -> Option<u64> {
    let text = get_body(server.http, "/metrics").await?;
    text.lines()
        .find(|l| l.starts_with("zap_connections_active{") && l.contains("server=\"http\""))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// Poll `active_http` (once per 100 ms, at most `within`) until `done` holds.
async fn until(server: &EthRpc, within: Duration, done: impl Fn(u64) -> bool) -> u64 {
    let started = Instant::now();
    loop {
        // The poll's own connection counts while it is open: subtract it.
        let active = active_http(server).await.map(|n| n.saturating_sub(1));
        if let Some(n) = active.filter(|&n| done(n)) {
            return n;
        }
        assert!(
            started.elapsed() < within,
            "still {active:?} active after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A connection with a 1 KiB receive buffer that sends one big batch and never reads.
async fn stall(server: &EthRpc, body: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    let mut stream = socket.connect(server.http).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    stream
}

#[tokio::test]
async fn connections_that_never_read_are_closed_after_the_stall_timeout() {
    let server = EthRpc::start(&["--http-write-stall-timeout", "3"]).await;
    let calls: Vec<String> = (0..BATCH)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"rpc.discover"}}"#))
        .collect();
    let body = format!("[{}]", calls.join(","));

    let started = Instant::now();
    let mut held = Vec::new();
    for _ in 0..STALLED {
        held.push(stall(&server, &body).await);
    }
    // All are being served (their answers stuck), and /health still answers.
    until(&server, Duration::from_secs(20), |n| n as usize >= STALLED).await;
    assert_eq!(process::get_status(server.http, "/health").await, Some(200));

    // Then, one stall timeout after their answers stopped moving, all are gone, though
    // the clients keep their sockets open.
    until(&server, Duration::from_secs(20), |n| n == 0).await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(3),
        "closed after {took:?}, before the timeout"
    );
    assert_eq!(process::get_status(server.http, "/health").await, Some(200));
    drop(held);
}

//! HTTP clients that send requests and never read the answers, against the real binary:
//! each holds its connection (and the answer waiting in it) no longer than
//! `--http-write-stall-timeout`, and `/health` answers throughout.

use crate::process;

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

/// Raise this test's open-file soft limit to its hard limit (a thousand sockets need it
/// where the soft limit is 1024).
fn raise_open_file_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        },
    )
    .expect("raise the open-file soft limit");
}

/// The status of `GET path` at `addr`, or `None` when the connection is refused or
/// closed unanswered.
async fn status(addr: std::net::SocketAddr, path: &str) -> Option<u16> {
    process::get_status(addr, path).await
}

#[tokio::test]
async fn a_thousand_stalled_connections_release_the_port_within_the_stall_timeout() {
    raise_open_file_limit();
    const HELD: usize = 1030;
    let stall_timeout = Duration::from_secs(10);
    // A stalled connection is either stuck writing an answer the peer does not take
    // (the write-stall timeout) or, once the answer fitted in the kernel's buffers,
    // waiting for a next request that never comes (the header-read timeout): both 10 s.
    let server = EthRpc::start(&[
        "--http-write-stall-timeout",
        "10",
        "--http-header-read-timeout",
        "10",
        "--metrics-addr",
        "127.0.0.1:0",
    ])
    .await;
    let admin = server
        .metrics
        .expect("the admin listener's address in the log");
    // 25 rpc.discover answers (about 100 KB): more than a send buffer takes when the
    // receiver's window is 1 KiB.
    let calls: Vec<String> = (0..25)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"rpc.discover"}}"#))
        .collect();
    let body = format!("[{}]", calls.join(","));
    let mut held = Vec::new();
    let mut last_sent = Instant::now();
    for _ in 0..HELD {
        match tokio::time::timeout(Duration::from_secs(2), stall(&server, &body)).await {
            Ok(stream) => held.push(stream),
            // Past the connection limit the server closes at once: a send may fail.
            Err(_) => break,
        }
        last_sent = Instant::now();
    }
    // The data port is full (1024 connections): /health there is refused...
    assert_eq!(status(server.http, "/health").await, None);
    // ...while the admin listener answers health and metrics throughout.
    assert_eq!(status(admin, "/health").await, Some(200));
    let metrics = process::get_body(admin, "/metrics").await.unwrap();
    let refused: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("zap_connections_refused_total{server=\"http\"} "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP refusal count in {metrics}"));
    assert!(refused > 0, "the data port refused nothing");
    // Within the timeout of the last connection made (plus a little), the data port
    // answers again, though the clients keep their sockets.
    let answered = loop {
        if status(server.http, "/health").await == Some(200) {
            break last_sent.elapsed();
        }
        assert!(
            last_sent.elapsed() < stall_timeout + Duration::from_secs(10),
            "/health not answered {:?} after the last stalled request",
            last_sent.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!(
        "{} stalled connections; /health answered again {answered:?} after the last was sent",
        held.len()
    );
    assert!(
        held.len() >= 1024,
        "only {} connections were made",
        held.len()
    );
    drop(held);
}

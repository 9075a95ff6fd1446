//! JSON-RPC over a unix socket (`http::IpcServer`) against hostile and careless
//! clients, and the socket file's life: its mode, a stale file replaced, a live one or
//! a file of another kind left alone, removal on shutdown.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::task::JoinHandle;
use zap_runtime::http::{CancellationToken, HttpConfig, IpcServer};

use crate::http_support::Calc;

struct Running {
    path: PathBuf,
    stats: zap_runtime::http::ServerStats,
    stop: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

fn socket_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("zap-ipc")
        .tempdir()
        .unwrap()
}

async fn start(config: HttpConfig) -> Running {
    let dir = socket_dir();
    let path = dir.path().join("calc.ipc");
    let server = IpcServer::bind(&path, Arc::new(Calc), config).unwrap();
    let stats = server.stats();
    let stop = CancellationToken::new();
    let task = tokio::spawn(server.run(stop.clone()));
    Running {
        path,
        stats,
        stop,
        task,
        _dir: dir,
    }
}

impl Running {
    async fn stop(self) -> PathBuf {
        self.stop.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the server stops within 10 s")
            .unwrap()
            .unwrap();
        self.path
    }
}

/// Send `bytes`, then read answer lines until `n` arrived.
async fn exchange(path: &Path, bytes: &[u8], n: usize) -> Vec<Value> {
    let mut stream = UnixStream::connect(path).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut lines = BufReader::new(stream).lines();
    let mut answers = Vec::new();
    while answers.len() < n {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("an answer within 10 s")
            .unwrap()
            .expect("the server answers before closing");
        answers.push(serde_json::from_str(&line).unwrap());
    }
    answers
}

/// Read until the server closes the connection (within 10 s); what it sent.
async fn until_closed(stream: &mut UnixStream) -> Vec<u8> {
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut all))
        .await
        .expect("the server closes within 10 s")
        .unwrap();
    all
}

#[tokio::test]
async fn values_are_answered_one_line_each_in_any_layout() {
    let server = start(HttpConfig::default()).await;
    let add =
        |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "calc_add", "params": [id, 1]});
    // Back to back, across whitespace, a batch, a notification (no answer).
    let input = format!(
        "{}{}\n\n  [{},{}]\r\n{}",
        add(1),
        add(2),
        add(3),
        add(4),
        json!({"jsonrpc": "2.0", "method": "calc_ping"}),
    );
    let answers = exchange(&server.path, input.as_bytes(), 3).await;
    assert_eq!(answers[0]["result"]["value"], 2, "{answers:?}");
    assert_eq!(answers[1]["result"]["value"], 3, "{answers:?}");
    assert_eq!(answers[2][0]["result"]["value"], 4, "{answers:?}");
    assert_eq!(answers[2][1]["result"]["value"], 5, "{answers:?}");
    // One value sent a byte at a time.
    let mut stream = UnixStream::connect(&server.path).await.unwrap();
    for byte in add(9).to_string().bytes() {
        stream.write_all(&[byte]).await.unwrap();
    }
    let mut line = String::new();
    BufReader::new(&mut stream)
        .read_line(&mut line)
        .await
        .unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["result"]["value"], 10, "{answer}");
    let path = server.stop().await;
    assert!(!path.exists(), "the socket file is removed on shutdown");
}

#[tokio::test]
async fn a_value_over_the_limit_is_refused_and_the_connection_closed() {
    let server = start(HttpConfig {
        max_body: 1024,
        ..HttpConfig::default()
    })
    .await;
    let mut stream = UnixStream::connect(&server.path).await.unwrap();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"calc_add","params":["{}"]}}"#,
        "7".repeat(4096)
    );
    // The server may close before it has read all of it.
    let _ = stream.write_all(huge.as_bytes()).await;
    let answer: Value =
        serde_json::from_slice(until_closed(&mut stream).await.trim_ascii()).unwrap();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    // Others are still served.
    let answers = exchange(
        &server.path,
        br#"{"jsonrpc":"2.0","id":1,"method":"calc_ping"}"#,
        1,
    )
    .await;
    assert_eq!(answers[0]["result"], Value::Null, "{answers:?}");
    server.stop().await;
}

#[tokio::test]
async fn bytes_that_are_not_json_values_are_refused_and_the_connection_closed() {
    let server = start(HttpConfig::default()).await;
    for garbage in [&b"hello\n"[..], b"42 ", b"{\"jsonrpc\":\"2.0\"} ]"] {
        let mut stream = UnixStream::connect(&server.path).await.unwrap();
        stream.write_all(garbage).await.unwrap();
        let all = until_closed(&mut stream).await;
        let last = all.trim_ascii().split(|&b| b == b'\n').next_back().unwrap();
        let answer: Value = serde_json::from_slice(last).unwrap();
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
    }
    server.stop().await;
}

#[tokio::test]
async fn an_unterminated_value_is_dropped_at_the_idle_timeout() {
    let server = start(HttpConfig {
        ws_idle_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let mut stream = UnixStream::connect(&server.path).await.unwrap();
    stream
        .write_all(br#"{"jsonrpc":"2.0","id":1,"#)
        .await
        .unwrap();
    assert!(until_closed(&mut stream).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_subscriber_that_never_reads_is_disconnected_and_others_are_served() {
    let server = start(HttpConfig {
        ws_idle_timeout: Duration::from_millis(500),
        ..HttpConfig::default()
    })
    .await;
    let mut stream = UnixStream::connect(&server.path).await.unwrap();
    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "calc_subscribe", "params": ["counter", {"value": u32::MAX}]});
    stream
        .write_all(subscribe.to_string().as_bytes())
        .await
        .unwrap();
    // Reads nothing while the server fills the socket's buffers; meanwhile another
    // client is answered.
    let answers = exchange(
        &server.path,
        br#"{"jsonrpc":"2.0","id":7,"method":"calc_add","params":[1,2]}"#,
        1,
    )
    .await;
    assert_eq!(answers[0]["result"]["value"], 3, "{answers:?}");
    // Past the idle timeout with its writes stalled, the server closes the session
    // (the other one ended with its answer): reading now drains what was sent and
    // reaches the end.
    let stats = server.stats.clone();
    crate::server_support::until("the stalled session is closed", || {
        stats.active_connections() == 0
    })
    .await;
    assert_eq!(stats.accepted(), 2);
    let sent = until_closed(&mut stream).await;
    let notifications = sent
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert!(notifications > 1, "{notifications}");
    server.stop().await;
}

#[tokio::test]
async fn the_socket_file_is_its_owners_and_a_stale_one_is_replaced() {
    let dir = socket_dir();
    let path = dir.path().join("calc.ipc");
    // A socket nobody listens on: what a killed server leaves.
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    let server = IpcServer::bind(&path, Arc::new(Calc), HttpConfig::default()).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // A live one is not replaced.
    let again = IpcServer::bind(&path, Arc::new(Calc), HttpConfig::default()).unwrap_err();
    assert_eq!(again.kind(), std::io::ErrorKind::AddrInUse, "{again}");
    assert!(again.to_string().contains("listening"), "{again}");
    drop(server);

    // Another mode when asked.
    let other = dir.path().join("group.ipc");
    let _server =
        IpcServer::bind_with_mode(&other, Arc::new(Calc), HttpConfig::default(), 0o660).unwrap();
    assert_eq!(
        std::fs::metadata(&other).unwrap().permissions().mode() & 0o777,
        0o660
    );

    // A file that is not a socket is left alone.
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let refused = IpcServer::bind(&file, Arc::new(Calc), HttpConfig::default()).unwrap_err();
    assert!(refused.to_string().contains("not a socket"), "{refused}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

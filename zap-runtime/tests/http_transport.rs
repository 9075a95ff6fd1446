//! The HTTP side of the JSON-RPC server: routes, methods, content types, body limits,
//! keep-alive and graceful shutdown, checked with raw HTTP/1.1 on real sockets.

use crate::http_support;

use std::time::{Duration, Instant};

use http_support::SLOW_CALLS_STARTED;
use http_support::{error_code, request, wait_for_slow_call, Server};
use serde_json::json;
use zap_runtime::http::{code, HttpConfig};

async fn server() -> Server {
    Server::start(HttpConfig::default()).await
}

fn small_body_limit() -> HttpConfig {
    HttpConfig {
        max_body: 1024,
        ..HttpConfig::default()
    }
}

#[tokio::test]
async fn health() {
    let server = server().await;
    let mut client = server.connect().await;
    client
        .send(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let response = client.read_response().await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json(), json!({"status": "ok"}));
    server.shutdown().await;
}

#[tokio::test]
async fn unknown_path_is_404() {
    let server = server().await;
    let mut client = server.connect().await;
    let response = client
        .post("/calc", &request(json!(1), "calc_ping", json!([])))
        .await;
    assert_eq!(response.status, 404);
    // `/` is JSON-RPC too (Ethereum tools post there).
    let response = client
        .post("/", &request(json!(2), "calc_ping", json!([])))
        .await;
    assert_eq!(response.status, 200);
    client
        .send(b"GET /rpc/extra HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let response = client.read_response().await;
    assert_eq!(response.status, 404);
    assert!(String::from_utf8_lossy(&response.body).contains("POST /rpc"));
    server.shutdown().await;
}

#[tokio::test]
async fn wrong_method_is_405_with_allow() {
    let server = server().await;
    let mut client = server.connect().await;
    client
        .send(b"GET /rpc HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let response = client.read_response().await;
    assert_eq!(response.status, 405);
    assert_eq!(response.header("allow"), Some("POST"));
    client
        .send(b"DELETE /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let response = client.read_response().await;
    assert_eq!(response.status, 405);
    assert_eq!(response.header("allow"), Some("GET, HEAD"));
    server.shutdown().await;
}

async fn post_with_type(server: &Server, content_type: Option<&str>) -> u16 {
    let body = request(json!(1), "calc_add", json!([1, 2]));
    let type_line = content_type
        .map(|t| format!("Content-Type: {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\n{type_line}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut client = server.connect().await;
    client.send(head.as_bytes()).await;
    client.send(body.as_bytes()).await;
    let response = client.read_response().await;
    if response.status == 200 {
        assert_eq!(response.json()["result"]["value"], 3);
    } else {
        assert_eq!(error_code(&response.json()), code::INVALID_REQUEST);
    }
    response.status
}

#[tokio::test]
async fn content_type_is_required_and_checked_leniently() {
    let server = server().await;
    for accepted in [
        Some("application/json"),
        Some("application/json; charset=utf-8"),
        Some("Application/JSON;charset=UTF-8"),
        Some("application/json-rpc"),
        Some("application/vnd.api+json"),
    ] {
        assert_eq!(post_with_type(&server, accepted).await, 200, "{accepted:?}");
    }
    // What a web page can post cross-origin without a preflight, and no type at all.
    for refused in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data"),
    ] {
        assert_eq!(post_with_type(&server, refused).await, 415, "{refused:?}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn declared_length_over_the_limit_is_413_before_the_body() {
    let server = Server::start(small_body_limit()).await;
    let mut client = server.connect().await;
    // Only the head: the server must answer without waiting for 100 MB.
    client
        .send(b"POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{")
        .await;
    let started = Instant::now();
    let response = client.read_response().await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(response.status, 413);
    assert_eq!(response.header("connection"), Some("close"));
    let answer = response.json();
    assert_eq!(error_code(&answer), code::INVALID_REQUEST);
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("1024 bytes"));
    assert!(client.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn chunked_body_over_the_limit_is_413() {
    // Pipelined flushing is off by default: with it, hyper cannot flush the 413 while
    // the client's unread body sits in its buffer (see the next test).
    let server = Server::start(small_body_limit()).await;
    let mut client = server.connect().await;
    client
        .send(b"POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        .await;
    // 2 KiB in 512-byte chunks, and the body never ends: the server must stop reading.
    let chunk = format!("200\r\n{}\r\n", " ".repeat(512));
    for _ in 0..4 {
        client.send(chunk.as_bytes()).await;
    }
    let response = client.read_response().await;
    assert_eq!(response.status, 413);
    assert!(client.is_closed_by_server().await);
    server.shutdown().await;
}

/// With pipelined flushing on, the server still stops reading an over-limit chunked body
/// and closes the connection; only the 413 is lost (documented on `pipeline_flush`).
#[tokio::test]
async fn chunked_body_over_the_limit_closes_with_pipeline_flush() {
    let server = Server::start(HttpConfig {
        pipeline_flush: true,
        ..small_body_limit()
    })
    .await;
    let mut client = server.connect().await;
    client
        .send(b"POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        .await;
    let chunk = format!("200\r\n{}\r\n", " ".repeat(512));
    for _ in 0..4 {
        client.send(chunk.as_bytes()).await;
    }
    assert!(client.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn chunked_body_within_the_limit_is_served() {
    let server = Server::start(small_body_limit()).await;
    let mut client = server.connect().await;
    let body = request(json!(1), "calc_add", json!([20, 22]));
    let (first, second) = body.split_at(10);
    let message = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
        first.len(),
        second.len()
    );
    client.send(message.as_bytes()).await;
    let response = client.read_response().await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["result"]["value"], 42);
    server.shutdown().await;
}

#[tokio::test]
async fn body_exactly_at_the_limit_is_served() {
    let server = Server::start(small_body_limit()).await;
    let call = request(json!(1), "calc_add", json!([1, 2]));
    let body = format!("{call:<1024}");
    assert_eq!(body.len(), 1024);
    let (status, answer) = server.rpc(&body).await;
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["value"], 3);
    server.shutdown().await;
}

#[tokio::test]
async fn body_that_does_not_arrive_in_time_is_408() {
    let config = HttpConfig {
        body_read_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    };
    let server = Server::start(config).await;
    let mut client = server.connect().await;
    client
        .send(b"POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .await;
    let response = client.read_response().await;
    assert_eq!(response.status, 408);
    assert_eq!(error_code(&response.json()), code::INVALID_REQUEST);
    assert!(client.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn keep_alive_serves_many_requests_on_one_connection() {
    let server = server().await;
    let mut client = server.connect().await;
    for i in 0..20u64 {
        let response = client
            .post("/rpc", &request(json!(i), "calc_add", json!([i, i])))
            .await;
        assert_eq!(response.status, 200);
        assert_eq!(response.json()["id"], i);
        assert_eq!(response.json()["result"]["value"], 2 * i);
    }
    client
        .send(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    assert_eq!(client.read_response().await.status, 200);
    // Errors do not close the connection either.
    let response = client.post("/rpc", "not json").await;
    assert_eq!(error_code(&response.json()), code::PARSE_ERROR);
    let response = client
        .post("/rpc", &request(json!(1), "calc_ping", json!([])))
        .await;
    assert_eq!(response.status, 200);
    server.shutdown().await;
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let server = server().await;
    let mut client = server.connect().await;
    let mut burst = Vec::new();
    for i in 0..5u64 {
        let body = request(json!(i), "calc_add", json!([i, 1]));
        burst.extend_from_slice(
            format!(
                "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    client.send(&burst).await;
    for i in 0..5u64 {
        let response = client.read_response().await;
        assert_eq!(response.json()["id"], i);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn idle_connection_is_closed_after_the_header_timeout() {
    let config = HttpConfig {
        header_read_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    };
    let server = Server::start(config).await;
    let mut client = server.connect().await;
    let response = client
        .post("/rpc", &request(json!(1), "calc_ping", json!([])))
        .await;
    assert_eq!(response.status, 200);
    assert!(client.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight() {
    let mut server = server().await;
    let mut busy = server.connect().await;
    let mut idle = server.connect().await;
    let response = idle
        .post("/rpc", &request(json!(1), "calc_ping", json!([])))
        .await;
    assert_eq!(response.status, 200);

    let before = SLOW_CALLS_STARTED.load(std::sync::atomic::Ordering::SeqCst);
    let body = request(json!("slow"), "calc_slow", json!([300]));
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    busy.send(head.as_bytes()).await;
    busy.send(body.as_bytes()).await;
    wait_for_slow_call(before).await;
    server.begin_shutdown();

    // The idle keep-alive connection is closed; the slow call is still answered.
    assert!(idle.is_closed_by_server().await);
    let response = busy.read_response().await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["result"]["value"], 300);
    assert!(busy.is_closed_by_server().await);

    // No new connections once shut down.
    let addr = server.addr;
    server.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn connections_past_the_limit_are_refused() {
    let config = HttpConfig {
        max_connections: 1,
        ..HttpConfig::default()
    };
    let server = Server::start(config).await;
    let ping = |id: u64| request(json!(id), "calc_ping", json!([]));
    let mut first = server.connect().await;
    assert_eq!(first.post("/rpc", &ping(1)).await.status, 200);

    // The first is open and answered, so the second is past the limit: closed at once,
    // without reading it, and counted; it does not wait for a slot.
    let mut second = server.connect().await;
    assert!(second.is_closed_by_server().await, "refused, not queued");
    assert_eq!(server.stats.refused(), 1);
    assert_eq!(server.stats.active_connections(), 1);
    // The first is not affected.
    assert_eq!(first.post("/rpc", &ping(2)).await.status, 200);

    // Once the first is gone (its task ended, as the counter shows), a slot is free.
    drop(first);
    let freed = async {
        while server.stats.active_connections() != 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), freed)
        .await
        .expect("the closed connection's slot is freed within 5 s");
    let mut third = server.connect().await;
    assert_eq!(third.post("/rpc", &ping(3)).await.status, 200);
    assert_eq!((server.stats.accepted(), server.stats.refused()), (2, 1));
    server.shutdown().await;
}

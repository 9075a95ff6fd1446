//! What a web page on another site can do to a local `eth-rpc`, tried against the real
//! binary: a POST that needs no CORS preflight (no `Content-Type`, or `text/plain`) is
//! refused (415); a request carrying a foreign `Host` (DNS rebinding) is refused (403),
//! on every path; no preflight is answered unless `--http-corsdomain` names the origin.

use crate::process;

use std::net::SocketAddr;
use std::time::Duration;

use process::EthRpc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}"#;

/// One request (`Connection: close`); the answer's status line and headers, lower-cased,
/// and its body.
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> (String, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a complete head");
    (head.to_lowercase(), body.to_owned())
}

fn status(head: &str) -> &str {
    &head[9..12]
}

#[tokio::test]
async fn posts_a_page_can_send_without_a_preflight_are_refused() {
    let server = EthRpc::start(&[]).await;
    let host = format!("Host: {}", server.http);
    for content_type in [
        None,
        Some("Content-Type: text/plain"),
        Some("Content-Type: application/x-www-form-urlencoded"),
    ] {
        let headers: Vec<&str> = [Some(host.as_str()), content_type]
            .into_iter()
            .flatten()
            .collect();
        let (head, body) = send(server.http, "POST", "/", &headers, CALL).await;
        assert_eq!(status(&head), "415", "{content_type:?}: {head}");
        assert!(body.contains("application/json"), "{body}");
    }
    let (head, body) = send(
        server.http,
        "POST",
        "/",
        &[&host, "Content-Type: application/json"],
        CALL,
    )
    .await;
    assert_eq!(status(&head), "200", "{head}");
    assert!(body.contains("\"result\":\"0x539\""), "{body}");
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_path() {
    let server = EthRpc::start(&[]).await;
    let json = "Content-Type: application/json";
    for host in [
        "Host: evil.example",
        "Host: evil.example:8545",
        "Host: localhost.evil.example",
    ] {
        let (head, body) = send(server.http, "POST", "/", &[host, json], CALL).await;
        assert_eq!(status(&head), "403", "{host}: {head}");
        assert!(body.contains("allowed hosts"), "{body}");
        for path in ["/", "/health", "/metrics"] {
            let (head, _) = send(server.http, "GET", path, &[host], "").await;
            assert_eq!(status(&head), "403", "{host} GET {path}: {head}");
        }
    }
    // The names a local user types, and IP literals, are answered.
    for host in [
        "Host: localhost:8545",
        "Host: 127.0.0.1",
        "Host: [::1]:8545",
    ] {
        let (head, _) = send(server.http, "POST", "/", &[host, json], CALL).await;
        assert_eq!(status(&head), "200", "{host}: {head}");
    }
    // An operator who puts the node behind a name says so.
    let named = EthRpc::start(&["--http-vhosts", "node.example"]).await;
    let (head, _) = send(named.http, "POST", "/", &["Host: node.example", json], CALL).await;
    assert_eq!(status(&head), "200", "{head}");
    let (head, _) = send(named.http, "POST", "/", &["Host: localhost", json], CALL).await;
    assert_eq!(status(&head), "403", "{head}");
    let any = EthRpc::start(&["--http-vhosts", "*"]).await;
    let (head, _) = send(any.http, "POST", "/", &["Host: evil.example", json], CALL).await;
    assert_eq!(status(&head), "200", "{head}");
}

#[tokio::test]
async fn cors_is_off_unless_an_origin_is_named() {
    let preflight = |origin: &'static str| {
        [
            "Host: localhost",
            origin,
            "Access-Control-Request-Method: POST",
            "Access-Control-Request-Headers: content-type",
        ]
    };
    let json = [
        "Host: localhost",
        "Content-Type: application/json",
        "Origin: https://app.example",
    ];

    let server = EthRpc::start(&[]).await;
    let (head, _) = send(
        server.http,
        "OPTIONS",
        "/",
        &preflight("Origin: https://app.example"),
        "",
    )
    .await;
    assert_eq!(status(&head), "403", "{head}");
    let (head, _) = send(server.http, "POST", "/", &json, CALL).await;
    assert_eq!(status(&head), "200", "{head}");
    assert!(!head.contains("access-control-allow-origin"), "{head}");

    let server = EthRpc::start(&["--http-corsdomain", "https://app.example"]).await;
    let (head, _) = send(
        server.http,
        "OPTIONS",
        "/rpc",
        &preflight("Origin: https://app.example"),
        "",
    )
    .await;
    assert_eq!(status(&head), "204", "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://app.example"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-methods: post"),
        "{head}"
    );
    assert!(
        head.contains("access-control-allow-headers: content-type, authorization"),
        "{head}"
    );
    let (head, _) = send(
        server.http,
        "OPTIONS",
        "/rpc",
        &preflight("Origin: https://evil.example"),
        "",
    )
    .await;
    assert_eq!(status(&head), "403", "{head}");
    let (head, _) = send(server.http, "POST", "/", &json, CALL).await;
    assert!(
        head.contains("access-control-allow-origin: https://app.example"),
        "{head}"
    );
}

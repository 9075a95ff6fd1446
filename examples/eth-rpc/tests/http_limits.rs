//! The HTTP port's answer-size limit and who may read `/metrics`, against the real
//! binary.

use crate::process;

use std::net::SocketAddr;

use base64::Engine as _;
use process::EthRpc;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::cap::{issue, trust_file_line, Issuance, Scheme, SigningKey};

/// One request (`Connection: close`): the status and the body.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

async fn post(addr: SocketAddr, body: &str) -> Value {
    let json = [("Content-Type", "application/json".to_owned())];
    let (status, body) = request(addr, "POST", "/", &json, body).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn discover(id: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"rpc.discover"}}"#)
}

#[tokio::test]
async fn an_answer_past_the_limit_is_an_error_never_a_cut() {
    const LIMIT: usize = 64 << 10;
    let server = EthRpc::start(&["--http-max-answer", &LIMIT.to_string()]).await;
    // One description fits.
    let one = post(server.http, &discover(7)).await;
    assert!(one["result"]["openrpc"].is_string(), "{one}");
    let size = one["result"].to_string().len();
    assert!(size < LIMIT / 4, "the document is {size} bytes");

    // A batch of 4 x LIMIT / size of them does not: those that fit are answered, the
    // one that would pass the limit and every later one get -32005, each with its id.
    let n = 4 * LIMIT / size;
    let batch = format!("[{}]", (0..n).map(discover).collect::<Vec<_>>().join(","));
    let json = [("Content-Type", "application/json".to_owned())];
    let (status, text) = request(server.http, "POST", "/", &json, &batch).await;
    assert_eq!(status, 200);
    assert!(text.len() <= LIMIT + n * 300, "{} bytes", text.len());
    let answers: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(answers.len(), n, "every member answered");
    let first_refused = answers
        .iter()
        .position(|a| a.get("error").is_some())
        .expect("some members refused");
    assert!(
        first_refused > 0 && first_refused < n / 2,
        "{first_refused} of {n}"
    );
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], i, "{answer}");
        if i < first_refused {
            assert!(answer["result"]["openrpc"].is_string(), "{answer}");
        } else {
            assert_eq!(answer["error"]["code"], -32005, "{answer}");
        }
    }
    let message = |i: usize| answers[i]["error"]["message"].as_str().unwrap().to_owned();
    assert!(message(first_refused).contains("would take the response past"));
    assert!(message(n - 1).contains("not run"));
    assert!(message(n - 1).contains(&LIMIT.to_string()));
}

const TARGET: [u8; 32] = [0x42; 32];

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// `Authorization: ZAP-Cap` for a capability from `issuer` for `target`.
fn authorization(issuer: &SigningKey, target: [u8; 32]) -> (&'static str, String) {
    let cap = issue(
        &Issuance {
            target,
            permissions: 1,
            issued_at: now() - 10,
            ..Default::default()
        },
        issuer,
    )
    .unwrap();
    let token = base64::engine::general_purpose::STANDARD.encode(cap);
    ("Authorization", format!("ZAP-Cap {token}"))
}

#[tokio::test]
async fn metrics_need_a_capability_on_the_data_port_and_none_on_the_admin_one() {
    let issuer = SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("issuers.txt");
    std::fs::write(&trust, trust_file_line(issuer.public_key()) + "\n").unwrap();
    let caps = [
        "--cap-trust",
        trust.to_str().unwrap(),
        "--cap-target",
        &hex::encode(TARGET),
    ];
    let server = EthRpc::start(&caps).await;
    let get = |headers: Vec<(&'static str, String)>| {
        let addr = server.http;
        async move { request(addr, "GET", "/metrics", &headers, "").await }
    };
    let (status, body) = get(vec![]).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = get(vec![authorization(&issuer, [0x43; 32])]).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("another target"), "{body}");
    let (status, body) = get(vec![authorization(&issuer, TARGET)]).await;
    assert_eq!(status, 200);
    assert!(body.contains("zap_connections_active"), "{body}");
    // Health needs nothing.
    assert_eq!(process::get_status(server.http, "/health").await, Some(200));

    // With an admin listener: metrics there for anyone who reaches it, and no longer
    // on the data port.
    let mut args = caps.to_vec();
    args.extend(["--metrics-addr", "127.0.0.1:0"]);
    let server = EthRpc::start(&args).await;
    let admin = server.metrics.expect("the admin address in the log");
    let (status, body) = request(admin, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 200);
    assert!(body.contains("zap_connections_active"), "{body}");
    let (status, _) = request(
        server.http,
        "GET",
        "/metrics",
        &[authorization(&issuer, TARGET)],
        "",
    )
    .await;
    assert_eq!(status, 404);
    // The admin listener serves nothing else.
    let json = [("Content-Type", "application/json".to_owned())];
    let (status, body) = request(admin, "POST", "/", &json, &discover(1)).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(process::get_status(admin, "/health").await, Some(200));
}

#[tokio::test]
async fn bodies_still_arriving_are_held_to_the_buffer_budget() {
    const PEERS: usize = 30;
    const SENT: usize = 2 << 20;
    let server = EthRpc::start(&["--buffer-budget-mib", "4"]).await;
    let before = process::rss_kib(server.pid);
    // Each announces a 3 MiB body (under the 4 MiB limit) and sends 2 MiB of it.
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        3 << 20
    );
    let mut peers = Vec::new();
    for _ in 0..PEERS {
        peers.push(process::send_until_backed_up(server.http, head.as_bytes(), b' ', SENT).await);
    }
    // Small requests need no budget: answered at once.
    let answer = post(server.http, &discover(1)).await;
    assert!(answer["result"].is_object(), "{answer}");
    let read = process::until_reading_stops(server.http, "http", 1024).await;
    let grown = process::rss_kib(server.pid).saturating_sub(before);
    eprintln!(
        "{PEERS} peers each sending {} MiB of a 3 MiB body: the server read {} MiB and grew by {} MiB (budget 4 MiB)",
        SENT >> 20,
        read >> 20,
        grown >> 10
    );
    // Without the budget: at least PEERS x 2 MiB = 60 MiB.
    assert!(grown < 24 << 10, "grew by {grown} KiB");
    drop(peers);
}

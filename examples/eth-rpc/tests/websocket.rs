//! JSON-RPC over WebSocket against the real binary: calls, batches and `newHeads`
//! subscriptions on one socket, and the frames a hostile client sends, each refused
//! with its close code while other clients are served.

use crate::process;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use process::EthRpc;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{client_async, WebSocketStream};

type Socket = WebSocketStream<TcpStream>;

async fn connect(server: &EthRpc) -> Socket {
    let tcp = TcpStream::connect(server.http).await.unwrap();
    let url = format!("ws://{}/", server.http);
    let (socket, response) = client_async(url, tcp)
        .await
        .expect("the upgrade is accepted");
    assert_eq!(response.status(), 101);
    socket
}

/// The next text frame as JSON, within 10 s.
async fn next_json(socket: &mut Socket) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame within 10 s")
            .expect("the socket is open")
            .expect("a valid frame");
        match frame {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
}

async fn send(socket: &mut Socket, value: Value) {
    socket.send(Message::text(value.to_string())).await.unwrap();
}

/// The answer to `method(params)` with id 1, skipping notifications that arrive first.
async fn call(socket: &mut Socket, method: &str, params: Value) -> Value {
    send(
        socket,
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
    )
    .await;
    loop {
        let answer = next_json(socket).await;
        if answer.get("id").is_some() {
            return answer;
        }
    }
}

/// The close frame the server sends next (skipping other frames), as (code, reason).
async fn close_of(socket: &mut Socket) -> (CloseCode, String) {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a close within 10 s");
        match frame {
            Some(Ok(Message::Close(Some(close)))) => {
                return (close.code, close.reason.as_str().to_owned())
            }
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_batches_and_subscriptions_share_one_socket() {
    let server = EthRpc::start(&["--block-time", "0.2"]).await;
    let mut socket = connect(&server).await;
    let chain_id = call(&mut socket, "eth_chainId", json!([])).await;
    assert_eq!(chain_id["result"], format!("{:#x}", eth_rpc::CHAIN_ID));
    send(
        &mut socket,
        json!([
            {"jsonrpc": "2.0", "id": 7, "method": "net_version"},
            {"jsonrpc": "2.0", "id": 8, "method": "web3_clientVersion"},
        ]),
    )
    .await;
    let batch = next_json(&mut socket).await;
    assert_eq!(batch[0]["id"], 7, "{batch}");
    assert_eq!(batch[1]["result"], eth_rpc::CLIENT_VERSION, "{batch}");

    let subscribed = call(&mut socket, "eth_subscribe", json!(["newHeads"])).await;
    let id = subscribed["result"]
        .as_str()
        .expect("a subscription id")
        .to_owned();
    assert!(id.starts_with("0x"), "{subscribed}");
    let mut heads = Vec::new();
    while heads.len() < 3 {
        let note = next_json(&mut socket).await;
        assert_eq!(note["method"], "eth_subscription", "{note}");
        assert_eq!(note["params"]["subscription"], id, "{note}");
        heads.push(note["params"]["result"].clone());
    }
    let number = |h: &Value| u64::from_str_radix(&h["number"].as_str().unwrap()[2..], 16).unwrap();
    for pair in heads.windows(2) {
        assert_eq!(number(&pair[1]), number(&pair[0]) + 1, "{heads:?}");
        assert_eq!(pair[1]["parentHash"], pair[0]["hash"], "{heads:?}");
        assert!(pair[1]["timestamp"].as_str().unwrap().starts_with("0x"));
    }
    let ended = call(&mut socket, "eth_unsubscribe", json!([id])).await;
    assert_eq!(ended["result"], true, "{ended}");
    let again = call(&mut socket, "eth_unsubscribe", json!([id])).await;
    assert_eq!(again["result"], false, "{again}");

    // A graceful shutdown closes the session with 1001 (going away), and the process
    // exits once it has.
    let mut server = server;
    server.kill("TERM");
    let (code, reason) = close_of(&mut socket).await;
    assert_eq!(code, CloseCode::Away, "{reason}");
    assert!(server.wait().await.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_are_refused_past_the_limit_and_over_http() {
    let server = EthRpc::start(&[]).await;
    let mut socket = connect(&server).await;
    for _ in 0..100 {
        let ok = call(&mut socket, "eth_subscribe", json!(["newHeads"])).await;
        assert!(ok["result"].is_string(), "{ok}");
    }
    let refused = call(&mut socket, "eth_subscribe", json!(["newHeads"])).await;
    assert_eq!(refused["error"]["code"], -32005, "{refused}");
    let unknown = call(&mut socket, "eth_subscribe", json!(["logs"])).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("newHeads"),
        "{unknown}"
    );

    // Over HTTP a subscription could never deliver: the answer says where to go.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}"#;
    let answer = process::post_json(server.http, body).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("WebSocket"),
        "{answer}"
    );
    drop(server);
}

/// A masked client frame (RFC 6455 5.2) with `opcode` and `payload`, written by hand to
/// send what a well-behaved client library will not.
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x11, 0x22, 0x33, 0x44];
    let mut frame = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= 0xffff => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// Upgrade a raw TCP connection by hand; the stream after the 101.
async fn raw_upgrade(server: &EthRpc) -> TcpStream {
    let mut tcp = TcpStream::connect(server.http).await.unwrap();
    let head = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        server.http
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    while !got.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte).await.unwrap();
        got.push(byte[0]);
    }
    let head = String::from_utf8(got).unwrap();
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    tcp
}

/// The close code of the first close frame the server sends on `tcp`.
async fn raw_close_code(tcp: &mut TcpStream) -> u16 {
    let mut read = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut read))
        .await
        .expect("the server closes within 10 s")
        .ok();
    // Server frames are unmasked: [0x88][len][code u16 BE][reason].
    let at = read
        .windows(2)
        .position(|w| w[0] == 0x88 && w[1] >= 2)
        .unwrap_or_else(|| panic!("no close frame in {read:?}"));
    u16::from_be_bytes([read[at + 2], read[at + 3]])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_frames_are_refused_with_their_close_codes() {
    let server = EthRpc::start(&["--http-max-body", "65536"]).await;

    // Binary frames carry JSON too (web3.py sends them), answered in text; bytes that
    // are not UTF-8 get a parse error, and the session goes on.
    let mut socket = connect(&server).await;
    let request = br#"{"jsonrpc":"2.0","id":3,"method":"eth_chainId"}"#;
    socket
        .send(Message::binary(request.to_vec()))
        .await
        .unwrap();
    assert_eq!(next_json(&mut socket).await["id"], 3);
    socket
        .send(Message::binary(vec![0xff, 0xfe]))
        .await
        .unwrap();
    assert_eq!(next_json(&mut socket).await["error"]["code"], -32700);
    let answer = call(&mut socket, "eth_chainId", json!([])).await;
    assert!(answer["result"].is_string(), "{answer}");

    // Invalid UTF-8 in a text frame, and in a text message split over two fragments.
    let mut tcp = raw_upgrade(&server).await;
    tcp.write_all(&client_frame(0x1, b"{\"x\":\"\xff\xfe\"}"))
        .await
        .unwrap();
    assert_eq!(raw_close_code(&mut tcp).await, 1007);

    // A message over the limit, sent as many small fragments: refused as it grows.
    let mut tcp = raw_upgrade(&server).await;
    let chunk = vec![b' '; 16 << 10];
    let mut first = client_frame(0x1, &chunk);
    first[0] &= 0x7f; // not the last fragment
    tcp.write_all(&first).await.unwrap();
    for _ in 0..8 {
        let mut more = client_frame(0x0, &chunk);
        more[0] &= 0x7f;
        if tcp.write_all(&more).await.is_err() {
            break;
        }
    }
    assert_eq!(raw_close_code(&mut tcp).await, 1009);

    // A batch of 1,000 calls, and the client gone before its answer.
    let mut quitter = connect(&server).await;
    let batch: Vec<Value> = (0..1000)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "eth_blockNumber"}))
        .collect();
    quitter
        .send(Message::text(Value::from(batch).to_string()))
        .await
        .unwrap();
    drop(quitter);

    // Other clients are served throughout.
    let mut other = connect(&server).await;
    let answer = call(&mut other, "eth_blockNumber", json!([])).await;
    assert_eq!(answer["result"], format!("{:#x}", eth_rpc::HEAD_BLOCK));
    drop(server);
}

/// `zap_connections_active{server="http"}` from the server's `/metrics`.
async fn http_connections(server: &EthRpc) -> u64 {
    let text = process::get_body(server.http, "/metrics")
        .await
        .unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("zap_connections_active{") && l.contains("server=\"http\""))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// `zap_streams_active` of `newHeads` over the HTTP port's transport: live subscriptions.
async fn subscriptions(server: &EthRpc) -> u64 {
    let text = process::get_body(server.http, "/metrics")
        .await
        .unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("zap_streams_active{") && l.contains("method=\"newHeads\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_that_never_read_are_dropped_and_cost_bounded_memory() {
    // A block every 2 ms and 100 subscriptions per connection: far more than a socket
    // holds, from clients that read nothing after subscribing.
    let server = EthRpc::start(&["--block-time", "0.002", "--http-write-stall-timeout", "2"]).await;
    let rss_before = process::rss_kib(server.pid);
    let mut silent = Vec::new();
    for _ in 0..4 {
        let mut socket = connect(&server).await;
        for i in 0..100 {
            send(
                &mut socket,
                json!({"jsonrpc": "2.0", "id": i, "method": "eth_subscribe", "params": ["newHeads"]}),
            )
            .await;
        }
        silent.push(socket); // never read again
    }
    let during = http_connections(&server).await;
    assert!(
        during >= 4,
        "{during} connections while the readers hold on"
    );

    // Another client is served meanwhile, over WebSocket and over HTTP.
    let mut other = connect(&server).await;
    let answer = call(&mut other, "eth_chainId", json!([])).await;
    assert!(answer["result"].is_string(), "{answer}");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}"#;
    assert!(process::post_json(server.http, body).await["result"].is_string());
    drop(other);

    // Once their writes have stalled for 2 s, the server closes them.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut peak = 0;
    loop {
        peak = peak.max(process::rss_kib(server.pid));
        // The metrics scrape itself is one connection.
        if http_connections(&server).await <= 1 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the silent readers were not dropped within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Their subscriptions ended with them (the handlers were dropped).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while subscriptions(&server).await != 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "subscriptions outlived their sessions"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let grown = peak.saturating_sub(rss_before);
    eprintln!("RSS {rss_before} KiB before, peak {peak} KiB while 400 subscriptions went unread");
    assert!(grown < 128 << 10, "RSS grew by {grown} KiB");
    // And the server goes on serving.
    let mut after = connect(&server).await;
    let answer = call(&mut after, "eth_chainId", json!([])).await;
    assert!(answer["result"].is_string(), "{answer}");
    drop(silent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_capability_of_the_upgrade_covers_every_call_of_the_session() {
    use base64::Engine as _;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use zap_runtime::cap::{issue, trust_file_line, Issuance, Scheme, SigningKey};

    const TARGET: [u8; 32] = [0x42; 32];
    let issuer = SigningKey::from_secret(Scheme::Ed25519, &[9; 32]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("issuers.txt");
    std::fs::write(&trust, trust_file_line(issuer.public_key()) + "\n").unwrap();
    let server = EthRpc::start(&[
        "--cap-trust",
        trust.to_str().unwrap(),
        "--cap-target",
        &hex::encode(TARGET),
    ])
    .await;
    let account = zap_runtime::json::to_hex(eth_rpc::ledger::Ledger::default().address(0).unwrap());
    let balance = json!([account, "latest"]);

    // No capability at the upgrade: every call and every subscription is refused 401.
    let mut bare = connect(&server).await;
    let refused = call(&mut bare, "eth_getBalance", balance.clone()).await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    let refused = call(&mut bare, "eth_subscribe", json!(["newHeads"])).await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");

    // A capability granting 0x1 in the upgrade's Authorization header: both work.
    let cap = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: 1,
            issued_at: process::now() - 10,
            ..Default::default()
        },
        &issuer,
    )
    .unwrap();
    let token = base64::engine::general_purpose::STANDARD.encode(&cap);
    let mut request = format!("ws://{}/", server.http)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Authorization", format!("ZAP-Cap {token}").parse().unwrap());
    let tcp = TcpStream::connect(server.http).await.unwrap();
    let (mut socket, _) = client_async(request, tcp).await.unwrap();
    let answer = call(&mut socket, "eth_getBalance", balance).await;
    assert!(answer["result"].is_string(), "{answer}");
    let subscribed = call(&mut socket, "eth_subscribe", json!(["newHeads"])).await;
    assert!(subscribed["result"].is_string(), "{subscribed}");
    let head = next_json(&mut socket).await;
    assert_eq!(head["method"], "eth_subscription", "{head}");

    // An Authorization header of another scheme refuses the session's calls: nothing
    // is guessed.
    let mut request = format!("ws://{}/", server.http)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Authorization", "Bearer x".parse().unwrap());
    let tcp = TcpStream::connect(server.http).await.unwrap();
    let (mut other, _) = client_async(request, tcp).await.unwrap();
    let refused = call(&mut other, "eth_chainId", json!([])).await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
}

//! Layers around every call (`zap_runtime::layer`) on the real servers: an
//! authentication layer that refuses a call without its token before the handler runs,
//! a rate limit that refuses the 11th call of a window with 429, a layer that adds
//! answer metadata; over ZAP/TCP, QUIC and JSON-RPC over HTTP, and a stream open over
//! ZAP/TCP.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::TcpListener;
use zap_runtime::client::Client;
use zap_runtime::context::{AnswerMetadata, CallOptions};
use zap_runtime::layer::{CallInfo, CallLayer, Layered, RateLimit, RequestLog};
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::{StreamIo, Streaming};
use zap_runtime::{Builder, CallError, ClientError, MethodInfo, Reply, Service, Transport};

use crate::http_support::Calc;

/// `service` served over ZAP/TCP on a port of its own until the token is cancelled.
async fn zap_server<S: Service>(
    service: Arc<S>,
    config: ServerConfig,
) -> (std::net::SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(Server::new(listener, service, config).run(stop.clone()));
    (addr, stop)
}

/// `service` served over JSON-RPC (HTTP and WebSocket) on a port of its own until the
/// token is cancelled.
async fn http_server<S: Service>(
    service: Arc<S>,
    config: zap_runtime::http::HttpConfig,
) -> (std::net::SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(zap_runtime::http::HttpServer::new(listener, service, config).run(stop.clone()));
    (addr, stop)
}

/// Refuses a call whose `token` metadata is not `secret`, before its handler runs.
#[derive(Default)]
struct Auth {
    refused: AtomicUsize,
}

impl CallLayer for Auth {
    fn before(&self, call: &CallInfo<'_>) -> Result<(), CallError> {
        match call.context.metadata().get_str("token") {
            Some("secret") => Ok(()),
            _ => {
                self.refused.fetch_add(1, Ordering::SeqCst);
                Err(CallError::new(
                    Status::UNAUTHORIZED,
                    "send the token in the `token` metadata",
                ))
            }
        }
    }
}

/// Says in the answer's metadata that it saw the call, its method, and the caller's
/// IP address.
struct Stamp;

impl CallLayer for Stamp {
    fn after(&self, call: &CallInfo<'_>, _: &Result<Reply, CallError>, _: Duration) {
        let _ = call
            .context
            .set_answer_metadata("seen-by", call.method_name());
        let peer = call.peer.map_or("none".to_owned(), |p| p.ip().to_string());
        let _ = call.context.set_answer_metadata("peer", peer);
    }
}

type Stack = (Auth, RateLimit, (Stamp, RequestLog));

fn stack() -> Stack {
    (
        Auth::default(),
        RateLimit::per_metadata("api-key", 10, Duration::from_secs(60)),
        (Stamp, RequestLog),
    )
}

fn options(token: &str, key: &str) -> CallOptions {
    CallOptions::new()
        .header("token", token.to_owned())
        .unwrap()
        .header("api-key", key.to_owned())
        .unwrap()
}

const PING: u32 = 3;

/// Over one transport's client: ten calls pass, the eleventh of the same key is refused
/// with 429, another key passes, a call without the token is refused with 401 and counts
/// nothing, and the answer carries the layer's metadata.
async fn check<T: Transport>(client: &T, layer: &Stack) {
    for n in 0..10 {
        let answer = options("secret", "a").scope(client.call(PING, b"")).await;
        assert!(answer.is_ok(), "call {n}: {answer:?}");
    }
    match options("secret", "a").scope(client.call(PING, b"")).await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::TOO_MANY_REQUESTS);
            assert!(message.contains("rate limited"), "{message}");
        }
        other => panic!("the 11th call: {other:?}"),
    }
    assert!(options("secret", "b")
        .scope(client.call(PING, b""))
        .await
        .is_ok());
    let refused = options("wrong", "c").scope(client.call(PING, b"")).await;
    assert!(
        matches!(&refused, Err(ClientError::Status { status, .. }) if *status == Status::UNAUTHORIZED),
        "{refused:?}"
    );
    assert_eq!(layer.0.refused.load(Ordering::SeqCst), 1);
    let answer = AnswerMetadata::new();
    options("secret", "d")
        .answer_metadata_into(&answer)
        .scope(client.call(PING, b""))
        .await
        .unwrap();
    assert_eq!(answer.get().get_str("seen-by"), Some("ping"));
    assert_eq!(answer.get().get_str("peer"), Some("127.0.0.1"));
}

#[tokio::test]
async fn over_zap_tcp() {
    let layered = Arc::new(Layered::new(Arc::new(Calc), stack(), "zap"));
    let (addr, stop) = zap_server(Arc::clone(&layered), ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    let layer = layered_stack(&layered);
    check(&client, layer).await;
    stop.cancel();
}

#[tokio::test]
async fn a_rate_limit_per_address_counts_every_connection_from_it() {
    let layered = Arc::new(Layered::new(
        Arc::new(Calc),
        RateLimit::per_peer(3, Duration::from_secs(60)),
        "zap",
    ));
    let (addr, stop) = zap_server(layered, ServerConfig::default()).await;
    // Three connections from 127.0.0.1: one count.
    let mut clients = Vec::new();
    for _ in 0..3 {
        clients.push(Client::connect(addr).await.unwrap());
    }
    for client in &clients {
        client.call(PING, b"").await.expect("within the limit");
    }
    match clients[0].call(PING, b"").await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::TOO_MANY_REQUESTS);
            assert!(message.contains("for this address"), "{message}");
        }
        other => panic!("the 4th call from the address: {other:?}"),
    }
    stop.cancel();
}

/// Capabilities for the per-holder limit: issued by key 7 for target 0x7a, holder
/// `holder`, method `PING`'s bit.
mod holders {
    use std::time::{SystemTime, UNIX_EPOCH};
    use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};
    use zap_runtime::Authorizer;

    const TARGET: [u8; 32] = [0x7a; 32];

    fn issuer() -> SigningKey {
        SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap()
    }

    pub fn cap(holder: u8) -> Vec<u8> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        issue(
            &Issuance {
                kind: 1,
                target: TARGET,
                holder: [holder; 32],
                permissions: 1,
                issued_at: now - 60,
                expires_at: now + 3600,
                ..Default::default()
            },
            &issuer(),
        )
        .unwrap()
    }

    pub fn policy() -> Authorizer {
        Authorizer::new(
            Policy::builder(TARGET)
                .trust(issuer().public_key().clone())
                .method(super::PING, 1)
                .build(),
        )
    }
}

#[tokio::test]
async fn a_rate_limit_per_capability_holder_counts_what_the_policy_admitted() {
    use base64::Engine as _;
    use zap_runtime::client::ClientConfig;
    use zap_runtime::http::HttpConfig;
    let layered = Arc::new(Layered::shared(
        Arc::new(Calc),
        Arc::new(RateLimit::per_capability(3, Duration::from_secs(60))),
        "any",
    ));
    let config = ServerConfig {
        authorize: Some(holders::policy()),
        ..ServerConfig::default()
    };
    let (zap_addr, stop_zap) = zap_server(Arc::clone(&layered), config).await;
    let config = HttpConfig {
        authorize: Some(holders::policy()),
        ..HttpConfig::default()
    };
    let (http_addr, stop) = http_server(Arc::clone(&layered), config).await;
    let client = |holder: u8| async move {
        let config = ClientConfig {
            cap: holders::cap(holder),
            ..ClientConfig::default()
        };
        Client::connect_with(zap_addr, config).await.unwrap()
    };
    // Holder 0xaa: two calls over ZAP/TCP, one over HTTP with a token of its own (the
    // same holder): its three.
    let alice = client(0xaa).await;
    for _ in 0..2 {
        alice.call(PING, b"").await.expect("within alice's limit");
    }
    let token = base64::engine::general_purpose::STANDARD.encode(holders::cap(0xaa));
    let headers = format!("Authorization: ZAP-Cap {token}\r\n");
    let ping =
        crate::http_support::request(serde_json::json!(1), "calc_ping", serde_json::json!([]));
    let mut raw = crate::http_support::RawClient::connect(http_addr).await;
    let answer = raw.post_with_headers("/rpc", &headers, &ping).await.json();
    assert_eq!(answer["result"], serde_json::Value::Null, "{answer}");
    match alice.call(PING, b"").await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::TOO_MANY_REQUESTS);
            assert!(message.contains("capability holder"), "{message}");
        }
        other => panic!("alice's 4th call: {other:?}"),
    }
    // Holder 0xbb has its own count.
    let bob = client(0xbb).await;
    bob.call(PING, b"").await.expect("bob's first call");
    stop_zap.cancel();
    stop.cancel();
}

#[tokio::test]
async fn over_quic() {
    use crate::quic_support::{client_tls, QuicTest};
    use zap_runtime::quic::{QuicClient, QuicClientConfig, QuicConfig};
    let pki = crate::pki::Pki::new();
    let layered = Arc::new(Layered::new(Arc::new(Calc), stack(), "quic"));
    let server = QuicTest::any_port(&pki, Arc::clone(&layered), QuicConfig::default());
    let client = QuicClient::connect(server.addr, &client_tls(&pki), QuicClientConfig::default())
        .await
        .unwrap();
    check(&client, layered_stack(&layered)).await;
}

#[tokio::test]
async fn over_json_rpc_over_http() {
    use crate::http_support::{error_code, request, RawClient};
    use serde_json::json;
    use zap_runtime::http::HttpConfig;
    let layered = Arc::new(Layered::new(Arc::new(Calc), stack(), "http"));
    let (addr, stop) = http_server(Arc::clone(&layered), HttpConfig::default()).await;
    let ping = request(json!(1), "calc_ping", json!([]));
    let post = |headers: &'static str| {
        let ping = ping.clone();
        async move {
            let mut client = RawClient::connect(addr).await;
            client.post_with_headers("/rpc", headers, &ping).await
        }
    };
    let ok = "Zap-Meta-Token: secret\r\nZap-Meta-Api-Key: a\r\n";
    for _ in 0..10 {
        let response = post(ok).await;
        assert_eq!(
            response.json()["result"],
            json!(null),
            "{:?}",
            response.json()
        );
        assert_eq!(response.header("zap-meta-seen-by"), Some("ping"));
        assert_eq!(response.header("zap-meta-peer"), Some("127.0.0.1"));
    }
    let limited = post(ok).await.json();
    assert_eq!(error_code(&limited), -32005, "{limited}");
    assert_eq!(limited["error"]["data"]["status"], 429, "{limited}");
    let refused = post("Zap-Meta-Api-Key: e\r\n").await.json();
    assert_eq!(error_code(&refused), -32001, "{refused}");
    assert_eq!(layered_stack(&layered).0.refused.load(Ordering::SeqCst), 1);
    stop.cancel();
}

fn layered_stack<S>(layered: &Layered<S, Stack>) -> &Stack {
    layered.layer()
}

/// A stream method that sends `n` messages (the opening message's first byte), and
/// counts the handlers that started.
#[derive(Default)]
struct Ticks {
    started: AtomicUsize,
    /// The caller's address as the handler read it.
    peer: std::sync::Mutex<Option<std::net::SocketAddr>>,
}

impl Service for Ticks {
    const NAME: &'static str = "Ticks";
    const METHODS: &'static [MethodInfo] = &[MethodInfo::new(1, "ticks", Streaming::Server)];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _: &'a [u8],
        _: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        Err(CallError::unknown_method(Self::NAME, ordinal))
    }

    async fn stream(
        self: Arc<Self>,
        _: u32,
        open: Bytes,
        mut io: StreamIo,
    ) -> Result<(), CallError> {
        self.started.fetch_add(1, Ordering::SeqCst);
        *self.peer.lock().unwrap() = zap_runtime::context::peer_addr();
        for i in 0..open.first().copied().unwrap_or(0) {
            io.outbound.send(&[i]).await.map_err(CallError::from)?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_stream_open_passes_through_the_layers() {
    let ticks = Arc::new(Ticks::default());
    let layered = Arc::new(Layered::new(Arc::clone(&ticks), Auth::default(), "zap"));
    let (addr, stop) = zap_server(Arc::clone(&layered), ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    // Without the token: refused before the handler, the stream ends with 401.
    let mut refused = client.open_stream(1, &[3]).await.unwrap();
    let end = refused.inbound.next().await;
    assert!(
        matches!(&end, Err(e) if e.to_string().contains("401") || e.to_string().contains("token")),
        "{end:?}"
    );
    assert_eq!(ticks.started.load(Ordering::SeqCst), 0);
    assert_eq!(layered.layer().refused.load(Ordering::SeqCst), 1);
    // With it: the handler runs and sends its messages.
    let options = CallOptions::new().header("token", "secret").unwrap();
    let mut stream = options.scope(client.open_stream(1, &[3])).await.unwrap();
    let mut got = Vec::new();
    while let Some(message) = stream.inbound.next().await.unwrap() {
        got.push(message[0]);
    }
    assert_eq!(got, [0, 1, 2]);
    assert_eq!(ticks.started.load(Ordering::SeqCst), 1);
    let peer = ticks
        .peer
        .lock()
        .unwrap()
        .expect("the stream's handler knows its caller");
    assert!(peer.ip().is_loopback(), "{peer}");
    stop.cancel();
}

#[tokio::test]
async fn over_json_rpc_over_websocket_with_the_upgrades_metadata() {
    use futures_util::{SinkExt, StreamExt};
    use serde_json::{json, Value};
    use tokio_tungstenite::client_async;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;
    use zap_runtime::http::HttpConfig;
    let layered = Arc::new(Layered::new(Arc::new(Calc), stack(), "ws"));
    let (addr, stop) = http_server(Arc::clone(&layered), HttpConfig::default()).await;
    // A session's calls carry the metadata of its upgrade's `Zap-Meta-*` headers.
    let session = |headers: &'static [(&'static str, &'static str)]| async move {
        let mut request = format!("ws://{addr}/").into_client_request().unwrap();
        for (name, value) in headers {
            request.headers_mut().insert(*name, value.parse().unwrap());
        }
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        client_async(request, tcp)
            .await
            .expect("the upgrade is accepted")
            .0
    };
    let ping = |id: u64| {
        Message::text(
            json!({"jsonrpc": "2.0", "id": id, "method": "calc_ping", "params": []}).to_string(),
        )
    };
    let mut socket = session(&[("zap-meta-token", "secret"), ("zap-meta-api-key", "w")]).await;
    let mut answers = Vec::new();
    for id in 0..11 {
        socket.send(ping(id)).await.unwrap();
        let answer: Value = loop {
            match socket.next().await.unwrap().unwrap() {
                Message::Text(text) => break serde_json::from_str(text.as_str()).unwrap(),
                _ => continue,
            }
        };
        answers.push(answer);
    }
    assert!(
        answers[..10]
            .iter()
            .all(|a| a["result"].is_null() && a["error"].is_null()),
        "{answers:?}"
    );
    assert_eq!(answers[10]["error"]["code"], -32005, "{}", answers[10]);
    let mut anonymous = session(&[]).await;
    anonymous.send(ping(1)).await.unwrap();
    let refused: Value = loop {
        match anonymous.next().await.unwrap().unwrap() {
            Message::Text(text) => break serde_json::from_str(text.as_str()).unwrap(),
            _ => continue,
        }
    };
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    stop.cancel();
}

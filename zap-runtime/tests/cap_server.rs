//! Capability checks on real servers: a policy as `ServerConfig::authorize` and
//! `HttpConfig::authorize`. Every refusal is answered with its status (401 or 403) and a
//! reason in words, the handler never runs for it, and the connection keeps serving.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use tokio::net::TcpListener;
use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::http::{HttpConfig, HttpServer};
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::{json as zjson, Authorizer, Builder, CallError, ClientError, MethodInfo};
use zap_runtime::{Reply, Service, Transport};

use crate::http_support;
use crate::server_support;

const TARGET: [u8; 32] = [0x42; 32];
const READ: u32 = 1; // requires bit 0b001
const ADMIN: u32 = 2; // requires bit 0b100
const UNKNOWN: u32 = 9;

/// Two methods without params or results; counts the calls that reach it.
#[derive(Default)]
struct Guarded {
    calls: Arc<AtomicUsize>,
}

const fn method(ordinal: u32, permissions: u64, json_name: &'static str) -> MethodInfo {
    MethodInfo {
        ordinal,
        permissions,
        name: json_name,
        json_name,
        streaming: zap_runtime::stream::Streaming::Unary,
        request: None,
        response: None,
        positional: &[],
        result_field: None,
        params_to_wire: zjson::no_params,
        result_to_json: zjson::no_result,
        subscription: None,
    }
}

impl Service for Guarded {
    const NAME: &'static str = "Guarded";
    const METHODS: &'static [MethodInfo] = &[
        method(READ, 0b001, "guard_read"),
        method(ADMIN, 0b100, "guard_admin"),
    ];
    const OPENRPC: Option<&'static str> =
        Some(r#"{"openrpc":"1.2.6","info":{"title":"guarded","version":"1.0.0"},"methods":[]}"#);

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _payload: &'a [u8],
        _out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            READ | ADMIN => {
                self.calls.fetch_add(1, Ordering::SeqCst);
                Ok(Reply::Empty)
            }
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn issuer() -> SigningKey {
    SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap()
}

/// A root capability from [`issuer`] for `target` with `bits`, valid from a minute ago
/// until `expires_at`.
fn cap(target: [u8; 32], bits: u64, expires_at: u64) -> Vec<u8> {
    issue(
        &Issuance {
            kind: 1,
            target,
            holder: [0x11; 32],
            permissions: bits,
            issued_at: now() - 60,
            expires_at,
            ..Default::default()
        },
        &issuer(),
    )
    .unwrap()
}

fn good_cap() -> Vec<u8> {
    cap(TARGET, 0b011, now() + 3600)
}

fn authorizer() -> Authorizer {
    Authorizer::new(
        Policy::builder(TARGET)
            .trust(issuer().public_key().clone())
            .methods(Guarded::METHODS)
            .build(),
    )
}

/// The cases every transport must answer the same way: (name, cap, method, status).
fn cases() -> Vec<(&'static str, Vec<u8>, u32, u32)> {
    let good = good_cap();
    let mut flipped = good.clone();
    let last = flipped.len() - 100; // inside the signature
    flipped[last] ^= 0x01;
    let stranger = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: 0b111,
            issued_at: now() - 60,
            expires_at: now() + 3600,
            ..Default::default()
        },
        &SigningKey::from_secret(Scheme::Ed25519, &[8; 32]).unwrap(),
    )
    .unwrap();
    let random: Vec<u8> = (0..3600u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    vec![
        ("no cap", Vec::new(), READ, 401),
        ("valid cap", good.clone(), READ, 200),
        ("method needs a bit the cap lacks", good.clone(), ADMIN, 403),
        (
            "cap for another target",
            cap([0x43; 32], 0b111, now() + 3600),
            READ,
            403,
        ),
        ("expired cap", cap(TARGET, 0b111, now() - 1), READ, 401),
        ("flipped signature byte", flipped, READ, 401),
        ("unknown issuer", stranger, READ, 401),
        ("3,600 random bytes", random, READ, 401),
        // Fail closed: a method the policy's table does not name is refused, even to a
        // valid capability (over JSON-RPC, an unknown name is -32601 for it).
        ("unknown method, valid cap", good, UNKNOWN, 403),
        (
            "unknown method, cap for another target",
            cap([0x43; 32], 0b111, now() + 3600),
            UNKNOWN,
            403,
        ),
        ("unknown method, no cap", Vec::new(), UNKNOWN, 401),
    ]
}

/// `service` over ZAP/TCP on port 0 with [`authorizer`] checking every call: its
/// address, the token that stops it and its task.
async fn serve_checked(
    service: Guarded,
) -> (
    std::net::SocketAddr,
    CancellationToken,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = ServerConfig {
        authorize: Some(authorizer()),
        ..ServerConfig::default()
    };
    let stop = CancellationToken::new();
    let task = tokio::spawn(Server::new(listener, Arc::new(service), config).run(stop.clone()));
    (addr, stop, task)
}

#[tokio::test]
async fn zap_tcp_calls_are_checked_before_the_handler_runs() {
    let service = Guarded::default();
    let calls = Arc::clone(&service.calls);
    let (addr, stop, task) = serve_checked(service).await;

    let mut allowed = 0;
    for (name, cap, ordinal, want) in cases() {
        let client = Client::connect_with(
            addr,
            ClientConfig {
                cap,
                ..ClientConfig::default()
            },
        )
        .await
        .unwrap();
        // Twice on one connection: a refusal leaves the connection serving, and the
        // second check of the same capability comes from the cache.
        for _ in 0..2 {
            let before = calls.load(Ordering::SeqCst);
            match client.call(ordinal, &[]).await {
                Ok(body) => {
                    assert_eq!(want, 200, "{name}: answered, expected {want}");
                    assert!(body.is_empty(), "{name}");
                    assert_eq!(calls.load(Ordering::SeqCst), before + 1, "{name}");
                    allowed += 1;
                }
                Err(ClientError::Status { status, message }) => {
                    assert_eq!(status, Status(want), "{name}: {message}");
                    let class = match want {
                        401 => "unauthorized: ",
                        403 => "forbidden: ",
                        _ => "",
                    };
                    assert!(message.starts_with(class), "{name}: {message}");
                    assert_eq!(calls.load(Ordering::SeqCst), before, "{name}: handler ran");
                }
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
    assert_eq!(calls.load(Ordering::SeqCst), allowed);
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_result_is_pipelined_on_only_under_the_capability_that_made_it() {
    use server_support::{request_frame_with_cap, Raw};
    let (addr, stop, task) = serve_checked(Guarded::default()).await;
    // Two valid capabilities, both allowed to call READ: two callers behind one
    // connection (a gateway's).
    let alice = good_cap();
    let bob = cap(TARGET, 0b001, now() + 1800);
    let mut conn = Raw::connect(addr).await;
    conn.send(&request_frame_with_cap(READ, 1, 0, b"", &alice))
        .await;
    assert_eq!(conn.answer().await.unwrap().0, Status::OK);
    // Bob may call READ, but not on alice's result.
    conn.send(&request_frame_with_cap(READ, 2, 1, b"", &bob))
        .await;
    let (status, id, body) = conn.answer().await.unwrap();
    assert_eq!((status, id), (Status::FORBIDDEN, 2));
    let text = String::from_utf8(body).unwrap();
    assert!(text.contains("another capability"), "{text}");
    conn.send(&request_frame_with_cap(READ, 3, 0, b"", &bob))
        .await;
    assert_eq!(conn.answer().await.unwrap().0, Status::OK);
    // Alice may, and on bob's own result bob may.
    conn.send(&request_frame_with_cap(READ, 4, 1, b"", &alice))
        .await;
    assert_eq!(conn.answer().await.unwrap().0, Status::OK);
    conn.send(&request_frame_with_cap(READ, 5, 3, b"", &bob))
        .await;
    assert_eq!(conn.answer().await.unwrap().0, Status::OK);
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

/// POST one JSON-RPC call with the given `Authorization` header value.
async fn post(addr: std::net::SocketAddr, method: &str, authorization: Option<&str>) -> Value {
    let body = http_support::request(json!(1), method, Value::Null);
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let mut client = http_support::RawClient::connect(addr).await;
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n",
        body.len()
    );
    client.send(head.as_bytes()).await;
    client.send(body.as_bytes()).await;
    let response = client.read_response().await;
    assert_eq!(response.status, 200);
    response.json()
}

#[tokio::test]
async fn json_rpc_calls_carry_the_cap_in_the_authorization_header() {
    use base64::Engine as _;
    let b64 = |cap: &[u8]| base64::engine::general_purpose::STANDARD.encode(cap);
    let service = Guarded::default();
    let calls = Arc::clone(&service.calls);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = HttpConfig {
        authorize: Some(authorizer()),
        ..HttpConfig::default()
    };
    let stop = CancellationToken::new();
    let task = tokio::spawn(HttpServer::new(listener, Arc::new(service), config).run(stop.clone()));

    let name_of = |ordinal| match ordinal {
        READ => "guard_read",
        ADMIN => "guard_admin",
        _ => "guard_missing",
    };
    let mut allowed = 0;
    for (name, cap, ordinal, want) in cases() {
        let header = (!cap.is_empty()).then(|| format!("ZAP-Cap {}", b64(&cap)));
        let before = calls.load(Ordering::SeqCst);
        let answer = post(addr, name_of(ordinal), header.as_deref()).await;
        let code = answer["error"]["code"].as_i64();
        let expected = match want {
            200 => None,
            401 => Some(-32001),
            // A name the service does not have is asked about as "no method": a valid
            // capability for this target may learn that it does not exist.
            403 if ordinal == UNKNOWN && name == "unknown method, valid cap" => Some(-32601),
            403 => Some(-32003),
            _ => panic!("{name}: no JSON-RPC code for {want}"),
        };
        assert_eq!(code, expected, "{name}: {answer}");
        if want == 200 {
            assert_eq!(answer["result"], Value::Null, "{name}");
            allowed += 1;
            assert_eq!(calls.load(Ordering::SeqCst), before + 1, "{name}");
        } else {
            assert_eq!(calls.load(Ordering::SeqCst), before, "{name}: handler ran");
        }
    }
    // The service's description needs a valid capability for this target.
    for (name, cap, want) in [
        ("no cap", Vec::new(), Some(-32001)),
        (
            "cap for another target",
            cap([0x43; 32], 0b111, now() + 3600),
            Some(-32003),
        ),
        ("valid cap", good_cap(), None),
    ] {
        let header = (!cap.is_empty()).then(|| format!("ZAP-Cap {}", b64(&cap)));
        let answer = post(addr, "rpc.discover", header.as_deref()).await;
        assert_eq!(
            answer["error"]["code"].as_i64(),
            want,
            "rpc.discover, {name}: {answer}"
        );
        if want.is_none() {
            assert_eq!(answer["result"]["openrpc"], "1.2.6", "{answer}");
        }
    }
    // Headers that cannot be read are refused, never ignored.
    let good = b64(&good_cap());
    for (name, header) in [
        ("another scheme", format!("Bearer {good}")),
        ("bad base64", "ZAP-Cap !!!not-base64!!!".to_owned()),
        ("no token", "ZAP-Cap".to_owned()),
    ] {
        let answer = post(addr, "guard_read", Some(&header)).await;
        assert_eq!(answer["error"]["code"], -32001, "{name}: {answer}");
    }
    // The scheme name is case-insensitive, as HTTP says.
    let answer = post(addr, "guard_read", Some(&format!("zap-cap {good}"))).await;
    assert_eq!(answer["result"], Value::Null, "{answer}");
    assert_eq!(calls.load(Ordering::SeqCst), allowed + 1);
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

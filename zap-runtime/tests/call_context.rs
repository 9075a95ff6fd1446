//! A call's context on the real servers: deadlines that the server enforces (the
//! handler's future dropped, status 504), that travel over three hops and shrink on
//! the way, metadata at its limits and over them, hostile extensions refused with the
//! connection kept, and load shedding (503) under a burst; over ZAP/TCP with raw frames
//! and the client, and JSON-RPC over HTTP with its header.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::net::TcpListener;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::context::{write_extension, CallOptions, Context, Metadata, MAX_PAIRS};
use zap_runtime::frame::Direction;
use zap_runtime::rpc::{Request, Status};
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::shed::LoadLimit;
use zap_runtime::{Builder, CallError, Message, MethodInfo, Reply, Service, Transport};

use crate::server_support::{frame, Raw};

/// Sleeps the request's u64 milliseconds, then answers them.
const WAIT: u32 = 1;
/// Answers what the handler sees of its context: remaining milliseconds (u64::MAX for
/// no deadline) @0, metadata pairs @8, the `request-id` value's length @16 and byte sum
/// @24; and sends back as answer metadata `served-by: hop` and the `request-id` it got,
/// where the caller reads answer metadata (@32: 1 if so).
const CONTEXT: u32 = 2;
/// Records the time it has left, then calls its next hop with the same payload.
const FORWARD: u32 = 3;

/// One hop of a chain of services.
#[derive(Default)]
struct Hop {
    /// The next hop's client and the method to call there.
    next: Option<(Client, u32)>,
    /// `WAIT` handlers that started, and those dropped before they finished.
    started: AtomicUsize,
    dropped: AtomicUsize,
    /// What each `FORWARD` call had left when it started.
    seen: Mutex<Vec<Option<Duration>>>,
}

/// Counts a `WAIT` handler dropped before it finished.
struct Unfinished<'a>(&'a AtomicUsize, bool);

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn number(out: &mut Builder, values: &[u64]) -> Result<Reply, CallError> {
    let mut o = out.start_object(8 * values.len());
    for (i, v) in values.iter().enumerate() {
        o.set_u64(8 * i, *v);
    }
    o.finish_message()?;
    Ok(Reply::Message)
}

fn request(ms: u64) -> Vec<u8> {
    let mut b = Builder::new();
    let mut o = b.start_object(8);
    o.set_u64(0, ms);
    o.finish_message().unwrap().to_vec()
}

impl Service for Hop {
    const NAME: &'static str = "Hop";
    const METHODS: &'static [MethodInfo] = &[];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            WAIT => {
                let ms = Message::parse(payload)
                    .map_err(|e| CallError::bad_payload("u64", e))?
                    .root()
                    .u64(0);
                self.started.fetch_add(1, Ordering::SeqCst);
                let mut guard = Unfinished(&self.dropped, false);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                guard.1 = true;
                number(out, &[ms])
            }
            CONTEXT => {
                let context = Context::current();
                let remaining = context
                    .remaining()
                    .map_or(u64::MAX, |d| d.as_millis() as u64);
                let id = context.metadata().get("request-id").unwrap_or_default();
                let sum = id.iter().map(|&b| u64::from(b)).sum();
                let answered = context.set_answer_metadata("served-by", "hop").is_ok();
                if answered && !id.is_empty() {
                    context
                        .set_answer_metadata("request-id", id.to_vec())
                        .map_err(|e| CallError::internal(e.to_string()))?;
                }
                number(
                    out,
                    &[
                        remaining,
                        context.metadata().len() as u64,
                        id.len() as u64,
                        sum,
                        u64::from(answered),
                    ],
                )
            }
            FORWARD => {
                self.seen
                    .lock()
                    .unwrap()
                    .push(Context::current().remaining());
                let (client, method) = self.next.as_ref().expect("a next hop");
                let answer = client.call(*method, payload).await.map_err(|e| match e {
                    e if e.is_deadline_exceeded() => {
                        CallError::new(Status::DEADLINE_EXCEEDED, e.to_string())
                    }
                    e => CallError::internal(e.to_string()),
                })?;
                let value = Message::parse(&answer)
                    .map_err(|e| CallError::internal(e.to_string()))?
                    .root()
                    .u64(0);
                number(out, &[value])
            }
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

/// A `Hop` served on 127.0.0.1:0 until the token is cancelled.
async fn serve(hop: Arc<Hop>, config: ServerConfig) -> (SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let server = Server::new(listener, hop, config);
    tokio::spawn(server.run(stop.clone()));
    (addr, stop)
}

/// A request frame for `method` with `payload`, followed by `extension`.
fn frame_with(method: u32, promise_id: u32, payload: &[u8], extension: &[u8]) -> Vec<u8> {
    let mut b = Builder::new();
    let mut envelope = Request {
        method,
        promise_id,
        target: 0,
        cap: b"",
        payload,
    }
    .encode(&mut b)
    .unwrap()
    .to_vec();
    envelope.extend_from_slice(extension);
    frame(Direction::Request, &envelope)
}

fn extension(budget: Option<Duration>, metadata: &Metadata) -> Vec<u8> {
    let mut out = Vec::new();
    write_extension(&mut out, budget, metadata);
    out
}

fn values(body: &[u8]) -> [u64; 4] {
    let root = Message::parse(body).unwrap().root();
    [root.u64(0), root.u64(8), root.u64(16), root.u64(24)]
}

#[tokio::test]
async fn a_deadline_that_passes_drops_the_handler_and_answers_504() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let mut raw = Raw::connect(addr).await;
    let ext = extension(Some(Duration::from_millis(100)), &Metadata::new());
    raw.send(&frame_with(WAIT, 1, &request(10_000), &ext)).await;
    let (status, id, body) = raw.answer().await.expect("an answer");
    assert_eq!((status, id), (Status::DEADLINE_EXCEEDED, 1));
    assert!(
        String::from_utf8_lossy(&body).contains("deadline exceeded"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(hop.started.load(Ordering::SeqCst), 1);
    assert_eq!(
        hop.dropped.load(Ordering::SeqCst),
        1,
        "the handler was dropped"
    );
    // The connection goes on: a call within its deadline is answered.
    raw.send(&frame_with(WAIT, 2, &request(1), &ext)).await;
    let (status, id, _) = raw.answer().await.expect("an answer");
    assert_eq!((status, id), (Status::OK, 2));
    // A budget of zero: the deadline passed before the call arrived; not run.
    let expired = extension(Some(Duration::ZERO), &Metadata::new());
    raw.send(&frame_with(WAIT, 3, &request(1), &expired)).await;
    let (status, id, _) = raw.answer().await.expect("an answer");
    assert_eq!((status, id), (Status::DEADLINE_EXCEEDED, 3));
    assert_eq!(hop.started.load(Ordering::SeqCst), 2, "not run");
    stop.cancel();
}

#[tokio::test]
async fn the_client_sends_its_deadline_and_gives_up_with_it() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let config = ClientConfig {
        deadline: Some(Duration::from_millis(150)),
        ..ClientConfig::default()
    };
    let client = Client::connect_with(addr, config).await.unwrap();
    let err = client.call(WAIT, &request(10_000)).await.unwrap_err();
    assert!(err.is_deadline_exceeded(), "{err}");
    // The server saw the same deadline and dropped the handler.
    crate::server_support::until("the handler is dropped", || {
        hop.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    // The handler sees the deadline and the metadata of a scope.
    let answer = CallOptions::new()
        .deadline_in(Duration::from_secs(60))
        .header("request-id", "ab")
        .unwrap()
        .scope(client.call(CONTEXT, b""))
        .await
        .unwrap();
    let [remaining, pairs, len, sum] = values(&answer);
    // The client's own deadline (150 ms) is the smaller one.
    assert!(remaining <= 150, "{remaining} ms left");
    assert_eq!((pairs, len, sum), (1, 2, u64::from(b'a') + u64::from(b'b')));
    stop.cancel();
}

#[tokio::test]
async fn a_call_without_context_sees_none() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(hop, ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    let answer = client.call(CONTEXT, b"").await.unwrap();
    assert_eq!(values(&answer), [u64::MAX, 0, 0, 0]);
    stop.cancel();
}

#[tokio::test]
async fn a_deadline_travels_over_three_hops_and_shrinks() {
    // C waits; B forwards to C; A forwards to B.
    let c = Arc::new(Hop::default());
    let (c_addr, c_stop) = serve(Arc::clone(&c), ServerConfig::default()).await;
    let b = Arc::new(Hop {
        next: Some((Client::connect(c_addr).await.unwrap(), WAIT)),
        ..Hop::default()
    });
    let (b_addr, b_stop) = serve(Arc::clone(&b), ServerConfig::default()).await;
    let a = Arc::new(Hop {
        next: Some((Client::connect(b_addr).await.unwrap(), FORWARD)),
        ..Hop::default()
    });
    let (a_addr, a_stop) = serve(Arc::clone(&a), ServerConfig::default()).await;
    let client = Client::connect(a_addr).await.unwrap();
    let budget = Duration::from_millis(400);
    let started = tokio::time::Instant::now();
    let err = CallOptions::new()
        .deadline_in(budget)
        .scope(client.call(FORWARD, &request(10_000)))
        .await
        .unwrap_err();
    assert!(err.is_deadline_exceeded(), "{err}");
    // Each hop saw less than the one before, by at least the margin.
    let at_a = a.seen.lock().unwrap()[0].expect("A has a deadline");
    let at_b = b.seen.lock().unwrap()[0].expect("B has a deadline");
    assert!(at_a <= budget, "{at_a:?}");
    assert!(
        at_b + zap_runtime::context::PROPAGATION_MARGIN <= at_a,
        "{at_b:?} at B, {at_a:?} at A"
    );
    // The slow handler at the end of the chain is dropped, not left running.
    crate::server_support::until("C's handler is dropped", || {
        c.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    for stop in [a_stop, b_stop, c_stop] {
        stop.cancel();
    }
}

#[tokio::test]
async fn metadata_at_its_limits_and_over_them() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(hop, ServerConfig::default()).await;
    let mut raw = Raw::connect(addr).await;
    // The most pairs, and the most bytes, a call may carry.
    let mut full = Metadata::new();
    full.insert("request-id", vec![7u8; 100]).unwrap();
    for i in 1..MAX_PAIRS {
        full.insert(format!("k{i}"), Bytes::new()).unwrap();
    }
    raw.send(&frame_with(CONTEXT, 1, b"", &extension(None, &full)))
        .await;
    let (status, _, body) = raw.answer().await.unwrap();
    assert_eq!(status, Status::OK);
    assert_eq!(values(&body), [u64::MAX, MAX_PAIRS as u64, 100, 700]);
    let mut big = Metadata::new();
    big.insert("b", vec![1u8; zap_runtime::context::MAX_METADATA_BYTES - 1])
        .unwrap();
    raw.send(&frame_with(CONTEXT, 2, b"", &extension(None, &big)))
        .await;
    assert_eq!(raw.answer().await.unwrap().0, Status::OK);
    // One pair too many, and one byte too many: written by hand, as a client that
    // does not check would.
    let mut over = extension(None, &full);
    over[4..6].copy_from_slice(&((MAX_PAIRS + 1) as u16).to_le_bytes());
    over.extend_from_slice(&[1, b'x', 0, 0, 0, 0]);
    raw.send(&frame_with(CONTEXT, 3, b"", &over)).await;
    let (status, id, body) = raw.answer().await.unwrap();
    assert_eq!((status, id), (Status::BAD_REQUEST, 3));
    assert!(String::from_utf8_lossy(&body).contains("metadata pairs"));
    let mut over = extension(None, &big);
    let at = over.len() - (zap_runtime::context::MAX_METADATA_BYTES - 1) - 4;
    over[at..at + 4]
        .copy_from_slice(&(zap_runtime::context::MAX_METADATA_BYTES as u32).to_le_bytes());
    over.push(1);
    raw.send(&frame_with(CONTEXT, 4, b"", &over)).await;
    let (status, _, body) = raw.answer().await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("bytes of metadata"));
    // The connection is kept.
    raw.send(&frame_with(CONTEXT, 5, b"", b"")).await;
    assert_eq!(raw.answer().await.unwrap().0, Status::OK);
    stop.cancel();
}

#[tokio::test]
async fn hostile_extensions_are_refused_and_the_connection_kept() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let mut raw = Raw::connect(addr).await;
    let good = extension(Some(Duration::from_secs(1)), &{
        let mut m = Metadata::new();
        m.insert("a", "b").unwrap();
        m
    });
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("junk after the envelope", b"hello".to_vec()),
        ("one byte", vec![0]),
        ("wrong magic", [b"XY", &good[2..]].concat()),
        ("a later version", {
            let mut e = good.clone();
            e[2] = 9;
            e
        }),
        ("an unknown flag", {
            let mut e = good.clone();
            e[3] |= 0x80;
            e
        }),
        ("a value length past the end", {
            let mut e = good.clone();
            let at = e.len() - 5;
            e[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
            e
        }),
        ("bytes left over", [&good[..], &[0u8; 3]].concat()),
        ("a key of capitals", {
            let mut e = good.clone();
            let at = e.len() - 6;
            e[at] = b'A';
            e
        }),
    ];
    cases.push(("truncated", good[..good.len() - 1].to_vec()));
    for (i, (what, ext)) in cases.iter().enumerate() {
        let id = 10 + i as u32;
        raw.send(&frame_with(WAIT, id, &request(1), ext)).await;
        let (status, answered, body) = raw.answer().await.expect(what);
        assert_eq!((status, answered), (Status::BAD_REQUEST, id), "{what}");
        assert!(
            String::from_utf8_lossy(&body).starts_with("malformed call context"),
            "{what}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    assert_eq!(hop.started.load(Ordering::SeqCst), 0, "no refused call ran");
    raw.send(&frame_with(WAIT, 99, &request(1), &good)).await;
    assert_eq!(raw.answer().await.unwrap(), (Status::OK, 99, request(1)));
    stop.cancel();
}

#[tokio::test]
async fn load_shedding_refuses_calls_over_the_limit_at_once() {
    let hop = Arc::new(Hop::default());
    let limit = LoadLimit::new(4);
    let config = ServerConfig {
        load_limit: Some(limit.clone()),
        ..ServerConfig::default()
    };
    let (addr, stop) = serve(Arc::clone(&hop), config).await;
    // Four slow calls on four connections fill the limit.
    let mut slow = Vec::new();
    for _ in 0..4 {
        let client = Client::connect(addr).await.unwrap();
        slow.push(tokio::spawn(async move {
            client.call(WAIT, &request(400)).await
        }));
    }
    crate::server_support::until("four calls run", || limit.in_flight() == 4).await;
    // A burst: every call over the limit is answered 503 without running.
    let client = Client::connect(addr).await.unwrap();
    let one = request(1);
    let burst: Vec<_> = (0..20).map(|_| client.call(WAIT, &one)).collect();
    for result in futures_join(burst).await {
        let err = result.unwrap_err();
        assert!(err.is_overloaded(), "{err}");
        assert!(err.to_string().contains("limit of 4 calls"), "{err}");
    }
    assert_eq!(hop.started.load(Ordering::SeqCst), 4);
    for call in slow {
        call.await
            .unwrap()
            .expect("the calls under the limit are answered");
    }
    assert_eq!(limit.in_flight(), 0);
    // Room again.
    client.call(WAIT, &request(1)).await.unwrap();
    stop.cancel();
}

/// Await every future (they run concurrently on the same task).
async fn futures_join<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in pinned.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|v| v.expect("ready")).collect()
}

/// POST `body` to /rpc with extra header lines; the status and the JSON answer.
async fn post_with(
    server: &crate::http_support::Server,
    headers: &str,
    body: &str,
) -> (u16, serde_json::Value) {
    let response = server
        .connect()
        .await
        .post_with_headers("/rpc", headers, body)
        .await;
    (response.status, response.json())
}

#[tokio::test]
async fn json_rpc_over_http_takes_its_deadline_from_a_header() {
    use crate::http_support::{error_code, request, Server};
    use serde_json::json;
    use zap_runtime::http::HttpConfig;
    let server = Server::start(HttpConfig::default()).await;
    let slow = request(json!(1), "calc_slow", json!([5000]));
    let (status, answer) = post_with(&server, "Zap-Timeout-Ms: 100\r\n", &slow).await;
    assert_eq!(status, 200);
    assert_eq!(error_code(&answer), -32004, "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Deadline exceeded"));
    // Within its deadline the call is answered.
    let quick = request(json!(2), "calc_slow", json!([1]));
    let (_, answer) = post_with(&server, "Zap-Timeout-Ms: 5000\r\n", &quick).await;
    assert_eq!(answer["result"], json!({"value": 1}), "{answer}");
    // A malformed header is refused before anything runs.
    for bad in ["soon", "-1", "12345678901", "1.5"] {
        let (status, answer) =
            post_with(&server, &format!("Zap-Timeout-Ms: {bad}\r\n"), &quick).await;
        assert_eq!(status, 400, "{bad}: {answer}");
        assert!(answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("zap-timeout-ms"));
    }
    // Metadata headers whose keys are not valid are refused too.
    let (status, _) = post_with(&server, "Zap-Meta-A+B: c\r\n", &quick).await;
    assert_eq!(status, 400);
    server.shutdown().await;
}

#[tokio::test]
async fn json_rpc_over_http_sheds_load() {
    use crate::http_support::{error_code, request, Server};
    use serde_json::json;
    use zap_runtime::http::HttpConfig;
    let limit = LoadLimit::new(1);
    let server = Server::start(HttpConfig {
        load_limit: Some(limit.clone()),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.addr;
    let slow = tokio::spawn(async move {
        let mut raw = crate::http_support::RawClient::connect(addr).await;
        raw.post("/rpc", &request(json!(1), "calc_slow", json!([300])))
            .await
            .json()
    });
    crate::server_support::until("the slow call runs", || limit.in_flight() == 1).await;
    let (_, answer) = server
        .rpc(&request(json!(2), "calc_add", json!([1, 2])))
        .await;
    assert_eq!(error_code(&answer), -32006, "{answer}");
    assert_eq!(slow.await.unwrap()["result"], json!({"value": 300}));
    let (_, answer) = server
        .rpc(&request(json!(3), "calc_add", json!([1, 2])))
        .await;
    assert_eq!(answer["result"], json!({"value": 3}), "{answer}");
    server.shutdown().await;
}

/// A `[len 5][dir 6][promiseID]` cancel frame.
fn cancel(promise_id: u32) -> Vec<u8> {
    frame(Direction::Cancel, &promise_id.to_le_bytes())
}

#[tokio::test]
async fn a_slow_call_runs_beside_later_calls_and_a_cancel_frame_drops_it() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let mut raw = Raw::connect(addr).await;
    raw.send(&frame_with(WAIT, 1, &request(10_000), b"")).await;
    // Calls after it on the same connection are answered while it runs.
    for id in 2..6 {
        raw.send(&frame_with(WAIT, id, &request(1), b"")).await;
        assert_eq!(raw.answer().await.unwrap(), (Status::OK, id, request(1)));
    }
    assert_eq!(hop.started.load(Ordering::SeqCst), 5);
    assert_eq!(hop.dropped.load(Ordering::SeqCst), 0);
    // A cancel for a call that is not running (answered, or never sent) is ignored.
    raw.send(&cancel(2)).await;
    raw.send(&cancel(77)).await;
    raw.send(&cancel(1)).await;
    let (status, id, body) = raw.answer().await.expect("the cancelled call's answer");
    assert_eq!((status, id), (Status::CANCELLED, 1));
    assert!(String::from_utf8_lossy(&body).starts_with("cancelled"));
    assert_eq!(
        hop.dropped.load(Ordering::SeqCst),
        1,
        "the handler was dropped"
    );
    // A cancel frame too short to name a call is dropped, the connection kept.
    raw.send(&frame(Direction::Cancel, &[1, 2])).await;
    raw.send(&frame_with(WAIT, 9, &request(1), b"")).await;
    assert_eq!(raw.answer().await.unwrap().1, 9);
    stop.cancel();
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_on_the_server_while_others_go_on() {
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    let slow = {
        let client = client.clone();
        tokio::spawn(async move { client.call(WAIT, &request(10_000)).await })
    };
    crate::server_support::until("the slow handler runs", || {
        hop.started.load(Ordering::SeqCst) == 1
    })
    .await;
    // The same connection serves other calls meanwhile.
    for _ in 0..10 {
        client.call(WAIT, &request(1)).await.unwrap();
    }
    assert_eq!(hop.dropped.load(Ordering::SeqCst), 0);
    // The caller drops its call: the client tells the server, which drops the handler.
    slow.abort();
    assert!(slow.await.unwrap_err().is_cancelled());
    crate::server_support::until("the slow handler is dropped", || {
        hop.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    client.call(WAIT, &request(1)).await.unwrap();
    stop.cancel();
}

#[tokio::test]
async fn calls_read_before_the_peer_closes_its_side_are_answered() {
    use tokio::io::AsyncWriteExt;
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(Arc::clone(&hop), ServerConfig::default()).await;
    let mut raw = Raw::connect(addr).await;
    raw.send(&frame_with(WAIT, 1, &request(200), b"")).await;
    raw.send(&frame_with(WAIT, 2, &request(1), b"")).await;
    // A half-close: the peer sends nothing more, and still reads its answers.
    raw.stream.shutdown().await.unwrap();
    let mut ids = vec![raw.answer().await.unwrap().1, raw.answer().await.unwrap().1];
    ids.sort();
    assert_eq!(ids, [1, 2]);
    assert!(raw.is_closed_by_server().await);
    assert_eq!(hop.dropped.load(Ordering::SeqCst), 0);
    stop.cancel();
}

#[tokio::test]
async fn the_balanced_client_sends_overloaded_calls_elsewhere() {
    use zap_runtime::client::{BalanceConfig, Balanced};
    // One server that refuses everything for load (a limit of 0), one that serves.
    let full = Arc::new(Hop::default());
    let (full_addr, full_stop) = serve(
        Arc::clone(&full),
        ServerConfig {
            load_limit: Some(LoadLimit::new(0)),
            ..ServerConfig::default()
        },
    )
    .await;
    let open = Arc::new(Hop::default());
    let (open_addr, open_stop) = serve(Arc::clone(&open), ServerConfig::default()).await;
    let balanced = Balanced::new(
        [full_addr.to_string(), open_addr.to_string()],
        BalanceConfig::default(),
    );
    assert!(
        balanced.ready(2, Duration::from_secs(5)).await,
        "both endpoints connect"
    );
    // Not idempotent, and every call still answered: an overloaded one was not run.
    for _ in 0..40 {
        balanced.call(WAIT, &request(0)).await.unwrap();
    }
    assert_eq!(full.started.load(Ordering::SeqCst), 0);
    assert_eq!(open.started.load(Ordering::SeqCst), 40);
    // With nowhere else to go, the caller sees the refusal.
    let alone = Balanced::new([full_addr.to_string()], BalanceConfig::default());
    assert!(alone.ready(1, Duration::from_secs(5)).await, "it connects");
    let err = alone.call(WAIT, &request(0)).await.unwrap_err();
    assert!(err.is_overloaded(), "{err}");
    full_stop.cancel();
    open_stop.cancel();
}

#[tokio::test]
async fn json_rpc_over_http_drops_the_handler_of_a_closed_connection() {
    use crate::http_support::{
        request, wait_for_slow_call, Server, SLOW_CALLS_DROPPED, SLOW_CALLS_STARTED,
    };
    use serde_json::json;
    use zap_runtime::http::HttpConfig;
    let server = Server::start(HttpConfig::default()).await;
    let started = SLOW_CALLS_STARTED.load(Ordering::SeqCst);
    // A duration no other test asks for: the drop recorded under it is this call's.
    const MS: u64 = 10_007;
    let mut raw = server.connect().await;
    let body = request(json!(1), "calc_slow", json!([MS]));
    raw.send_post("/rpc", "", &body).await;
    wait_for_slow_call(started).await;
    // The caller goes away: the server drops the handler.
    drop(raw);
    crate::server_support::until("the slow handler is dropped", || {
        SLOW_CALLS_DROPPED.lock().unwrap().contains(&MS)
    })
    .await;
    server.shutdown().await;
}

#[tokio::test]
async fn quic_drops_a_handler_at_its_deadline_and_when_its_caller_gives_up() {
    use crate::quic_support::{client_tls, QuicTest};
    use zap_runtime::quic::{QuicClient, QuicClientConfig, QuicConfig};
    let pki = crate::pki::Pki::new();
    let client_tls = client_tls(&pki);
    let hop = Arc::new(Hop::default());
    let server = QuicTest::any_port(&pki, Arc::clone(&hop), QuicConfig::default());
    let client = QuicClient::connect(server.addr, &client_tls, QuicClientConfig::default())
        .await
        .unwrap();
    // A deadline that passes in the handler: 504, the handler dropped.
    let err = CallOptions::new()
        .deadline_in(Duration::from_millis(100))
        .scope(client.call(WAIT, &request(10_000)))
        .await
        .unwrap_err();
    assert!(err.is_deadline_exceeded(), "{err}");
    crate::server_support::until("the handler past its deadline is dropped", || {
        hop.dropped.load(Ordering::SeqCst) == 1
    })
    .await;
    // The metadata arrives too.
    let answer = CallOptions::new()
        .header("request-id", "q1")
        .unwrap()
        .scope(client.call(CONTEXT, b""))
        .await
        .unwrap();
    assert_eq!(
        values(&answer)[1..],
        [1, 2, u64::from(b'q') + u64::from(b'1')]
    );
    // A call whose caller gives up: its QUIC stream is reset, the handler dropped,
    // while other calls on the connection go on.
    let slow = {
        let client = client.clone();
        tokio::spawn(async move { client.call(WAIT, &request(10_000)).await })
    };
    crate::server_support::until("the slow handler runs", || {
        hop.started.load(Ordering::SeqCst) == 2
    })
    .await;
    for _ in 0..5 {
        client.call(WAIT, &request(1)).await.unwrap();
    }
    slow.abort();
    crate::server_support::until("the abandoned handler is dropped", || {
        hop.dropped.load(Ordering::SeqCst) == 2
    })
    .await;
    server.stop().await;

    // Load shedding over QUIC: one slow call fills a limit of one; a burst is refused.
    let limit = LoadLimit::new(1);
    let shedding = Arc::new(Hop::default());
    let server = QuicTest::any_port(
        &pki,
        Arc::clone(&shedding),
        QuicConfig {
            load_limit: Some(limit.clone()),
            ..QuicConfig::default()
        },
    );
    let client = QuicClient::connect(server.addr, &client_tls, QuicClientConfig::default())
        .await
        .unwrap();
    let slow = {
        let client = client.clone();
        tokio::spawn(async move { client.call(WAIT, &request(300)).await })
    };
    crate::server_support::until("the slow call runs", || limit.in_flight() == 1).await;
    let one = request(1);
    let burst: Vec<_> = (0..10).map(|_| client.call(WAIT, &one)).collect();
    for result in futures_join(burst).await {
        assert!(result.unwrap_err().is_overloaded());
    }
    slow.await
        .unwrap()
        .expect("the call under the limit is answered");
    client.call(WAIT, &one).await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn answers_carry_metadata_back_to_callers_that_read_it() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use zap_runtime::context::{AnswerMetadata, Extension};
    let hop = Arc::new(Hop::default());
    let (addr, stop) = serve(hop, ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    // Asked for: the handler's pairs come back, whether or not the call sends any.
    for request_id in [None, Some("r-17")] {
        let answer = AnswerMetadata::new();
        let mut options = CallOptions::new().answer_metadata_into(&answer);
        if let Some(id) = request_id {
            options = options.header("request-id", id).unwrap();
        }
        let body = options.scope(client.call(CONTEXT, b"")).await.unwrap();
        assert_eq!(Message::parse(&body).unwrap().root().u64(32), 1);
        let got = answer.get();
        assert_eq!(got.get_str("served-by"), Some("hop"));
        assert_eq!(got.get_str("request-id"), request_id);
    }
    // A caller that sends no context gets none: the handler is told so.
    let body = client.call(CONTEXT, b"").await.unwrap();
    assert_eq!(Message::parse(&body).unwrap().root().u64(32), 0);
    // On the wire: the pairs follow the response envelope in its frame.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut asked = Metadata::new();
    asked.insert("request-id", "raw").unwrap();
    tcp.write_all(&frame_with(CONTEXT, 1, b"", &extension(None, &asked)))
        .await
        .unwrap();
    let mut head = [0u8; 5];
    tcp.read_exact(&mut head).await.unwrap();
    assert_eq!(head[4], Direction::Response as u8);
    let mut envelope = vec![0u8; u32::from_le_bytes(head[..4].try_into().unwrap()) as usize - 1];
    tcp.read_exact(&mut envelope).await.unwrap();
    let response = zap_runtime::rpc::Response::parse(&envelope).unwrap();
    assert_eq!((response.status, response.promise_id), (Status::OK, 1));
    let size = u32::from_le_bytes(envelope[12..16].try_into().unwrap()) as usize;
    let back = Extension::parse(&envelope[size..]).unwrap();
    assert_eq!((back.budget(), back.len()), (None, 2));
    stop.cancel();
}

#[tokio::test]
async fn json_rpc_over_http_sends_answer_metadata_as_headers() {
    use crate::http_support::{request, Server};
    use serde_json::json;
    use zap_runtime::http::HttpConfig;
    let server = Server::start(HttpConfig::default()).await;
    // `calc_ping` sends `served-by: calc` back to a caller that sent a context.
    let ping = request(json!(1), "calc_ping", json!([]));
    let post = |extra: &'static str| {
        let ping = ping.clone();
        let server = &server;
        async move {
            let mut raw = server.connect().await;
            raw.post_with_headers("/rpc", extra, &ping).await
        }
    };
    let with = post("Zap-Meta-Request-Id: h1\r\n").await;
    assert_eq!(with.status, 200);
    assert_eq!(with.header("zap-meta-served-by"), Some("calc"));
    let without = post("").await;
    assert_eq!(without.status, 200);
    assert_eq!(without.header("zap-meta-served-by"), None);
    server.shutdown().await;
}

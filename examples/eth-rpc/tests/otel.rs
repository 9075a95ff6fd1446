//! Distributed tracing, end to end: the real `eth-rpc` binary with `--otlp-endpoint`
//! pointed at an OTLP/HTTP receiver. A JSON-RPC call with a `traceparent` header and a
//! ZAP call made by the real `zapc call --traceparent` each arrive as a server span of
//! that trace, child of the caller's span, with the method and the status; spans are
//! flushed on SIGTERM; a chain of two services (a front service of this test, traced
//! and exported in-process, calling eth-rpc through the generated client) is one trace;
//! a collector that is down costs the calls nothing and its spans are counted as
//! dropped.

use crate::otlp::{Collector, Span};
use crate::process::{self, within, EthRpc};

use std::path::PathBuf;
use std::sync::Arc;

use eth_rpc::eth::EthClient;
use zap_runtime::client::Client;
use zap_runtime::context::CallOptions;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::Streaming;
use zap_runtime::trace::otel::{Otel, OtlpConfig};
use zap_runtime::trace::{TraceParent, Traced};
use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service, Transport};

const JSON_PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const UNSAMPLED_PARENT: &str = "00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00";
const ZAPC_PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const SERVER: i32 = 2;
const CLIENT: i32 = 3;

/// The `zapc` binary of this workspace, built if it is not yet (a workspace test run
/// has built it already; `cargo test -p eth-rpc` alone has not).
fn zapc() -> PathBuf {
    let debug = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .to_path_buf();
    let status = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args(["build", "--quiet", "-p", "zapc", "--bin", "zapc"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build -p zapc");
    debug.join("zapc")
}

/// The spans of trace `trace_id` (32 hex) the collector has.
fn of_trace(collector: &Collector, trace_id: &str) -> Vec<Span> {
    collector
        .spans()
        .into_iter()
        .filter(|s| s.trace_id == trace_id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_and_zapc_calls_are_exported_as_children_of_the_callers_span() {
    let collector = Collector::start().await;
    let endpoint = collector.endpoint();
    let mut server = EthRpc::start(&[
        "--otlp-endpoint",
        &endpoint,
        "--otlp-service-name",
        "ledger",
    ])
    .await;

    // JSON-RPC over HTTP, the trace context as W3C headers.
    let address = zap_runtime::json::to_hex(
        eth_rpc::ledger::Ledger::default()
            .address(0)
            .expect("a seeded account"),
    );
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["{address}","latest"]}}"#
    );
    let (status, answer) = crate::support::http_with_headers(
        server.http,
        "POST",
        "/rpc",
        &[
            ("traceparent", JSON_PARENT),
            ("tracestate", "vendor=opaque"),
        ],
        &body,
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    // The same call in a trace its caller does not sample (flags 00): answered, and no
    // span of it is exported.
    let (status, _) = crate::support::http_with_headers(
        server.http,
        "POST",
        "/rpc",
        &[("traceparent", UNSAMPLED_PARENT)],
        &body,
    )
    .await;
    assert_eq!(status, 200);

    // ZAP/TCP, from the real zapc, the trace context as call metadata.
    let out = tokio::process::Command::new(zapc())
        .args(["call", "--traceparent", ZAPC_PARENT])
        .arg(server.zap.to_string())
        .arg("Eth.chainId")
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "zapc call: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // SIGTERM: the spans still queued are sent before the process exits.
    server.kill("TERM");
    assert!(server.wait().await.success(), "eth-rpc exits 0");

    let json = TraceParent::parse(JSON_PARENT.as_bytes()).unwrap();
    let spans = of_trace(&collector, &json.trace_id_hex());
    let span = spans
        .iter()
        .find(|s| s.attribute("rpc.method") == Some("eth_getBalance"))
        .unwrap_or_else(|| panic!("the JSON-RPC call's span, among {:?}", collector.spans()));
    assert_eq!(
        span.parent_id,
        json.parent_id_hex(),
        "child of the caller's span"
    );
    assert_eq!(span.kind, SERVER);
    assert_eq!(span.name, "Eth/eth_getBalance");
    assert_eq!(span.service, "ledger");
    assert_eq!(span.attribute("rpc.system"), Some("jsonrpc"));
    assert_eq!(span.attribute("rpc.service"), Some("Eth"));
    assert_eq!(span.attribute("rpc.zap.status_code"), Some("200"));
    assert_eq!(span.attribute("zap.transport"), Some("http"));
    assert_ne!(span.status, 2, "not failed");

    let unsampled = TraceParent::parse(UNSAMPLED_PARENT.as_bytes()).unwrap();
    assert_eq!(
        of_trace(&collector, &unsampled.trace_id_hex()).len(),
        0,
        "an unsampled trace is not exported"
    );

    let zap = TraceParent::parse(ZAPC_PARENT.as_bytes()).unwrap();
    let spans = of_trace(&collector, &zap.trace_id_hex());
    assert_eq!(spans.len(), 1, "one span for the one call: {spans:?}");
    let span = &spans[0];
    assert_eq!(span.parent_id, zap.parent_id_hex());
    assert_eq!(span.kind, SERVER);
    assert_eq!(span.name, "Eth/chainId");
    assert_eq!(span.attribute("rpc.system"), Some("zap"));
    assert_eq!(span.attribute("rpc.method"), Some("chainId"));
    assert_eq!(span.attribute("rpc.zap.status_code"), Some("200"));
    assert_eq!(span.attribute("zap.transport"), Some("zap"));
    assert_eq!(span.attribute("network.peer.address"), Some("127.0.0.1"));
    assert!(span.attribute("network.peer.port").is_some(), "{span:?}");
    assert_eq!(collector.requests().1, 0, "every export was valid OTLP");
}

/// A service of one method, `relay`, that calls eth-rpc's `chainId` through the
/// generated client: the first service of a chain of two.
struct Front {
    back: EthClient<Client>,
}

const RELAY: MethodInfo = MethodInfo::new(1, "relay", Streaming::Unary);

impl Service for Front {
    const NAME: &'static str = "Front";
    const METHODS: &'static [MethodInfo] = &[RELAY];

    async fn call(
        &self,
        ordinal: u32,
        _payload: &[u8],
        _out: &mut Builder,
    ) -> Result<Reply, CallError> {
        if ordinal != 1 {
            return Err(CallError::unknown_method("Front", ordinal));
        }
        self.back
            .chain_id()
            .await
            .map_err(|e| CallError::internal(format!("the back end: {e}")))?;
        Ok(Reply::Empty)
    }
}

#[tokio::test]
async fn a_chain_of_two_services_is_one_trace() {
    let collector = Collector::start().await;
    let back = EthRpc::start(&["--otlp-endpoint", &collector.endpoint()]).await;

    // The front service exports to the same collector, from this process; the test's
    // runtime is one thread, so the subscriber set here sees all of its tasks.
    let mut config = OtlpConfig::new(collector.endpoint(), "front");
    config.interval = std::time::Duration::from_millis(50);
    let otel = Otel::start(config).unwrap();
    use tracing_subscriber::prelude::*;
    let _subscriber = tracing_subscriber::registry()
        .with(otel.layer())
        .set_default();

    let front = Arc::new(Traced::new(
        Arc::new(Front {
            back: EthClient::new(Client::connect(back.zap).await.unwrap()),
        }),
        "zap",
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front_addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let serving =
        tokio::spawn(Server::new(listener, front, ServerConfig::default()).run(stop.clone()));

    // The first caller: a trace of its own, sent to the front service.
    let caller = Client::connect(front_addr).await.unwrap();
    let options = CallOptions::new()
        .header("traceparent", ZAPC_PARENT)
        .unwrap();
    options.scope(caller.call(1, b"")).await.expect("relayed");
    stop.cancel();
    serving.await.unwrap().unwrap();
    tokio::task::spawn_blocking(move || otel.shutdown())
        .await
        .unwrap();
    let mut back = back;
    back.kill("TERM");
    assert!(back.wait().await.success());

    let root = TraceParent::parse(ZAPC_PARENT.as_bytes()).unwrap();
    let spans = of_trace(&collector, &root.trace_id_hex());
    let find = |service: &str, kind: i32| {
        spans
            .iter()
            .find(|s| s.service == service && s.kind == kind)
            .unwrap_or_else(|| panic!("a {kind} span of {service} in {spans:?}"))
    };
    let front_server = find("front", SERVER);
    let front_client = find("front", CLIENT);
    let back_server = find("eth-rpc", SERVER);
    assert_eq!(front_server.name, "Front/relay");
    assert_eq!(front_server.parent_id, root.parent_id_hex());
    assert_eq!(front_client.name, "Eth/chainId");
    assert_eq!(
        front_client.parent_id, front_server.span_id,
        "the client call is made inside the front's server span"
    );
    assert_eq!(
        back_server.parent_id, front_client.span_id,
        "the back end's span is the child of the front's client span"
    );
    assert_eq!(back_server.name, "Eth/chainId");
    assert_eq!(spans.len(), 3, "{spans:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_is_down_costs_the_calls_nothing_and_its_spans_are_counted() {
    // A port that was just free: nothing listens there.
    let down = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let server = EthRpc::start(&["--otlp-endpoint", &format!("http://{down}")]).await;
    let client = EthClient::new(Client::connect(server.zap).await.unwrap());
    let ledger = eth_rpc::ledger::Ledger::default();
    let options = CallOptions::new()
        .header("traceparent", ZAPC_PARENT)
        .unwrap();
    for n in 0..20 {
        options
            .clone()
            .scope(process::checked_call(&client, &ledger, 0, n))
            .await
            .expect("answered while the collector is down");
    }
    within("the 20 spans counted as dropped", || async {
        dropped(&server).await >= 20
    })
    .await;
}

async fn dropped(server: &EthRpc) -> u64 {
    let Some(text) = process::get_body(server.http, "/metrics").await else {
        return 0;
    };
    text.lines()
        .find(|l| l.starts_with("zap_otel_spans_dropped_total "))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_malformed_endpoint_is_refused_with_the_reason() {
    for (endpoint, says) in [
        ("https://collector:4318", "not supported"),
        ("127.0.0.1:4318", "scheme"),
        ("http://", "--otlp-endpoint"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--otlp-endpoint", endpoint, "--zap-addr", "127.0.0.1:0"])
            .args(["--http-addr", "127.0.0.1:0"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{endpoint}: {stderr}");
        assert!(stderr.contains(says), "{endpoint}: {stderr}");
    }
}

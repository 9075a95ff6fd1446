//! `GET /metrics` on the example's HTTP port, read by a real Prometheus text parser (the
//! Python `prometheus-client` library's, installed by the test into target/): its call
//! counters equal the calls made, per method and transport, errors by status, and the
//! connection and byte counters of both servers are there.

use crate::python_prometheus;
use crate::support;

use std::path::Path;

use eth_rpc::eth::{BalanceRequest, EthClient};
use eth_rpc::ledger::Ledger;
use serde_json::{json, Value};
use support::{http, Running};
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::{ClientError, Transport};

const ZAP_CALLS: u64 = 300;
const HTTP_CALLS: u64 = 7;
const HTTP_BATCH: u64 = 5;
const UNKNOWN_CALLS: u64 = 4;

/// One parsed sample: name, labels, value.
struct Sample(String, serde_json::Map<String, Value>, f64);

/// The samples of `text` as the Python parser reads them.
fn parse(text: &[u8]) -> Vec<Sample> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/parse_metrics.py");
    let out = python_prometheus::prometheus_client().run(&script, text);
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            Sample(
                v[0].as_str().expect("a name").to_string(),
                v[1].as_object().expect("labels").clone(),
                v[2].as_f64().expect("a value"),
            )
        })
        .collect()
}

/// The value of the one sample named `name` whose labels include `labels`.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<f64> = samples
        .iter()
        .filter(|Sample(n, l, _)| {
            n == name
                && labels
                    .iter()
                    .all(|(k, v)| l.get(*k).and_then(Value::as_str) == Some(*v))
        })
        .map(|s| s.2)
        .collect();
    assert_eq!(found.len(), 1, "one sample {name} {labels:?}");
    found[0]
}

#[tokio::test]
async fn metrics_count_the_calls_made() {
    let server = Running::start().await;
    let ledger = Ledger::default();
    let account = *ledger.address(3).expect("a seeded account");
    let client = Client::connect(server.zap).await.expect("connect");
    let eth = EthClient::new(client.clone());
    for id in 0..ZAP_CALLS {
        let request = BalanceRequest {
            id,
            block: 1,
            account,
        };
        eth.get_balance(&request).await.expect("a balance");
    }
    for _ in 0..UNKNOWN_CALLS {
        match client.call(99, b"").await {
            Err(ClientError::Status { status, .. }) => assert_eq!(status, Status::NOT_FOUND),
            other => panic!("an unknown method is answered 404, got {other:?}"),
        }
    }
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "eth_getBalance",
               "params": [zap_runtime::json::to_hex(&account), "0x1"]})
    };
    for id in 0..HTTP_CALLS {
        let (status, _) = server.rpc(&call(id).to_string()).await;
        assert_eq!(status, 200);
    }
    let batch: Vec<Value> = (0..HTTP_BATCH).map(call).collect();
    let (status, answer) = server.rpc(&Value::Array(batch).to_string()).await;
    assert_eq!(
        (status, answer.as_array().map(Vec::len)),
        (200, Some(HTTP_BATCH as usize))
    );

    let (status, text) = http(server.http, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    let samples = parse(&text);
    let get_balance = |transport| {
        [
            ("service", "Eth"),
            ("method", "getBalance"),
            ("transport", transport),
        ]
    };
    let zap = get_balance("zap");
    let over_http = get_balance("http");
    assert_eq!(value(&samples, "zap_calls_total", &zap), ZAP_CALLS as f64);
    assert_eq!(
        value(&samples, "zap_calls_total", &over_http),
        (HTTP_CALLS + HTTP_BATCH) as f64
    );
    let unknown = [("method", "unknown"), ("transport", "zap")];
    assert_eq!(
        value(&samples, "zap_calls_total", &unknown),
        UNKNOWN_CALLS as f64
    );
    let not_found = [
        ("method", "unknown"),
        ("transport", "zap"),
        ("status", "404"),
    ];
    assert_eq!(
        value(&samples, "zap_call_errors_total", &not_found),
        UNKNOWN_CALLS as f64
    );
    assert!(
        !samples
            .iter()
            .any(|s| s.0 == "zap_call_errors_total"
                && s.1.get("method") == Some(&json!("getBalance"))),
        "no error counted for calls that succeeded"
    );
    // One call in 8 of a method on each thread is timed, the thread's first included:
    // at least an eighth, and at most one more per thread that ran some.
    let timed = value(&samples, "zap_call_duration_seconds_count", &zap);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    assert!(
        timed >= (ZAP_CALLS / 8) as f64 && timed <= (ZAP_CALLS / 8) as f64 + threads + 1.0,
        "{timed} of {ZAP_CALLS} calls timed"
    );
    let inf = [
        ("method", "getBalance"),
        ("transport", "zap"),
        ("le", "+Inf"),
    ];
    assert_eq!(
        value(&samples, "zap_call_duration_seconds_bucket", &inf),
        timed
    );
    assert!(value(&samples, "zap_call_duration_seconds_sum", &zap) > 0.0);
    assert_eq!(value(&samples, "zap_calls_in_flight", &zap), 0.0);
    // Per server: the ZAP connection is open; each HTTP request had its own connection
    // (the scrape's included).
    let zap_server = [("server", "zap")];
    let http_server = [("server", "http")];
    assert_eq!(value(&samples, "zap_connections_active", &zap_server), 1.0);
    assert_eq!(
        value(&samples, "zap_connections_accepted_total", &zap_server),
        1.0
    );
    assert_eq!(
        value(&samples, "zap_connections_accepted_total", &http_server),
        (HTTP_CALLS + 2) as f64
    );
    assert_eq!(
        value(&samples, "zap_connections_refused_total", &zap_server),
        0.0
    );
    assert_eq!(
        value(&samples, "zap_connections_refused_total", &http_server),
        0.0
    );
    let zap_in = value(&samples, "zap_received_bytes_total", &zap_server);
    let zap_out = value(&samples, "zap_sent_bytes_total", &zap_server);
    assert!(
        zap_in > 0.0 && zap_out > 0.0,
        "bytes counted: {zap_in} in, {zap_out} out"
    );
    assert!(value(&samples, "zap_received_bytes_total", &http_server) > 0.0);
    // Plain TCP here: no TLS handshake.
    let handshakes = [("server", "zap"), ("outcome", "completed")];
    assert_eq!(
        value(&samples, "zap_tls_handshakes_total", &handshakes),
        0.0
    );
    drop((eth, client));
    server.stop().await;
}

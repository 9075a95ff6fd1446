//! The operational routes of the HTTP server on real sockets: `GET /health` follows the
//! readiness (200, then 503 once draining starts, on the same keep-alive connection),
//! `GET /health/live` stays 200, `GET /metrics` is 404 without metrics and the
//! Prometheus text with them.

use crate::http_support;

use http_support::Server;
use zap_runtime::http::HttpConfig;
use zap_runtime::metrics::Metrics;
use zap_runtime::shutdown::Readiness;

async fn get(client: &mut http_support::RawClient, path: &str) -> http_support::HttpResponse {
    let head = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    client.send(head.as_bytes()).await;
    client.read_response().await
}

#[tokio::test]
async fn health_turns_503_when_draining_and_live_stays_200() {
    let readiness = Readiness::new();
    let server = Server::start(HttpConfig {
        readiness: readiness.clone(),
        ..HttpConfig::default()
    })
    .await;
    let mut client = server.connect().await;
    assert_eq!(get(&mut client, "/health").await.status, 200);
    assert_eq!(get(&mut client, "/health/live").await.status, 200);
    readiness.set_draining();
    let health = get(&mut client, "/health").await;
    assert_eq!(health.status, 503);
    assert_eq!(health.json(), serde_json::json!({"status": "draining"}));
    assert_eq!(get(&mut client, "/health/live").await.status, 200);
    server.shutdown().await;
}

#[tokio::test]
async fn metrics_are_served_only_when_configured() {
    let server = Server::start(HttpConfig::default()).await;
    let mut client = server.connect().await;
    let missing = get(&mut client, "/metrics").await;
    assert_eq!(missing.status, 404);
    // Says how to serve them.
    let why = String::from_utf8_lossy(&missing.body);
    assert!(why.contains("HttpConfig::metrics"), "{why}");
    server.shutdown().await;

    let server = Server::start(HttpConfig {
        metrics: Some(Metrics::new()),
        ..HttpConfig::default()
    })
    .await;
    let mut client = server.connect().await;
    let metrics = get(&mut client, "/metrics").await;
    assert_eq!(metrics.status, 200);
    assert_eq!(metrics.header("content-type"), Some(Metrics::CONTENT_TYPE));
    let text = String::from_utf8(metrics.body).expect("text");
    assert!(text.contains("# TYPE zap_calls_total counter"), "{text}");
    server.shutdown().await;
}

//! The real `eth-rpc` binary and the real `kill`: SIGTERM (what systemd, Docker and
//! Kubernetes send) and SIGINT drain it gracefully. `GET /health` turns 503 at once while
//! `GET /health/live` stays 200, the calls in flight are answered, every call is
//! either answered correctly or fails with a typed "closed" error, and the process
//! exits 0. A second signal ends it at once.

use crate::process;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use eth_rpc::eth::EthClient;
use process::{load, within, EthRpc, Seen};
use zap_runtime::client::Client;

async fn drains_on(signal: &str) {
    let mut server = EthRpc::start(&["--readiness-grace", "2"]).await;
    assert_eq!(server.get("/health").await, Some(200));
    let client = Client::connect(server.zap).await.expect("connect");
    let seen = Arc::new(Seen::default());
    let callers = load(EthClient::new(client.clone()), 32, &seen);
    // Signal mid-load: once calls are being answered.
    within("500 calls answered", || async { seen.counts().0 >= 500 }).await;
    server.kill(signal);
    within("/health turning 503", || async {
        server.get("/health").await == Some(503)
    })
    .await;
    seen.draining.store(true, Ordering::Relaxed);
    assert_eq!(
        server.get("/health/live").await,
        Some(200),
        "liveness stays 200 while draining"
    );
    let status = server.wait().await;
    assert!(
        status.success(),
        "eth-rpc exits 0 after a drain, got {status}"
    );
    for caller in callers {
        caller.await.expect("no wrong answer");
    }
    let (answered, draining, closed) = seen.counts();
    eprintln!("{signal}: {answered} answered ({draining} while draining), {closed} closed");
    assert!(
        draining > 0,
        "calls keep being answered while /health is 503"
    );
    assert_eq!(
        closed, 32,
        "each caller ends on the closed connection, typed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_and_exits_zero() {
    drains_on("TERM").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_drains_and_exits_zero() {
    drains_on("INT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_exits_at_once() {
    // A grace far longer than the test's time limit: only the second signal can end it.
    let mut server = EthRpc::start(&["--readiness-grace", "3600"]).await;
    server.kill("TERM");
    server.until_health(503).await;
    server.kill("TERM");
    let status = server.wait().await;
    assert_eq!(
        status.code(),
        Some(128 + 15),
        "exits at once with 128 + SIGTERM"
    );
}

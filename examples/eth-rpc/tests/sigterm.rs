//! The real `eth-rpc` binary and the real `kill`: SIGTERM (what systemd, Docker and
//! Kubernetes send) and SIGINT drain it gracefully. `GET /health` turns 503 at once while
//! `GET /health/live` stays 200, the calls in flight are answered, every call is
//! either answered correctly or fails with a typed "closed" error, and the process
//! exits 0. A second signal ends it at once.

mod process;
mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use eth_rpc::eth::EthClient;
use eth_rpc::ledger::Ledger;
use process::{checked_call, EthRpc};
use zap_runtime::client::Client;
use zap_runtime::ClientError;

/// What the callers saw.
#[derive(Default)]
struct Seen {
    answered: AtomicU64,
    /// Answered after `/health` was seen at 503.
    answered_draining: AtomicU64,
    closed: AtomicU64,
    draining: AtomicBool,
}

/// `callers` concurrent callers on one pipelined connection, each calling until its
/// call fails; every answer checked against the ledger.
fn load(
    client: EthClient<Client>,
    callers: u64,
    seen: &Arc<Seen>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..callers)
        .map(|caller| {
            let (client, seen) = (client.clone(), seen.clone());
            tokio::spawn(async move {
                let ledger = Ledger::default();
                for n in 0u64.. {
                    match checked_call(&client, &ledger, caller, n).await {
                        Ok(()) => {
                            seen.answered.fetch_add(1, Ordering::Relaxed);
                            if seen.draining.load(Ordering::Relaxed) {
                                seen.answered_draining.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(ClientError::Closed(_) | ClientError::Io(_)) => {
                            seen.closed.fetch_add(1, Ordering::Relaxed);
                            return;
                        }
                        Err(e) => panic!("call {caller}/{n}: a wrong outcome: {e}"),
                    }
                }
            })
        })
        .collect()
}

async fn drains_on(signal: &str) {
    let mut server = EthRpc::start(&["--readiness-grace", "2"]).await;
    assert_eq!(server.get("/health").await, Some(200));
    let client = Client::connect(server.zap).await.expect("connect");
    let seen = Arc::new(Seen::default());
    let callers = load(EthClient::new(client.clone()), 32, &seen);
    // Signal mid-load: once calls are being answered. Both waits are bounded: a caller
    // that panics stops counting, and must fail the test rather than hang it.
    let within = |what: &'static str| move |_| panic!("{signal}: not within 30 s: {what}");
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(5));
    tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while seen.answered.load(Ordering::Relaxed) < 500 {
            tick.tick().await;
        }
    })
    .await
    .unwrap_or_else(within("500 calls answered"));
    server.kill(signal);
    tokio::time::timeout(std::time::Duration::from_secs(30), server.until_health(503))
        .await
        .unwrap_or_else(within("/health turning 503"));
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
    let (answered, draining, closed) = (
        seen.answered.load(Ordering::Relaxed),
        seen.answered_draining.load(Ordering::Relaxed),
        seen.closed.load(Ordering::Relaxed),
    );
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

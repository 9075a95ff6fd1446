//! The balanced client (`zap_runtime::client::Balanced`) over three real `eth-rpc`
//! processes, with the generated `EthClient` on top, unchanged. One server is killed
//! with SIGKILL mid-load: calls fail over to the other two (getBalance is declared
//! idempotent, so a call lost with the connection is sent again through the
//! balancer), no answer is wrong, no call waits past its timeout. The server is started
//! again on the same ports and is readmitted: calls reach it again. Another is frozen
//! with SIGSTOP (connected, but not answering): it is ejected after consecutive
//! timeouts and readmitted by the probe after SIGCONT.

use crate::process;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use eth_rpc::eth::EthClient;
use eth_rpc::ledger::Ledger;
use process::{checked_call, zap_calls, EthRpc};
use zap_runtime::client::{BalanceConfig, Balanced, ClientConfig, ReconnectConfig, Retry};
use zap_runtime::ClientError;

/// Calls answered and calls that failed, while `stop` is not set.
#[derive(Default)]
struct Load {
    answered: AtomicU64,
    failed: AtomicU64,
    stop: AtomicBool,
}

/// `callers` concurrent callers through `client` until told to stop.
fn run_load(
    client: &Arc<EthClient<Balanced>>,
    callers: u64,
    load: &Arc<Load>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..callers)
        .map(|caller| {
            let (client, load) = (client.clone(), load.clone());
            tokio::spawn(async move {
                let ledger = Ledger::default();
                let mut n = 0;
                while !load.stop.load(Ordering::Relaxed) {
                    match checked_call(&client, &ledger, caller, n).await {
                        Ok(()) => load.answered.fetch_add(1, Ordering::Relaxed),
                        Err(e @ (ClientError::Status { .. } | ClientError::Decode(_))) => {
                            panic!("a wrong outcome: {e}")
                        }
                        Err(e) => {
                            eprintln!("caller {caller} call {n}: {e}");
                            load.failed.fetch_add(1, Ordering::Relaxed)
                        }
                    };
                    n += 1;
                }
            })
        })
        .collect()
}

/// Poll `done` every few milliseconds until it holds.
async fn until(mut done: impl FnMut() -> bool) {
    let mut tick = tokio::time::interval(Duration::from_millis(5));
    while !done() {
        tick.tick().await;
    }
}

/// Let `calls` more calls be answered.
async fn more_calls(load: &Load, calls: u64) {
    let target = load.answered.load(Ordering::Relaxed) + calls;
    until(|| load.answered.load(Ordering::Relaxed) >= target).await;
}

/// Stop the callers (each must have seen only right answers); the calls that failed.
async fn stop_load(
    load: &Load,
    callers: Vec<tokio::task::JoinHandle<()>>,
    balanced: &Balanced,
) -> u64 {
    load.stop.store(true, Ordering::Relaxed);
    for caller in callers {
        caller.await.expect("no wrong answer");
    }
    let (answered, failed) = (
        load.answered.load(Ordering::Relaxed),
        load.failed.load(Ordering::Relaxed),
    );
    eprintln!(
        "{answered} answered, {failed} failed; {:?}",
        balanced.health()
    );
    failed
}

fn config(call_timeout: Duration) -> BalanceConfig {
    BalanceConfig {
        endpoint: ReconnectConfig {
            client: ClientConfig {
                call_timeout,
                connect_timeout: Duration::from_secs(2),
                ..ClientConfig::default()
            },
            backoff_min: Duration::from_millis(20),
            backoff_max: Duration::from_millis(500),
            ..ReconnectConfig::default()
        },
        // getBalance is `no_side_effects` in the schema: the generated client sends it
        // through `call_idempotent`, which the balanced client retries.
        retry: Retry {
            attempts: 3,
            ..Retry::default()
        },
        probe_interval: Duration::from_millis(100),
        ..BalanceConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fails_over_on_sigkill_and_readmits_the_restarted_server() {
    let mut servers = vec![
        EthRpc::start(&[]).await,
        EthRpc::start(&[]).await,
        EthRpc::start(&[]).await,
    ];
    let addrs: Vec<String> = servers.iter().map(|s| s.zap.to_string()).collect();
    let balanced = Balanced::new(addrs, config(Duration::from_secs(10)));
    assert!(
        balanced.ready(3, Duration::from_secs(30)).await,
        "all three connect"
    );
    let client = Arc::new(EthClient::new(balanced.clone()));
    let load = Arc::new(Load::default());
    let callers = run_load(&client, 24, &load);
    more_calls(&load, 2000).await;
    // Every server took a share.
    for server in &servers {
        assert!(zap_calls(server.http).await > 0, "{} got calls", server.zap);
    }

    let (zap, http) = (servers[1].zap, servers[1].http);
    servers[1].kill("KILL");
    let status = servers[1].wait().await;
    assert!(!status.success(), "killed: {status}");
    until(|| !balanced.health()[1].connected).await;
    // Calls go on through the other two.
    more_calls(&load, 2000).await;

    // Back on the same ports: readmitted, and calls reach it again.
    servers[1] = EthRpc::start_on(&zap.to_string(), &http.to_string(), &[]).await;
    assert!(
        balanced.ready(3, Duration::from_secs(30)).await,
        "reconnected"
    );
    let mut tick = tokio::time::interval(Duration::from_millis(20));
    while zap_calls(http).await == 0 {
        tick.tick().await;
    }
    more_calls(&load, 1000).await;

    let failed = stop_load(&load, callers, &balanced).await;
    assert_eq!(
        failed, 0,
        "getBalance is idempotent: lost calls were retried elsewhere"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ejects_a_frozen_server_and_readmits_it_after_the_probe() {
    let servers = [EthRpc::start(&[]).await, EthRpc::start(&[]).await];
    let addrs: Vec<String> = servers.iter().map(|s| s.zap.to_string()).collect();
    // Short call timeout: a frozen server's calls time out, which counts as failures.
    let mut config = config(Duration::from_millis(300));
    config.retry = Retry::never();
    let balanced = Balanced::new(addrs, config);
    assert!(
        balanced.ready(2, Duration::from_secs(30)).await,
        "both connect"
    );
    let client = Arc::new(EthClient::new(balanced.clone()));
    let load = Arc::new(Load::default());
    let callers = run_load(&client, 8, &load);
    more_calls(&load, 500).await;

    servers[0].kill("STOP");
    until(|| balanced.health()[0].ejected).await;
    // While it is ejected, calls go to the other one only.
    let failed_before = load.failed.load(Ordering::Relaxed);
    more_calls(&load, 1000).await;
    assert!(balanced.health()[0].ejected, "still ejected while frozen");
    servers[0].kill("CONT");
    until(|| !balanced.health()[0].ejected).await;
    let before = zap_calls(servers[0].http).await;
    let mut tick = tokio::time::interval(Duration::from_millis(20));
    while zap_calls(servers[0].http).await == before {
        tick.tick().await;
    }
    load.stop.store(true, Ordering::Relaxed);
    for caller in callers {
        caller.await.expect("no wrong answer");
    }
    let failed = load.failed.load(Ordering::Relaxed);
    eprintln!(
        "{} answered; {failed_before} calls timed out on the frozen server before it was \
         ejected, {failed} in all",
        load.answered.load(Ordering::Relaxed)
    );
    assert!(failed_before >= 3, "ejected after consecutive failures");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnecting_client_fails_fast_while_down_and_comes_back() {
    use zap_runtime::client::Reconnecting;
    let mut server = EthRpc::start(&[]).await;
    let (zap, http) = (server.zap, server.http);
    // No retry: a call made while down fails at once. (A call that may be retried waits
    // for the next connection instead, within its deadline.)
    let mut settings = config(Duration::from_secs(10)).endpoint;
    settings.retry = Retry::never();
    let conn = Reconnecting::new(zap.to_string(), settings);
    assert!(conn.connected(Duration::from_secs(30)).await, "connects");
    let client = EthClient::new(conn.clone());
    let ledger = Ledger::default();
    checked_call(&client, &ledger, 0, 0)
        .await
        .expect("an answer");

    server.kill("KILL");
    server.wait().await;
    until(|| !conn.is_connected()).await;
    // Down: every call fails at once with the typed error, none waits for the
    // (10 s) call timeout.
    for n in 1..100 {
        match checked_call(&client, &ledger, 0, n).await {
            Err(ClientError::Closed(why)) => assert!(why.contains("not connected"), "{why}"),
            other => panic!("a call while down fails with Closed, got {other:?}"),
        }
    }
    let _server = EthRpc::start_on(&zap.to_string(), &http.to_string(), &[]).await;
    assert!(conn.connected(Duration::from_secs(30)).await, "reconnects");
    checked_call(&client, &ledger, 0, 100)
        .await
        .expect("an answer after reconnecting");
}

/// SIGTERM one of three servers under load, with no retry configured: its health watch
/// says "not serving" while its listener still accepts (the readiness grace), the
/// balancer sends it nothing new from then on, and it drains and exits 0; no call
/// fails, because none was sent to a server that was about to close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_load_off_a_draining_server_before_it_closes() {
    let grace = ["--readiness-grace", "3"];
    let mut servers = [
        EthRpc::start(&grace).await,
        EthRpc::start(&grace).await,
        EthRpc::start(&grace).await,
    ];
    let addrs: Vec<String> = servers.iter().map(|s| s.zap.to_string()).collect();
    let mut settings = config(Duration::from_secs(10));
    settings.retry = Retry::never();
    let balanced = Balanced::new(addrs, settings);
    assert!(
        balanced.ready(3, Duration::from_secs(30)).await,
        "all three connect"
    );
    let client = Arc::new(EthClient::new(balanced.clone()));
    let load = Arc::new(Load::default());
    let callers = run_load(&client, 24, &load);
    more_calls(&load, 2000).await;
    assert!(zap_calls(servers[1].http).await > 0, "server 1 took calls");

    servers[1].kill("TERM");
    until(|| balanced.health()[1].draining).await;
    // Told while the server still accepts: its readiness grace has not run out.
    let (zap, http) = (servers[1].zap, servers[1].http);
    tokio::net::TcpStream::connect(zap)
        .await
        .expect("the draining server still accepts when its health says so");
    assert_eq!(servers[1].get("/health").await, Some(503), "HTTP agrees");
    let before = zap_calls(http).await;
    more_calls(&load, 3000).await;
    // At most the calls that were in flight when it said so reach it after.
    let after = zap_calls(http).await;
    assert!(
        after <= before + 24,
        "a draining server gets no new calls: {before} then {after}"
    );
    let status = servers[1].wait().await;
    assert!(status.success(), "drained and exited 0: {status}");
    more_calls(&load, 1000).await;

    let failed = stop_load(&load, callers, &balanced).await;
    assert_eq!(
        failed, 0,
        "no call was lost to the drain, without any retry"
    );
}

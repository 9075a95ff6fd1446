//! Three real `eth-rpc` processes behind a real HAProxy (Debian's package, configured
//! by `deploy/haproxy.cfg` as shipped): pipelined ZAP calls (TCP mode, round robin) and
//! JSON-RPC batches (HTTP mode, `option httpchk GET /health`) through it, then SIGTERM
//! to one instance mid-run. No answer may be wrong; a call lost with its connection
//! fails with a typed error and, being idempotent, is sent again; the drained instance
//! answers what it had read and exits 0 (its drain finished); HAProxy marks it down from
//! its readiness check while it still serves, and the load moves to the other two.
//!
//! Needs Debian's `haproxy` program, which no cargo, pip or npm install provides, so the
//! test is ignored by default; `.ci/run` installs HAProxy and runs it with `--ignored`.
//! Run here, it fails (never skips) when `haproxy` is missing.

use crate::harness;
use crate::process;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use eth_rpc::eth::{EthClient, EthService};
use eth_rpc::ledger::Ledger;
use eth_rpc::LedgerEth;
use harness::{Book, HttpConn};
use process::{calls, checked_call, get_body, EthRpc};
use serde_json::Value;
use tokio::process::{Child, Command};
use zap_runtime::client::{ClientConfig, ReconnectConfig, Reconnecting, Retry};

/// `haproxy` on PATH; panics (never skips) when it does not run.
fn haproxy_binary() -> &'static str {
    let version = std::process::Command::new("haproxy").arg("-v").output();
    match version {
        Ok(out) if out.status.success() => "haproxy",
        other => panic!(
            "`haproxy -v` failed ({other:?}): this test needs HAProxy (Debian: apt-get install haproxy)"
        ),
    }
}

/// A free port on 127.0.0.1 (bound, then released for HAProxy to bind).
fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    listener.local_addr().expect("its address")
}

/// HAProxy running `deploy/haproxy.cfg` in front of `instances`.
struct Haproxy {
    _child: Option<Child>,
    zap: SocketAddr,
    http: SocketAddr,
    stats: SocketAddr,
}

impl Haproxy {
    async fn start(instances: &[EthRpc]) -> Haproxy {
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/haproxy.cfg");
        let (zap, http, stats) = (free_addr(), free_addr(), free_addr());
        let mut command = Command::new(haproxy_binary());
        command
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .env("ZAP_FRONTEND", zap.to_string())
            .env("HTTP_FRONTEND", http.to_string())
            .env("STATS_FRONTEND", stats.to_string())
            .stdout(Stdio::null())
            .kill_on_drop(true);
        for (i, instance) in instances.iter().enumerate() {
            let n = i + 1;
            command
                .env(format!("ETH{n}_ZAP"), instance.zap.to_string())
                .env(format!("ETH{n}_HTTP"), instance.http.to_string())
                .env(
                    format!("ETH{n}_HTTP_PORT"),
                    instance.http.port().to_string(),
                );
        }
        let mut child = command.spawn().expect("run haproxy");
        let mut haproxy = Haproxy {
            _child: None,
            zap,
            http,
            stats,
        };
        // Ready once every instance is UP in both backends.
        let mut tick = tokio::time::interval(Duration::from_millis(20));
        while haproxy.up().await.len() < 6 {
            if let Some(status) = child.try_wait().expect("poll haproxy") {
                panic!("haproxy exited at start ({status}); its errors are above");
            }
            tick.tick().await;
        }
        haproxy._child = Some(child);
        haproxy
    }

    /// The `(backend, server)` pairs HAProxy has UP now, from its CSV stats.
    async fn up(&self) -> Vec<(String, String)> {
        let Some(csv) = get_body(self.stats, "/stats;csv").await else {
            return Vec::new();
        };
        csv.lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split(',').collect();
                let status = *fields.get(17)?;
                (fields[1].starts_with("eth") && status == "UP")
                    .then(|| (fields[0].to_string(), fields[1].to_string()))
            })
            .collect()
    }

    /// Poll the stats until `done` holds for the servers UP.
    async fn until(&self, mut done: impl FnMut(&[(String, String)]) -> bool) {
        let mut tick = tokio::time::interval(Duration::from_millis(20));
        loop {
            tick.tick().await;
            if done(&self.up().await) {
                return;
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    answered: AtomicU64,
    /// Calls (or batches) lost with their connection and sent again.
    retried: AtomicU64,
    stop: AtomicBool,
}

/// ZAP: `connections` reconnecting connections to HAProxy, `callers` concurrent
/// (pipelined) callers on each; getBalance declared idempotent, so a call lost with
/// its connection is sent again on the next one.
fn zap_load(
    addr: SocketAddr,
    connections: u64,
    callers: u64,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let config = ReconnectConfig {
        client: ClientConfig {
            call_timeout: Duration::from_secs(20),
            ..ClientConfig::default()
        },
        backoff_min: Duration::from_millis(10),
        backoff_max: Duration::from_millis(200),
        retry: Retry::idempotent(&[EthService::<LedgerEth>::GET_BALANCE], 5),
        ..ReconnectConfig::default()
    };
    let mut tasks = Vec::new();
    for c in 0..connections {
        let client = Arc::new(EthClient::new(Reconnecting::new(
            addr.to_string(),
            config.clone(),
        )));
        for k in 0..callers {
            let (client, tally) = (client.clone(), tally.clone());
            let caller = c * callers + k;
            tasks.push(tokio::spawn(async move {
                assert!(client.transport().connected(Duration::from_secs(30)).await);
                let ledger = Ledger::default();
                let mut n = 0;
                while !tally.stop.load(Ordering::Relaxed) {
                    match checked_call(&client, &ledger, caller, n).await {
                        Ok(()) => tally.answered.fetch_add(1, Ordering::Relaxed),
                        Err(e) => panic!("ZAP call {caller}/{n} failed after its retries: {e}"),
                    };
                    n += 1;
                }
            }));
        }
    }
    tasks
}

/// JSON-RPC: `connections` keep-alive connections to HAProxy, each sending batches of
/// 10 calls; a batch lost with its connection is sent again on a new one.
fn http_load(
    addr: SocketAddr,
    connections: u64,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..connections)
        .map(|c| {
            let tally = tally.clone();
            tokio::spawn(async move {
                let book = Book::default();
                let mut conn = HttpConn::connect(addr).await.expect("connect to HAProxy");
                let mut n = c << 40;
                while !tally.stop.load(Ordering::Relaxed) {
                    let batch = Value::Array((n..n + 10).map(|i| book.json_call(i)).collect());
                    let body = batch.to_string();
                    let (status, answer) = loop {
                        match conn.post(body.as_bytes(), Duration::from_secs(20)).await {
                            Ok(answer) => break answer,
                            Err(end) => {
                                eprintln!("HTTP batch at {n}: connection ended ({end:?}); again");
                                tally.retried.fetch_add(1, Ordering::Relaxed);
                                conn = HttpConn::connect(addr).await.expect("reconnect");
                            }
                        }
                    };
                    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
                    let answer: Value = serde_json::from_slice(&answer).expect("JSON");
                    let answers = answer.as_array().expect("a batch answer");
                    assert_eq!(answers.len(), 10);
                    for (i, one) in (n..).zip(answers) {
                        assert!(book.is_right_json(i, one), "call {i}: a wrong answer {one}");
                    }
                    tally.answered.fetch_add(10, Ordering::Relaxed);
                    n += 10;
                }
            })
        })
        .collect()
}

async fn until_answered(tally: &Tally, more: u64) {
    let target = tally.answered.load(Ordering::Relaxed) + more;
    let mut tick = tokio::time::interval(Duration::from_millis(5));
    while tally.answered.load(Ordering::Relaxed) < target {
        tick.tick().await;
    }
}

/// getBalance calls over ZAP and HTTP answered by `instance`, from its /metrics.
async fn served(instance: &EthRpc) -> u64 {
    calls(instance.http, "zap").await + calls(instance.http, "http").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs haproxy: cargo test -p eth-rpc --test integration haproxy:: -- --ignored"]
async fn sigterm_behind_haproxy_moves_the_load_and_loses_nothing() {
    // The grace outlasts HAProxy's 2 failed checks 200 ms apart.
    let args = ["--readiness-grace", "1.5"];
    let mut instances = vec![
        EthRpc::start(&args).await,
        EthRpc::start(&args).await,
        EthRpc::start(&args).await,
    ];
    let haproxy = Haproxy::start(&instances).await;
    let tally = Arc::new(Tally::default());
    let mut tasks = zap_load(haproxy.zap, 6, 8, &tally);
    tasks.extend(http_load(haproxy.http, 4, &tally));
    until_answered(&tally, 3000).await;
    for instance in &instances {
        assert!(served(instance).await > 0, "{} served calls", instance.zap);
    }

    instances[1].kill("TERM");
    // Readiness: HAProxy sees 503 and takes eth2 out of both backends while it still
    // serves; then it drains and exits 0.
    instances[1].until_health(503).await;
    haproxy
        .until(|up| up.len() == 4 && up.iter().all(|(_, server)| server != "eth2"))
        .await;
    let status = instances[1].wait().await;
    assert!(
        status.success(),
        "the drained instance exits 0, got {status}"
    );

    // The load moves to the other two.
    let before = [served(&instances[0]).await, served(&instances[2]).await];
    until_answered(&tally, 3000).await;
    let after = [served(&instances[0]).await, served(&instances[2]).await];
    assert!(
        after[0] > before[0] && after[1] > before[1],
        "both remaining instances take calls: {before:?} then {after:?}"
    );

    tally.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await
            .expect("no wrong answer, no call failed for good");
    }
    eprintln!(
        "{} calls answered through HAProxy; {} HTTP batches sent again after their \
         connection closed",
        tally.answered.load(Ordering::Relaxed),
        tally.retried.load(Ordering::Relaxed)
    );
}

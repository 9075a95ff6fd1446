//! Soak and graceful shutdown: mixed load on the example's servers (in this process),
//! counted call by call, with the shutdown triggered in the middle of it.
//!
//! Load, on several connections at once, drawing from one budget of `SOAK_CALLS` calls
//! (default 20 000 so CI stays quick; `SOAK_CALLS=2000000 cargo test --release -p
//! eth-rpc --test soak -- --nocapture` for the full-size run):
//! * raw ZAP frames, pipelined up to 512 deep on each of 2 connections (answers are
//!   read by a separate task and must come back in order);
//! * the pipelined `Client` (`call_raw`), 16 concurrent callers on each of 2 connections;
//! * JSON-RPC batches of 50 over 2 keep-alive HTTP connections.
//!
//! When three quarters of the budget has been answered, the servers are told to shut
//! down. Every call must then have had exactly one outcome: answered with the right
//! balance (no duplicate, nothing wrong), or its connection closed without an answer.
//! For the raw connections the answers must be exactly the first k calls sent, in order:
//! the server answered everything it read and dropped nothing in between. No call may
//! time out, and the servers must finish draining. `answered + closed == sent`.
//!
//! A second soak spends the same budget through the balanced client over three real
//! `eth-rpc` processes, one of them drained with SIGTERM and started again mid-run (see
//! [`soak_balanced_over_three_servers_one_restarted`]).

mod harness;
mod process;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{
    heap_live, heap_peak, mib, request_frame, reset_heap_peak, Answers, Book, End, HttpConn,
    Running, GET_BALANCE,
};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use zap_runtime::client::Client;
use zap_runtime::http::HttpConfig;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;
use zap_runtime::{Builder, ClientError, ZapStruct};

#[global_allocator]
static ALLOC: harness::Counting = harness::Counting;

const DEFAULT_CALLS: u64 = 20_000;
const WINDOW: usize = 512;
const BATCH: u64 = 50;
/// Silence that counts as a lost answer (generous: a loaded 2-core machine).
const SILENCE: Duration = Duration::from_secs(30);

/// The budget of calls (`SOAK_CALLS`, default 20 000) and the time the soak may take.
fn budget() -> (u64, Duration) {
    let calls = std::env::var("SOAK_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CALLS);
    (calls, Duration::from_secs(180.max(calls / 2_000)))
}

/// Run `soak` on a 2-thread runtime, within `limit`.
fn soak_within<F: std::future::Future<Output = ()>>(limit: Duration, soak: F) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        tokio::time::timeout(limit, soak)
            .await
            .unwrap_or_else(|_| panic!("the soak finishes within {limit:?}"));
    });
}

#[test]
fn soak_then_graceful_shutdown_mid_load() {
    let (calls, limit) = budget();
    soak_within(limit, run(calls));
}

/// The same budget through the balanced client (`zap_runtime::client::Balanced`, the
/// generated `EthClient` on top) over three real `eth-rpc` processes, 32 concurrent
/// callers. When a quarter has been answered one server gets SIGTERM (it drains and
/// exits 0) and is started again on the same ports; the second half of the budget is
/// released once the balancer has it back, so that it serves again. getBalance is
/// declared idempotent: every call must end answered right, none failed.
#[test]
fn soak_balanced_over_three_servers_one_restarted() {
    let (calls, limit) = budget();
    soak_within(limit, balanced(calls));
}

async fn balanced(calls: u64) {
    use eth_rpc::eth::EthClient;
    use zap_runtime::client::{BalanceConfig, Balanced, ReconnectConfig, Retry};

    let args = ["--readiness-grace", "0.2"];
    let mut servers = Vec::new();
    for _ in 0..3 {
        servers.push(process::EthRpc::start(&args).await);
    }
    let config = BalanceConfig {
        endpoint: ReconnectConfig {
            backoff_min: Duration::from_millis(10),
            backoff_max: Duration::from_millis(200),
            ..ReconnectConfig::default()
        },
        retry: Retry::idempotent(&[GET_BALANCE], 5),
        ..BalanceConfig::default()
    };
    let balanced = Balanced::new(servers.iter().map(|s| s.zap.to_string()), config);
    assert!(
        balanced.ready(3, Duration::from_secs(30)).await,
        "all three connect"
    );
    let client = Arc::new(EthClient::new(balanced.clone()));
    let load = Arc::new(Load::default());
    let first_half = calls / 2;
    load.budget.store(first_half, Ordering::Relaxed);
    let (release, released) = tokio::sync::watch::channel(false);
    let started = Instant::now();
    let callers: Vec<_> = (0..32u64)
        .map(|caller| {
            let (client, load, mut released) = (client.clone(), load.clone(), released.clone());
            tokio::spawn(async move {
                let ledger = eth_rpc::ledger::Ledger::default();
                let mut failed = Vec::new();
                let mut n = 0;
                loop {
                    if load.take(1) == 0 {
                        if *released.borrow_and_update() {
                            break;
                        }
                        // Wait for the second half of the budget.
                        let _ = released.changed().await;
                        continue;
                    }
                    match process::checked_call(&client, &ledger, caller, n).await {
                        Ok(()) => {
                            load.answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => failed.push(format!("{caller}/{n}: {e}")),
                    }
                    n += 1;
                }
                failed
            })
        })
        .collect();

    let mut tick = tokio::time::interval(Duration::from_millis(5));
    while load.answered.load(Ordering::Relaxed) < calls / 4 {
        tick.tick().await;
    }
    let restart_at = started.elapsed();
    let (zap, http) = (servers[1].zap, servers[1].http);
    servers[1].kill("TERM");
    let status = servers[1].wait().await;
    assert!(status.success(), "the drained server exits 0, got {status}");
    servers[1] = process::EthRpc::start_on(&zap.to_string(), &http.to_string(), &args).await;
    assert!(
        balanced.ready(3, Duration::from_secs(30)).await,
        "readmitted"
    );
    let restarted_at = started.elapsed();
    load.budget.fetch_add(calls - first_half, Ordering::Relaxed);
    let _ = release.send(true);

    let mut failed = Vec::new();
    for caller in callers {
        failed.extend(caller.await.expect("no wrong answer"));
    }
    let elapsed = started.elapsed();
    let mut served = Vec::new();
    for server in &servers {
        served.push(process::zap_calls(server.http).await);
    }
    let answered = load.answered.load(Ordering::Relaxed);
    eprintln!(
        "balanced soak: {answered} of {calls} calls answered right in {:.2} s ({:.0} calls/s) \
         over 3 servers; server 2 got SIGTERM at {:.2} s and was readmitted at {:.2} s; \
         calls served since their start: {served:?}; {} failed",
        elapsed.as_secs_f64(),
        answered as f64 / elapsed.as_secs_f64(),
        restart_at.as_secs_f64(),
        restarted_at.as_secs_f64(),
        failed.len()
    );
    assert!(
        failed.is_empty(),
        "failed calls: {:?}",
        &failed[..failed.len().min(5)]
    );
    assert_eq!(answered, calls, "every call answered right");
}

/// The shared budget of calls and the progress counters.
#[derive(Default)]
struct Load {
    budget: AtomicU64,
    answered: AtomicU64,
}

impl Load {
    /// Take up to `k` calls from the budget; how many were taken.
    fn take(&self, k: u64) -> u64 {
        let mut left = self.budget.load(Ordering::Relaxed);
        loop {
            let n = left.min(k);
            if n == 0 {
                return 0;
            }
            match self.budget.compare_exchange_weak(
                left,
                left - n,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return n,
                Err(now) => left = now,
            }
        }
    }
}

/// What one connection's calls came to.
#[derive(Debug, Default, Clone)]
struct Tally {
    sent: u64,
    answered: u64,
    closed: u64,
    wrong: u64,
    failed: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.sent += other.sent;
        self.answered += other.answered;
        self.closed += other.closed;
        self.wrong += other.wrong;
        self.failed.extend(other.failed.iter().cloned());
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} sent = {} answered right + {} closed unanswered; {} wrong, {} failed",
            self.sent,
            self.answered,
            self.closed,
            self.wrong,
            self.failed.len()
        )?;
        if !self.failed.is_empty() {
            write!(f, " {:?}", &self.failed[..self.failed.len().min(5)])?;
        }
        Ok(())
    }
}

async fn run(calls: u64) {
    let zap_config = ServerConfig {
        drain_timeout: Duration::from_secs(30),
        ..ServerConfig::default()
    };
    let http_config = HttpConfig {
        max_batch: BATCH as usize,
        drain_timeout: Duration::from_secs(30),
        ..HttpConfig::default()
    };
    let mut server = Running::start(zap_config, http_config).await;
    let book = Arc::new(Book::default());
    let load = Arc::new(Load::default());
    load.budget.store(calls, Ordering::Relaxed);
    let heap_before = heap_live();
    reset_heap_peak();
    let started = Instant::now();

    let mut raw = Vec::new();
    for conn in 0..2u64 {
        raw.push(tokio::spawn(raw_pipelined(
            server.zap,
            conn,
            book.clone(),
            load.clone(),
        )));
    }
    let mut clients = Vec::new();
    for conn in 2..4u64 {
        let client = Client::connect(server.zap).await.expect("connect");
        for lane in 0..16u64 {
            let (client, book, load) = (client.clone(), book.clone(), load.clone());
            let first = (conn << 40) | (lane << 32);
            clients.push(tokio::spawn(client_calls(client, first, book, load)));
        }
    }
    let mut http = Vec::new();
    for conn in 4..6u64 {
        http.push(tokio::spawn(http_batches(
            server.http,
            conn << 40,
            book.clone(),
            load.clone(),
        )));
    }

    // Shut down when three quarters have been answered: the rest is in flight or unsent.
    let trigger_at = calls * 3 / 4;
    while load.answered.load(Ordering::Relaxed) < trigger_at {
        if raw
            .iter()
            .chain(&clients)
            .chain(&http)
            .all(|t| t.is_finished())
        {
            break; // the load ended early (a failure the tallies will show)
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let answered_at_trigger = load.answered.load(Ordering::Relaxed);
    let shutdown_at = started.elapsed();
    server.trigger_shutdown();

    let (mut raw_t, mut client_t, mut http_t) =
        (Tally::default(), Tally::default(), Tally::default());
    for task in raw {
        raw_t.add(&task.await.expect("a raw connection task"));
    }
    for task in clients {
        client_t.add(&task.await.expect("a client task"));
    }
    for task in http {
        http_t.add(&task.await.expect("an HTTP task"));
    }
    let elapsed = started.elapsed();
    let (zap_addr, stats) = (server.zap, server.stats.clone());
    server.stop(Duration::from_secs(60)).await;
    let refused_after = TcpStream::connect(zap_addr).await.is_err();

    let mut all = Tally::default();
    for t in [&raw_t, &client_t, &http_t] {
        all.add(t);
    }
    let summary = format!(
        "soak of {calls} calls, {:.1} s ({:.0} answered calls/s); shutdown triggered at {:.1} s with {answered_at_trigger} answered:\n\
         raw pipelined ZAP (2 conns, window {WINDOW}): {raw_t}\n\
         Client::call_raw (2 conns x 16 callers): {client_t}\n\
         JSON-RPC batches of {BATCH} (2 keep-alive conns): {http_t}\n\
         all: {all}\n\
         ZAP connections accepted {}, open after {}; new connection refused after shutdown: {refused_after}\n\
         heap {:.1} MiB before, peak {:.1} MiB",
        elapsed.as_secs_f64(),
        all.answered as f64 / elapsed.as_secs_f64(),
        shutdown_at.as_secs_f64(),
        stats.accepted(),
        stats.active_connections(),
        mib(heap_before),
        mib(heap_peak()),
    );
    eprintln!("{summary}");
    for (what, t) in [("raw", &raw_t), ("client", &client_t), ("http", &http_t)] {
        assert_eq!(
            t.answered + t.closed,
            t.sent,
            "{what}: answered + closed != sent\n{summary}"
        );
        assert_eq!(t.wrong, 0, "{what}: wrong or duplicate answers\n{summary}");
        assert!(
            t.failed.is_empty(),
            "{what}: calls failed otherwise\n{summary}"
        );
        assert!(t.answered > 0, "{what}: nothing answered\n{summary}");
    }
    assert!(all.answered >= trigger_at, "{summary}");
    assert_eq!(stats.active_connections(), 0, "{summary}");
    assert!(
        refused_after,
        "the listener is closed after shutdown\n{summary}"
    );
}

/// Raw frames pipelined up to `WINDOW` deep; a reader checks the answers come back in
/// order, each right. PromiseIDs count from 1; call `n = conn << 40 | promise`.
async fn raw_pipelined(
    addr: std::net::SocketAddr,
    conn: u64,
    book: Arc<Book>,
    load: Arc<Load>,
) -> Tally {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (mut rd, mut wr) = stream.into_split();
    let window = Arc::new(Semaphore::new(WINDOW));
    let sent = Arc::new(AtomicU64::new(0));
    let writer_done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (window, sent, writer_done, book, load) = (
            window.clone(),
            sent.clone(),
            writer_done.clone(),
            book.clone(),
            load.clone(),
        );
        tokio::spawn(async move {
            let mut b = Builder::new();
            let mut buf = Vec::with_capacity(64 << 10);
            loop {
                let k = load.take(64);
                if k == 0 {
                    break;
                }
                let Ok(permits) = window.acquire_many(k as u32).await else {
                    break; // the reader saw the connection close
                };
                permits.forget();
                buf.clear();
                let first = sent.load(Ordering::Relaxed) + 1;
                for promise in first..first + k {
                    request_frame(
                        &book,
                        conn << 40 | promise,
                        promise as u32,
                        &mut b,
                        &mut buf,
                    );
                }
                // Counted as sent before the write: a write that fails part way may
                // still have delivered some of them.
                sent.fetch_add(k, Ordering::Relaxed);
                if wr.write_all(&buf).await.is_err() {
                    break;
                }
            }
            writer_done.store(true, Ordering::Release);
            wr
        })
    };
    let mut tally = Tally::default();
    let mut answers = Answers::default();
    let mut silent_for = Duration::ZERO;
    let end = loop {
        if writer_done.load(Ordering::Acquire) && tally.answered == sent.load(Ordering::Relaxed) {
            break End::Closed; // everything sent was answered
        }
        match answers.next(&mut rd, Duration::from_millis(200)).await {
            Ok((status, promise, body)) => {
                silent_for = Duration::ZERO;
                let want = tally.answered + 1;
                if status != Status::OK
                    || u64::from(promise) != want
                    || !book.is_right(conn << 40 | want, &body)
                {
                    tally.wrong += 1;
                    tally
                        .failed
                        .push(format!("answer {want}: {status} for promise {promise}"));
                    break End::Garbled("out of order or wrong".into());
                }
                tally.answered += 1;
                load.answered.fetch_add(1, Ordering::Relaxed);
                window.add_permits(1);
            }
            Err(End::Silent) => {
                silent_for += Duration::from_millis(200);
                if silent_for >= SILENCE {
                    tally
                        .failed
                        .push(format!("no answer for {SILENCE:?}: lost calls"));
                    break End::Silent;
                }
            }
            Err(end) => break end,
        }
    };
    window.close();
    let _wr = writer.await.expect("the writer task");
    if let End::Garbled(e) = end {
        tally.failed.push(e);
    }
    tally.sent = sent.load(Ordering::Relaxed);
    tally.closed = tally.sent - tally.answered.min(tally.sent);
    tally
}

/// One caller on a shared `Client`: calls until the budget is spent or the connection
/// closes.
async fn client_calls(client: Client, first: u64, book: Arc<Book>, load: Arc<Load>) -> Tally {
    let mut tally = Tally::default();
    let mut n = first;
    while load.take(1) == 1 {
        n += 1;
        tally.sent += 1;
        let payload = book.request(n).to_bytes().unwrap();
        match client.call_raw(GET_BALANCE, 0, &payload).await {
            Ok((Status::OK, body)) if book.is_right(n, &body) => {
                tally.answered += 1;
                load.answered.fetch_add(1, Ordering::Relaxed);
            }
            Ok((status, _)) => {
                tally.wrong += 1;
                tally.failed.push(format!("call {n}: {status}"));
            }
            Err(ClientError::Closed(_)) => {
                tally.closed += 1;
                break;
            }
            Err(e) => {
                tally.closed += 1; // an outcome, but not an acceptable one
                tally.failed.push(format!("call {n}: {e}"));
                break;
            }
        }
    }
    tally
}

/// Batches of `BATCH` calls over one keep-alive connection until the budget is spent or
/// the connection closes.
async fn http_batches(
    addr: std::net::SocketAddr,
    first: u64,
    book: Arc<Book>,
    load: Arc<Load>,
) -> Tally {
    let mut tally = Tally::default();
    let mut conn = HttpConn::connect(addr).await.expect("connect");
    let mut n = first;
    loop {
        let k = load.take(BATCH);
        if k == 0 {
            break;
        }
        let calls: Vec<u64> = (n + 1..=n + k).collect();
        n += k;
        tally.sent += k;
        let batch = Value::Array(calls.iter().map(|&i| book.json_call(i)).collect());
        match conn
            .post(&serde_json::to_vec(&batch).unwrap(), SILENCE)
            .await
        {
            Ok((200, body)) => {
                let answers = serde_json::from_slice::<Value>(&body).ok();
                let right = matches!(&answers, Some(Value::Array(a)) if a.len() == calls.len()
                    && calls.iter().zip(a).all(|(&i, r)| book.is_right_json(i, r)));
                if right {
                    tally.answered += k;
                    load.answered.fetch_add(k, Ordering::Relaxed);
                } else {
                    tally.wrong += k;
                    tally
                        .failed
                        .push(format!("batch from {}: wrong answers", calls[0]));
                }
            }
            Ok((status, _)) => {
                tally.wrong += k;
                tally
                    .failed
                    .push(format!("batch from {}: HTTP {status}", calls[0]));
            }
            Err(End::Closed | End::Reset) => {
                tally.closed += k;
                break;
            }
            Err(end) => {
                tally.closed += k;
                tally
                    .failed
                    .push(format!("batch from {}: {end:?}", calls[0]));
                break;
            }
        }
    }
    tally
}

//! The end-to-end load generator and the two baseline servers it is compared with.
//!
//! One generator drives every server: N connections, each keeping up to D requests in
//! flight, for a fixed time or a fixed number of requests. Every answer is checked
//! (PromiseID or HTTP order, the response id, the balance the ledger holds); any error
//! or wrong answer fails the run.

pub mod baseline;
mod calls;
mod echo_http;
mod http;
mod quic;
mod stats;
mod ws;
mod zap;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

pub use stats::Report;

/// What the generator talks to, and so what it accepts as a correct answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// ZAP/TCP `eth_getBalance` (ordinal 1): checks PromiseID, id, balance, nonce.
    Zap,
    /// The same over the node transport (NodeID handshake, reqID-correlated frames) on
    /// the same port: also checks that each answer carries its request's reqID.
    ZapNode,
    /// The length-delimited echo baseline: the request frame must come back unchanged.
    ZapEcho,
    /// As `Zap`, each request carrying a call context: a deadline (60 s) and three
    /// metadata pairs (`request-id`, `tenant`, `trace`: 36 bytes), what a service in a
    /// fleet sends.
    ZapContext,
    /// As `Zap`, each request carrying a W3C `traceparent` in its call metadata (no
    /// deadline): a call inside a distributed trace.
    ZapTraced,
    /// JSON-RPC over HTTP/1.1 `eth_getBalance`: checks the JSON-RPC id, id, balance.
    Http,
    /// The hyper baseline: status 200 and exactly [`baseline::FIXED_BODY`].
    HttpFixed,
    /// JSON-RPC over WebSocket on the HTTP port, `eth_getBalance` as for `Http`.
    Ws,
    /// ZAP over QUIC (`--tls-ca` required): `eth_getBalance`, `depth` calls in flight on
    /// each QUIC connection, each on its own QUIC stream.
    Quic,
    /// ZAP/TCP frames of `eth_getBalance` (method 1) to an echo service (the Go
    /// runtime's `zapgo-peer serve`, or `peer_server echo`): each answer must be a 200
    /// whose body is the request's message.
    ZapRpcEcho,
    /// ZAP/TCP `eth_getBalance` through zapc's own `Client` (`depth` calls in flight on
    /// each connection), the counterpart of the framework targets below.
    ZapClient,
    /// gRPC `GetBalance` through tonic's client: one HTTP/2 connection per connection,
    /// `depth` calls in flight on it as streams (feature `rpc-peers`).
    Grpc,
    /// tarpc `get_balance` through its client: one TCP connection per connection,
    /// `depth` calls in flight on it (feature `rpc-peers`).
    Tarpc,
    /// `POST /echo` over HTTP over ZAP frames (zaphttp), a JSON body that must come back
    /// unchanged with status 200; depth 1 (zaphttp has no pipelining).
    #[value(name = "zaphttp")]
    ZapHttp,
    /// The same `POST /echo` over HTTP/1.1 keep-alive, pipelined up to the depth.
    HttpEcho,
    /// Cap'n Proto RPC `getBalance` through capnp-rpc's client: one TCP connection per
    /// connection, `depth` calls in flight on it; each connection's RPC system (which is
    /// not `Send`) on a thread of its own (feature `rpc-peers`).
    Capnp,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Zap => "zap",
            Target::ZapNode => "zap-node",
            Target::ZapEcho => "zap-echo",
            Target::ZapContext => "zap-context",
            Target::ZapTraced => "zap-traced",
            Target::Http => "http",
            Target::HttpFixed => "http-fixed",
            Target::Ws => "ws",
            Target::Quic => "quic",
            Target::ZapRpcEcho => "zap-rpc-echo",
            Target::ZapClient => "zap-client",
            Target::Grpc => "grpc",
            Target::Tarpc => "tarpc",
            Target::Capnp => "capnp",
            Target::ZapHttp => "zaphttp",
            Target::HttpEcho => "http-echo",
        }
    }
}

/// How long to run: a time after a warm-up, or a number of requests.
#[derive(Clone, Copy, Debug)]
pub enum Length {
    Time { warmup: Duration, measure: Duration },
    Requests(u64),
}

/// One load run.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    pub target: Target,
    pub addr: SocketAddr,
    pub connections: usize,
    pub depth: usize,
    pub length: Length,
    /// A connection waiting this long for an answer fails the run.
    pub stall_timeout: Duration,
    /// Connect over TLS with these settings (ZAP targets); `None`: plain TCP.
    pub tls: Option<zap_runtime::tls::ClientTls>,
    /// Send this many calls per second in all (the client-library targets), each
    /// latency counted from when its call was due; `None`: as fast as answers come.
    pub rate: Option<f64>,
}

impl LoadConfig {
    /// A short run: 300 requests over 3 connections at `depth`, a 10 s stall timeout,
    /// no TLS, no rate; what the tests drive each server with.
    pub fn short_run(target: Target, addr: SocketAddr, depth: usize) -> LoadConfig {
        LoadConfig {
            target,
            addr,
            connections: 3,
            depth,
            length: Length::Requests(300),
            stall_timeout: Duration::from_secs(10),
            tls: None,
            rate: None,
        }
    }
}

impl Target {
    /// Whether the target is driven through a client library (and so takes a rate).
    pub fn through_a_client(self) -> bool {
        matches!(
            self,
            Target::ZapClient | Target::Grpc | Target::Tarpc | Target::Capnp
        )
    }
}

/// A connection, plain or over TLS (opened before the load starts).
enum Conn {
    /// QUIC, or a client library: the connection is made by the driver.
    Quic,
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// When requests count, shared by every connection.
#[derive(Debug)]
pub(crate) struct Clock {
    /// When the load began (a fixed rate's schedule starts here).
    pub start: Instant,
    /// Requests sent at or after this instant are measured.
    pub measure_from: Instant,
    /// No request is sent after this instant (time mode).
    pub stop_at: Option<Instant>,
    /// Requests left to send (request mode).
    pub budget: Option<AtomicU64>,
}

impl Clock {
    /// May one more request be sent now?
    pub fn take(&self, now: Instant) -> bool {
        if let Some(stop) = self.stop_at {
            return now < stop;
        }
        self.budget.as_ref().is_some_and(|left| {
            left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
        })
    }
}

/// What one connection saw.
#[derive(Debug, Default)]
pub(crate) struct ConnStats {
    /// Latencies in nanoseconds of the measured requests.
    pub latencies: Vec<u64>,
    /// Answers checked (warm-up included).
    pub answered: u64,
    /// Last measured answer.
    pub last: Option<Instant>,
}

impl ConnStats {
    /// Count one checked answer to a request sent at `sent` and answered at `done`; its
    /// latency is measured if it was sent after the warm-up and answered before the stop.
    pub(crate) fn answered_at(&mut self, clock: &Clock, sent: Instant, done: Instant) {
        self.answered += 1;
        if sent >= clock.measure_from && clock.stop_at.is_none_or(|stop| done <= stop) {
            self.latencies.push((done - sent).as_nanos() as u64);
            self.last = Some(done);
        }
    }
}

/// One turn of a connection loop: write what is queued, then (with `unanswered`
/// requests in flight) wait for more bytes, within the stall timeout.
pub(crate) async fn write_then_read<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    write: &mut Vec<u8>,
    read: &mut Vec<u8>,
    unanswered: usize,
    stall_timeout: Duration,
) -> Result<(), String> {
    if !write.is_empty() {
        stream
            .write_all(write)
            .await
            .map_err(|e| format!("write: {e}"))?;
        write.clear();
    }
    if read.capacity() - read.len() < 4096 {
        read.reserve(4096);
    }
    let n = tokio::time::timeout(stall_timeout, stream.read_buf(read))
        .await
        .map_err(|_| format!("no answer within {stall_timeout:?}"))?
        .map_err(|e| format!("read: {e}"))?;
    if n == 0 {
        return Err(format!(
            "server closed the connection with {unanswered} requests unanswered"
        ));
    }
    Ok(())
}

/// Run the load; `Err` carries the first failure (a refused connection, a stalled or
/// closed connection, a wrong answer).
pub async fn run(config: &LoadConfig) -> Result<Report, String> {
    let mut streams = Vec::with_capacity(config.connections);
    for i in 0..config.connections {
        if config.target == Target::Quic || config.target.through_a_client() {
            streams.push(Conn::Quic);
            continue;
        }
        let stream = TcpStream::connect(config.addr)
            .await
            .map_err(|e| format!("connection {i} to {}: {e}", config.addr))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        streams.push(match &config.tls {
            None => Conn::Plain(stream),
            Some(tls) => {
                let (stream, _) = tls
                    .connect(stream)
                    .await
                    .map_err(|e| format!("TLS handshake of connection {i}: {e}"))?;
                Conn::Tls(Box::new(stream))
            }
        });
    }
    let start = Instant::now();
    let clock = Arc::new(match config.length {
        Length::Time { warmup, measure } => Clock {
            start,
            measure_from: start + warmup,
            stop_at: Some(start + warmup + measure),
            budget: None,
        },
        Length::Requests(n) => Clock {
            start,
            measure_from: start,
            stop_at: None,
            budget: Some(AtomicU64::new(n)),
        },
    });
    let ledger = Arc::new(eth_rpc::ledger::Ledger::default());
    let mut tasks = tokio::task::JoinSet::new();
    for (i, stream) in streams.into_iter().enumerate() {
        let (clock, ledger, config) = (clock.clone(), ledger.clone(), config.clone());
        // Ids start apart per connection, so a crossed answer cannot look right.
        let first_id = (i as u64 + 1) << 40;
        tasks.spawn(async move {
            let result = match config.target {
                Target::Zap
                | Target::ZapNode
                | Target::ZapEcho
                | Target::ZapContext
                | Target::ZapTraced
                | Target::ZapRpcEcho => match stream {
                    Conn::Plain(s) => zap::drive(s, &config, &clock, &ledger, first_id).await,
                    Conn::Tls(s) => zap::drive(*s, &config, &clock, &ledger, first_id).await,
                    Conn::Quic => unreachable!("only the quic target makes no TCP connection"),
                },
                Target::Quic => quic::drive(&config, clock.clone(), ledger.clone(), first_id).await,
                Target::ZapClient | Target::Grpc | Target::Tarpc | Target::Capnp => {
                    client_calls(&config, i, clock.clone(), ledger.clone(), first_id).await
                }
                Target::Ws => match stream {
                    Conn::Plain(s) => ws::drive(s, &config, &clock, &ledger, first_id).await,
                    Conn::Tls(_) => Err("the WebSocket target has no TLS mode".to_owned()),
                    Conn::Quic => unreachable!("only the quic target makes no TCP connection"),
                },
                Target::ZapHttp | Target::HttpEcho => match stream {
                    Conn::Plain(s) => echo_http::drive(s, &config, &clock, &ledger, first_id).await,
                    Conn::Tls(_) => Err("the HTTP echo targets have no TLS mode".to_owned()),
                    Conn::Quic => unreachable!("only the quic target makes no TCP connection"),
                },
                Target::Http | Target::HttpFixed => match stream {
                    Conn::Plain(s) => http::drive(s, &config, &clock, &ledger, first_id).await,
                    Conn::Tls(_) => Err("the HTTP targets have no TLS mode".to_owned()),
                    Conn::Quic => unreachable!("only the quic target makes no TCP connection"),
                },
            };
            result.map_err(|e| format!("connection {i}: {e}"))
        });
    }
    let mut all = Vec::with_capacity(config.connections);
    let mut first_error = None;
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(Ok(stats)) => all.push(stats),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
                // One failure fails the run: stop the others rather than wait for them.
                tasks.abort_all();
            }
            Err(e) if e.is_cancelled() => {}
            Err(e) => {
                first_error.get_or_insert(format!("a connection task failed: {e}"));
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(Report::new(config, &clock, start, all))
}

/// One connection of a client-library target: connect, then [`calls::workers`].
async fn client_calls(
    config: &LoadConfig,
    conn: usize,
    clock: Arc<Clock>,
    ledger: Arc<eth_rpc::ledger::Ledger>,
    first_id: u64,
) -> Result<ConnStats, String> {
    let slot = calls::Slot {
        config: config.clone(),
        conn,
        clock,
        ledger,
        first_id,
    };
    match config.target {
        Target::ZapClient => {
            let client = zap_runtime::client::Client::connect(config.addr)
                .await
                .map_err(|e| format!("connect to {}: {e}", config.addr))?;
            calls::workers(&slot, Arc::new(client), zap_client_call).await
        }
        #[cfg(feature = "rpc-peers")]
        Target::Grpc => {
            let client = crate::peers::grpc::connect(config.addr).await?;
            calls::workers(&slot, client, |c, id, account| {
                crate::peers::grpc::get_balance(c, id, BLOCK, account)
            })
            .await
        }
        #[cfg(feature = "rpc-peers")]
        Target::Tarpc => {
            let client = crate::peers::tarpc::connect(config.addr).await?;
            calls::workers(&slot, client, |c, id, account| {
                crate::peers::tarpc::get_balance(c, id, BLOCK, account)
            })
            .await
        }
        #[cfg(feature = "rpc-peers")]
        Target::Capnp => {
            let (done, result) = tokio::sync::oneshot::channel();
            std::thread::spawn(move || {
                let run = || -> Result<ConnStats, String> {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| e.to_string())?;
                    tokio::task::LocalSet::new().block_on(&runtime, async {
                        let client = crate::peers::capnp::connect(slot.config.addr).await?;
                        calls::workers(&slot, client, |c, id, a| {
                            crate::peers::capnp::get_balance(c, id, BLOCK, a)
                        })
                        .await
                    })
                };
                let _ = done.send(run());
            });
            result
                .await
                .map_err(|_| "a capnp client thread panicked".to_owned())?
        }
        #[cfg(not(feature = "rpc-peers"))]
        Target::Grpc | Target::Tarpc | Target::Capnp => Err(format!(
            "the {} target needs loadgen built with --features rpc-peers",
            config.target.name()
        )),
        other => unreachable!("{other:?} is not a client-library target"),
    }
}

/// `getBalance` through zapc's `Client`: the answer's (id, balance).
async fn zap_client_call(
    client: Arc<zap_runtime::client::Client>,
    id: u64,
    account: [u8; 20],
) -> Result<(u64, u64), String> {
    use crate::generated::eth::{BalanceRequest, BalanceResponseReader};
    use zap_runtime::rpc::{Status, NO_TARGET};
    use zap_runtime::{Builder, ZapStruct};
    let payload = BalanceRequest {
        id,
        block: BLOCK,
        account,
    }
    .encode(&mut Builder::new())
    .map_err(|e| e.to_string())?
    .to_vec();
    let (status, answer) = client
        .call_raw_bytes(1, NO_TARGET, &payload)
        .await
        .map_err(|e| format!("call {id}: {e}"))?;
    if status != Status::OK {
        return Err(format!("call {id}: status {status:?}"));
    }
    let answer = BalanceResponseReader::parse(&answer).map_err(|e| e.to_string())?;
    Ok((answer.id(), answer.balance()))
}

/// The answer a correct server gives for account `index` of the ledger.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expected {
    pub balance: u64,
    pub nonce: u64,
}

pub(crate) fn expected(ledger: &eth_rpc::ledger::Ledger, index: usize) -> ([u8; 20], Expected) {
    let address = ledger.address(index).copied().unwrap_or_default();
    let account = ledger.account(&address);
    (
        address,
        Expected {
            balance: account.balance,
            nonce: account.nonce,
        },
    )
}

/// The block every request asks about.
pub(crate) const BLOCK: u64 = 68943;

//! The accept loop and the drain shared by the ZAP/TCP server and the HTTP server, so
//! both have the same connection limit, the same shutdown signal and the same drain.
//!
//! * **Limit: refuse, do not queue.** A connection accepted while `max_connections` are
//!   open is closed at once and counted in [`ServerStats::refused`]. The peer learns
//!   straight away that the server is full (a queued peer cannot tell a full server
//!   from a dead one), and the listen backlog keeps being emptied, so a burst does not
//!   leave the kernel dropping new connection attempts.
//! * **Per address**, optionally: a connection from an IP address that already has
//!   `max_connections_per_address` open is refused the same way.
//! * **Descriptors:** each server's limit is checked against the process's open-file
//!   limit when it starts (raised to the hard limit first; see `fds`).
//! * Refusals are logged at most once a second per server, with the count since.
//! * **Shutdown** is a [`CancellationToken`]: once cancelled, nothing more is accepted
//!   and the listener is closed; each connection sees the same token and finishes what
//!   it has read.
//! * **Drain:** the loop then waits for every connection to end, at most the drain
//!   timeout, and drops the connections still open after it.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How long the accept loop pauses after a failed `accept` (e.g. out of file
/// descriptors), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Live counters of a running server (ZAP/TCP or HTTP): connections open now, accepted
/// and refused (over `max_connections`) so far. Cheap: three atomics touched once per
/// connection, never per call. Clones share the counters.
///
/// Get one from the server before running it: `server::Server::stats` (ZAP/TCP),
/// `http::HttpServer::stats` or `quic::QuicServer::stats`.
#[derive(Clone, Debug, Default)]
pub struct ServerStats(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    active: AtomicUsize,
    accepted: AtomicU64,
    refused: AtomicU64,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    #[cfg(feature = "tls")]
    tls: crate::tls::TlsCounters,
}

impl ServerStats {
    /// Connections being served now: accepted, and their task not yet ended.
    pub fn active_connections(&self) -> usize {
        self.0.active.load(Ordering::Relaxed)
    }

    /// Connections accepted (and served) since the server started.
    pub fn accepted(&self) -> u64 {
        self.0.accepted.load(Ordering::Relaxed)
    }

    /// Connections closed at once because `max_connections` were already open.
    pub fn refused(&self) -> u64 {
        self.0.refused.load(Ordering::Relaxed)
    }

    /// Bytes read from connections so far (after TLS decryption, when serving TLS).
    pub fn bytes_in(&self) -> u64 {
        self.0.bytes_in.load(Ordering::Relaxed)
    }

    /// Bytes written to connections so far (before TLS encryption, when serving TLS).
    pub fn bytes_out(&self) -> u64 {
        self.0.bytes_out.load(Ordering::Relaxed)
    }

    /// Count a connection refused because `max_connections` were open.
    #[cfg(any(feature = "quic", all(unix, any(feature = "server", feature = "http"))))]
    pub(crate) fn refused_one(&self) {
        self.0.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Count `n` bytes read (after decryption).
    #[cfg(feature = "quic")]
    pub(crate) fn read(&self, n: usize) {
        self.0.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// Count `n` bytes written (before encryption).
    #[cfg(feature = "quic")]
    pub(crate) fn wrote(&self, n: usize) {
        self.0.bytes_out.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// The TLS handshake counters (`ServerStats::tls` reads them).
    #[cfg(feature = "tls")]
    pub(crate) fn tls_counters(&self) -> &crate::tls::TlsCounters {
        &self.0.tls
    }

    /// Count a connection open until the returned guard is dropped.
    pub(crate) fn open(&self) -> Open {
        self.0.accepted.fetch_add(1, Ordering::Relaxed);
        self.0.active.fetch_add(1, Ordering::Relaxed);
        Open(self.clone())
    }
}

/// A connection's stream that counts the bytes read from and written to it in its
/// server's [`ServerStats`]: one relaxed atomic add per read or write call (per batch
/// of frames, not per call).
pub(crate) struct Counted<IO> {
    io: IO,
    stats: ServerStats,
}

impl<IO> Counted<IO> {
    pub(crate) fn new(io: IO, stats: &ServerStats) -> Self {
        Counted {
            io,
            stats: stats.clone(),
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Counted<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        let read = buf.filled().len() - before;
        if read > 0 {
            (self.stats.0)
                .bytes_in
                .fetch_add(read as u64, Ordering::Relaxed);
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Counted<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled {
            self.count_out(n);
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = polled {
            self.count_out(n);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl<IO> Counted<IO> {
    fn count_out(&self, n: usize) {
        (self.stats.0)
            .bytes_out
            .fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// One open connection: counted as active until dropped (also when its task is
/// aborted at the end of the drain).
pub(crate) struct Open(ServerStats);

impl Drop for Open {
    fn drop(&mut self) {
        (self.0).0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A server bound to its listener but not yet running: the listener, the service it
/// will serve, its configuration `C` and its counters. The ZAP/TCP server
/// (`server::Server`, `C` = `ServerConfig`) and the HTTP server (`http::HttpServer`,
/// `C` = `HttpConfig`) are this type, each with its own `run(shutdown)`.
pub struct Bound<S, C> {
    pub(crate) listener: TcpListener,
    pub(crate) service: Arc<S>,
    pub(crate) config: C,
    pub(crate) stats: ServerStats,
}

impl<S, C> Bound<S, C> {
    /// A server for `service` on the connections of `listener`, with the limits of
    /// `config`. Nothing is accepted until it is run.
    pub fn new(listener: TcpListener, service: Arc<S>, config: C) -> Self {
        Bound {
            listener,
            service,
            config,
            stats: ServerStats::default(),
        }
    }

    /// The live counters of this server (open, accepted and refused connections): a
    /// handle that stays valid while and after the server runs.
    pub fn stats(&self) -> ServerStats {
        self.stats.clone()
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl<S, C: core::fmt::Debug> core::fmt::Debug for Bound<S, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Bound")
            .field("listener", &self.listener)
            .field("config", &self.config)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The settings of a server's configuration that the accept loop needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Names the server in log lines (`"zap"`, `"http"`).
    pub name: &'static str,
    /// Most connections served at once; more are refused (closed at once).
    pub max_connections: usize,
    /// Most connections from one IP address at once, if limited.
    pub max_per_address: Option<usize>,
    /// After shutdown, how long connections get to finish before they are dropped.
    pub drain_timeout: Duration,
}

impl<S, C> Bound<S, C> {
    /// Run the server: make the per-connection function `serve` from the service, the
    /// configuration and the shutdown token (`make`); accept connections and run
    /// `serve(stream, peer)` for each in its own task until `shutdown` is cancelled;
    /// then close the listener and drain (see the [module docs](self)). Each connection
    /// watches the shutdown token `make` was given. Accept errors are logged and
    /// retried.
    pub(crate) async fn accept_and_drain<M, F, Fut>(
        self,
        limits: Limits,
        shutdown: CancellationToken,
        make: M,
    ) where
        M: FnOnce(Arc<S>, C, CancellationToken) -> F,
        F: FnMut(TcpStream, SocketAddr) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let Bound {
            listener,
            service,
            config,
            stats,
        } = self;
        let mut serve = make(service, config, shutdown.clone());
        let Limits {
            name,
            max_connections,
            max_per_address,
            drain_timeout,
        } = limits;
        let _descriptors = crate::fds::claim(name, max_connections);
        let per_address = max_per_address.map(PerAddress::new);
        let mut refusals = Refusals::default();
        let mut tasks = JoinSet::new();
        loop {
            let accepted = tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                    log_task_end(name, done);
                    continue;
                }
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(server = name, "accept failed: {e}; retrying");
                    tokio::select! {
                        () = shutdown.cancelled() => break,
                        () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    }
                }
            };
            // Only this loop opens connections, so the count cannot pass the limit.
            let full = stats.active_connections() >= max_connections;
            let address_slot = match &per_address {
                Some(per_address) if !full => per_address.take(peer.ip()),
                _ => None,
            };
            let refused = match (&per_address, &address_slot) {
                _ if full => Some((
                    max_connections,
                    "connections already open (max_connections)",
                )),
                (Some(per_address), None) => Some((
                    per_address.limit,
                    "connections from this address already open (max_connections_per_address)",
                )),
                _ => None,
            };
            if let Some((limit, what)) = refused {
                stats.0.refused.fetch_add(1, Ordering::Relaxed);
                if let Some(since) = refusals.note() {
                    tracing::warn!(
                        server = name,
                        %peer,
                        refused_since_last_line = since,
                        "refusing connection: {limit} {what}"
                    );
                }
                drop(stream);
                continue;
            }
            tracing::debug!(server = name, %peer, "accepted connection");
            let open = stats.open();
            let connection = serve(stream, peer);
            tasks.spawn(async move {
                connection.await;
                drop(open);
                drop(address_slot);
            });
        }
        drop(listener);
        drain(tasks, name, drain_timeout).await;
    }
}

/// Connections open per IP address, for `max_connections_per_address`. Touched once
/// when a connection opens and once when it ends.
struct PerAddress {
    limit: usize,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl PerAddress {
    fn new(limit: usize) -> Self {
        PerAddress {
            limit,
            open: Arc::default(),
        }
    }

    /// A slot for one more connection from `ip`, unless it has `limit` open.
    fn take(&self, ip: IpAddr) -> Option<AddressSlot> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(AddressSlot {
            ip,
            open: Arc::clone(&self.open),
        })
    }
}

/// One connection's place in its address's count, given back when dropped.
struct AddressSlot {
    ip: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Refused connections, logged at most once a second.
#[derive(Default)]
struct Refusals {
    last_line: Option<Instant>,
    suppressed: u64,
}

impl Refusals {
    /// Count one refusal; `Some(n)` when it may be logged now, `n` being the refusals
    /// not logged since the last line.
    fn note(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self
            .last_line
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            self.suppressed += 1;
            return None;
        }
        self.last_line = Some(now);
        Some(std::mem::take(&mut self.suppressed))
    }
}

/// Wait for every connection task to end, at most `drain_timeout`; then drop (abort)
/// the ones still running.
async fn drain(mut tasks: JoinSet<()>, name: &'static str, drain_timeout: Duration) {
    tracing::info!(
        server = name,
        connections = tasks.len(),
        "shutting down: stopped accepting, draining connections"
    );
    let drained = tokio::time::timeout(drain_timeout, async {
        while let Some(done) = tasks.join_next().await {
            log_task_end(name, done);
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            server = name,
            connections = tasks.len(),
            "drain timeout of {drain_timeout:?} passed; dropping the remaining connections"
        );
        tasks.shutdown().await;
    }
    tracing::info!(server = name, "server stopped");
}

fn log_task_end(name: &'static str, done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done {
        if e.is_panic() {
            tracing::error!(
                server = name,
                "a connection task panicked (a handler bug?): {e}"
            );
        }
    }
}

//! The accept loop and the drain shared by the ZAP/TCP server and the HTTP server, so
//! both have the same connection limit, the same shutdown signal and the same drain.
//!
//! * **Limit: refuse, do not queue.** A connection accepted while `max_connections` are
//!   open is closed at once and counted in [`ServerStats::refused`]. The peer learns
//!   straight away that the server is full (a queued peer cannot tell a full server
//!   from a dead one), and the listen backlog keeps being emptied, so a burst does not
//!   leave the kernel dropping new connection attempts.
//! * **Shutdown** is a [`CancellationToken`]: once cancelled, nothing more is accepted
//!   and the listener is closed; each connection sees the same token and finishes what
//!   it has read.
//! * **Drain:** the loop then waits for every connection to end, at most the drain
//!   timeout, and drops the connections still open after it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
/// Get one from the server before running it: `server::Server::stats` (ZAP/TCP) or
/// `http::HttpServer::stats`.
#[derive(Clone, Debug, Default)]
pub struct ServerStats(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    active: AtomicUsize,
    accepted: AtomicU64,
    refused: AtomicU64,
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

    /// Count a connection open until the returned guard is dropped.
    fn open(&self) -> Open {
        self.0.accepted.fetch_add(1, Ordering::Relaxed);
        self.0.active.fetch_add(1, Ordering::Relaxed);
        Open(self.clone())
    }
}

/// One open connection: counted as active until dropped (also when its task is
/// aborted at the end of the drain).
struct Open(ServerStats);

impl Drop for Open {
    fn drop(&mut self) {
        (self.0).0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The settings the accept loop needs.
pub(crate) struct AcceptConfig {
    /// Names the server in log lines (`"zap"`, `"http"`).
    pub name: &'static str,
    /// Most connections served at once; more are refused (closed at once).
    pub max_connections: usize,
    /// After shutdown, how long connections get to finish before they are dropped.
    pub drain_timeout: Duration,
}

/// Accept connections from `listener` and run `serve(stream, peer)` for each in its own
/// task, until `shutdown` is cancelled; then close the listener and drain (see the
/// [module docs](self)). `serve` is handed nothing about shutdown: the connection
/// watches the same token. Accept errors are logged and retried.
pub(crate) async fn accept_and_drain<F, Fut>(
    listener: TcpListener,
    config: AcceptConfig,
    stats: &ServerStats,
    shutdown: &CancellationToken,
    mut serve: F,
) where
    F: FnMut(TcpStream, SocketAddr) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let AcceptConfig {
        name,
        max_connections,
        drain_timeout,
    } = config;
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
        if stats.active_connections() >= max_connections {
            stats.0.refused.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                server = name,
                %peer,
                "refusing connection: {max_connections} connections already open (max_connections)"
            );
            drop(stream);
            continue;
        }
        tracing::debug!(server = name, %peer, "accepted connection");
        let open = stats.open();
        let connection = serve(stream, peer);
        tasks.spawn(async move {
            connection.await;
            drop(open);
        });
    }
    drop(listener);
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

//! The ZAP/TCP server (feature `server`): an accept loop and one task per connection.
//!
//! Each connection reads frames (`[len u32][dir u8][envelope]`, spec §6) into a buffer
//! it reuses, answers every complete request **in order** by calling
//! [`Service::call`] with a builder it reuses, writes each response frame straight into
//! a reused write buffer and flushes once per batch of frames. On a warm connection a
//! successful call allocates nothing in the server.
//!
//! * **Errors are answers.** 404 unknown method, 400 malformed envelope / bad payload /
//!   PromiseID 0 / unusable pipelining target, 500 handler failure: each is answered with
//!   the error text as body and the connection keeps serving.
//! * **Promise pipelining** (spec §5 `Target`): a call whose Target names the PromiseID
//!   of an earlier call on the same connection runs with that call's result body as its
//!   payload. The last [`ServerConfig::pipeline_results`] results are remembered.
//! * **Limits.** A broken stream (frame over [`ServerConfig::max_frame`], length 0,
//!   unknown direction) closes that connection only, with a warning. Connections past
//!   [`ServerConfig::max_connections`] are closed at once; a connection without a
//!   complete frame for [`ServerConfig::idle_timeout`] is closed. A peer that does not
//!   read its answers stops being read (back-pressure), and is dropped if it stalls
//!   for the idle timeout.
//! * **Graceful shutdown.** When the `shutdown` future resolves, [`serve`] stops
//!   accepting; every connection answers the requests it has fully read, flushes and
//!   closes; `serve` returns when all are done or [`ServerConfig::drain_timeout`] passed.
//!
//! ```no_run
//! use std::sync::Arc;
//! use zap_runtime::server::{serve, ServerConfig};
//! use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service};
//!
//! /// Method 1 answers an empty body; nothing else exists.
//! struct Ping;
//!
//! impl Service for Ping {
//!     const NAME: &'static str = "Ping";
//!     const METHODS: &'static [MethodInfo] = &[];
//!     async fn call<'a>(&'a self, ordinal: u32, _: &'a [u8], _: &'a mut Builder)
//!         -> Result<Reply, CallError> {
//!         match ordinal {
//!             1 => Ok(Reply::Empty),
//!             n => Err(CallError::unknown_method(Self::NAME, n)),
//!         }
//!     }
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9000").await?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let server = tokio::spawn(serve(listener, Arc::new(Ping), ServerConfig::default(), async {
//!     let _ = stopped.await;
//! }));
//! // ... later: stop accepting, answer what was read, wait for the drain.
//! let _ = stop.send(());
//! server.await.expect("server task")
//! # }
//! ```

mod conn;
mod results;
mod stats;
mod respond;

pub use stats::ServerStats;

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::frame::DEFAULT_MAX_FRAME;
use crate::service::Service;

/// Limits and timeouts of a server. Every field has a sane default.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Largest accepted frame length (the `len` field). A larger one closes the
    /// connection. Default [`DEFAULT_MAX_FRAME`] (16 MiB).
    pub max_frame: u32,
    /// Most connections served at once; more are closed as soon as they are accepted.
    /// Default 10 000.
    pub max_connections: usize,
    /// A connection that sends no complete frame (or does not take its answers) for this
    /// long is closed. Default 5 minutes.
    pub idle_timeout: Duration,
    /// Most requests answered on one connection before their answers are flushed, even
    /// within one batch of frames read together. Calls run in order, so nothing else
    /// is ever in flight. Default 1024.
    pub max_in_flight: usize,
    /// How many results each connection remembers for promise pipelining (0 disables
    /// pipelining). Default 256.
    pub pipeline_results: usize,
    /// How many bytes of result bodies each connection keeps for pipelining; allocated
    /// once per connection that makes a call. Results larger than this cannot be
    /// pipelined on. Default 64 KiB.
    pub pipeline_bytes: usize,
    /// Answers are flushed early once this many bytes are waiting; while the peer does
    /// not take them, nothing more is read from it (back-pressure). Default 256 KiB.
    pub write_buffer_limit: usize,
    /// After shutdown is triggered, how long connections get to finish before they
    /// are dropped. Default 10 s.
    pub drain_timeout: Duration,
    /// Live counters of the server (open connections, accepted, refused): keep a clone
    /// before handing the config to [`serve`] to watch them. Not a limit.
    pub stats: ServerStats,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_frame: DEFAULT_MAX_FRAME,
            max_connections: 10_000,
            idle_timeout: Duration::from_secs(300),
            max_in_flight: 1024,
            pipeline_results: 256,
            pipeline_bytes: 64 << 10,
            write_buffer_limit: 256 << 10,
            drain_timeout: Duration::from_secs(10),
            stats: ServerStats::default(),
        }
    }
}

/// Serve `service` on every connection accepted from `listener` until `shutdown`
/// resolves, then drain (see the [module docs](self)). Returns once every connection
/// task has ended. Accept errors (e.g. out of file descriptors) are logged and retried,
/// so the result is currently always `Ok`.
pub async fn serve<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: ServerConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let config = Arc::new(config);
    let stop = CancellationToken::new();
    let permits = Arc::new(Semaphore::new(config.max_connections));
    let mut tasks = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(done) = tasks.join_next(), if !tasks.is_empty() => log_task_end(done),
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        tracing::warn!("zap: accept failed: {e}; retrying in 100 ms");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                    config.stats.refused_one();
                    tracing::warn!(
                        %peer,
                        "zap: refusing connection: {} connections already open (max_connections)",
                        config.max_connections
                    );
                    drop(stream);
                    continue;
                };
                tracing::debug!(%peer, "zap: accepted connection");
                let _ = stream.set_nodelay(true);
                // Counted open until the task ends or is dropped (drain timeout).
                let open = config.stats.open(permit);
                let (service, config, stop) = (Arc::clone(&service), Arc::clone(&config), stop.clone());
                tasks.spawn(async move {
                    conn::run(stream, peer, &*service, &config, &stop).await;
                    drop(open);
                });
            }
        }
    }
    drop(listener);
    tracing::info!(
        connections = tasks.len(),
        "zap: shutting down, draining connections"
    );
    stop.cancel();
    let drained = tokio::time::timeout(config.drain_timeout, async {
        while let Some(done) = tasks.join_next().await {
            log_task_end(done);
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = tasks.len(),
            "zap: drain timeout of {:?} passed; dropping the remaining connections",
            config.drain_timeout
        );
        tasks.shutdown().await;
    }
    tracing::info!("zap: server stopped");
    Ok(())
}

fn log_task_end(done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done {
        if e.is_panic() {
            tracing::error!("zap: a connection task panicked (a handler bug?): {e}");
        }
    }
}

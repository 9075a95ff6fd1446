//! Graceful shutdown on SIGTERM and SIGINT for a service's binary (feature `server`
//! or `http`), and the readiness state a load balancer reads from `GET /health`.
//!
//! What process supervisors (systemd, Docker, Kubernetes) send is SIGTERM; a terminal
//! sends SIGINT on Ctrl-C. [`Shutdown::on_signals`] treats both alike:
//!
//! 1. **Draining starts.** The first signal marks the [`Readiness`] as draining: the
//!    HTTP server's `GET /health` answers 503 from then on (its liveness endpoint,
//!    `GET /health/live`, stays 200), so a balancer that checks it stops sending new
//!    work. Everything is still accepted and served for the *readiness grace*, the time
//!    the balancer needs to notice (its check interval times its fall count).
//! 2. **Stop.** Then the [`token`](Shutdown::token) is cancelled: the servers stop
//!    accepting, every connection answers what it has read, and `run` returns when the
//!    drain is done. The binary then returns from `main` with status 0.
//! 3. **A second signal exits at once** (status 128 + the signal number, as shells do),
//!    whatever the phase: the operator's way out of a drain that takes too long.
//!
//! ```no_run
//! # async fn demo<S: zap_runtime::Service>(service: S) -> std::io::Result<()> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use zap_runtime::server::{Server, ServerConfig};
//! use zap_runtime::shutdown::Shutdown;
//!
//! let shutdown = Shutdown::on_signals(Duration::from_secs(2))?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9000").await?;
//! Server::new(listener, Arc::new(service), ServerConfig::default())
//!     .run(shutdown.token())
//!     .await
//! # }
//! ```

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio_util::sync::CancellationToken;

/// Whether a server should still get new work: ready until draining starts. Shared by
/// clones; two are equal when they are the same state. The HTTP server answers
/// `GET /health` from it (`HttpConfig::readiness`), the ZAP/TCP and QUIC servers their
/// health methods (`ServerConfig::readiness`, [`crate::builtin`]).
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<ReadinessState>);

#[derive(Debug, Default)]
struct ReadinessState {
    draining: AtomicBool,
    changed: Arc<tokio::sync::Notify>,
}

impl Readiness {
    /// A fresh state: ready.
    pub fn new() -> Self {
        Readiness::default()
    }

    /// Whether draining has started (then `GET /health` answers 503).
    pub fn is_draining(&self) -> bool {
        self.0.draining.load(Ordering::Relaxed)
    }

    /// Start draining: from now on the server reports itself not ready, and every
    /// [`changed`](Self::changed) future resolves.
    pub fn set_draining(&self) {
        if !self.0.draining.swap(true, Ordering::Relaxed) {
            self.0.changed.notify_waiters();
        }
    }

    /// Resolves at the next change of state after this call: a future made before the
    /// state is read misses no change.
    pub fn changed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        Arc::clone(&self.0.changed).notified_owned()
    }
}

impl PartialEq for Readiness {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Readiness {}

/// The shutdown of a process's servers: a [`Readiness`] that turns to draining first,
/// then, a grace period later, the [`CancellationToken`] that stops the servers. See the
/// [module docs](self).
#[derive(Clone, Debug)]
pub struct Shutdown {
    readiness: Readiness,
    stop: CancellationToken,
    grace: Duration,
}

impl Shutdown {
    /// A shutdown that only [`begin`](Shutdown::begin) starts (no signal handling):
    /// draining at once, the servers stopped `grace` later.
    pub fn new(grace: Duration) -> Self {
        Shutdown {
            readiness: Readiness::new(),
            stop: CancellationToken::new(),
            grace,
        }
    }

    /// Listen for SIGTERM and SIGINT (from now on: they no longer end the process by
    /// default) and shut down on the first one with a readiness grace of `grace`; a
    /// second one ends the process at once. Must run inside a tokio runtime; fails only
    /// if the signal handlers cannot be installed.
    pub fn on_signals(grace: Duration) -> io::Result<Self> {
        let shutdown = Shutdown::new(grace);
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let task = shutdown.clone();
        tokio::spawn(async move {
            let first = next_signal(&mut term, &mut int).await;
            tracing::info!(
                signal = first,
                grace = ?task.grace,
                "shutting down: not ready any more (GET /health answers 503), \
                 stopping after the readiness grace; a second signal exits at once"
            );
            let begun = task.clone();
            tokio::spawn(async move { begun.begin().await });
            let second = next_signal(&mut term, &mut int).await;
            tracing::warn!(signal = second, "second signal: exiting at once");
            std::process::exit(128 + second);
        });
        Ok(shutdown)
    }

    /// Start shutting down: mark the readiness draining now, cancel the
    /// [`token`](Shutdown::token) after the grace. Resolves when the token is cancelled.
    pub async fn begin(&self) {
        self.readiness.set_draining();
        tokio::select! {
            () = tokio::time::sleep(self.grace) => {}
            () = self.stop.cancelled() => {}
        }
        tracing::info!("readiness grace over: stopping the servers and draining");
        self.stop.cancel();
    }

    /// The readiness the HTTP server reports at `GET /health`.
    pub fn readiness(&self) -> Readiness {
        self.readiness.clone()
    }

    /// Cancelled when the servers must stop accepting and drain: pass it to their
    /// `run`.
    pub fn token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Resolves when the servers must stop (the token is cancelled).
    pub async fn stopped(&self) {
        self.stop.cancelled().await;
    }
}

/// The next SIGTERM or SIGINT: its number.
async fn next_signal(term: &mut Signal, int: &mut Signal) -> i32 {
    tokio::select! {
        _ = term.recv() => 15,
        _ = int.recv() => 2,
    }
}

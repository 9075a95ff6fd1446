//! A client that survives its server's restarts: [`Reconnecting`] keeps one
//! connection to an address (a ZAP/TCP [`Client`], or a `QuicClient` with
//! `Reconnecting::quic`), reconnects with jittered, bounded exponential backoff when it
//! is lost, fails calls at once with [`ClientError::Closed`] while there is none, and
//! retries the calls of the methods the caller declares idempotent.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::task::Waker;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Client, ClientConfig};
use crate::transport::{ClientError, Transport};

/// Which calls may be sent again after their connection failed: only methods the
/// caller declares idempotent (the schema has no idempotency marker yet), and only
/// after connection failures ([`ClientError::Closed`], [`ClientError::Io`],
/// [`ClientError::Timeout`]), never after an answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Retry {
    /// Ordinals of the idempotent methods (e.g. `EthClient::GET_BALANCE`'s ordinal 1).
    pub idempotent: Vec<u32>,
    /// How many times such a call is sent again at most. Default 0: never.
    pub attempts: u32,
}

impl Retry {
    /// Retry the methods `ordinals` up to `attempts` times.
    pub fn idempotent(ordinals: &[u32], attempts: u32) -> Retry {
        Retry {
            idempotent: ordinals.to_vec(),
            attempts,
        }
    }

    /// How many more times a call of `ordinal` that failed with `error` after
    /// `attempt` retries may be sent.
    pub(crate) fn allows(&self, ordinal: u32, attempt: u32, error: &ClientError) -> bool {
        attempt < self.attempts && self.idempotent.contains(&ordinal) && is_connection(error)
    }
}

/// Whether `error` says the connection failed (the call may or may not have run), not
/// that the server answered.
pub(crate) fn is_connection(error: &ClientError) -> bool {
    matches!(
        error,
        ClientError::Closed(_) | ClientError::Io(_) | ClientError::Timeout(_)
    )
}

/// A connection a [`Reconnecting`] client keeps up: the ZAP/TCP [`Client`] or, with the
/// `quic` feature, the `QuicClient`. Sealed: the reconnecting client knows how to make
/// each.
pub trait Connection: Transport + Clone + core::fmt::Debug + sealed::Sealed + 'static {
    /// Whether the connection has closed (a call on it would fail at once).
    fn is_closed(&self) -> bool;
    /// Resolves when the connection closes, for whatever reason.
    fn closed(&self) -> impl Future<Output = ()> + Send;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Client {}
    #[cfg(feature = "quic")]
    impl Sealed for crate::quic::QuicClient {}
}

impl Connection for Client {
    fn is_closed(&self) -> bool {
        Client::is_closed(self)
    }

    fn closed(&self) -> impl Future<Output = ()> + Send {
        Client::closed(self)
    }
}

#[cfg(feature = "quic")]
impl Connection for crate::quic::QuicClient {
    fn is_closed(&self) -> bool {
        crate::quic::QuicClient::is_closed(self)
    }

    fn closed(&self) -> impl Future<Output = ()> + Send {
        crate::quic::QuicClient::closed(self)
    }
}

/// Settings of a [`Reconnecting`] client.
#[derive(Clone, Debug)]
pub struct ReconnectConfig {
    /// Settings of each ZAP/TCP connection (`Reconnecting::quic` takes the QUIC
    /// client's settings instead).
    pub client: ClientConfig,
    /// The first wait after a failed connect (default 50 ms); each further failure
    /// doubles it, up to [`ReconnectConfig::backoff_max`]. Each wait is then drawn
    /// uniformly between its half and its whole (jitter), so clients that lost the same
    /// server do not come back in step.
    pub backoff_min: Duration,
    /// The longest wait between two connects (default 2 s).
    pub backoff_max: Duration,
    /// Which calls are sent again after a connection failure (default: none). A retry
    /// waits for the next connection at most [`ReconnectConfig::backoff_max`].
    pub retry: Retry,
    /// Watch each connection's server health (`crate::builtin::watch`, default on):
    /// a server that starts draining (SIGTERM) says "not serving" before it closes,
    /// [`Reconnecting::is_serving`] turns false, and a [`Balanced`](super::Balanced)
    /// client stops sending to it. A server without the health methods (another
    /// runtime's) ends the watch at once and counts as serving while connected.
    pub watch_health: bool,
}

impl Default for ReconnectConfig {
    fn default() -> Self {
        ReconnectConfig {
            client: ClientConfig::default(),
            backoff_min: Duration::from_millis(50),
            backoff_max: Duration::from_secs(2),
            retry: Retry::default(),
            watch_health: true,
        }
    }
}

impl ReconnectConfig {
    /// The wait after the `failures`-th failed connect in a row (1-based), jittered.
    pub(crate) fn backoff(&self, failures: u32) -> Duration {
        let doubled = self
            .backoff_min
            .saturating_mul(1u32 << failures.saturating_sub(1).min(20));
        let bound = doubled.min(self.backoff_max);
        bound.mul_f64(0.5 + rand::random::<f64>() * 0.5)
    }
}

/// A connection to one address that reconnects by itself (see the [module
/// docs](self)). Cloning is cheap and shares the connection; the reconnecting stops
/// when the last clone is dropped. Implements [`Transport`], so generated client stubs
/// run on it unchanged.
#[derive(Debug)]
pub struct Reconnecting<C: Connection = Client> {
    state: Arc<State<C>>,
    _stop: Arc<DropGuard>,
}

impl<C: Connection> Clone for Reconnecting<C> {
    fn clone(&self) -> Self {
        Reconnecting {
            state: Arc::clone(&self.state),
            _stop: Arc::clone(&self._stop),
        }
    }
}

type Connecting<C> = Pin<Box<dyn Future<Output = Result<C, String>> + Send>>;

/// How a [`Reconnecting`] client makes each connection.
struct Connect<C>(Box<dyn Fn() -> Connecting<C> + Send + Sync>);

impl<C> core::fmt::Debug for Connect<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Connect")
    }
}

#[derive(Debug)]
pub(crate) struct State<C> {
    addr: String,
    config: ReconnectConfig,
    connect: Connect<C>,
    current: RwLock<Option<C>>,
    /// Why the last connect failed (for the error of calls made while disconnected).
    last_error: Mutex<String>,
    /// Told on every connect and disconnect, and when the server starts draining.
    changed: Notify,
    /// The connected server said it is draining (its health watch: not serving).
    draining: AtomicBool,
    /// The task to wake when the connection comes back (the balancer's).
    waker: Mutex<Option<Waker>>,
}

impl<C> State<C> {
    fn set(&self, client: Option<C>) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = client;
        self.changed.notify_waiters();
        self.wake();
    }

    fn wake(&self) {
        if let Some(waker) = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take() {
            waker.wake();
        }
    }
}

impl Reconnecting<Client> {
    /// Start connecting to `addr` (a `host:port`, resolved at every connect) over
    /// ZAP/TCP in the background and return at once: calls fail with
    /// [`ClientError::Closed`] until the first connect succeeds
    /// ([`Reconnecting::connected`] waits for it). Must be called within a tokio
    /// runtime.
    pub fn new(addr: impl Into<String>, config: ReconnectConfig) -> Reconnecting {
        let addr: String = addr.into();
        let (target, settings) = (addr.clone(), config.client.clone());
        Reconnecting::start(addr, config, move || {
            let (target, settings) = (target.clone(), settings.clone());
            Box::pin(async move {
                Client::connect_with(target.as_str(), settings)
                    .await
                    .map_err(|e| e.to_string())
            })
        })
    }
}

#[cfg(feature = "quic")]
impl Reconnecting<crate::quic::QuicClient> {
    /// As [`Reconnecting::new`], over QUIC: connect to `addr` with `tls` and the QUIC
    /// client's `settings` ([`ReconnectConfig::client`] is not used).
    pub fn quic(
        addr: std::net::SocketAddr,
        tls: crate::tls::ClientTls,
        settings: crate::quic::QuicClientConfig,
        config: ReconnectConfig,
    ) -> Reconnecting<crate::quic::QuicClient> {
        Reconnecting::start(addr.to_string(), config, move || {
            let (tls, settings) = (tls.clone(), settings.clone());
            Box::pin(async move {
                crate::quic::QuicClient::connect(addr, &tls, settings)
                    .await
                    .map_err(|e| e.to_string())
            })
        })
    }
}

impl<C: Connection> Reconnecting<C> {
    fn start(
        addr: String,
        config: ReconnectConfig,
        connect: impl Fn() -> Connecting<C> + Send + Sync + 'static,
    ) -> Reconnecting<C> {
        let state = Arc::new(State {
            addr,
            config,
            connect: Connect(Box::new(connect)),
            current: RwLock::new(None),
            last_error: Mutex::new("not connected yet".into()),
            changed: Notify::new(),
            draining: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        let stop = CancellationToken::new();
        tokio::spawn(supervise(state.clone(), stop.clone()));
        Reconnecting {
            state,
            _stop: Arc::new(stop.drop_guard()),
        }
    }

    /// The address it connects to.
    pub fn addr(&self) -> &str {
        &self.state.addr
    }

    /// The live connection, if there is one now.
    pub fn client(&self) -> Option<C> {
        let current = self.state.current.read().unwrap_or_else(|e| e.into_inner());
        current.as_ref().filter(|c| !c.is_closed()).cloned()
    }

    /// Whether a connection is up now.
    pub fn is_connected(&self) -> bool {
        self.client().is_some()
    }

    /// Whether a connection is up and its server has not said it is draining (see
    /// [`ReconnectConfig::watch_health`]).
    pub fn is_serving(&self) -> bool {
        self.is_connected() && !self.state.draining.load(Ordering::Relaxed)
    }

    /// Wait until a connection is up, at most `limit`; whether one is.
    pub async fn connected(&self, limit: Duration) -> bool {
        let wait = async {
            loop {
                let changed = self.state.changed.notified();
                if self.is_connected() {
                    return;
                }
                changed.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }

    /// Have `waker` woken on the next connect or disconnect.
    pub(crate) fn wake_on_change(&self, waker: &Waker) {
        *self.state.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(waker.clone());
    }

    /// Wake the task registered by [`wake_on_change`](Reconnecting::wake_on_change).
    pub(crate) fn poke(&self) {
        self.state.wake();
    }

    /// The error of a call made while disconnected.
    fn disconnected(&self) -> ClientError {
        let why = self
            .state
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        ClientError::Closed(format!("not connected to {} ({why})", self.state.addr))
    }

    /// One call on the connection there is now, without retry.
    pub(crate) async fn call_once(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> Result<Vec<u8>, ClientError> {
        match self.client() {
            Some(client) => client.call(ordinal, payload).await,
            None => Err(self.disconnected()),
        }
    }
}

impl<C: Connection> Transport for Reconnecting<C> {
    /// Call on the current connection; while there is none, fail at once with
    /// [`ClientError::Closed`]. Calls of idempotent methods ([`ReconnectConfig::retry`])
    /// that fail on the connection wait for the next one and are sent again.
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        let config = &self.state.config;
        let mut attempt = 0;
        loop {
            match self.call_once(ordinal, payload).await {
                Err(e) if config.retry.allows(ordinal, attempt, &e) => {
                    attempt += 1;
                    tracing::debug!(addr = %self.state.addr, ordinal, attempt, "retrying after {e}");
                    self.connected(config.backoff_max).await;
                }
                result => return result,
            }
        }
    }

    /// Open the stream on the current connection; while there is none, fail at once
    /// with [`ClientError::Closed`]. A stream is not opened again when its connection
    /// fails: its receiver sees the connection close.
    async fn open_stream(
        &self,
        ordinal: u32,
        open: &[u8],
    ) -> Result<crate::stream::StreamIo, ClientError> {
        match self.client() {
            Some(client) => client.open_stream(ordinal, open).await,
            None => Err(self.disconnected()),
        }
    }
}

/// Follow the health of `client`'s server while it is connected, in `state.draining`.
/// A watch that ends after a status (the server's stream idle timeout) is opened again;
/// one that ends without any (a server without the health methods) is not.
async fn watch_health<C: Connection>(state: &State<C>, client: &C) {
    if !state.config.watch_health {
        return;
    }
    loop {
        let Ok(mut watch) = crate::builtin::watch(client, "").await else {
            return;
        };
        let mut received = false;
        while let Ok(Some(status)) = watch.next().await {
            received = true;
            let draining = status == crate::builtin::HealthStatus::NotServing;
            if state.draining.swap(draining, Ordering::Relaxed) != draining {
                if draining {
                    tracing::info!(addr = %state.addr, "the server is draining: not serving");
                }
                state.changed.notify_waiters();
                state.wake();
            }
        }
        if !received || client.is_closed() {
            return;
        }
    }
}

/// Keep a connection up until `stop`: connect, wait for it to close, back off after
/// failed connects, connect again.
async fn supervise<C: Connection>(state: Arc<State<C>>, stop: CancellationToken) {
    let config = &state.config;
    let mut failures = 0;
    loop {
        let connect = (state.connect.0)();
        let connected = tokio::select! {
            () = stop.cancelled() => return,
            connected = connect => connected,
        };
        match connected {
            Ok(client) => {
                if failures > 0 {
                    tracing::info!(addr = %state.addr, "reconnected after {failures} failed attempts");
                }
                failures = 0;
                state.draining.store(false, Ordering::Relaxed);
                state.set(Some(client.clone()));
                let watched = async {
                    tokio::join!(client.closed(), watch_health(&state, &client));
                };
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = watched => {}
                }
                tracing::info!(addr = %state.addr, "connection lost; reconnecting");
                *state.last_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    "the connection was lost".into();
                state.set(None);
            }
            Err(e) => {
                failures += 1;
                let wait = config.backoff(failures);
                tracing::debug!(addr = %state.addr, failures, ?wait, "connect failed: {e}");
                *state.last_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    format!("{failures} connects failed, the last with: {e}");
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(wait) => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReconnectConfig;
    use std::time::Duration;

    #[test]
    fn backoff_doubles_within_its_bound_and_jitters_down_to_half() {
        let config = ReconnectConfig::default();
        for failures in 1..40 {
            let bound =
                (config.backoff_min * 2u32.pow((failures - 1).min(20))).min(config.backoff_max);
            let wait = config.backoff(failures);
            assert!(
                wait <= bound && wait >= bound / 2,
                "{failures}: {wait:?} within {bound:?}"
            );
        }
        assert!(config.backoff(1000) <= Duration::from_secs(2));
    }
}

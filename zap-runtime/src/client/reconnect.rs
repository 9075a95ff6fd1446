//! A client that survives its server's restarts: [`Reconnecting`] keeps one
//! connection to an address (a ZAP/TCP [`Client`], or a `QuicClient` with
//! `Reconnecting::quic`), reconnects with jittered, bounded exponential backoff when it
//! is lost, and retries the calls that are safe to repeat ([`Retry`]: the methods the
//! schema marks `idempotent` or `no_side_effects`, and those the caller lists); while
//! there is no connection every other call fails at once with [`ClientError::Closed`].

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

/// Which calls may be sent again after their connection failed, and how often: the
/// methods the schema marks `idempotent` or `no_side_effects` (generated stubs send
/// those through [`Transport::call_idempotent`]), and the ordinals listed here (for a
/// schema without the markers); only after a connection failure ([`ClientError::Closed`],
/// [`ClientError::Io`], [`ClientError::Timeout`]: the call may or may not have run),
/// never after an answer; with a jittered exponential backoff, within the call's
/// deadline, and under a retry budget shared by all the client's calls, so a struggling
/// fleet is not sent twice the work. A call of any other method is sent once.
#[derive(Clone, Debug, PartialEq)]
pub struct Retry {
    /// Ordinals of further idempotent methods, for schemas without the markers (e.g.
    /// `EthClient::GET_BALANCE`'s ordinal 1).
    pub idempotent: Vec<u32>,
    /// How many times such a call is sent again at most (default 2; 0: never).
    pub attempts: u32,
    /// The wait before the first retry (default 10 ms); each further one doubles it, up
    /// to [`backoff_max`](Self::backoff_max), each drawn uniformly between its half and
    /// its whole (jitter). A retry whose wait would end past the call's deadline is not
    /// made.
    pub backoff_min: Duration,
    /// The longest wait before a retry (default 200 ms).
    pub backoff_max: Duration,
    /// Retries at most this share of the calls (default 0.1: one retry per ten calls),
    /// plus [`min_per_second`](Self::min_per_second): under a total outage the client
    /// sends at most 1.1 times its calls, not `attempts + 1` times.
    pub budget_ratio: f64,
    /// Retries always allowed per second, however few the calls (default 10).
    pub min_per_second: u32,
    /// Hedging (balanced client only; default `None`: none): a call of a method the
    /// schema marks `no_side_effects` that has no answer after this long is sent a
    /// second time, through the balancer (so to another endpoint); the first good
    /// answer wins and the other call is cancelled (a cancel frame stops its handler).
    /// A hedge takes a retry from the budget and is not sent past the call's deadline.
    /// Only reads are hedged: an `idempotent` write never runs twice at once.
    pub hedge: Option<Duration>,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            idempotent: Vec::new(),
            attempts: 2,
            backoff_min: Duration::from_millis(10),
            backoff_max: Duration::from_millis(200),
            budget_ratio: 0.1,
            min_per_second: 10,
            hedge: None,
        }
    }
}

impl Retry {
    /// Also retry the methods `ordinals` (a schema without markers), up to `attempts`
    /// times.
    pub fn idempotent(ordinals: &[u32], attempts: u32) -> Retry {
        Retry {
            idempotent: ordinals.to_vec(),
            attempts,
            ..Retry::default()
        }
    }

    /// Never retry anything.
    pub fn never() -> Retry {
        Retry {
            attempts: 0,
            ..Retry::default()
        }
    }

    /// The wait before retry number `attempt` (1-based), jittered.
    fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self
            .backoff_min
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
        doubled
            .min(self.backoff_max)
            .mul_f64(0.5 + rand::random::<f64>() * 0.5)
    }
}

/// The retry budget of one client (all its clones): a call deposits
/// [`Retry::budget_ratio`] of a token, a retry takes one; [`Retry::min_per_second`]
/// tokens come back each second whatever the calls. At most ten seconds' worth are kept.
#[derive(Debug)]
pub(crate) struct RetryBudget {
    ratio: f64,
    per_second: f64,
    cap: f64,
    state: Mutex<(f64, std::time::Instant)>,
    retries: std::sync::atomic::AtomicU64,
}

impl RetryBudget {
    pub(crate) fn new(retry: &Retry) -> Self {
        let per_second = f64::from(retry.min_per_second);
        RetryBudget {
            ratio: retry.budget_ratio.max(0.0),
            per_second,
            cap: (per_second * 10.0).max(10.0),
            state: Mutex::new((per_second, std::time::Instant::now())),
            retries: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn deposit(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 = (state.0 + self.ratio).min(self.cap);
    }

    /// Take one retry (or hedge) from the budget, if there is one.
    pub(crate) fn withdraw(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = std::time::Instant::now();
        let refill = now.duration_since(state.1).as_secs_f64() * self.per_second;
        state.0 = (state.0 + refill).min(self.cap);
        state.1 = now;
        if state.0 < 1.0 {
            return false;
        }
        state.0 -= 1.0;
        self.retries.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Retries made so far.
    pub(crate) fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }
}

/// The retries of one call: whether it may be sent again, and after what wait.
pub(crate) struct Attempts<'a> {
    retry: &'a Retry,
    budget: &'a RetryBudget,
    ordinal: u32,
    /// The schema marks the method `idempotent` or `no_side_effects`.
    marked: bool,
    made: u32,
    /// When the call gives up: its budget (the scope's, the client's default, the
    /// handler's time left), counted from the first send.
    deadline: Option<tokio::time::Instant>,
}

impl<'a> Attempts<'a> {
    /// A call about to be sent for the first time (counted in the budget).
    pub(crate) fn new(
        retry: &'a Retry,
        budget: &'a RetryBudget,
        ordinal: u32,
        marked: bool,
        default_deadline: Option<Duration>,
    ) -> Self {
        budget.deposit();
        let budget_left =
            crate::context::CallOptions::with_outgoing(default_deadline, |budget, _, _| budget);
        Attempts {
            retry,
            budget,
            ordinal,
            marked,
            made: 0,
            deadline: budget_left.map(|left| tokio::time::Instant::now() + left),
        }
    }

    /// After `error`: the wait before sending the call again, or `None` to give up with
    /// it.
    pub(crate) fn again(&mut self, error: &ClientError) -> Option<Duration> {
        let listed = self.marked || self.retry.idempotent.contains(&self.ordinal);
        if !listed || self.made >= self.retry.attempts || !is_connection(error) {
            return None;
        }
        let wait = self.retry.backoff(self.made + 1);
        if self
            .deadline
            .is_some_and(|deadline| tokio::time::Instant::now() + wait >= deadline)
        {
            return None;
        }
        if !self.budget.withdraw() {
            tracing::debug!(
                ordinal = self.ordinal,
                "not retrying: the retry budget is spent"
            );
            return None;
        }
        self.made += 1;
        Some(wait)
    }

    /// Retries made so far.
    pub(crate) fn made(&self) -> u32 {
        self.made
    }

    /// The time left of the call's deadline, if it has one.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|deadline| deadline.saturating_duration_since(tokio::time::Instant::now()))
    }

    /// Send a retry (`send`): it carries what is left of the call's deadline, and the
    /// metadata of the scope it was made in.
    pub(crate) async fn resend<F: std::future::Future>(&self, send: F) -> F::Output {
        match self.remaining() {
            Some(left) => {
                crate::context::CallOptions::current_with_budget(left)
                    .scope(send)
                    .await
            }
            None => send.await,
        }
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
    /// Which calls are sent again after a connection failure: those of methods the
    /// schema marks idempotent, and those it lists (default: up to twice, under a budget
    /// of a tenth of the calls). A retry waits for the next connection at most
    /// [`ReconnectConfig::backoff_max`] (and never past the call's deadline).
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
    /// The retry budget of all the client's calls.
    budget: RetryBudget,
    /// Connections made so far: a retry waits for one newer than its call's.
    connections: std::sync::atomic::AtomicU64,
}

impl<C> State<C> {
    fn set(&self, client: Option<C>) {
        if client.is_some() {
            self.connections.fetch_add(1, Ordering::Relaxed);
        }
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
        let budget = RetryBudget::new(&config.retry);
        let state = Arc::new(State {
            addr,
            budget,
            config,
            connect: Connect(Box::new(connect)),
            current: RwLock::new(None),
            last_error: Mutex::new("not connected yet".into()),
            changed: Notify::new(),
            draining: AtomicBool::new(false),
            waker: Mutex::new(None),
            connections: std::sync::atomic::AtomicU64::new(0),
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

    /// Wait until a connection newer than the `used`-th is up, at most `limit`.
    async fn reconnected_after(&self, used: u64, limit: Duration) {
        let wait = async {
            loop {
                let changed = self.state.changed.notified();
                if self.state.connections.load(Ordering::Relaxed) > used && self.is_connected() {
                    return;
                }
                changed.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
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

impl<C: Connection> Reconnecting<C> {
    /// A call, sent again as [`Retry`] allows; `marked`: the schema marks it idempotent.
    async fn call_retrying(
        &self,
        ordinal: u32,
        payload: &[u8],
        marked: bool,
    ) -> Result<Vec<u8>, ClientError> {
        let config = &self.state.config;
        let budget = &self.state.budget;
        let mut attempts = Attempts::new(
            &config.retry,
            budget,
            ordinal,
            marked,
            config.client.deadline,
        );
        let mut used = self.state.connections.load(Ordering::Relaxed);
        let mut result = self.call_once(ordinal, payload).await;
        loop {
            let error = match result {
                Err(e) => e,
                ok => return ok,
            };
            let Some(wait) = attempts.again(&error) else {
                return Err(error);
            };
            tracing::debug!(
                addr = %self.state.addr,
                ordinal,
                attempt = attempts.made(),
                "retrying in {wait:?} after {error}"
            );
            tokio::time::sleep(wait).await;
            // Not on the connection that failed: on the next one, within the deadline.
            let reconnect = attempts
                .remaining()
                .map_or(config.backoff_max, |left| left.min(config.backoff_max));
            self.reconnected_after(used, reconnect).await;
            used = self.state.connections.load(Ordering::Relaxed);
            result = attempts.resend(self.call_once(ordinal, payload)).await;
        }
    }

    /// Retries made by this client (all its clones) so far.
    pub fn retries(&self) -> u64 {
        self.state.budget.retries()
    }
}

impl<C: Connection> Transport for Reconnecting<C> {
    /// Call on the current connection; while there is none, fail at once with
    /// [`ClientError::Closed`]. Calls of the methods [`ReconnectConfig::retry`] lists
    /// that fail on the connection wait for the next one and are sent again.
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        self.call_retrying(ordinal, payload, false).await
    }

    /// As [`Transport::call`], for a method the schema marks idempotent: sent again
    /// after a connection failure as [`ReconnectConfig::retry`] allows.
    async fn call_idempotent(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        self.call_retrying(ordinal, payload, true).await
    }

    async fn call_bytes_idempotent(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> Result<bytes::Bytes, ClientError> {
        self.call_retrying(ordinal, payload, true)
            .await
            .map(bytes::Bytes::from)
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

//! A client over several servers: [`Balanced`] sends each call to one of a static list
//! of endpoints, chosen by `tower`'s power-of-two-choices balancer
//! (`tower::balance::p2c`, fed by `tower::discover::ServiceList`) over their calls in
//! flight (`tower::load::PendingRequests`).
//!
//! Each endpoint is a [`Reconnecting`] connection with a health state:
//!
//! * **Not ready while disconnected.** An endpoint whose connection is lost (its server
//!   was killed, restarted, or drained) is skipped by the balancer until it reconnects
//!   (jittered, bounded exponential backoff); calls go to the others at once.
//! * **Not ready while draining.** Each connection watches its server's health
//!   (`crate::builtin::watch`, [`ReconnectConfig::watch_health`]): a server that starts
//!   draining (SIGTERM) reports "not serving" during its readiness grace, before it stops
//!   accepting, and the balancer sends it no new call from then on; the calls in flight
//!   there finish.
//! * **Ejected after consecutive failures.** [`BalanceConfig::eject_after`] calls in a
//!   row that fail on the connection (closed, i/o error, timeout) eject the endpoint
//!   even if it stays connected; a probe (a call to an ordinal no service has, which a
//!   live server answers 404) every [`BalanceConfig::probe_interval`] readmits it once
//!   it answers.
//! * **Fail fast.** With no endpoint healthy, a call fails at once with
//!   [`ClientError::Closed`]; it never queues for a server that may not come back.
//! * **Retry** of the caller's idempotent methods ([`Retry`]) goes through the
//!   balancer again, so it lands on another endpoint when its own was lost.
//! * **Overloaded is sent elsewhere.** A server over its load limit answers 503
//!   "overloaded" without running the call, so any call, idempotent or not, is sent
//!   again through the balancer, at most once per other endpoint, and the endpoint is
//!   passed over for [`BalanceConfig::overload_backoff`] (the balancer waits for it
//!   only when no other is ready).
//!
//! [`Balanced`] implements [`Transport`]: the generated clients run on it unchanged
//! (`EthClient::new(balanced)`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tower::balance::p2c::Balance;
use tower::discover::ServiceList;
use tower::load::{CompleteOnResponse, PendingRequests};
use tower::{BoxError, Service};

use super::reconnect::{
    is_connection, Attempts, ReconnectConfig, Reconnecting, Retry, RetryBudget,
};
use crate::transport::{ClientError, Transport};

/// Settings of a [`Balanced`] client.
#[derive(Clone, Debug)]
pub struct BalanceConfig {
    /// Settings of each endpoint's connection (timeouts, backoff, TLS). Its `retry` is
    /// ignored: [`BalanceConfig::retry`] applies, across endpoints.
    pub endpoint: ReconnectConfig,
    /// Calls failing on the connection in a row that eject an endpoint (default 3).
    pub eject_after: u32,
    /// How often an ejected endpoint is probed (default 500 ms).
    pub probe_interval: Duration,
    /// Which calls are sent again, through the balancer, after a connection failure:
    /// those of methods the schema marks idempotent, and those it lists (default: up to
    /// twice, under a budget of a tenth of the calls).
    pub retry: Retry,
    /// Calls queued for the balancer at most (default 1024).
    pub queue: usize,
    /// How long an endpoint that answered "overloaded" is passed over (default 100 ms).
    pub overload_backoff: Duration,
}

impl Default for BalanceConfig {
    fn default() -> Self {
        BalanceConfig {
            endpoint: ReconnectConfig::default(),
            eject_after: 3,
            probe_interval: Duration::from_millis(500),
            retry: Retry::default(),
            queue: 1024,
            overload_backoff: Duration::from_millis(100),
        }
    }
}

/// One call, as the balancer carries it.
#[derive(Debug)]
struct Call {
    ordinal: u32,
    payload: Arc<[u8]>,
    /// What the caller's task would send with it (deadline, metadata, trace context),
    /// captured there: the endpoint's call runs on another task.
    options: Option<crate::context::CallOptions>,
}

type CallFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, ClientError>> + Send>>;
type Balancer = Balance<ServiceList<Vec<PendingRequests<Endpoint, CompleteOnResponse>>>, Call>;

/// What [`Balanced::health`] reports of one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointHealth {
    /// The endpoint's address.
    pub addr: String,
    /// Whether a connection is up.
    pub connected: bool,
    /// Whether it is ejected (failing calls) and waiting for a probe to readmit it.
    pub ejected: bool,
    /// Whether its server said it is draining (its health watch): no new call goes
    /// there, while the calls in flight finish.
    pub draining: bool,
}

/// The health of one endpoint, shared by its balancer service and its probe.
#[derive(Debug)]
struct Health {
    conn: Reconnecting,
    failures: AtomicU32,
    ejected: AtomicBool,
    eject_after: u32,
    probe_interval: Duration,
    /// Until when the endpoint is passed over, having answered "overloaded".
    shed_until: std::sync::Mutex<Option<tokio::time::Instant>>,
    overload_backoff: Duration,
}

impl Health {
    /// Whether the endpoint answered "overloaded" within the backoff.
    fn shedding(&self) -> bool {
        let until = *self.shed_until.lock().unwrap_or_else(|e| e.into_inner());
        until.is_some_and(|until| tokio::time::Instant::now() < until)
    }

    fn is_up(&self) -> bool {
        !self.ejected.load(Ordering::Relaxed) && self.conn.is_serving()
    }

    /// Count a call's outcome; eject on the `eject_after`-th connection failure in a
    /// row and start probing.
    fn record(self: &Arc<Self>, result: &Result<Vec<u8>, ClientError>) {
        match result {
            Err(e) if is_connection(e) => {
                let failures = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
                if failures >= self.eject_after && !self.ejected.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        addr = self.conn.addr(),
                        failures,
                        "ejecting the endpoint: {e}"
                    );
                    tokio::spawn(probe(self.clone()));
                }
            }
            Err(e) if e.is_overloaded() => {
                self.failures.store(0, Ordering::Relaxed);
                let until = tokio::time::Instant::now() + self.overload_backoff;
                *self.shed_until.lock().unwrap_or_else(|e| e.into_inner()) = Some(until);
                // Wake the balancer when the backoff is over.
                let health = self.clone();
                tokio::spawn(async move {
                    tokio::time::sleep_until(until).await;
                    health.conn.poke();
                });
            }
            _ => self.failures.store(0, Ordering::Relaxed),
        }
    }
}

/// Probe an ejected endpoint until it answers, then readmit it.
async fn probe(health: Arc<Health>) {
    let mut tick = tokio::time::interval(health.probe_interval);
    tick.tick().await;
    loop {
        tick.tick().await;
        if Arc::strong_count(&health) == 1 {
            return; // the client is gone
        }
        // No method has ordinal u32::MAX: a live server answers it 404.
        match health.conn.call_once(u32::MAX, b"").await {
            Err(e) if is_connection(&e) => continue,
            _ => break,
        }
    }
    health.failures.store(0, Ordering::Relaxed);
    health.ejected.store(false, Ordering::Relaxed);
    tracing::info!(
        addr = health.conn.addr(),
        "endpoint answers again: readmitted"
    );
    // Wake the balancer, which waits for this endpoint to become ready.
    health.conn.poke();
}

/// One endpoint as a `tower` service: ready while healthy.
#[derive(Debug)]
struct Endpoint(Arc<Health>);

impl Service<Call> for Endpoint {
    type Response = Vec<u8>;
    type Error = ClientError;
    type Future = CallFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ClientError>> {
        // Register first, so a change between the check and the registration wakes us.
        self.0.conn.wake_on_change(cx.waker());
        if self.0.is_up() && !self.0.shedding() {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }

    fn call(&mut self, call: Call) -> CallFuture {
        let health = self.0.clone();
        Box::pin(async move {
            let once = health.conn.call_once(call.ordinal, &call.payload);
            let result = match call.options {
                Some(options) => options.scope(once).await,
                None => once.await,
            };
            health.record(&result);
            result
        })
    }
}

/// A client balanced over several servers (see the [module docs](self)). Cloning is
/// cheap and shares the endpoints and the balancer.
#[derive(Clone)]
pub struct Balanced {
    jobs: mpsc::Sender<Job>,
    endpoints: Arc<[Arc<Health>]>,
    retry: Retry,
    /// The retry budget of all the client's calls.
    budget: Arc<RetryBudget>,
    /// The client's default deadline (its endpoints' `ClientConfig::deadline`).
    deadline: Option<Duration>,
    call_timeout: Duration,
    /// Where the next stream's search for a healthy endpoint starts (round robin).
    next_stream: Arc<AtomicUsize>,
    /// Hedges sent ([`Retry::hedge`]).
    hedges: Arc<AtomicU64>,
}

impl Balanced {
    /// Balance over `addrs` (each `host:port`), connecting to all of them in the
    /// background; returns at once (see [`Balanced::ready`]). Must be called within a
    /// tokio runtime.
    pub fn new<A: Into<String>>(addrs: impl IntoIterator<Item = A>, config: BalanceConfig) -> Self {
        let mut endpoint = config.endpoint.clone();
        // Retries go through the balancer, not each endpoint's connection.
        endpoint.retry = Retry::never();
        let endpoints: Arc<[Arc<Health>]> = addrs
            .into_iter()
            .map(|addr| {
                Arc::new(Health {
                    conn: Reconnecting::new(addr, endpoint.clone()),
                    failures: AtomicU32::new(0),
                    ejected: AtomicBool::new(false),
                    eject_after: config.eject_after.max(1),
                    probe_interval: config.probe_interval,
                    shed_until: std::sync::Mutex::new(None),
                    overload_backoff: config.overload_backoff,
                })
            })
            .collect();
        let services = endpoints
            .iter()
            .map(|h| PendingRequests::new(Endpoint(h.clone()), CompleteOnResponse::default()))
            .collect::<Vec<_>>();
        let balancer: Balancer = Balance::new(ServiceList::new(services));
        let (jobs, queued) = mpsc::channel(config.queue.max(1));
        tokio::spawn(run_balancer(balancer, queued));
        Balanced {
            jobs,
            endpoints,
            budget: Arc::new(RetryBudget::new(&config.retry)),
            retry: config.retry,
            deadline: config.endpoint.client.deadline,
            call_timeout: config.endpoint.client.call_timeout,
            next_stream: Arc::new(AtomicUsize::new(0)),
            hedges: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Wait until at least `n` endpoints are healthy, at most `limit`; whether they are.
    pub async fn ready(&self, n: usize, limit: Duration) -> bool {
        let wait = async {
            let mut tick = tokio::time::interval(Duration::from_millis(5));
            while self.healthy() < n {
                tick.tick().await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }

    /// How many endpoints are healthy now (connected and not ejected).
    pub fn healthy(&self) -> usize {
        self.endpoints.iter().filter(|h| h.is_up()).count()
    }

    /// The state of each endpoint, in the order given.
    pub fn health(&self) -> Vec<EndpointHealth> {
        self.endpoints
            .iter()
            .map(|h| EndpointHealth {
                addr: h.conn.addr().to_string(),
                connected: h.conn.is_connected(),
                ejected: h.ejected.load(Ordering::Relaxed),
                draining: h.conn.is_connected() && !h.conn.is_serving(),
            })
            .collect()
    }

    async fn call_once(&self, ordinal: u32, payload: &Arc<[u8]>) -> Result<Vec<u8>, ClientError> {
        if self.healthy() == 0 {
            return Err(ClientError::Closed(format!(
                "no endpoint is available (of {})",
                self.endpoints.len()
            )));
        }
        let call = Call {
            ordinal,
            payload: payload.clone(),
            options: crate::context::CallOptions::capture(self.deadline),
        };
        tokio::time::timeout(self.call_timeout, self.dispatch(call))
            .await
            .unwrap_or(Err(ClientError::Timeout(self.call_timeout)))
    }
}

impl Balanced {
    /// The call through the balancer's task.
    async fn dispatch(&self, call: Call) -> Result<Vec<u8>, ClientError> {
        let (reply, answer) = oneshot::channel();
        let stopped = || ClientError::Closed("the balancer stopped".into());
        self.jobs
            .send(Job { call, reply })
            .await
            .map_err(|_| stopped())?;
        answer.await.unwrap_or_else(|_| Err(stopped()))
    }
}

/// A call for the balancer's task, and where its answer goes.
struct Job {
    call: Call,
    reply: oneshot::Sender<Result<Vec<u8>, ClientError>>,
}

/// The balancer's task: for each call, wait until an endpoint is ready, hand the call
/// to it, and let the answer come back on its own task (calls run concurrently).
async fn run_balancer(mut balancer: Balancer, mut jobs: mpsc::Receiver<Job>) {
    while let Some(Job { call, reply }) = jobs.recv().await {
        if let Err(e) = std::future::poll_fn(|cx| balancer.poll_ready(cx)).await {
            let _ = reply.send(Err(error(e)));
            continue;
        }
        let answer = boxed(balancer.call(call));
        tokio::spawn(async move {
            let mut reply = reply;
            // A caller that stops waiting (a hedge's loser, a dropped call) drops the
            // endpoint's call, which cancels it at its server.
            tokio::select! {
                answer = answer => {
                    let _ = reply.send(answer);
                }
                () = reply.closed() => {}
            }
        });
    }
}

/// The balancer's answer future, boxed with its error back to a [`ClientError`] (in a
/// plain function: `tower`'s future names `fn` pointer types that an `async` block
/// cannot prove `Send` for every lifetime).
fn boxed(answer: <Balancer as Service<Call>>::Future) -> CallFuture {
    Box::pin(ErrorBack(answer))
}

/// A balancer future whose error is turned back into a [`ClientError`].
struct ErrorBack<F>(F);

impl<F: Future<Output = Result<Vec<u8>, BoxError>> + Unpin> Future for ErrorBack<F> {
    type Output = Result<Vec<u8>, ClientError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(|r| r.map_err(error))
    }
}

impl core::fmt::Debug for Balanced {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Balanced")
            .field("endpoints", &self.health())
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// A balancer error back to the [`ClientError`] it carries.
fn error(e: BoxError) -> ClientError {
    match e.downcast::<ClientError>() {
        Ok(e) => *e,
        Err(e) => ClientError::Closed(format!("the balancer failed: {e}")),
    }
}

impl Balanced {
    /// A call through the balancer, sent again as [`BalanceConfig::retry`] allows
    /// (`marked`: the schema marks it idempotent), and elsewhere when an endpoint
    /// answers "overloaded" (the call did not run there).
    async fn call_retrying(
        &self,
        ordinal: u32,
        payload: &[u8],
        marked: bool,
    ) -> Result<Vec<u8>, ClientError> {
        let payload: Arc<[u8]> = payload.into();
        let mut attempts = Attempts::new(&self.retry, &self.budget, ordinal, marked, self.deadline);
        let mut overloaded = 0;
        let mut result = self.call_once(ordinal, &payload).await;
        loop {
            match result {
                Err(e) if e.is_overloaded() && overloaded + 1 < self.endpoints.len() => {
                    // Not run: safe to send again, whatever the method.
                    overloaded += 1;
                    tracing::debug!(
                        ordinal,
                        overloaded,
                        "sending an overloaded call elsewhere: {e}"
                    );
                }
                Err(e) => {
                    let Some(wait) = attempts.again(&e) else {
                        return Err(e);
                    };
                    tracing::debug!(
                        ordinal,
                        attempt = attempts.made(),
                        "retrying through the balancer in {wait:?} after {e}"
                    );
                    tokio::time::sleep(wait).await;
                }
                ok => return ok,
            }
            result = attempts.resend(self.call_once(ordinal, &payload)).await;
        }
    }

    /// Retries made by this client (all its clones) so far, hedges included.
    pub fn retries(&self) -> u64 {
        self.budget.retries()
    }

    /// Hedges sent by this client (all its clones) so far ([`Retry::hedge`]).
    pub fn hedges(&self) -> u64 {
        self.hedges.load(Ordering::Relaxed)
    }

    /// A `no_side_effects` call: retried as any idempotent one, and hedged when
    /// [`Retry::hedge`] is set and there is another endpoint to send it to.
    async fn call_hedged(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        let Some(delay) = self.retry.hedge.filter(|_| self.endpoints.len() > 1) else {
            return self.call_retrying(ordinal, payload, true).await;
        };
        let first = self.call_retrying(ordinal, payload, true);
        tokio::pin!(first);
        tokio::select! {
            biased;
            answer = &mut first => return answer,
            () = tokio::time::sleep(delay) => {}
        }
        // No hedge past the call's deadline, nor beyond the retry budget.
        let left = crate::context::CallOptions::with_outgoing(self.deadline, |budget, _, _| budget);
        if left.is_some_and(|left| left.is_zero()) || !self.budget.withdraw() {
            return first.await;
        }
        self.hedges.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(ordinal, "no answer after {delay:?}: hedging");
        let second = self.call_retrying(ordinal, payload, true);
        tokio::pin!(second);
        // The first good answer wins; dropping the other call cancels it.
        tokio::select! {
            answer = &mut first => match answer {
                Ok(answer) => Ok(answer),
                Err(_) => second.await,
            },
            answer = &mut second => match answer {
                Ok(answer) => Ok(answer),
                Err(_) => first.await,
            },
        }
    }
}

impl Transport for Balanced {
    /// Send the call to one healthy endpoint, chosen by power of two choices over
    /// their calls in flight; retried through the balancer when its method is listed in
    /// [`BalanceConfig::retry`] (see the [module docs](self)).
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        self.call_retrying(ordinal, payload, false).await
    }

    /// As [`Transport::call`], for a method the schema marks idempotent: retried
    /// through the balancer (so, most likely, on another endpoint: the one that failed
    /// is ejected after [`BalanceConfig::eject_after`] failures) as
    /// [`BalanceConfig::retry`] allows.
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

    /// As [`Transport::call_idempotent`], for a `no_side_effects` method: also hedged
    /// as [`Retry::hedge`] says.
    async fn call_no_side_effects(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> Result<Vec<u8>, ClientError> {
        self.call_hedged(ordinal, payload).await
    }

    async fn call_bytes_no_side_effects(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> Result<bytes::Bytes, ClientError> {
        self.call_hedged(ordinal, payload)
            .await
            .map(bytes::Bytes::from)
    }

    /// Open the stream on a healthy endpoint, taking them in turn: a stream stays on
    /// its connection for its whole life, so streams are spread by count, not by the
    /// calls in flight. Not retried: a stream whose connection fails sees it close.
    async fn open_stream(
        &self,
        ordinal: u32,
        open: &[u8],
    ) -> Result<crate::stream::StreamIo, ClientError> {
        let n = self.endpoints.len();
        let start = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let up = (0..n)
            .map(|k| &self.endpoints[start.wrapping_add(k) % n])
            .find(|h| h.is_up());
        match up {
            Some(endpoint) => endpoint.conn.open_stream(ordinal, open).await,
            None => Err(ClientError::Closed(format!(
                "no endpoint is available (of {n})"
            ))),
        }
    }
}

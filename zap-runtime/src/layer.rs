//! Code that runs around every call of a service, on every transport: a [`CallLayer`]
//! sees each call before its handler (and may refuse it with a status) and after it
//! (its answer and how long it took), and each stream open before its handler.
//!
//! A layer wraps the [`Service`] itself ([`Layered`]), as [`Metered`](crate::metrics::Metered)
//! does, so it sees the calls of ZAP/TCP (both framings, unix sockets), QUIC, JSON-RPC
//! over HTTP, WebSocket and IPC, and the in-process [`Local`](crate::Local), alike.
//! What it reads of a call is its method, the transport it names at construction, the
//! caller's address, and the call's [`Context`]: its deadline and metadata (ZAP's call
//! context, JSON-RPC's `Zap-Meta-*` and `Zap-Timeout-Ms` headers), the capability the
//! server's policy admitted it with, and where answer metadata goes.
//!
//! **Order.** The runtime checks capabilities and load shedding before the service is
//! called, so a layer never sees a caller the capability policy refused, nor a call
//! shed for load. Layers stacked as a tuple run in order before the call and in reverse
//! after it: `Layered::new(service, (auth, limit, log))` authenticates, then counts
//! against the limit, then logs. Wrap the layered service in `Metered` to count the
//! calls a layer refuses among the errors (`Metered::new(Arc::new(layered), ...)`), or
//! the other way round to count only what reached the layers.
//!
//! **tower.** The shapes differ: a ZAP call is a method ordinal, a borrowed request
//! message and a reused output builder, not an owned request value, so a
//! `tower::Layer` cannot wrap a [`Service`]; [`Layered`] is the same idea (a service
//! wrapping a service, composable) on the call's shape. HTTP services served over
//! zaphttp are tower services and take tower layers as they are.
//!
//! A service without layers is not wrapped and pays nothing.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::builder::Builder;
use crate::context::Context;
use crate::rpc::Status;
use crate::service::{CallError, MethodInfo, Reply, Service};
use crate::stream::StreamIo;

/// One call (or stream open) as a layer sees it.
#[derive(Debug)]
pub struct CallInfo<'a> {
    /// The interface (`Eth`).
    pub service: &'static str,
    /// The method, if the service has one with this ordinal.
    pub method: Option<&'static MethodInfo>,
    /// The method's ordinal.
    pub ordinal: u32,
    /// The transport the layered service was made for (`"zap"`, `"http"`, ...).
    pub transport: &'static str,
    /// The call's deadline and metadata (empty for a call that carries none), and where
    /// answer metadata goes ([`Context::set_answer_metadata`]).
    pub context: &'a Context,
    /// A stream open, not a call.
    pub stream: bool,
    /// The caller's network address ([`peer_addr`](crate::context::peer_addr)):
    /// `None` on unix sockets and in-process.
    pub peer: Option<std::net::SocketAddr>,
}

impl CallInfo<'_> {
    /// The method's name as the schema writes it (`"unknown"` for an unknown ordinal).
    pub fn method_name(&self) -> &'static str {
        self.method.map_or("unknown", |m| m.name)
    }
}

/// Code around every call of a [`Layered`] service.
pub trait CallLayer: Send + Sync + 'static {
    /// Whether the layer reads [`Context::capability`]: the server then puts the
    /// capability its policy admitted each call with in the call's context (which
    /// costs a context, boxed, for each call that presents one).
    const CAPABILITY: bool = false;

    /// Before the handler runs: `Ok` to pass the call on, or the error to answer with
    /// (the handler does not run). Also called for each stream open.
    fn before(&self, call: &CallInfo<'_>) -> Result<(), CallError> {
        let _ = call;
        Ok(())
    }

    /// After a call's handler answered (or a layer refused it): the answer and how long
    /// the call took from `before`. Not called for streams.
    fn after(&self, call: &CallInfo<'_>, answer: &Result<Reply, CallError>, took: Duration) {
        let _ = (call, answer, took);
    }
}

/// Two layers: `A` then `B` before a call, `B` then `A` after it.
impl<A: CallLayer, B: CallLayer> CallLayer for (A, B) {
    const CAPABILITY: bool = A::CAPABILITY || B::CAPABILITY;

    fn before(&self, call: &CallInfo<'_>) -> Result<(), CallError> {
        self.0.before(call)?;
        self.1.before(call)
    }

    fn after(&self, call: &CallInfo<'_>, answer: &Result<Reply, CallError>, took: Duration) {
        self.1.after(call, answer, took);
        self.0.after(call, answer, took);
    }
}

/// Three layers, in order before a call and in reverse after it.
impl<A: CallLayer, B: CallLayer, C: CallLayer> CallLayer for (A, B, C) {
    const CAPABILITY: bool = A::CAPABILITY || B::CAPABILITY || C::CAPABILITY;

    fn before(&self, call: &CallInfo<'_>) -> Result<(), CallError> {
        self.0.before(call)?;
        self.1.before(call)?;
        self.2.before(call)
    }

    fn after(&self, call: &CallInfo<'_>, answer: &Result<Reply, CallError>, took: Duration) {
        self.2.after(call, answer, took);
        self.1.after(call, answer, took);
        self.0.after(call, answer, took);
    }
}

/// A service with a layer around every call: serve it as the service itself.
pub struct Layered<S, L> {
    service: Arc<S>,
    layer: Arc<L>,
    transport: &'static str,
}

impl<S, L> Layered<S, L> {
    /// `service` with `layer` around its calls, on the transport named `transport`
    /// (what [`CallInfo::transport`] says; make one per transport, as for `Metered`, or
    /// one named `"any"`).
    pub fn new(service: Arc<S>, layer: L, transport: &'static str) -> Self {
        Layered::shared(service, Arc::new(layer), transport)
    }

    /// As [`Layered::new`], with a layer shared with other transports' services (one
    /// rate limit across all of them).
    pub fn shared(service: Arc<S>, layer: Arc<L>, transport: &'static str) -> Self {
        Layered {
            service,
            layer,
            transport,
        }
    }
}

impl<S, L> Layered<S, L> {
    /// The layer (to read what it counted).
    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// The service inside.
    pub fn service(&self) -> &Arc<S> {
        &self.service
    }
}

impl<S, L> std::fmt::Debug for Layered<S, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layered")
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl<S: Service, L: CallLayer> Layered<S, L> {
    /// What the layers see of a call (or stream open) of method `ordinal`.
    fn info<'c>(&self, ordinal: u32, context: &'c Context, stream: bool) -> CallInfo<'c> {
        CallInfo {
            service: S::NAME,
            method: S::method(ordinal),
            ordinal,
            transport: self.transport,
            context,
            stream,
            peer: crate::context::peer_addr(),
        }
    }

    async fn around<F>(&self, ordinal: u32, call: F) -> Result<Reply, CallError>
    where
        F: Future<Output = Result<Reply, CallError>>,
    {
        let context = Context::current();
        let info = self.info(ordinal, &context, false);
        let started = Instant::now();
        let answer = match self.layer.before(&info) {
            Ok(()) => call.await,
            Err(refused) => Err(refused),
        };
        self.layer.after(&info, &answer, started.elapsed());
        answer
    }
}

impl<S: Service, L: CallLayer> Service for Layered<S, L> {
    const NAME: &'static str = S::NAME;
    const METHODS: &'static [MethodInfo] = S::METHODS;
    const OPENRPC: Option<&'static str> = S::OPENRPC;
    const PACKAGE: &'static str = S::PACKAGE;
    const SCHEMA: Option<crate::service::EmbeddedSchema> = S::SCHEMA;
    const CAPABILITY: bool = S::CAPABILITY || L::CAPABILITY;

    fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        self.around(ordinal, self.service.call(ordinal, payload, out))
    }

    fn call_owned<'a>(
        &'a self,
        ordinal: u32,
        payload: Bytes,
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        self.around(ordinal, self.service.call_owned(ordinal, payload, out))
    }

    /// The layers see the open before the handler; a refusal ends the stream with it.
    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: Bytes,
        io: StreamIo,
    ) -> Result<(), CallError> {
        // Read inside the stream's task, where its context is current.
        let context = Context::current();
        self.layer.before(&self.info(ordinal, &context, true))?;
        Arc::clone(&self.service).stream(ordinal, open, io).await
    }

    fn runtime_answered(&self, ordinal: u32, status: Status) {
        self.service.runtime_answered(ordinal, status);
    }
}

/// Refuses calls past `limit` in each window of `window` per caller, with status 429
/// (JSON-RPC -32005) and the time to wait. Callers are told apart by a metadata key
/// ([`RateLimit::per_metadata`]: `api-key`, `tenant`; calls without it share one
/// count), by their IP address ([`RateLimit::per_peer`]; calls with no address, over
/// unix sockets or in-process, share one count), or by the holder of the capability
/// the server's policy admitted them with ([`RateLimit::per_capability`]; calls
/// without one share one count).
#[derive(Debug)]
pub struct RateLimit {
    by: Caller,
    limit: u32,
    window: Duration,
    counts: Mutex<HashMap<CallerKey, (Instant, u32)>>,
}

/// How a [`RateLimit`] tells callers apart.
#[derive(Debug)]
enum Caller {
    Metadata(String),
    Peer,
    Capability,
}

/// One caller's key in a [`RateLimit`]'s table.
#[derive(Debug, PartialEq, Eq, Hash)]
enum CallerKey {
    Metadata(Bytes),
    Ip(Option<std::net::IpAddr>),
    /// The capability's holder id (feature `cap`), else the token itself.
    Holder(Option<Bytes>),
}

impl RateLimit {
    /// At most `limit` calls per `window` for each value of metadata `key`.
    pub fn per_metadata(key: impl Into<String>, limit: u32, window: Duration) -> Self {
        RateLimit::new(Caller::Metadata(key.into()), limit, window)
    }

    /// At most `limit` calls per `window` from each IP address.
    pub fn per_peer(limit: u32, window: Duration) -> Self {
        RateLimit::new(Caller::Peer, limit, window)
    }

    /// At most `limit` calls per `window` for each holder of a capability: the leaf's
    /// `Holder` id with feature `cap` (all the tokens one holder presents share a
    /// count), the token itself without it. Only capabilities a policy verified are
    /// seen ([`Context::capability`]).
    pub fn per_capability(limit: u32, window: Duration) -> Self {
        RateLimit::new(Caller::Capability, limit, window)
    }

    fn new(by: Caller, limit: u32, window: Duration) -> Self {
        RateLimit {
            by,
            limit,
            window,
            counts: Mutex::new(HashMap::new()),
        }
    }
}

impl CallLayer for RateLimit {
    /// [`RateLimit::per_capability`] reads it.
    const CAPABILITY: bool = true;

    fn before(&self, call: &CallInfo<'_>) -> Result<(), CallError> {
        let (caller, what) = match &self.by {
            Caller::Metadata(key) => (
                CallerKey::Metadata(
                    call.context
                        .metadata()
                        .get(key)
                        .map(Bytes::copy_from_slice)
                        .unwrap_or_default(),
                ),
                key.as_str(),
            ),
            Caller::Peer => (CallerKey::Ip(call.peer.map(|p| p.ip())), "address"),
            Caller::Capability => (
                CallerKey::Holder(call.context.capability().map(holder)),
                "capability holder",
            ),
        };
        let now = Instant::now();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if counts.len() > 100_000 {
            // Forget the windows that are over rather than grow without bound.
            counts.retain(|_, (start, _)| now.duration_since(*start) < self.window);
        }
        let (start, used) = counts.entry(caller).or_insert((now, 0));
        if now.duration_since(*start) >= self.window {
            *start = now;
            *used = 0;
        }
        if *used >= self.limit {
            let wait = self.window.saturating_sub(now.duration_since(*start));
            return Err(CallError::new(
                Status::TOO_MANY_REQUESTS,
                format!(
                    "rate limited: {} calls per {:?} for this {what}; try again in {} ms",
                    self.limit,
                    self.window,
                    wait.as_millis()
                ),
            ));
        }
        *used += 1;
        Ok(())
    }
}

/// Who holds `capability` (a verified `Cap` field): its leaf's holder id.
#[cfg(feature = "cap")]
fn holder(capability: &[u8]) -> Bytes {
    match crate::cap::Presented::decode(capability) {
        Ok(presented) => Bytes::copy_from_slice(presented.leaf().holder()),
        // A policy verified it, so it decodes; were it not, the token stands for itself.
        Err(_) => Bytes::copy_from_slice(capability),
    }
}

/// Who holds `capability`: without the `cap` feature, the token stands for its holder.
#[cfg(not(feature = "cap"))]
fn holder(capability: &[u8]) -> Bytes {
    Bytes::copy_from_slice(capability)
}

/// Logs a line per call (`tracing`, target `zap_runtime::layer`, level info): the
/// service, method, transport, status and duration, the caller's `request-id`
/// metadata when it sent one, and the trace id of its W3C `traceparent`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestLog;

impl CallLayer for RequestLog {
    fn after(&self, call: &CallInfo<'_>, answer: &Result<Reply, CallError>, took: Duration) {
        let status = match answer {
            Ok(_) => Status::OK.0,
            Err(e) => e.status.0,
        };
        let trace_id = call
            .context
            .metadata()
            .get(crate::trace::TRACEPARENT)
            .and_then(crate::trace::TraceParent::parse)
            .map(|t| t.trace_id_hex());
        tracing::info!(
            service = call.service,
            method = call.method_name(),
            transport = call.transport,
            status,
            duration_us = took.as_micros() as u64,
            request_id = call.context.metadata().get_str("request-id").unwrap_or(""),
            trace_id = trace_id.as_deref().unwrap_or(""),
            "call"
        );
    }
}

//! The context of the call being handled ([`Context`]) and the options of the calls a
//! task makes ([`CallOptions`]), each a task-local: a handler's signature does not
//! change to read them, and a generated client does not change to send them.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::{ExtensionError, Metadata};

/// Metadata an answer carries back (trailers: a server timing, a request id): the
/// handler adds pairs with [`Context::set_answer_metadata`]; a client reads them from the
/// handle it gave [`CallOptions::answer_metadata_into`]. A shared handle: clones see the
/// same pairs.
#[derive(Clone, Debug, Default)]
pub struct AnswerMetadata(Arc<Mutex<Metadata>>);

impl AnswerMetadata {
    /// An empty handle.
    pub fn new() -> Self {
        AnswerMetadata::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Metadata> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pairs received (or set) so far.
    pub fn get(&self) -> Metadata {
        self.lock().clone()
    }

    /// Whether no pair was received (or set).
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Add a pair, within the limits of [`Metadata::insert`].
    pub fn insert(
        &self,
        key: impl AsRef<str>,
        value: impl Into<bytes::Bytes>,
    ) -> Result<(), ExtensionError> {
        self.lock().insert(key, value).map(|_| ())
    }

    /// Take the pairs out, leaving none.
    #[cfg_attr(not(any(feature = "server", feature = "http")), allow(dead_code))]
    pub(crate) fn take(&self) -> Metadata {
        std::mem::take(&mut *self.lock())
    }

    /// Take the pairs out as the extension an answer carries them in (no budget); `None`
    /// when there are none.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) fn take_extension(&self) -> Option<Vec<u8>> {
        let metadata = self.take();
        (!metadata.is_empty()).then(|| {
            let mut extension = Vec::with_capacity(super::extension_len(None, &metadata));
            super::write_extension(&mut extension, None, &metadata);
            extension
        })
    }

    /// Replace the pairs with `metadata` (a client, with an answer's).
    pub(crate) fn set(&self, metadata: Metadata) {
        *self.lock() = metadata;
    }
}

tokio::task_local! {
    static CURRENT: Context;
    static OUTGOING: CallOptions;
    static PEER: std::net::SocketAddr;
}

/// The network address of the peer whose call (or stream) is being handled: the
/// client's address on ZAP/TCP, QUIC, JSON-RPC over HTTP and WebSocket, and zaphttp;
/// `None` on unix sockets, in-process ([`Local`](crate::Local)), and in a task the
/// handler spawned. Set once per connection; reading it copies the address.
pub fn peer_addr() -> Option<std::net::SocketAddr> {
    // ZAP/TCP keeps it in its connection's context (one task-local for both); a unix
    // socket's or an in-memory stream's placeholder there has port 0.
    #[cfg(feature = "server")]
    if let Some(connection) = crate::server::CallContext::current() {
        let addr = connection.peer_addr();
        return (addr.port() != 0).then_some(addr);
    }
    PEER.try_with(|peer| *peer).ok()
}

/// Run `f` (a connection, or a task of one) with `peer` as its [`peer_addr`].
#[cfg(any(feature = "server", feature = "http"))]
pub(crate) async fn with_peer<F: Future>(peer: Option<std::net::SocketAddr>, f: F) -> F::Output {
    match peer {
        Some(peer) => PEER.scope(peer, f).await,
        None => f.await,
    }
}

/// How much of its own remaining budget a call passes on to the calls its handler
/// makes is the remaining budget less this margin: the time the answer takes to travel
/// back and be written, so that the inner call's deadline passes first and its caller
/// can still answer in time.
pub const PROPAGATION_MARGIN: Duration = Duration::from_millis(5);

/// What a handler knows of its call beyond the request: the deadline by which the
/// caller stops waiting, and the metadata it sent. Read it with [`Context::current`]
/// from inside a handler (or anything the handler awaits); a call that carries no
/// context, and code outside any call, see an empty one.
///
/// The server enforces the deadline itself: when it passes, the handler's future is
/// dropped and the caller is answered "deadline exceeded" (ZAP status 504, JSON-RPC
/// -32004). A handler reads it to give up early, to choose cheaper work, or to hand a
/// task it spawns the time left; calls it makes through a generated client carry the
/// time left on, less [`PROPAGATION_MARGIN`], without being told.
///
/// ```
/// use std::time::Duration;
/// use zap_runtime::context::Context;
///
/// # async fn handler() {
/// let context = Context::current();
/// if let Some(left) = context.remaining() {
///     if left < Duration::from_millis(10) {
///         // Too little time for the slow path: answer from the cache instead.
///     }
/// }
/// let request_id = context.metadata().get_str("request-id");
/// # let _ = request_id;
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Context {
    deadline: Option<Instant>,
    metadata: Arc<Metadata>,
    /// Where the handler's answer metadata goes, when the transport can carry it back.
    answer: Option<AnswerMetadata>,
    /// The capability the server's policy admitted the call with.
    capability: Option<bytes::Bytes>,
}

impl Context {
    /// No deadline, no metadata.
    pub fn new() -> Self {
        Context::default()
    }

    /// The same context with a deadline.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The same context with a deadline `budget` from now (none if that is past what
    /// the clock can say).
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.deadline = Instant::now().checked_add(budget);
        self
    }

    /// The same context with `metadata`.
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Arc::new(metadata);
        self
    }

    /// The context of the call being handled; an empty one outside a call, or for a
    /// call that carries none.
    pub fn current() -> Context {
        CURRENT.try_with(Context::clone).unwrap_or_default()
    }

    /// `f` of the context of the call being handled, without copying it; `None`
    /// outside a call that carries one.
    pub(crate) fn with_current<R>(f: impl FnOnce(&Context) -> R) -> Option<R> {
        CURRENT.try_with(f).ok()
    }

    /// The instant the caller stops waiting.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The time left until the deadline (zero once it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether the deadline has passed.
    pub fn is_expired(&self) -> bool {
        self.deadline.is_some_and(|d| d <= Instant::now())
    }

    /// The metadata the caller sent.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The capability token (a `Cap` field: one capability or a chain) the caller
    /// presented and the server's capability policy verified before the call ran:
    /// present only on a server configured with a policy, for a call that sent one, to
    /// a service that asks for it ([`Service::CAPABILITY`](crate::Service::CAPABILITY),
    /// which a layer that reads it sets).
    /// `zap_runtime::cap::Presented::decode` reads it (its leaf's holder, issuer,
    /// permissions).
    pub fn capability(&self) -> Option<&[u8]> {
        self.capability.as_deref()
    }

    /// The same context with the capability the policy admitted the call with.
    #[cfg_attr(not(any(feature = "server", feature = "jsonrpc")), allow(dead_code))]
    pub(crate) fn with_capability(mut self, capability: bytes::Bytes) -> Self {
        self.capability = Some(capability);
        self
    }

    /// Send the pair `key: value` back with the answer. Answers carry metadata to
    /// callers that sent a context of their own (a deadline or metadata, or a wish for
    /// answer metadata: the Rust clients send one when given
    /// [`CallOptions::answer_metadata_into`]); for any other call this is refused, since
    /// its caller would not read it.
    pub fn set_answer_metadata(
        &self,
        key: impl AsRef<str>,
        value: impl Into<bytes::Bytes>,
    ) -> Result<(), ExtensionError> {
        match &self.answer {
            Some(answer) => answer.insert(key, value),
            None => Err(ExtensionError::NoAnswer),
        }
    }

    /// The same context with a place for answer metadata, which the transport sends
    /// back after the call.
    pub fn with_answer_metadata(mut self, answer: AnswerMetadata) -> Self {
        self.answer = Some(answer);
        self
    }

    /// Where the answer metadata goes, if the call has a place for it.
    #[cfg_attr(not(any(feature = "server", feature = "http")), allow(dead_code))]
    pub(crate) fn answer_slot(&self) -> Option<&AnswerMetadata> {
        self.answer.as_ref()
    }

    /// Run `f` as a call with this context: what [`Context::current`] answers inside
    /// it. The servers do this for every call that carries a context; it is here for
    /// tests and for transports of one's own. The deadline is not enforced by this.
    pub async fn scope<F: Future>(self, f: F) -> F::Output {
        CURRENT.scope(self, f).await
    }
}

/// What the calls made inside [`CallOptions::scope`] carry: a deadline (as a budget
/// from the moment each call is sent) and metadata. A generated client's call is sent
/// with them over every transport that carries a context.
///
/// The budget a call carries is the smallest of this one, the client's default
/// (`ClientConfig::deadline`) and, inside a handler, the time its own call has left
/// less [`PROPAGATION_MARGIN`].
///
/// ```no_run
/// # async fn example(client: &zap_runtime::client::Client) -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use zap_runtime::context::CallOptions;
/// use zap_runtime::Transport;
///
/// let options = CallOptions::new()
///     .deadline_in(Duration::from_millis(2500))
///     .header("request-id", "7f3a")?;
/// let answer = options.scope(client.call(1, b"")).await;
/// # let _ = answer;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    budget: Option<Duration>,
    metadata: Metadata,
    answer: Option<AnswerMetadata>,
}

impl CallOptions {
    /// No deadline, no metadata.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Each call gives up `budget` after it is sent, and says so to the server.
    pub fn deadline_in(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Send the pair `key: value` with each call; refused for a key that is not
    /// `a-z 0-9 - _ .` or past the metadata limits.
    pub fn header(
        mut self,
        key: impl AsRef<str>,
        value: impl Into<bytes::Bytes>,
    ) -> Result<Self, super::ExtensionError> {
        self.metadata.insert(key, value)?;
        Ok(self)
    }

    /// Put the metadata each answer carries back into `answer` (each answer's pairs
    /// replace the last ones). The calls then carry a context even without a deadline
    /// or metadata, which tells a zapc server the caller reads answer metadata.
    pub fn answer_metadata_into(mut self, answer: &AnswerMetadata) -> Self {
        self.answer = Some(answer.clone());
        self
    }

    /// The budget given to [`CallOptions::deadline_in`].
    pub fn budget(&self) -> Option<Duration> {
        self.budget
    }

    /// The metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The options in force here (those of the enclosing [`CallOptions::scope`], or
    /// none) with the budget `budget`: what a retry is sent with, so that it carries what
    /// is left of its call's deadline and the same metadata.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn current_with_budget(budget: Duration) -> CallOptions {
        OUTGOING
            .try_with(CallOptions::clone)
            .unwrap_or_default()
            .deadline_in(budget)
    }

    /// Run `f` with these options applying to every call it makes.
    pub async fn scope<F: Future>(self, f: F) -> F::Output {
        OUTGOING.scope(self, f).await
    }

    /// What a call sent now carries: its budget (the smallest of the scope's, the
    /// client's `default`, and the handled call's time left less the margin) and the
    /// scope's metadata, through `f`; `f` is told too whether the scope reads answer
    /// metadata (then the call carries a context even if empty). Reads two task-locals;
    /// allocates nothing.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn with_outgoing<R>(
        default: Option<Duration>,
        f: impl FnOnce(Option<Duration>, &Metadata, bool) -> R,
    ) -> R {
        let inherited = CURRENT
            .try_with(|c| c.remaining())
            .ok()
            .flatten()
            .map(|left| left.saturating_sub(PROPAGATION_MARGIN));
        let budget = min_some(default, inherited);
        static NONE: Metadata = Metadata::new();
        let mut f = Some(f);
        let scoped = OUTGOING.try_with(|o| {
            f.take().map(|f| {
                let budget = min_some(budget, o.budget);
                match with_trace(&o.metadata) {
                    Some(traced) => f(budget, &traced, o.answer.is_some()),
                    None => f(budget, &o.metadata, o.answer.is_some()),
                }
            })
        });
        match (scoped, f) {
            (Ok(Some(r)), _) => r,
            (_, Some(f)) => match with_trace(&NONE) {
                Some(traced) => f(budget, &traced, false),
                None => f(budget, &NONE, false),
            },
            // `f` was taken only by the scope's call, which answered.
            (_, None) => unreachable!("the scope's call took the closure and answered"),
        }
    }

    /// What a call sent now from this task carries (its budget, metadata with the
    /// trace context, and where answer metadata goes), as options to send it with from
    /// another task; `None` when it carries nothing. The budget is counted again from
    /// when the other task sends it.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn capture(default: Option<Duration>) -> Option<CallOptions> {
        let answer = OUTGOING.try_with(|o| o.answer.clone()).ok().flatten();
        let (budget, metadata) =
            CallOptions::with_outgoing(default, |budget, metadata, _| (budget, metadata.clone()));
        if budget.is_none() && metadata.is_empty() && answer.is_none() {
            return None;
        }
        Some(CallOptions {
            budget,
            metadata,
            answer,
        })
    }

    /// Hand an answer's metadata to the scope that asked for it, if any.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    pub(crate) fn deliver_answer(metadata: Metadata) {
        let _ = OUTGOING.try_with(|o| {
            if let Some(answer) = &o.answer {
                answer.set(metadata);
            }
        });
    }
}

/// `metadata` with the caller's trace context added, when the calling code is inside a
/// trace and `metadata` names none of its own; `None` when nothing is to be added.
fn with_trace(metadata: &Metadata) -> Option<Metadata> {
    use crate::trace::{TRACEPARENT, TRACESTATE};
    if metadata.get(TRACEPARENT).is_some() {
        return None;
    }
    let (parent, state) = crate::trace::outgoing()?;
    let mut traced = metadata.clone();
    traced
        .insert(TRACEPARENT, bytes::Bytes::copy_from_slice(&parent.encode()))
        .ok()?;
    if let Some(state) = state {
        if metadata.get(TRACESTATE).is_none() {
            // A tracestate past the metadata limits is left behind, not the call.
            let _ = traced.insert(TRACESTATE, state);
        }
    }
    Some(traced)
}

fn min_some(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn outgoing_budget_is_the_smallest() {
        let none = CallOptions::with_outgoing(None, |b, m, _| (b, m.len()));
        assert_eq!(none, (None, 0));
        let default = CallOptions::with_outgoing(Some(Duration::from_secs(9)), |b, _, _| b);
        assert_eq!(default, Some(Duration::from_secs(9)));
        let inherited = Context::new()
            .with_budget(Duration::from_secs(2))
            .scope(async {
                tokio::time::advance(Duration::from_millis(500)).await;
                CallOptions::with_outgoing(Some(Duration::from_secs(9)), |b, _, _| b)
            })
            .await;
        assert_eq!(
            inherited,
            Some(Duration::from_millis(1500) - PROPAGATION_MARGIN)
        );
        let scoped = CallOptions::new()
            .deadline_in(Duration::from_millis(100))
            .header("k", "v")
            .unwrap()
            .scope(async {
                CallOptions::with_outgoing(None, |b, m, _| (b, m.get_str("k").map(str::to_owned)))
            })
            .await;
        assert_eq!(scoped, (Some(Duration::from_millis(100)), Some("v".into())));
        // An expired call passes on a zero budget, not none.
        let expired = Context::new()
            .with_budget(Duration::from_millis(1))
            .scope(async {
                tokio::time::advance(Duration::from_millis(10)).await;
                CallOptions::with_outgoing(None, |b, _, _| b)
            })
            .await;
        assert_eq!(expired, Some(Duration::ZERO));
    }

    #[test]
    fn answer_metadata_is_refused_where_no_caller_reads_it_and_past_its_limits() {
        assert_eq!(
            Context::new().set_answer_metadata("k", "v"),
            Err(ExtensionError::NoAnswer)
        );
        let answer = AnswerMetadata::new();
        let context = Context::new().with_answer_metadata(answer.clone());
        for i in 0..super::super::MAX_PAIRS {
            context.set_answer_metadata(format!("k{i}"), "v").unwrap();
        }
        assert!(matches!(
            context.set_answer_metadata("one-more", "v"),
            Err(ExtensionError::TooManyPairs(_))
        ));
        assert_eq!(answer.get().len(), super::super::MAX_PAIRS);
        assert_eq!(answer.take().len(), super::super::MAX_PAIRS);
        assert!(answer.is_empty());
    }

    #[tokio::test]
    async fn current_is_empty_outside_a_call() {
        let c = Context::current();
        assert!(c.deadline().is_none() && c.metadata().is_empty() && !c.is_expired());
    }
}

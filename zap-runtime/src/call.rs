//! The call core: what every transport does with a call once it has decoded one.
//!
//! A transport adapter reads its own framing (a ZAP frame's envelope, a JSON-RPC request
//! object), turns it into a [`Call`] (the method's ordinal, the caller's capability, a
//! pipelining target and the request message) and hands it to [`run`], which
//!
//! 1. **admits** it ([`Admit`]: the server's `authorize` hook, or a transport's own
//!    memory of earlier refusals), before anything else runs, so a refused caller learns
//!    nothing about the method;
//! 2. resolves a **pipelining target** ([`Pipeline`]: the connection's remembered
//!    results on ZAP/TCP; none elsewhere), under the same capability that made it;
//! 3. runs the **service**: `Service::call_owned` for a request cut out of its frame
//!    (the handler may keep it), `Service::call` for a borrowed one.
//!
//! The answer ([`Outcome`]) goes back to the adapter, which encodes it in its own shape
//! (a response frame, a JSON-RPC result or error) and records what it needs. Metrics
//! are not here: they wrap the service itself (`metrics::Metered`), so they see every
//! transport's calls alike. A stream open is admitted by the same [`Admit`].
//!
//! Adding a transport is one adapter: decode into a [`Call`], [`run`] it, encode the
//! [`Outcome`] (`docs/architecture.md`).

// Each transport uses a part: ZAP/TCP shared payloads and pipelining, JSON-RPC neither.
#![cfg_attr(not(all(feature = "server", feature = "jsonrpc")), allow(dead_code))]

use bytes::Bytes;

use tokio::time::{timeout_at, Instant};

use crate::builder::Builder;
use crate::context::Context;
use crate::rpc::{Status, NO_TARGET};
use crate::service::{Authorizer, CallError, Reply, Service};
use crate::shed::LoadLimit;

/// Whether a caller may run a method.
pub(crate) trait Admit {
    /// `Ok` to run method `ordinal` for a caller presenting `cap`; otherwise the status
    /// (401, 403) with the reason written into `why`.
    fn admit(&mut self, cap: &[u8], ordinal: u32, why: &mut String) -> Result<(), Status>;
}

/// The server's hook, or everyone when there is none.
impl Admit for Option<&Authorizer> {
    #[inline]
    fn admit(&mut self, cap: &[u8], ordinal: u32, why: &mut String) -> Result<(), Status> {
        match self {
            Some(gate) => gate.authorize(cap, ordinal, why),
            None => Ok(()),
        }
    }
}

/// A caller the adapter has admitted already (JSON-RPC admits before it reads params).
pub(crate) struct Admitted;

impl Admit for Admitted {
    #[inline]
    fn admit(&mut self, _: &[u8], _: u32, _: &mut String) -> Result<(), Status> {
        Ok(())
    }
}

/// Where a pipelined call's payload comes from: the results of earlier calls.
pub(crate) trait Pipeline {
    /// The caller `cap` was admitted: results made from here on are its own.
    fn admitted(&mut self, cap: &[u8]);
    /// The remembered result of promise `target`, or the status to answer and why.
    fn result(&self, target: u32, why: &mut String) -> Result<&[u8], Status>;
}

/// A transport without pipelining: a call naming a target is refused.
pub(crate) struct NoPipeline;

impl Pipeline for NoPipeline {
    fn admitted(&mut self, _: &[u8]) {}

    fn result(&self, _target: u32, why: &mut String) -> Result<&[u8], Status> {
        why.push_str("promise pipelining is not available on this transport");
        Err(Status::BAD_REQUEST)
    }
}

/// The request message of a call.
pub(crate) enum Payload<'a> {
    /// Cut out of the frame it came in, without a copy: the handler may keep it.
    Shared(Bytes),
    /// Borrowed for the call.
    Borrowed(&'a [u8]),
}

/// One decoded call.
pub(crate) struct Call<'a> {
    pub(crate) ordinal: u32,
    /// The caller's capability (empty for none).
    pub(crate) cap: &'a [u8],
    /// The promise whose result is the payload (`NO_TARGET`: the payload is given).
    pub(crate) target: u32,
    pub(crate) payload: Payload<'a>,
}

/// What became of a call.
pub(crate) enum Outcome {
    /// Not answered by the handler: refused (401, 403), its target unusable (400,
    /// 403), the server over its load limit (503), or its deadline passed before or
    /// while it ran (504: the handler's future is dropped); the reason is in `why`.
    Refused(Status),
    /// Run: the handler's reply (the answer in `out`) or its error.
    Ran(Result<Reply, CallError>),
}

impl Outcome {
    /// The answer's status and body: the handler's message (in `out`), none, or the
    /// reason or error text (written into `why`). One mapping for every transport
    /// that answers in ZAP envelopes.
    #[inline]
    pub(crate) fn answer<'a>(self, out: &'a Builder, why: &'a mut String) -> (Status, &'a [u8]) {
        match self {
            Outcome::Refused(status) => (status, why.as_bytes()),
            Outcome::Ran(Ok(Reply::Message)) => (Status::OK, out.as_bytes()),
            Outcome::Ran(Ok(Reply::Empty)) => (Status::OK, &[]),
            Outcome::Ran(Err(e)) => {
                why.clear();
                e.write_body(why);
                (e.status, why.as_bytes())
            }
        }
    }
}

/// What surrounds a call besides its request: the context it carries (deadline,
/// metadata) and the server's limit on calls in flight. The default, neither, is the
/// path of a call that carries nothing, which costs what it did before either existed.
#[derive(Default)]
pub(crate) struct Around<'a> {
    pub(crate) context: Option<Context>,
    pub(crate) limit: Option<&'a LoadLimit>,
}

/// Admit, resolve the target, run the service; see the module documentation.
#[allow(clippy::too_many_arguments)] // the connection's reused buffers, passed apart
pub(crate) async fn run<S: Service>(
    service: &S,
    admit: &mut impl Admit,
    pipeline: &mut impl Pipeline,
    call: Call<'_>,
    out: &mut Builder,
    why: &mut String,
    around: Around<'_>,
) -> Outcome {
    if let Err(status) = admit_caller(admit, pipeline, call.cap, call.ordinal, why) {
        return Outcome::Refused(status);
    }
    run_admitted(
        service,
        pipeline,
        call.ordinal,
        call.target,
        call.payload,
        out,
        why,
        around,
    )
    .await
}

/// The first half of [`run`]: may the caller presenting `cap` run method `ordinal`?
/// A transport that owns the frame the capability lies in admits first, then cuts the
/// payload out of that frame (no reference count taken) for [`run_admitted`].
pub(crate) fn admit_caller(
    admit: &mut impl Admit,
    pipeline: &mut impl Pipeline,
    cap: &[u8],
    ordinal: u32,
    why: &mut String,
) -> Result<(), Status> {
    admit.admit(cap, ordinal, why)?;
    pipeline.admitted(cap);
    Ok(())
}

/// The second half of [`run`], for a caller [`admit_caller`] admitted: count the call
/// in under the load limit, resolve the target, run the service, within the call's
/// deadline and with its context readable ([`Context::current`]).
#[allow(clippy::too_many_arguments)] // the connection's reused buffers, passed apart
pub(crate) async fn run_admitted<S: Service>(
    service: &S,
    pipeline: &mut impl Pipeline,
    ordinal: u32,
    target: u32,
    payload: Payload<'_>,
    out: &mut Builder,
    why: &mut String,
    around: Around<'_>,
) -> Outcome {
    out.clear();
    let _permit = match around.limit {
        None => None,
        Some(limit) => match limit.enter(ordinal, why) {
            Ok(permit) => Some(permit),
            Err(status) => {
                service.runtime_answered(ordinal, status);
                return Outcome::Refused(status);
            }
        },
    };
    let Some(context) = around.context else {
        return serve(service, pipeline, ordinal, target, payload, out, why).await;
    };
    // The calls that carry a context run boxed: the call's future stays the size of a
    // plain call's (it is moved whole where a transport keeps it), and only these pay
    // for the box.
    let Some(deadline) = context.deadline() else {
        return Box::pin(
            context.scope(serve(service, pipeline, ordinal, target, payload, out, why)),
        )
        .await;
    };
    if deadline <= Instant::now() {
        why.push_str("deadline exceeded: the call's deadline had passed when it arrived");
        service.runtime_answered(ordinal, Status::DEADLINE_EXCEEDED);
        return Outcome::Refused(Status::DEADLINE_EXCEEDED);
    }
    let served = Box::pin(timeout_at(
        deadline,
        context.scope(serve(service, pipeline, ordinal, target, payload, out, why)),
    ))
    .await;
    match served {
        Ok(outcome) => outcome,
        Err(_) => {
            why.clear();
            why.push_str(
                "deadline exceeded: the handler had not answered when the call's deadline passed",
            );
            service.runtime_answered(ordinal, Status::DEADLINE_EXCEEDED);
            Outcome::Refused(Status::DEADLINE_EXCEEDED)
        }
    }
}

/// Resolve the target, run the service.
async fn serve<S: Service>(
    service: &S,
    pipeline: &mut impl Pipeline,
    ordinal: u32,
    target: u32,
    payload: Payload<'_>,
    out: &mut Builder,
    why: &mut String,
) -> Outcome {
    if target != NO_TARGET {
        return match pipeline.result(target, why) {
            Ok(body) => Outcome::Ran(service.call(ordinal, body, out).await),
            Err(status) => Outcome::Refused(status),
        };
    }
    Outcome::Ran(match payload {
        Payload::Shared(payload) => service.call_owned(ordinal, payload, out).await,
        Payload::Borrowed(payload) => service.call(ordinal, payload, out).await,
    })
}

/// `context` with the capability a policy admitted the call with, for layers and
/// handlers to read ([`Context::capability`]), when the service wants it (`wanted`:
/// `Service::CAPABILITY`); `cap` gives the presented `Cap` field, `None` when the server
/// has no policy, and is not asked otherwise. Unchanged for a call that presented none.
pub(crate) fn with_capability(
    context: Option<Context>,
    wanted: bool,
    cap: impl FnOnce() -> Option<Bytes>,
) -> Option<Context> {
    if !wanted {
        return context;
    }
    match cap() {
        Some(cap) if !cap.is_empty() => Some(context.unwrap_or_default().with_capability(cap)),
        _ => context,
    }
}

/// The context a ZAP call carries after its envelope (`frame[envelope]`: the envelope
/// message, then, if the frame is longer than the message says, a call context
/// extension; see [`crate::context`]). `None` when there is none, which is the cost of
/// a call without one: one comparison. The deadline starts counting now.
pub(crate) fn context_after(
    frame: &Bytes,
    envelope: core::ops::Range<usize>,
) -> Result<Option<Context>, crate::context::ExtensionError> {
    let bytes = &frame[envelope.clone()];
    let Some(size) = crate::context::after_envelope(bytes) else {
        return Ok(None);
    };
    extension_context(frame, envelope.start + size, &bytes[size..]).map(Some)
}

/// The [`Context`] of an extension that lies in `frame` at `base`.
#[cold]
fn extension_context(
    frame: &Bytes,
    base: usize,
    bytes: &[u8],
) -> Result<Context, crate::context::ExtensionError> {
    let extension = crate::context::Extension::parse(bytes)?;
    // A caller that sends a context reads the metadata its answer carries back.
    let mut context = Context::new().with_answer_metadata(crate::context::AnswerMetadata::new());
    if let Some(budget) = extension.budget() {
        // A budget past what the clock can say is no deadline at all.
        if let Some(deadline) = Instant::now().checked_add(budget) {
            context = context.with_deadline(deadline);
        }
    }
    if !extension.is_empty() {
        context = context.with_metadata(crate::context::Metadata::from_extension(
            &extension, frame, base,
        ));
    }
    Ok(context)
}

/// Why a stream open is refused before its handler runs: the status and the reason.
pub(crate) type StreamRefusal = (Status, String);

/// The checks every transport makes of a stream open (dir 3 on ZAP/TCP, op 2 on QUIC,
/// a subscription over WebSocket): the method exists and is a stream, the open names
/// no pipelining target, the caller is admitted. The method, or the refusal.
pub(crate) fn admit_stream<S: Service>(
    admit: &mut impl Admit,
    ordinal: u32,
    target: u32,
    cap: &[u8],
) -> Result<&'static crate::service::MethodInfo, StreamRefusal> {
    let found = S::method(ordinal).filter(|m| m.streaming.is_stream());
    let Some(method) = found.or_else(|| crate::builtin::stream_method(ordinal)) else {
        return Err((
            Status::NOT_FOUND,
            format!("{} has no stream method with ordinal {ordinal}", S::NAME),
        ));
    };
    if target != NO_TARGET {
        return Err((
            Status::BAD_REQUEST,
            "a stream cannot be pipelined on a result (Target must be 0)".into(),
        ));
    }
    let mut why = String::new();
    admit
        .admit(cap, ordinal, &mut why)
        .map_err(|status| (status, why))?;
    Ok(method)
}

/// Run a stream's handler to its end, within the stream's deadline and with its
/// context readable, then end the stream with the handler's outcome (unless the
/// handler ended it itself): a plain end for success, the error's status and text
/// otherwise (504 for a deadline that passed). The outcome, for the transport's log.
pub(crate) async fn run_stream<S: Service>(
    service: std::sync::Arc<S>,
    ordinal: u32,
    open: Bytes,
    mut io: crate::stream::StreamIo,
    context: Option<Context>,
) -> Result<(), CallError> {
    let end = io.end_handle();
    let handler = std::sync::Arc::clone(&service).stream(ordinal, open, io);
    let result = match context {
        None => handler.await,
        Some(context) => match context.deadline() {
            None => context.scope(handler).await,
            Some(deadline) => match timeout_at(deadline, context.scope(handler)).await {
                Ok(result) => result,
                Err(_) => {
                    service.runtime_answered(ordinal, Status::DEADLINE_EXCEEDED);
                    Err(CallError::new(
                        Status::DEADLINE_EXCEEDED,
                        "deadline exceeded: the stream's deadline passed",
                    ))
                }
            },
        },
    };
    match &result {
        Ok(()) => end.end(None),
        Err(e) => {
            let mut text = String::new();
            e.write_body(&mut text);
            end.end(Some((e.status, &text)));
        }
    }
    result
}

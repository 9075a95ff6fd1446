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

use crate::builder::Builder;
use crate::rpc::{Status, NO_TARGET};
use crate::service::{Authorizer, CallError, Reply, Service};

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
    /// Not run: refused (401, 403) or its target unusable (400, 403); the reason is in
    /// `why`.
    Refused(Status),
    /// Run: the handler's reply (the answer in `out`) or its error.
    Ran(Result<Reply, CallError>),
}

/// Admit, resolve the target, run the service; see the module documentation.
pub(crate) async fn run<S: Service>(
    service: &S,
    admit: &mut impl Admit,
    pipeline: &mut impl Pipeline,
    call: Call<'_>,
    out: &mut Builder,
    why: &mut String,
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

/// The second half of [`run`], for a caller [`admit_caller`] admitted: resolve the
/// target, run the service.
pub(crate) async fn run_admitted<S: Service>(
    service: &S,
    pipeline: &mut impl Pipeline,
    ordinal: u32,
    target: u32,
    payload: Payload<'_>,
    out: &mut Builder,
    why: &mut String,
) -> Outcome {
    out.clear();
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

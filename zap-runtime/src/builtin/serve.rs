//! The server's side of the built-in methods: what the ZAP/TCP and QUIC adapters run
//! for a reserved ordinal, after admitting the caller as for any call.

use bytes::Bytes;

use super::{description, health_of, HealthRequest, HealthResponse, HEALTH_CHECK, HEALTH_WATCH};
use crate::builder::Builder;
use crate::service::{CallError, Reply, Service};
use crate::shutdown::Readiness;
use crate::stream::StreamIo;
use crate::zap_struct::ZapStruct;

/// Answer a call of reserved ordinal `ordinal` (Describe, Check) into `out`.
#[cold]
pub(crate) fn call<S: Service>(
    ordinal: u32,
    payload: &[u8],
    readiness: &Readiness,
    out: &mut Builder,
) -> Result<Reply, CallError> {
    out.clear();
    match ordinal {
        super::DESCRIBE => {
            description::<S>().encode(out)?;
            Ok(Reply::Message)
        }
        HEALTH_CHECK => {
            let request = request(payload)?;
            let status = health_of::<S>(&request.service, readiness.is_draining());
            HealthResponse {
                status: status as u8,
            }
            .encode(out)?;
            Ok(Reply::Message)
        }
        HEALTH_WATCH => Err(CallError::stream_method("Watch")),
        _ => Err(CallError::unknown_method(S::NAME, ordinal)),
    }
}

/// Whether `ordinal` is a reserved stream method this server runs.
pub(crate) fn is_stream(ordinal: u32) -> bool {
    ordinal == HEALTH_WATCH
}

/// Run a Watch stream: the status now, then at every change, until the stream or the
/// server ends it.
pub(crate) async fn watch<S: Service>(
    readiness: Readiness,
    open: Bytes,
    mut io: StreamIo,
) -> Result<(), CallError> {
    let request = request(&open)?;
    let mut last = None;
    loop {
        // Registered before the state is read, so a change in between is not missed.
        let changed = readiness.changed();
        let status = health_of::<S>(&request.service, readiness.is_draining());
        if last != Some(status) {
            let message = HealthResponse {
                status: status as u8,
            }
            .to_bytes()?;
            if io.outbound.send(&message).await.is_err() {
                return Ok(());
            }
            last = Some(status);
        }
        tokio::select! {
            () = changed => {}
            () = io.outbound.closed() => return Ok(()),
        }
    }
}

/// Mark `readiness` draining when `shutdown` is cancelled; never resolves (run it
/// beside the server's accept loop).
pub(crate) async fn mark_draining(
    readiness: Readiness,
    shutdown: tokio_util::sync::CancellationToken,
) -> std::convert::Infallible {
    shutdown.cancelled().await;
    readiness.set_draining();
    std::future::pending().await
}

/// Admit a call of a reserved ordinal like any call, then answer it.
#[cfg(feature = "quic")]
#[allow(clippy::too_many_arguments)] // the adapter's buffers, passed apart
pub(crate) fn admitted_call<S: Service>(
    admit: &mut impl crate::call::Admit,
    cap: &[u8],
    ordinal: u32,
    payload: &[u8],
    readiness: &Readiness,
    out: &mut Builder,
    why: &mut String,
) -> crate::call::Outcome {
    match admit.admit(cap, ordinal, why) {
        Ok(()) => crate::call::Outcome::Ran(call::<S>(ordinal, payload, readiness, out)),
        Err(status) => crate::call::Outcome::Refused(status),
    }
}

/// Run a stream whose open [`crate::call::admit_stream`] admitted: the health watch for
/// its reserved ordinal, else the service's handler ([`crate::call::run_stream`]).
pub(crate) async fn stream<S: Service>(
    service: std::sync::Arc<S>,
    ordinal: u32,
    open: Bytes,
    mut io: StreamIo,
    context: Option<crate::context::Context>,
    readiness: &Readiness,
) -> Result<(), CallError> {
    if !is_stream(ordinal) {
        return crate::call::run_stream(service, ordinal, open, io, context).await;
    }
    let end = io.end_handle();
    let result = watch::<S>(readiness.clone(), open, io).await;
    match &result {
        Ok(()) => end.end(None),
        Err(e) => end.end(Some((e.status, &e.message))),
    }
    result
}

fn request(payload: &[u8]) -> Result<HealthRequest, CallError> {
    if payload.is_empty() {
        return Ok(HealthRequest::default());
    }
    HealthRequest::decode(payload).map_err(|e| CallError::bad_payload("HealthRequest", e))
}

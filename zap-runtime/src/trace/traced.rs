//! [`Traced`]: a `tracing` span around every call of a service.

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use tracing::field::Empty;
use tracing::Instrument;

use super::{TraceParent, TRACEPARENT};
use crate::builder::Builder;
use crate::context::Context;
use crate::rpc::Status;
use crate::service::{CallError, MethodInfo, Reply, Service};
use crate::stream::StreamIo;

/// A service with a span around every call and stream (see [the module](super)):
/// serve it as the service itself. A service that is counted too can be traced by
/// its [`Metered`](crate::metrics::Metered) wrapper instead
/// (`Metered::traced`), which costs one wrapper less.
///
/// ```
/// # use std::sync::Arc;
/// # fn wrap<S: zap_runtime::Service>(service: Arc<S>) {
/// use zap_runtime::trace::Traced;
///
/// let traced = Arc::new(Traced::new(service, "zap"));
/// # let _ = traced;
/// # }
/// ```
pub struct Traced<S> {
    service: Arc<S>,
    spans: Spans,
}

impl<S: Service> Traced<S> {
    /// `service` with a span per call on the transport named `transport`: `zap`
    /// (ZAP/TCP), `quic`, `unix`, `http`, `ws` or `ipc` (JSON-RPC ones say
    /// `rpc.system = "jsonrpc"`), or a name of one's own.
    pub fn new(service: Arc<S>, transport: &'static str) -> Self {
        Traced {
            service,
            spans: Spans::new::<S>(transport),
        }
    }
}

impl<S> Traced<S> {
    /// The service inside.
    pub fn service(&self) -> &Arc<S> {
        &self.service
    }
}

impl<S> std::fmt::Debug for Traced<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("transport", &self.spans.transport)
            .finish_non_exhaustive()
    }
}

/// What the spans of one service on one transport say, made once.
#[derive(Debug)]
pub(crate) struct Spans {
    transport: &'static str,
    system: &'static str,
    network: &'static str,
    /// `Service/method` of each method, by position in `S::METHODS`.
    names: Box<[String]>,
}

impl Spans {
    pub(crate) fn new<S: Service>(transport: &'static str) -> Spans {
        let (system, network) = match transport {
            "http" | "ws" => ("jsonrpc", "tcp"),
            "ipc" => ("jsonrpc", "unix"),
            "quic" => ("zap", "quic"),
            "unix" => ("zap", "unix"),
            _ => ("zap", "tcp"),
        };
        let names = S::METHODS
            .iter()
            .map(|m| {
                let name = if system == "jsonrpc" {
                    m.json_name
                } else {
                    m.name
                };
                format!("{}/{name}", S::NAME)
            })
            .collect();
        Spans {
            transport,
            system,
            network,
            names,
        }
    }

    /// The server span of a call (or stream) of method `ordinal` of `S`, its parent
    /// the caller's span when the call names one.
    pub(crate) fn span<S: Service>(&self, ordinal: u32, stream: bool) -> tracing::Span {
        let (name, full) = match crate::service::method_index(S::METHODS, ordinal) {
            Some(i) => {
                let m = &S::METHODS[i];
                let name = if self.system == "jsonrpc" {
                    m.json_name
                } else {
                    m.name
                };
                (name, self.names[i].as_str())
            }
            None => ("unknown", "unknown"),
        };
        let span = tracing::info_span!(
            target: "zap_runtime::trace",
            "rpc",
            otel.name = full,
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            rpc.system = self.system,
            rpc.service = S::NAME,
            rpc.method = name,
            network.transport = self.network,
            network.peer.address = Empty,
            network.peer.port = Empty,
            zap.transport = self.transport,
            zap.stream = Empty,
            rpc.zap.status_code = Empty,
            trace_id = Empty,
            parent_id = Empty,
        );
        if span.is_disabled() {
            return span;
        }
        if stream {
            span.record("zap.stream", true);
        }
        if let Some(peer) = crate::context::peer_addr() {
            span.record("network.peer.address", tracing::field::display(peer.ip()));
            span.record("network.peer.port", u64::from(peer.port()));
        }
        Context::with_current(|context| {
            let parent = context
                .metadata()
                .get(TRACEPARENT)
                .and_then(TraceParent::parse)?;
            #[cfg(feature = "otel")]
            if super::otel::set_remote_parent(
                &span,
                &parent,
                context.metadata().get(super::TRACESTATE),
            ) {
                // The parent is the OpenTelemetry span's own; no need to repeat it.
                return Some(());
            }
            span.record("trace_id", parent.trace_id_hex());
            span.record("parent_id", parent.parent_id_hex());
            Some(())
        });
        span
    }
}

pin_project_lite::pin_project! {
    /// A call inside its span: the span is entered while the call is polled, and the
    /// answer's status recorded on it. (A hand-written future: the call is moved into
    /// it once, where an `async` block would move it twice.)
    pub(crate) struct InSpan<F> {
        #[pin]
        call: F,
        span: tracing::Span,
    }
}

impl<F> InSpan<F> {
    pub(crate) fn new(call: F, span: tracing::Span) -> Self {
        InSpan { call, span }
    }
}

impl<F: Future<Output = Result<Reply, CallError>>> Future for InSpan<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.project();
        let answer = {
            let _entered = this.span.enter();
            std::task::ready!(this.call.poll(cx))
        };
        let status = answer.as_ref().err().map_or(Status::OK, |e| e.status);
        record_status(this.span, status, answer.as_ref().err());
        std::task::Poll::Ready(answer)
    }
}

/// A stream's run inside its span, its end's status recorded.
pub(crate) async fn traced_stream<F>(stream: F, span: tracing::Span) -> Result<(), CallError>
where
    F: Future<Output = Result<(), CallError>>,
{
    let ended = stream.instrument(span.clone()).await;
    let status = ended.as_ref().err().map_or(Status::OK, |e| e.status);
    record_status(&span, status, ended.as_ref().err());
    ended
}

/// The answer's status on the span; a server-side failure (500 and up) marks it failed.
fn record_status(span: &tracing::Span, status: Status, error: Option<&CallError>) {
    span.record("rpc.zap.status_code", u64::from(status.0));
    if status.0 >= 500 {
        span.record("otel.status_code", "ERROR");
        if let Some(error) = error {
            span.record("otel.status_description", &*error.message);
        }
    }
}

impl<S: Service> Service for Traced<S> {
    const NAME: &'static str = S::NAME;
    const METHODS: &'static [MethodInfo] = S::METHODS;
    const OPENRPC: Option<&'static str> = S::OPENRPC;
    const PACKAGE: &'static str = S::PACKAGE;
    const SCHEMA: Option<crate::service::EmbeddedSchema> = S::SCHEMA;
    const CAPABILITY: bool = S::CAPABILITY;

    fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        InSpan::new(
            self.service.call(ordinal, payload, out),
            self.spans.span::<S>(ordinal, false),
        )
    }

    fn call_owned<'a>(
        &'a self,
        ordinal: u32,
        payload: Bytes,
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        InSpan::new(
            self.service.call_owned(ordinal, payload, out),
            self.spans.span::<S>(ordinal, false),
        )
    }

    /// A span for the stream's whole life, from the open to its end.
    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: Bytes,
        io: StreamIo,
    ) -> Result<(), CallError> {
        // Made inside the stream's task, where its context is current.
        let span = self.spans.span::<S>(ordinal, true);
        traced_stream(Arc::clone(&self.service).stream(ordinal, open, io), span).await
    }

    fn runtime_answered(&self, ordinal: u32, status: Status) {
        self.service.runtime_answered(ordinal, status);
    }
}

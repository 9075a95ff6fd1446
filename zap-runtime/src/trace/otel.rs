//! OpenTelemetry export of the call spans over OTLP/HTTP (protobuf).
//!
//! [`Otel::start`] makes an exporter (the `opentelemetry-otlp` crate's, posting to
//! `<endpoint>/v1/traces`) behind a bounded queue of its own, and [`Otel::layer`] the
//! `tracing` layer that turns spans into OpenTelemetry spans. A span that ends while
//! the queue is full is dropped and counted ([`Otel::dropped`]); ending a span never
//! waits. A worker thread sends a batch when it has `max_batch` spans or when
//! `interval` has passed since the last one; [`Otel::shutdown`] sends what is queued
//! and stops it (a server calls it after its listeners have drained, on SIGTERM).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use tracing_subscriber::prelude::*;
//! use zap_runtime::trace::otel::{Otel, OtlpConfig};
//!
//! let otel = Otel::start(OtlpConfig::new("http://127.0.0.1:4318", "ledger"))?;
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer())
//!     .with(otel.layer())
//!     .init();
//! // ... serve, with the services wrapped in `zap_runtime::trace::Traced` ...
//! otel.shutdown();
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{
    SdkTracer, SdkTracerProvider, SpanData, SpanExporter, SpanProcessor,
};
use opentelemetry_sdk::Resource;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::TraceParent;

/// Where spans go and how many may wait.
#[derive(Clone, Debug)]
pub struct OtlpConfig {
    /// The collector's OTLP/HTTP base address, `http://host:port` (spans are posted to
    /// `/v1/traces` under it), or the full address of the traces path.
    pub endpoint: String,
    /// The `service.name` of every span.
    pub service_name: String,
    /// Spans that may wait for export; those that end while it is full are dropped.
    pub max_queue: usize,
    /// Spans per request at most.
    pub max_batch: usize,
    /// How long a span waits at most before its batch is sent.
    pub interval: Duration,
    /// How long one export may take.
    pub timeout: Duration,
}

impl OtlpConfig {
    /// Export to `endpoint` as `service_name`: a queue of 2,048 spans, batches of at
    /// most 512 sent at least every second, 10 s per export.
    pub fn new(endpoint: impl Into<String>, service_name: impl Into<String>) -> Self {
        OtlpConfig {
            endpoint: endpoint.into(),
            service_name: service_name.into(),
            max_queue: 2048,
            max_batch: 512,
            interval: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Why export could not start.
#[derive(Debug)]
pub struct OtelError(String);

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OtelError {}

/// The URL spans are posted to: `endpoint` with `/v1/traces` when it names no path;
/// only `http` is spoken (a collector on loopback or a sidecar).
fn traces_url(endpoint: &str) -> Result<http::Uri, OtelError> {
    let uri: http::Uri = endpoint
        .parse()
        .map_err(|e| OtelError(format!("--otlp-endpoint {endpoint:?}: {e}")))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => {
            return Err(OtelError(format!(
                "--otlp-endpoint {endpoint:?}: the {other:?} scheme is not supported; \
                 give an http:// address (a collector on loopback or a sidecar)"
            )))
        }
        None => {
            return Err(OtelError(format!(
                "--otlp-endpoint {endpoint:?}: give the scheme too, as in http://127.0.0.1:4318"
            )))
        }
    }
    if uri.host().is_none() {
        return Err(OtelError(format!(
            "--otlp-endpoint {endpoint:?} names no host"
        )));
    }
    if uri.query().is_some() {
        return Err(OtelError(format!(
            "--otlp-endpoint {endpoint:?}: a query is not supported"
        )));
    }
    let path = uri.path();
    if path.is_empty() || path == "/" {
        let base = endpoint.trim_end_matches('/');
        return format!("{base}/v1/traces")
            .parse()
            .map_err(|e| OtelError(format!("--otlp-endpoint {endpoint:?}: {e}")));
    }
    Ok(uri)
}

/// Spans exported to an OTLP/HTTP collector: the `tracing` layer, the counts, and the
/// flush at shutdown.
pub struct Otel {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    counts: Arc<Counts>,
}

impl fmt::Debug for Otel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Otel")
            .field("exported", &self.exported())
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

impl Otel {
    /// Start the exporter's worker thread. Nothing is sent until spans end.
    pub fn start(config: OtlpConfig) -> Result<Otel, OtelError> {
        let url = traces_url(&config.endpoint)?;
        if config.max_queue == 0 || config.max_batch == 0 {
            return Err(OtelError(
                "the span queue and batch need room for one span".into(),
            ));
        }
        let resource = Resource::builder()
            .with_service_name(config.service_name.clone())
            .build();
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(HyperClient)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url.to_string())
            .with_timeout(config.timeout)
            .build()
            .map_err(|e| OtelError(format!("OTLP exporter: {e}")))?;
        exporter.set_resource(&resource);
        let counts = Arc::new(Counts::default());
        let processor = BoundedBatch::start(exporter, &config, counts.clone())?;
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(resource)
            .build();
        let tracer = provider.tracer("zap-runtime");
        Ok(Otel {
            provider,
            tracer,
            counts,
        })
    }

    /// The `tracing` layer that records spans for export; add it to the subscriber.
    pub fn layer<S>(&self) -> tracing_opentelemetry::OpenTelemetryLayer<S, SdkTracer>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.tracer.clone())
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_location(false)
    }

    /// Spans posted and acknowledged by the collector.
    pub fn exported(&self) -> u64 {
        self.counts.exported.load(Ordering::Relaxed)
    }

    /// Spans dropped: ended while the queue was full, or in a batch the collector
    /// refused or did not answer in time.
    pub fn dropped(&self) -> u64 {
        self.counts.dropped.load(Ordering::Relaxed)
    }

    /// The counters behind [`Otel::exported`] and [`Otel::dropped`], to register with
    /// [`Metrics::register_counter`](crate::metrics::Metrics::register_counter).
    pub fn counters(&self) -> (Arc<AtomicU64>, Arc<AtomicU64>) {
        (self.counts.exported.clone(), self.counts.dropped.clone())
    }

    /// Send every queued span and stop the worker (blocks until the last export is
    /// answered or times out). Spans that end afterwards are dropped.
    pub fn shutdown(&self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!("OpenTelemetry export did not finish cleanly: {e}");
        }
    }
}

/// What the worker counted.
#[derive(Default, Debug)]
struct Counts {
    exported: Arc<AtomicU64>,
    dropped: Arc<AtomicU64>,
}

/// What the worker is told.
enum Message {
    Span(Box<SpanData>),
    /// Send what is queued, then answer.
    Flush(mpsc::SyncSender<OTelSdkResult>),
    /// Send what is queued, answer, and stop.
    Stop(mpsc::SyncSender<OTelSdkResult>),
}

/// A span processor with a bounded queue that never waits: a span that ends while
/// `max_queue` spans wait is dropped and counted. (The SDK's batch processor drops
/// too, but keeps the count to itself.)
struct BoundedBatch {
    sender: mpsc::Sender<Message>,
    queued: Arc<AtomicUsize>,
    max_queue: usize,
    counts: Arc<Counts>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl fmt::Debug for BoundedBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedBatch")
            .field("max_queue", &self.max_queue)
            .finish_non_exhaustive()
    }
}

impl BoundedBatch {
    fn start<E: SpanExporter + 'static>(
        exporter: E,
        config: &OtlpConfig,
        counts: Arc<Counts>,
    ) -> Result<BoundedBatch, OtelError> {
        let (sender, receiver) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        // The exporter's HTTP client runs on a runtime of the worker's own, so export
        // needs nothing of the application's runtime and never runs on its threads.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| OtelError(format!("OpenTelemetry export runtime: {e}")))?;
        let worker = Worker {
            exporter,
            receiver,
            queued: queued.clone(),
            counts: counts.clone(),
            max_batch: config.max_batch,
            interval: config.interval,
            runtime,
            batch: Vec::with_capacity(config.max_batch),
        };
        let worker = std::thread::Builder::new()
            .name("zap-otel-export".into())
            .spawn(move || worker.run())
            .map_err(|e| OtelError(format!("OpenTelemetry export thread: {e}")))?;
        Ok(BoundedBatch {
            sender,
            queued,
            max_queue: config.max_queue,
            counts,
            worker: Mutex::new(Some(worker)),
        })
    }

    fn ask(
        &self,
        make: fn(mpsc::SyncSender<OTelSdkResult>) -> Message,
        timeout: Duration,
    ) -> OTelSdkResult {
        let (answer, answered) = mpsc::sync_channel(1);
        self.sender
            .send(make(answer))
            .map_err(|_| OTelSdkError::AlreadyShutdown)?;
        answered
            .recv_timeout(timeout)
            .map_err(|_| OTelSdkError::Timeout(timeout))?
    }
}

impl SpanProcessor for BoundedBatch {
    fn on_start(&self, _span: &mut opentelemetry_sdk::trace::Span, _cx: &opentelemetry::Context) {}

    fn on_end(&self, span: SpanData) {
        if !span.span_context.is_sampled() {
            return;
        }
        if self.queued.fetch_add(1, Ordering::AcqRel) >= self.max_queue {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if self.sender.send(Message::Span(Box::new(span))).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.ask(Message::Flush, Duration::from_secs(30))
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        let answer = self.ask(Message::Stop, timeout);
        if let Some(worker) = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take() {
            if answer.is_ok() {
                let _ = worker.join();
            }
        }
        answer
    }
}

/// The export thread: gathers spans into batches and posts them.
struct Worker<E> {
    exporter: E,
    receiver: mpsc::Receiver<Message>,
    queued: Arc<AtomicUsize>,
    counts: Arc<Counts>,
    max_batch: usize,
    interval: Duration,
    runtime: tokio::runtime::Runtime,
    batch: Vec<SpanData>,
}

impl<E: SpanExporter> Worker<E> {
    fn run(mut self) {
        let mut due = Instant::now() + self.interval;
        loop {
            let wait = due.saturating_duration_since(Instant::now());
            match self.receiver.recv_timeout(wait) {
                Ok(Message::Span(span)) => {
                    self.queued.fetch_sub(1, Ordering::AcqRel);
                    self.batch.push(*span);
                    if self.batch.len() >= self.max_batch {
                        // A failed export is counted and logged by `send`.
                        let _ = self.send();
                        due = Instant::now() + self.interval;
                    }
                }
                Ok(Message::Flush(answer)) => {
                    let _ = answer.send(self.drain());
                    due = Instant::now() + self.interval;
                }
                Ok(Message::Stop(answer)) => {
                    let flushed = self.drain();
                    let _ = self.exporter.shutdown();
                    let _ = answer.send(flushed);
                    return;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.send();
                    due = Instant::now() + self.interval;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let _ = self.send();
                    return;
                }
            }
        }
    }

    /// Take in every span already queued, then send them all.
    fn drain(&mut self) -> OTelSdkResult {
        let mut result = Ok(());
        while let Ok(message) = self.receiver.try_recv() {
            match message {
                Message::Span(span) => {
                    self.queued.fetch_sub(1, Ordering::AcqRel);
                    self.batch.push(*span);
                    if self.batch.len() >= self.max_batch {
                        result = result.and(self.send());
                    }
                }
                Message::Flush(answer) | Message::Stop(answer) => {
                    let _ = answer.send(Ok(()));
                }
            }
        }
        result.and(self.send())
    }

    fn send(&mut self) -> OTelSdkResult {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(self.max_batch));
        let spans = batch.len() as u64;
        let result = self.runtime.block_on(self.exporter.export(batch));
        match &result {
            Ok(()) => self.counts.exported.fetch_add(spans, Ordering::Relaxed),
            Err(e) => {
                tracing::warn!(target: "zap_runtime::trace::otel", "{spans} spans not exported: {e}");
                self.counts.dropped.fetch_add(spans, Ordering::Relaxed)
            }
        };
        result
    }
}

/// The exporter's HTTP client: one HTTP/1.1 request per batch over a new connection,
/// on the export thread's runtime; answers past 64 KiB are refused.
#[derive(Debug, Clone, Copy)]
struct HyperClient;

const MAX_ANSWER: usize = 64 << 10;

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for HyperClient {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, opentelemetry_http::HttpError> {
        use http_body_util::{BodyExt, Full, Limited};
        let uri = request.uri().clone();
        let host = uri.host().ok_or("the endpoint names no host")?;
        let port = uri.port_u16().unwrap_or(80);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let stream = tokio::net::TcpStream::connect((host, port)).await?;
        stream.set_nodelay(true)?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
        let driver = tokio::spawn(connection);
        let (mut parts, body) = request.into_parts();
        if !parts.headers.contains_key(http::header::HOST) {
            let authority = uri.authority().map(|a| a.as_str()).unwrap_or(host);
            parts
                .headers
                .insert(http::header::HOST, http::HeaderValue::from_str(authority)?);
        }
        // The request line names the path; the authority went into Host.
        parts.uri = uri.path_and_query().map_or("/", |p| p.as_str()).parse()?;
        let answer = sender
            .send_request(http::Request::from_parts(parts, Full::new(body)))
            .await?;
        let (parts, body) = answer.into_parts();
        let body = Limited::new(body, MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| format!("the collector's answer: {e}"))?
            .to_bytes();
        driver.abort();
        Ok(http::Response::from_parts(parts, body))
    }
}

/// Make `parent` (with its `tracestate`) the parent of `span`; `false` when no
/// OpenTelemetry layer records the span.
pub(crate) fn set_remote_parent(
    span: &tracing::Span,
    parent: &TraceParent,
    state: Option<&[u8]>,
) -> bool {
    let state = state
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.parse::<TraceState>().ok())
        .unwrap_or_default();
    let remote = SpanContext::new(
        TraceId::from_bytes(parent.trace_id),
        SpanId::from_bytes(parent.parent_id),
        TraceFlags::new(parent.flags),
        true,
        state,
    );
    let context = opentelemetry::Context::new().with_remote_span_context(remote);
    span.set_parent(context).is_ok()
}

/// The current span's OpenTelemetry context, if it is inside a trace.
pub(crate) fn current_span_context() -> Option<(TraceParent, Option<Bytes>)> {
    let current = tracing::Span::current();
    if current.is_none() {
        return None;
    }
    let context = current.context();
    let span = context.span();
    let found = span.span_context();
    if !found.is_valid() {
        return None;
    }
    let parent = TraceParent {
        trace_id: found.trace_id().to_bytes(),
        parent_id: found.span_id().to_bytes(),
        flags: found.trace_flags().to_u8(),
    };
    let state = found.trace_state().header();
    Some((parent, (!state.is_empty()).then(|| Bytes::from(state))))
}

/// A generated client's call inside a client span, when the caller is inside a span.
pub(crate) fn client_call<F: std::future::Future>(
    service: &'static str,
    method: &'static str,
    call: F,
) -> futures_util::future::Either<F, tracing::instrument::Instrumented<F>> {
    use futures_util::future::Either;
    if tracing::Span::current().is_none() {
        return Either::Left(call);
    }
    let span = tracing::info_span!(
        target: "zap_runtime::trace",
        "rpc",
        otel.name = format_args!("{service}/{method}").to_string(),
        otel.kind = "client",
        rpc.system = "zap",
        rpc.service = service,
        rpc.method = method,
    );
    if span.is_disabled() {
        return Either::Left(call);
    }
    Either::Right(call.instrument(span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::Tracer;

    /// An exporter that holds its first export until told, so the queue fills.
    #[derive(Debug)]
    struct Held {
        entered: mpsc::SyncSender<()>,
        release: Arc<Mutex<mpsc::Receiver<()>>>,
        spans: Arc<AtomicU64>,
    }

    impl SpanExporter for Held {
        async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
            let _ = self.entered.try_send(());
            let _ = self.release.lock().unwrap().recv();
            self.spans.fetch_add(batch.len() as u64, Ordering::Relaxed);
            Ok(())
        }
    }

    #[test]
    fn a_full_queue_drops_and_counts_and_never_waits() {
        let (entered, in_export) = mpsc::sync_channel(1);
        let (release, released) = mpsc::channel();
        let spans = Arc::new(AtomicU64::new(0));
        let exporter = Held {
            entered,
            release: Arc::new(Mutex::new(released)),
            spans: spans.clone(),
        };
        let mut config = OtlpConfig::new("http://127.0.0.1:4318", "test");
        config.max_queue = 4;
        config.max_batch = 1;
        let counts = Arc::new(Counts::default());
        let processor = BoundedBatch::start(exporter, &config, counts.clone()).unwrap();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .build();
        let tracer = provider.tracer("test");
        tracer.in_span("first", |_| {});
        // The worker is now inside the first export, and takes no more spans.
        in_export.recv().unwrap();
        for _ in 0..10 {
            tracer.in_span("more", |_| {});
        }
        assert_eq!(
            counts.dropped.load(Ordering::Relaxed),
            6,
            "4 wait, 6 dropped"
        );
        for _ in 0..5 {
            release.send(()).unwrap();
        }
        provider.shutdown().unwrap();
        assert_eq!(
            spans.load(Ordering::Relaxed),
            5,
            "the first and the 4 queued"
        );
        assert_eq!(counts.exported.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn the_endpoint_gets_the_traces_path_and_only_http_is_spoken() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318").unwrap().to_string(),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector:4318/").unwrap().to_string(),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector/custom/traces")
                .unwrap()
                .to_string(),
            "http://collector/custom/traces"
        );
        for bad in [
            "https://collector",
            "collector:4318",
            "http://c/?a=b",
            "ftp://c",
        ] {
            assert!(traces_url(bad).is_err(), "{bad}");
        }
    }
}

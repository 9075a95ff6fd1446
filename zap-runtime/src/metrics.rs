//! Metrics in the Prometheus text exposition format (version 0.0.4), served by the
//! HTTP server at `GET /metrics` when [`HttpConfig::metrics`](crate::http::HttpConfig)
//! is set; encoded by the `prometheus-client` crate.
//!
//! * **Per method and transport** (labels `service`, `method`, `transport`), recorded
//!   by [`Metered`], a [`Service`] that wraps the real one, one per transport:
//!   `zap_calls_total`, `zap_call_errors_total` (with the answered `status`),
//!   `zap_call_duration_seconds` (a histogram, 10 µs to about 0.3 s in powers of two),
//!   `zap_calls_in_flight`; for stream methods `zap_streams_opened_total`,
//!   `zap_streams_active` and `zap_stream_messages_total` (label `direction`: `in` from
//!   the peer, `out` to it) instead.
//! * **Per server** (label `server`), read from its [`ServerStats`] at scrape time:
//!   `zap_connections_active`, `zap_connections_accepted_total`,
//!   `zap_connections_refused_total`, `zap_received_bytes_total`, `zap_sent_bytes_total`
//!   (application bytes: after TLS decryption, before encryption) and, with the `tls`
//!   feature, `zap_tls_handshakes_total` (label `outcome`: `completed`, `failed`,
//!   `timed_out`).
//!
//! Recording a call touches only the counters made when the [`Metered`] service was
//! built (one set per method), and only the calling thread's own copy of them: each
//! thread counts in slots no other thread writes (a load and a store, no locked
//! instruction, no cache line shared between cores), summed at scrape time. A call
//! counts as started when first polled and as finished when it answers or is dropped
//! (`zap_calls_total`, `zap_calls_in_flight`); one answered at its first poll, as most
//! are, finds the thread's counters once for both. One call
//! in [`DEFAULT_TIME_ONE_IN`] of each method on each thread (the first one included) is
//! timed, with two clock reads (the TSC where usable, by `quanta`), into the duration
//! histogram, whose `_count` is therefore the calls timed: [`Metered::time_one_in`]`(1)`
//! times every call. No lock, no allocation, no label lookup per call. An error looks
//! up its status's counter. Each call also runs in a `tracing` span `call` at
//! DEBUG level with the method, transport, status and duration in microseconds, closed
//! by an `answered` event (so a log shows one line per call): free unless a subscriber
//! enables that level for `zap_runtime::metrics`.
//!
//! ```no_run
//! # async fn demo<S: zap_runtime::Service>(service: S) -> std::io::Result<()> {
//! use std::sync::Arc;
//! use zap_runtime::http::{HttpConfig, HttpServer};
//! use zap_runtime::metrics::{Metered, Metrics};
//! use zap_runtime::server::{CancellationToken, Server, ServerConfig};
//!
//! let metrics = Metrics::new();
//! let service = Arc::new(service);
//! let zap = Server::new(
//!     tokio::net::TcpListener::bind("127.0.0.1:9000").await?,
//!     Arc::new(Metered::new(service.clone(), &metrics, "zap")),
//!     ServerConfig::default(),
//! );
//! metrics.register_server("zap", zap.stats());
//! let http = HttpServer::new(
//!     tokio::net::TcpListener::bind("127.0.0.1:8545").await?,
//!     Arc::new(Metered::new(service, &metrics, "http")),
//!     HttpConfig { metrics: Some(metrics.clone()), ..HttpConfig::default() },
//! );
//! metrics.register_server("http", http.stats());
//! # Ok(()) }
//! ```

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::exemplar::Exemplar;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use tokio_util::either::Either;
use tracing::Instrument as _;

use crate::accept::ServerStats;
use crate::builder::Builder;
use crate::service::{CallError, MethodInfo, Reply, Service};
use crate::sharded::{with_local, Counter as Sharded, Local};
use crate::stream::{StreamCounters, StreamIo};

/// `service`, `method`, `transport`.
type CallLabels = [(&'static str, &'static str); 3];
/// Every metered method's labels and counters.
type CallTable = Arc<Mutex<Vec<(CallLabels, Arc<CallStats>)>>>;
/// The call's labels and its `status`.
type ErrorLabels = (CallLabels, [(&'static str, u32); 1]);

/// Finite duration buckets: 10 µs times 1, 2, 4, ... 2^15 (about 0.33 s); one more
/// counts the longer calls (`+Inf`).
const BUCKETS: usize = 16;
/// The first bucket's upper bound, in nanoseconds.
const FIRST_BOUND_NS: u64 = 10_000;

/// The bucket of a call that took `nanos`: the smallest `i` with
/// `nanos <= FIRST_BOUND_NS << i`, or [`BUCKETS`] for longer ones.
fn bucket(nanos: u64) -> usize {
    let multiples = nanos.div_ceil(FIRST_BOUND_NS);
    if multiples <= 1 {
        return 0;
    }
    ((u64::BITS - (multiples - 1).leading_zeros()) as usize).min(BUCKETS)
}

/// One method's counters on one transport: what a call touches. The per-call ones are
/// kept per thread ([`Sharded`]) and summed at scrape time.
#[derive(Debug)]
struct CallStats {
    started: Sharded,
    finished: Sharded,
    /// Of the timed calls: their total duration and per-bucket (not cumulative)
    /// counts; the last bucket is `+Inf`.
    sum_nanos: Sharded,
    buckets: [Sharded; BUCKETS + 1],
    /// A stream method: its streams are counted below, not as calls.
    is_stream: AtomicBool,
    streams_opened: AtomicU64,
    streams_ended: AtomicU64,
    /// Messages of all its streams, both ways.
    messages: Arc<StreamCounters>,
}

impl CallStats {
    fn new() -> CallStats {
        CallStats {
            started: Sharded::new(),
            finished: Sharded::new(),
            sum_nanos: Sharded::new(),
            buckets: std::array::from_fn(|_| Sharded::new()),
            is_stream: AtomicBool::new(false),
            streams_opened: AtomicU64::new(0),
            streams_ended: AtomicU64::new(0),
            messages: Arc::default(),
        }
    }
}

/// The metrics of one process's servers: clone it into each [`Metered`] service and
/// into the HTTP server's configuration. Clones share everything; two are equal when
/// they are the same metrics.
#[derive(Clone, Debug)]
pub struct Metrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    registry: Registry,
    clock: quanta::Clock,
    calls: CallTable,
    errors: Family<ErrorLabels, Counter>,
    servers: Arc<Mutex<Vec<(&'static str, ServerStats)>>>,
    counters: Arc<Mutex<Vec<Extra>>>,
}

/// A counter kept elsewhere, read at scrape time ([`Metrics::register_counter`]).
type Extra = (&'static str, &'static str, Arc<AtomicU64>);

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl PartialEq for Metrics {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Metrics {}

impl Metrics {
    /// Empty metrics: no service, no server yet.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let calls = Arc::new(Mutex::new(Vec::new()));
        registry.register_collector(Box::new(Calls(calls.clone())));
        let errors = Family::<ErrorLabels, Counter>::default();
        registry.register(
            "zap_call_errors",
            "Calls answered with an error status",
            errors.clone(),
        );
        let servers = Arc::new(Mutex::new(Vec::new()));
        registry.register_collector(Box::new(Servers(servers.clone())));
        let counters = Arc::new(Mutex::new(Vec::new()));
        registry.register_collector(Box::new(Counters(counters.clone())));
        Metrics(Arc::new(Inner {
            registry,
            clock: quanta::Clock::new(),
            calls,
            errors,
            servers,
            counters,
        }))
    }

    /// Report the connection and byte counters of a server (ZAP/TCP or HTTP) as
    /// `server="name"`.
    pub fn register_server(&self, name: &'static str, stats: ServerStats) {
        lock(&self.0.servers).push((name, stats));
    }

    /// Report a counter another part of the process keeps (for example
    /// `cap::Policy::signature_checks`) as `name` (`_total` is added) with `help`, read
    /// when scraped. Registering a name twice reports it twice: register once.
    pub fn register_counter(
        &self,
        name: &'static str,
        help: &'static str,
        counter: Arc<AtomicU64>,
    ) {
        lock(&self.0.counters).push((name, help, counter));
    }

    /// Everything, in the Prometheus text exposition format 0.0.4.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut text, &self.0.registry);
        text
    }

    /// The `Content-Type` of [`encode`](Metrics::encode)'s text.
    pub const CONTENT_TYPE: &'static str = "text/plain; version=0.0.4; charset=utf-8";

    /// The counters of `labels`: the existing ones if a service with the same labels
    /// was metered before (e.g. a restarted server), else new ones.
    fn call_stats(&self, labels: CallLabels) -> Arc<CallStats> {
        let mut calls = lock(&self.0.calls);
        if let Some((_, stats)) = calls.iter().find(|(l, _)| *l == labels) {
            return stats.clone();
        }
        let stats = Arc::new(CallStats::new());
        calls.push((labels, stats.clone()));
        stats
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The per-method counters, encoded at scrape time.
#[derive(Debug)]
struct Calls(CallTable);

impl Collector for Calls {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        // One consistent reading per method: finished calls first, so that `started`
        // read after them is never less.
        let readings: Vec<_> = lock(&self.0)
            .iter()
            .map(|(labels, stats)| {
                let finished = stats.finished.get();
                let buckets: Vec<u64> = stats.buckets.iter().map(|b| b.get()).collect();
                let sum = stats.sum_nanos.get();
                let started = stats.started.get();
                (*labels, buckets, sum, started, finished)
            })
            .collect();
        let count = |buckets: &[u64]| buckets.iter().sum::<u64>();
        self.encode_streams(&mut encoder)?;
        let mut calls =
            encoder.encode_descriptor("zap_calls", "Calls answered", None, MetricType::Counter)?;
        for (labels, _, _, _, finished) in &readings {
            ConstCounter::new(*finished).encode(calls.encode_family(labels)?)?;
        }
        let mut in_flight = encoder.encode_descriptor(
            "zap_calls_in_flight",
            "Calls being answered now",
            None,
            MetricType::Gauge,
        )?;
        for (labels, _, _, started, finished) in &readings {
            let now = started.saturating_sub(*finished);
            ConstGauge::new(now as i64).encode(in_flight.encode_family(labels)?)?;
        }
        let mut duration = encoder.encode_descriptor(
            "zap_call_duration_seconds",
            "Time from the start of a call's handler to its answer (of the calls timed)",
            None,
            MetricType::Histogram,
        )?;
        let bounds: Vec<f64> = (0..BUCKETS)
            .map(|i| (FIRST_BOUND_NS << i) as f64 / 1e9)
            .chain([f64::INFINITY])
            .collect();
        for (labels, buckets, sum, _, _) in &readings {
            let per_bucket: Vec<(f64, u64)> = bounds
                .iter()
                .copied()
                .zip(buckets.iter().copied())
                .collect();
            duration.encode_family(labels)?.encode_histogram(
                *sum as f64 / 1e9,
                count(buckets),
                &per_bucket,
                None::<&std::collections::HashMap<usize, Exemplar<NoLabelSet, f64>>>,
            )?;
        }
        Ok(())
    }
}

impl Calls {
    /// `zap_streams_opened_total`, `zap_streams_active` and `zap_stream_messages_total`
    /// (label `direction`: `in` from the peer, `out` to it), for the stream methods.
    fn encode_streams(&self, encoder: &mut DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let readings: Vec<_> = lock(&self.0)
            .iter()
            .filter(|(_, s)| s.is_stream.load(Ordering::Relaxed))
            .map(|(labels, s)| {
                let ended = s.streams_ended.load(Ordering::Relaxed);
                let opened = s.streams_opened.load(Ordering::Relaxed);
                let messages_in = s.messages.messages_in.load(Ordering::Relaxed);
                let messages_out = s.messages.messages_out.load(Ordering::Relaxed);
                (*labels, opened, ended, messages_in, messages_out)
            })
            .collect();
        if readings.is_empty() {
            return Ok(());
        }
        let mut opened = encoder.encode_descriptor(
            "zap_streams_opened",
            "Streams opened and served",
            None,
            MetricType::Counter,
        )?;
        for (labels, n, ..) in &readings {
            ConstCounter::new(*n).encode(opened.encode_family(labels)?)?;
        }
        let mut active = encoder.encode_descriptor(
            "zap_streams_active",
            "Streams being served now",
            None,
            MetricType::Gauge,
        )?;
        for (labels, opened, ended, ..) in &readings {
            let now = opened.saturating_sub(*ended) as i64;
            ConstGauge::new(now).encode(active.encode_family(labels)?)?;
        }
        let mut messages = encoder.encode_descriptor(
            "zap_stream_messages",
            "Stream messages received (in) and sent (out)",
            None,
            MetricType::Counter,
        )?;
        for (labels, _, _, messages_in, messages_out) in &readings {
            for (direction, n) in [("in", messages_in), ("out", messages_out)] {
                let labels = [labels[0], labels[1], labels[2], ("direction", direction)];
                ConstCounter::new(*n).encode(messages.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}

/// The counters of [`Metrics::register_counter`].
#[derive(Debug)]
struct Counters(Arc<Mutex<Vec<Extra>>>);

impl Collector for Counters {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let readings: Vec<_> = lock(&self.0)
            .iter()
            .map(|(name, help, n)| (*name, *help, n.load(Ordering::Relaxed)))
            .collect();
        for (name, help, n) in readings {
            let counter = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            ConstCounter::new(n).encode(counter)?;
        }
        Ok(())
    }
}

/// Counts a stream as ended when dropped, also when its handler is cancelled.
struct StreamEnded(Arc<CallStats>);

impl Drop for StreamEnded {
    fn drop(&mut self) {
        self.0.streams_ended.fetch_add(1, Ordering::Relaxed);
    }
}

/// The servers' counters, read at scrape time.
#[derive(Debug)]
struct Servers(Arc<Mutex<Vec<(&'static str, ServerStats)>>>);

impl Servers {
    /// One metric family with a value per server.
    fn family<M: EncodeMetric>(
        &self,
        encoder: &mut DescriptorEncoder<'_>,
        name: &str,
        help: &str,
        kind: MetricType,
        value: impl Fn(&ServerStats) -> M,
    ) -> Result<(), std::fmt::Error> {
        let servers = lock(&self.0);
        let mut family = encoder.encode_descriptor(name, help, None, kind)?;
        for (server, stats) in servers.iter() {
            let labels = [("server", *server)];
            value(stats).encode(family.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

impl Collector for Servers {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let counter = MetricType::Counter;
        self.family(
            &mut encoder,
            "zap_connections_active",
            "Connections being served now",
            MetricType::Gauge,
            |s| ConstGauge::new(s.active_connections() as i64),
        )?;
        self.family(
            &mut encoder,
            "zap_connections_accepted",
            "Connections accepted and served",
            counter,
            |s| ConstCounter::new(s.accepted()),
        )?;
        self.family(
            &mut encoder,
            "zap_connections_refused",
            "Connections closed at once because max_connections were open",
            counter,
            |s| ConstCounter::new(s.refused()),
        )?;
        self.family(
            &mut encoder,
            "zap_received_bytes",
            "Bytes read from connections (after TLS decryption)",
            counter,
            |s| ConstCounter::new(s.bytes_in()),
        )?;
        self.family(
            &mut encoder,
            "zap_sent_bytes",
            "Bytes written to connections (before TLS encryption)",
            counter,
            |s| ConstCounter::new(s.bytes_out()),
        )?;
        #[cfg(feature = "tls")]
        {
            let servers = lock(&self.0);
            let mut family = encoder.encode_descriptor(
                "zap_tls_handshakes",
                "TLS handshakes by outcome",
                None,
                counter,
            )?;
            for (server, stats) in servers.iter() {
                let tls = stats.tls();
                for (outcome, n) in [
                    ("completed", tls.completed),
                    ("failed", tls.failed),
                    ("timed_out", tls.timed_out),
                ] {
                    let labels = [("server", *server), ("outcome", outcome)];
                    ConstCounter::new(n).encode(family.encode_family(&labels)?)?;
                }
            }
        }
        Ok(())
    }
}

/// A [`Service`] that records every call of the one it wraps in [`Metrics`], for one
/// transport: serve `Metered::new(service, &metrics, "zap")` on the ZAP/TCP server and
/// `Metered::new(service, &metrics, "http")` on the HTTP server. Calls to ordinals the
/// service does not have are counted as method `unknown`.
#[derive(Debug)]
pub struct Metered<S> {
    service: Arc<S>,
    recorder: Recorder,
    /// One entry per `S::METHODS` entry, in the same order.
    methods: Box<[Entry]>,
    unknown: Entry,
    /// The call spans to open ([`Metered::traced`]), if any.
    spans: Option<crate::trace::Spans>,
    /// The transport's label.
    transport: &'static str,
}

/// A method's labels and counters.
type Entry = (CallLabels, Arc<CallStats>);

/// What recording any call of a [`Metered`] service needs besides its method's entry.
#[derive(Debug)]
struct Recorder {
    metrics: Metrics,
    clock: quanta::Clock,
    /// A call is timed when this thread's count of the method's calls, masked, is 0.
    sample_mask: u64,
}

/// By default one call in this many (per method, per thread) is timed.
pub const DEFAULT_TIME_ONE_IN: u32 = 8;

impl<S: Service> Metered<S> {
    /// Record the calls of `service` made over `transport` (a label value such as
    /// `"zap"` or `"http"`).
    pub fn new(service: Arc<S>, metrics: &Metrics, transport: &'static str) -> Self {
        let method = |name: &'static str| {
            let labels = [
                ("service", S::NAME),
                ("method", name),
                ("transport", transport),
            ];
            (labels, metrics.call_stats(labels))
        };
        Metered {
            service,
            recorder: Recorder {
                metrics: metrics.clone(),
                clock: metrics.0.clock.clone(),
                sample_mask: u64::from(DEFAULT_TIME_ONE_IN - 1),
            },
            methods: S::METHODS
                .iter()
                .map(|m| {
                    let entry = method(m.name);
                    if m.streaming.is_stream() {
                        entry.1.is_stream.store(true, Ordering::Relaxed);
                    }
                    entry
                })
                .collect(),
            unknown: method("unknown"),
            spans: None,
            transport,
        }
    }

    /// Also open a `tracing` span around every call and stream, as
    /// [`Traced`](crate::trace::Traced) does (child of the caller's W3C trace context),
    /// when `on`; without it, or with `on` false, the calls run as they would without.
    pub fn traced(mut self, on: bool) -> Self {
        self.spans = on.then(|| crate::trace::Spans::new::<S>(self.transport));
        self
    }

    /// Time one call in `n` (rounded up to a power of two; 1 times every call) of each
    /// method on each thread, instead of one in [`DEFAULT_TIME_ONE_IN`]: the duration
    /// histogram then counts the calls timed, while `zap_calls_total` and the calls in
    /// flight count every call. Timing takes two clock reads, most of what recording a
    /// call costs; every thread's first call of a method is timed.
    pub fn time_one_in(mut self, n: u32) -> Self {
        self.recorder.sample_mask = u64::from(n.max(1).next_power_of_two() - 1);
        self
    }

    /// The wrapped service.
    pub fn inner(&self) -> &Arc<S> {
        &self.service
    }

    fn method(&self, ordinal: u32) -> &Entry {
        crate::service::method_index(S::METHODS, ordinal)
            .and_then(|i| self.methods.get(i))
            .unwrap_or(&self.unknown)
    }
}

/// Where a call stands in the counts: [`Finish::begin`] counts it started (and maybe
/// reads the clock), [`Finish::end`] counts it finished (and its duration if timed).
/// Dropped between the two, when the call is cancelled, it counts the call finished.
struct Finish<'m> {
    entry: &'m Entry,
    recorder: &'m Recorder,
    /// [`IDLE`] before the call starts and after it is recorded, [`UNTIMED`] while an
    /// untimed call runs, else the clock at the start of a timed one.
    start: u64,
}

/// [`Finish::start`] when there is nothing to record.
const IDLE: u64 = 0;
/// [`Finish::start`] while a call that is not timed runs.
const UNTIMED: u64 = 1;

impl<'m> Finish<'m> {
    fn new(entry: &'m Entry, recorder: &'m Recorder) -> Self {
        Finish {
            entry,
            recorder,
            start: IDLE,
        }
    }

    /// Count the call started, reading the clock if its turn to be timed comes.
    #[inline(always)]
    fn begin(&mut self, local: Local<'_>) {
        let sampled = local.add(self.entry.1.started, 1) & self.recorder.sample_mask == 0;
        self.start = if sampled {
            self.recorder.clock.raw().max(UNTIMED + 1)
        } else {
            UNTIMED
        };
    }

    /// Count the call finished, and its duration if it is timed; nothing if it has not
    /// begun or is recorded already.
    #[inline(always)]
    fn end(&mut self, local: Local<'_>) {
        let start = std::mem::replace(&mut self.start, IDLE);
        if start == IDLE {
            return;
        }
        let stats = &*self.entry.1;
        local.add(stats.finished, 1);
        if start != UNTIMED {
            let clock = &self.recorder.clock;
            let nanos = clock.delta_as_nanos(start, clock.raw());
            local.add(stats.buckets[bucket(nanos)], 1);
            local.add(stats.sum_nanos, nanos);
        }
    }
}

impl Drop for Finish<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.start != IDLE {
            with_local(|local| self.end(local));
        }
    }
}

impl<S: Service> Service for Metered<S> {
    const NAME: &'static str = S::NAME;
    const METHODS: &'static [MethodInfo] = S::METHODS;
    const OPENRPC: Option<&'static str> = S::OPENRPC;
    const PACKAGE: &'static str = S::PACKAGE;
    const SCHEMA: Option<crate::service::EmbeddedSchema> = S::SCHEMA;
    const CAPABILITY: bool = S::CAPABILITY;

    /// Counts the stream (opened, active) and its messages both ways.
    fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: bytes::Bytes,
        mut io: StreamIo,
    ) -> impl Future<Output = Result<(), CallError>> + Send + 'static {
        let stats = Arc::clone(&self.method(ordinal).1);
        stats.streams_opened.fetch_add(1, Ordering::Relaxed);
        io.count_with(Arc::clone(&stats.messages));
        let ended = StreamEnded(stats);
        // Made inside the stream's task, where its context is current.
        let span = self
            .spans
            .as_ref()
            .map(|spans| spans.span::<S>(ordinal, true));
        let stream = Arc::clone(&self.service).stream(ordinal, open, io);
        async move {
            let _ended = ended;
            match span {
                Some(span) => crate::trace::traced_stream(stream, span).await,
                None => stream.await,
            }
        }
    }

    fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        self.counted(ordinal, self.service.call(ordinal, payload, out))
    }

    /// Counted as an error answer with its status (`zap_call_errors_total`).
    fn runtime_answered(&self, ordinal: u32, status: crate::rpc::Status) {
        let labels = (self.method(ordinal).0, [("status", status.0)]);
        self.recorder.metrics.0.errors.get_or_create(&labels).inc();
        self.service.runtime_answered(ordinal, status);
    }

    /// Passes the owned payload on, so that a handler's `<method>_owned` runs behind
    /// the metrics as without them.
    #[inline]
    fn call_owned<'a>(
        &'a self,
        ordinal: u32,
        payload: bytes::Bytes,
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        self.counted(ordinal, self.service.call_owned(ordinal, payload, out))
    }
}

impl<S: Service> Metered<S> {
    /// `call` (the service's future for method `ordinal`), counted.
    #[inline]
    fn counted<'a, F>(
        &'a self,
        ordinal: u32,
        call: F,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a
    where
        F: Future<Output = Result<Reply, CallError>> + Send + 'a,
    {
        let entry = self.method(ordinal);
        if let Some(spans) = &self.spans {
            // A traced call is boxed: its span costs far more than the box.
            let span = spans.span::<S>(ordinal, false);
            if !span.is_disabled() {
                let traced: Boxed<'a> = Box::pin(Counted {
                    call: crate::trace::InSpan::new(call, span),
                    finish: Finish::new(entry, &self.recorder),
                });
                return Either::Right(traced);
            }
        }
        // Unless a subscriber logs calls (DEBUG for this module), the call runs without
        // a span, in a future as small as it can be (it is moved, whole, at least once);
        // the first check is one load of tracing's global level. A logged call is
        // boxed: it writes a log line anyway.
        if tracing::level_enabled!(tracing::Level::DEBUG) {
            let labels = &entry.0;
            let span = tracing::debug_span!(
                "call",
                method = labels[1].1,
                transport = labels[2].1,
                status = tracing::field::Empty,
                duration_us = tracing::field::Empty,
            );
            if !span.is_disabled() {
                let logged: Boxed<'a> = Box::pin(self.logged(span, entry, call));
                return Either::Right(logged);
            }
        }
        Either::Left(Counted {
            call,
            finish: Finish::new(entry, &self.recorder),
        })
    }

    /// A call in its `tracing` span, always timed, closed by an `answered` event.
    async fn logged<'a, F>(
        &'a self,
        span: tracing::Span,
        entry: &'a Entry,
        call: F,
    ) -> Result<Reply, CallError>
    where
        F: Future<Output = Result<Reply, CallError>> + Send + 'a,
    {
        let recorded = span.clone();
        let recorder = &self.recorder;
        async move {
            let began = recorder.clock.raw();
            let mut finish = Finish::new(entry, recorder);
            with_local(|local| finish.begin(local));
            let result = call.await;
            let status = match &result {
                Ok(_) => 200,
                Err(e) => {
                    count_error(&recorder.metrics.0.errors, &entry.0, e);
                    e.status.0
                }
            };
            recorded.record("status", status);
            let nanos = recorder.clock.delta_as_nanos(began, recorder.clock.raw());
            recorded.record("duration_us", nanos / 1000);
            tracing::debug!(parent: &recorded, "answered");
            with_local(|local| finish.end(local));
            result
        }
        .instrument(span)
        .await
    }
}

/// A call that runs in a span of its own, boxed.
type Boxed<'a> = std::pin::Pin<Box<dyn Future<Output = Result<Reply, CallError>> + Send + 'a>>;

/// Count an error answer of the method `labels` under its status.
fn count_error(errors: &Family<ErrorLabels, Counter>, labels: &CallLabels, e: &CallError) {
    let labels = (*labels, [("status", e.status.0)]);
    errors.get_or_create(&labels).inc();
}

pin_project_lite::pin_project! {
    /// A call being counted: the service's own future, and where it stands in the
    /// counts (a hand-written future: smaller, and moved more cheaply, than an `async`
    /// block around the call).
    struct Counted<'m, F> {
        #[pin]
        call: F,
        finish: Finish<'m>,
    }
}

impl<F: Future<Output = Result<Reply, CallError>>> Future for Counted<'_, F> {
    type Output = F::Output;

    /// The first poll counts the call started, and finished too if it is answered at
    /// once (most calls are), under one look-up of this thread's counters.
    #[inline]
    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.project();
        let finish = this.finish;
        let mut call = this.call;
        let poll = if finish.start == IDLE {
            with_local(|local| {
                finish.begin(local);
                let poll = call.as_mut().poll(cx);
                if poll.is_ready() {
                    finish.end(local);
                }
                poll
            })
        } else {
            let poll = call.poll(cx);
            if poll.is_ready() {
                with_local(|local| finish.end(local));
            }
            poll
        };
        let result = std::task::ready!(poll);
        if let Err(e) = &result {
            count_error(&finish.recorder.metrics.0.errors, &finish.entry.0, e);
        }
        std::task::Poll::Ready(result)
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::task::{Context, Poll};

    use super::{bucket, Metered, Metrics, BUCKETS, FIRST_BOUND_NS};
    use crate::{Builder, CallError, MethodInfo, Reply, Service};

    /// Answers with the length of the payload, and says which way it was handed over.
    struct Which;

    impl Which {
        fn answer(out: &mut Builder, owned: bool, len: usize) -> Result<Reply, CallError> {
            let mut answer = out.start_object(16);
            answer.set_u64(0, u64::from(owned));
            answer.set_u64(8, len as u64);
            answer.finish_message()?;
            Ok(Reply::Message)
        }
    }

    impl Service for Which {
        const NAME: &'static str = "Which";
        const METHODS: &'static [MethodInfo] = &[];

        async fn call<'a>(
            &'a self,
            _: u32,
            payload: &'a [u8],
            out: &'a mut Builder,
        ) -> Result<Reply, CallError> {
            Which::answer(out, false, payload.len())
        }

        async fn call_owned<'a>(
            &'a self,
            _: u32,
            payload: bytes::Bytes,
            out: &'a mut Builder,
        ) -> Result<Reply, CallError> {
            Which::answer(out, true, payload.len())
        }
    }

    /// The metrics wrapper hands an owned payload on as owned (a handler's
    /// `<method>_owned` runs behind it), and a borrowed one as borrowed.
    #[tokio::test]
    async fn metered_calls_keep_the_way_the_payload_was_handed_over() {
        let metrics = Metrics::new();
        let metered = Metered::new(std::sync::Arc::new(Which), &metrics, "test");
        let mut out = Builder::new();
        let read = |out: &Builder| {
            let root = crate::Message::parse(out.as_bytes()).unwrap().root();
            (root.u64(0), root.u64(8))
        };
        metered
            .call_owned(1, bytes::Bytes::from_static(b"four"), &mut out)
            .await
            .unwrap();
        assert_eq!(read(&out), (1, 4));
        out.clear();
        metered.call(1, b"three", &mut out).await.unwrap();
        assert_eq!(read(&out), (0, 5));
        assert!(metrics.encode().contains("zap_calls_total"));
    }

    /// Answers method 3 at once; waits once (returns `Pending` on its first poll), then
    /// answers method 1 with an empty body and any other with an error.
    struct WaitsOnce;

    impl Service for WaitsOnce {
        const NAME: &'static str = "WaitsOnce";
        const METHODS: &'static [MethodInfo] = &[];

        async fn call<'a>(
            &'a self,
            ordinal: u32,
            _: &'a [u8],
            _: &'a mut Builder,
        ) -> Result<Reply, CallError> {
            if ordinal == 3 {
                return Ok(Reply::Empty);
            }
            let mut waited = false;
            std::future::poll_fn(|_| {
                if std::mem::replace(&mut waited, true) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            match ordinal {
                1 => Ok(Reply::Empty),
                n => Err(CallError::unknown_method(Self::NAME, n)),
            }
        }
    }

    /// The value of the sample `name` of method `unknown` on transport `test`.
    fn sample(metrics: &Metrics, name: &str) -> f64 {
        let prefix = format!("{name}{{service=\"WaitsOnce\",method=\"unknown\",transport=\"test\"");
        let text = metrics.encode();
        let line = text
            .lines()
            .find(|line| line.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    fn poll<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(std::task::Waker::noop()))
    }

    /// A call counts from its first poll: in flight while it waits, answered (and
    /// timed) when it ends, also when it is dropped unanswered; a call never polled
    /// counts nothing.
    #[test]
    fn a_call_is_in_flight_from_its_first_poll_to_its_end_or_its_cancellation() {
        let metrics = Metrics::new();
        let metered = Metered::new(std::sync::Arc::new(WaitsOnce), &metrics, "test").time_one_in(1);
        let mut out = Builder::new();
        let counts = |metrics: &Metrics| {
            (
                sample(metrics, "zap_calls_in_flight"),
                sample(metrics, "zap_calls_total"),
                sample(metrics, "zap_call_duration_seconds_count"),
            )
        };

        drop(metered.call(1, b"", &mut out));
        assert_eq!(counts(&metrics), (0.0, 0.0, 0.0), "never polled");

        let mut call = std::pin::pin!(metered.call(1, b"", &mut out));
        assert!(poll(call.as_mut()).is_pending());
        assert_eq!(counts(&metrics), (1.0, 0.0, 0.0), "waiting");
        assert!(matches!(poll(call.as_mut()), Poll::Ready(Ok(Reply::Empty))));
        assert_eq!(counts(&metrics), (0.0, 1.0, 1.0), "answered");

        let mut out = Builder::new();
        let mut cancelled = Box::pin(metered.call(1, b"", &mut out));
        assert!(poll(cancelled.as_mut()).is_pending());
        assert_eq!(counts(&metrics), (1.0, 1.0, 1.0), "waiting again");
        drop(cancelled);
        assert_eq!(counts(&metrics), (0.0, 2.0, 2.0), "cancelled");

        let mut out = Builder::new();
        let mut failed = std::pin::pin!(metered.call(7, b"", &mut out));
        assert!(poll(failed.as_mut()).is_pending());
        assert!(matches!(poll(failed.as_mut()), Poll::Ready(Err(_))));
        assert_eq!(counts(&metrics), (0.0, 3.0, 3.0), "answered with an error");
        let errors = metrics.encode();
        assert!(
            errors
                .lines()
                .any(|line| line.starts_with("zap_call_errors_total{")
                    && line.contains("method=\"unknown\"")
                    && line.ends_with(" 1")),
            "{errors}"
        );
    }

    /// Calls answered at their first poll count as started and answered; by default
    /// the first call of a method on a thread is timed, then one in 8.
    #[test]
    fn one_call_in_eight_is_timed_by_default() {
        let metrics = Metrics::new();
        let metered = Metered::new(std::sync::Arc::new(WaitsOnce), &metrics, "test");
        let mut out = Builder::new();
        for _ in 0..17 {
            let call = std::pin::pin!(metered.call(3, b"", &mut out));
            assert!(poll(call).is_ready());
        }
        assert_eq!(sample(&metrics, "zap_calls_total"), 17.0);
        assert_eq!(sample(&metrics, "zap_calls_in_flight"), 0.0);
        assert_eq!(sample(&metrics, "zap_call_duration_seconds_count"), 3.0);
    }

    #[test]
    fn a_duration_falls_in_the_first_bucket_whose_bound_it_does_not_pass() {
        for i in 0..BUCKETS {
            let bound = FIRST_BOUND_NS << i;
            assert_eq!(bucket(bound), i, "{bound} ns");
            assert_eq!(bucket(bound + 1), (i + 1).min(BUCKETS), "{bound} + 1 ns");
        }
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(u64::MAX), BUCKETS);
    }
}

//! Metrics in the Prometheus text exposition format (version 0.0.4), served by the
//! HTTP server at `GET /metrics` when [`HttpConfig::metrics`](crate::http::HttpConfig)
//! is set; encoded by the `prometheus-client` crate.
//!
//! * **Per method and transport** (labels `service`, `method`, `transport`), recorded
//!   by [`Metered`], a [`Service`] that wraps the real one, one per transport:
//!   `zap_calls_total`, `zap_call_errors_total` (with the answered `status`),
//!   `zap_call_duration_seconds` (a histogram, 10 µs to about 0.3 s in powers of two),
//!   `zap_calls_in_flight`.
//! * **Per server** (label `server`), read from its [`ServerStats`] at scrape time:
//!   `zap_connections_active`, `zap_connections_accepted_total`,
//!   `zap_connections_refused_total`, `zap_received_bytes_total`, `zap_sent_bytes_total`
//!   (application bytes: after TLS decryption, before encryption) and, with the `tls`
//!   feature, `zap_tls_handshakes_total` (label `outcome`: `completed`, `failed`,
//!   `timed_out`).
//!
//! Recording a call touches only handles made when the [`Metered`] service was built
//! (one per method): a few atomic adds and one uncontended lock for the histogram, no
//! allocation, no label lookup. Only the first error of each status of a method looks
//! its counter up (and allocates it). Each call also runs in a `tracing` span `call` at
//! DEBUG level with the method, transport, status and duration in microseconds: free
//! unless a subscriber enables that level.
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
use std::sync::{Arc, Mutex};
use std::time::Instant;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use tracing::Instrument as _;

use crate::accept::ServerStats;
use crate::builder::Builder;
use crate::service::{CallError, MethodInfo, Reply, Service};

/// `service`, `method`, `transport`.
type CallLabels = [(&'static str, &'static str); 3];
/// The call's labels and its `status`.
type ErrorLabels = (CallLabels, [(&'static str, u32); 1]);

fn duration_histogram() -> Histogram {
    // 10 µs, 20 µs, ... about 0.33 s.
    Histogram::new(exponential_buckets(0.000_01, 2.0, 16))
}

/// The metrics of one process's servers: clone it into each [`Metered`] service and
/// into the HTTP server's configuration. Clones share everything; two are equal when
/// they are the same metrics.
#[derive(Clone, Debug)]
pub struct Metrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    duration: Family<CallLabels, Histogram, fn() -> Histogram>,
    in_flight: Family<CallLabels, Gauge>,
    servers: Arc<Mutex<Vec<(&'static str, ServerStats)>>>,
}

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
        let calls = Family::<CallLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let duration = Family::<CallLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            duration_histogram,
        );
        let in_flight = Family::<CallLabels, Gauge>::default();
        registry.register("zap_calls", "Calls answered", calls.clone());
        registry.register(
            "zap_call_errors",
            "Calls answered with an error status",
            errors.clone(),
        );
        registry.register(
            "zap_call_duration_seconds",
            "Time from the start of a call's handler to its answer",
            duration.clone(),
        );
        registry.register(
            "zap_calls_in_flight",
            "Calls being answered now",
            in_flight.clone(),
        );
        let servers = Arc::new(Mutex::new(Vec::new()));
        registry.register_collector(Box::new(Servers(servers.clone())));
        Metrics(Arc::new(Inner {
            registry,
            calls,
            errors,
            duration,
            in_flight,
            servers,
        }))
    }

    /// Report the connection and byte counters of a server (ZAP/TCP or HTTP) as
    /// `server="name"`.
    pub fn register_server(&self, name: &'static str, stats: ServerStats) {
        lock(&self.0.servers).push((name, stats));
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
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// The handles of one method's metrics, made once.
#[derive(Debug)]
struct Method {
    labels: CallLabels,
    calls: Counter,
    duration: Histogram,
    in_flight: Gauge,
}

impl Method {
    fn new(metrics: &Inner, labels: CallLabels) -> Self {
        Method {
            labels,
            calls: metrics.calls.get_or_create_owned(&labels),
            duration: metrics.duration.get_or_create_owned(&labels),
            in_flight: metrics.in_flight.get_or_create_owned(&labels),
        }
    }
}

/// A [`Service`] that records every call of the one it wraps in [`Metrics`], for one
/// transport: serve `Metered::new(service, &metrics, "zap")` on the ZAP/TCP server and
/// `Metered::new(service, &metrics, "http")` on the HTTP server. Calls to ordinals the
/// service does not have are counted as method `unknown`.
#[derive(Debug)]
pub struct Metered<S> {
    service: Arc<S>,
    metrics: Metrics,
    /// Index `ordinal - 1`.
    methods: Box<[Method]>,
    unknown: Method,
}

impl<S: Service> Metered<S> {
    /// Record the calls of `service` made over `transport` (a label value such as
    /// `"zap"` or `"http"`).
    pub fn new(service: Arc<S>, metrics: &Metrics, transport: &'static str) -> Self {
        let labels = |method: &'static str| {
            [
                ("service", S::NAME),
                ("method", method),
                ("transport", transport),
            ]
        };
        Metered {
            service,
            metrics: metrics.clone(),
            methods: S::METHODS
                .iter()
                .map(|m| Method::new(&metrics.0, labels(m.name)))
                .collect(),
            unknown: Method::new(&metrics.0, labels("unknown")),
        }
    }

    /// The wrapped service.
    pub fn inner(&self) -> &Arc<S> {
        &self.service
    }

    fn method(&self, ordinal: u32) -> &Method {
        let index = (ordinal as usize).wrapping_sub(1);
        self.methods.get(index).unwrap_or(&self.unknown)
    }
}

/// Counts a call in flight until dropped (also when the call is cancelled).
struct InFlight<'m>(&'m Gauge);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl<S: Service> Service for Metered<S> {
    const NAME: &'static str = S::NAME;
    const METHODS: &'static [MethodInfo] = S::METHODS;

    fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        let method = self.method(ordinal);
        let span = tracing::debug_span!(
            "call",
            method = method.labels[1].1,
            transport = method.labels[2].1,
            status = tracing::field::Empty,
            duration_us = tracing::field::Empty,
        );
        let recorded = span.clone();
        async move {
            method.in_flight.inc();
            let in_flight = InFlight(&method.in_flight);
            let start = Instant::now();
            let result = self.service.call(ordinal, payload, out).await;
            let elapsed = start.elapsed();
            drop(in_flight);
            method.calls.inc();
            method.duration.observe(elapsed.as_secs_f64());
            let status = match &result {
                Ok(_) => 200,
                Err(e) => {
                    let status = e.status.0;
                    self.metrics
                        .0
                        .errors
                        .get_or_create(&(method.labels, [("status", status)]))
                        .inc();
                    status
                }
            };
            recorded.record("status", status);
            recorded.record("duration_us", elapsed.as_micros() as u64);
            result
        }
        .instrument(span)
    }
}

//! The JSON-RPC 2.0 over HTTP/1.1 fallback (feature `http`): the same [`Service`] that
//! answers ZAP/TCP calls, reachable with `curl`.
//!
//! ```no_run
//! # async fn demo<S: zap_runtime::Service>(service: S) -> std::io::Result<()> {
//! use std::sync::Arc;
//! use zap_runtime::http::{serve_http, CancellationToken, HttpConfig};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
//! let shutdown = CancellationToken::new(); // cancel it (e.g. on ctrl-c) to stop
//! serve_http(listener, Arc::new(service), HttpConfig::default(), shutdown).await
//! # }
//! ```
//!
//! ```text
//! curl -s -H 'Content-Type: application/json' http://127.0.0.1:8545/rpc \
//!   -d '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x…","latest"]}'
//! ```
//!
//! # Requests
//!
//! `POST /rpc` (and `POST /`, where Ethereum tools post) takes one JSON-RPC request object
//! or a batch (an array of them). `params` go by name (an object whose keys are the
//! request struct's fields in the schema's JSON mapping) or by position (an array in
//! declaration order, or the order of the method's `json(params = [...])`); results come
//! back in the JSON mapping (the whole response, or the one field of
//! `json(result = ...)`), `null` for a method without a result. The method is found by its
//! JSON-RPC name (`eth_getBalance`), the call runs through [`Service::call`], exactly
//! like a ZAP/TCP call. Batch members run one after another, in order; notifications
//! (no `"id"`) run too but get no entry in the answer. `GET /health` answers
//! `{"status":"ok"}` (503 once draining, see [`HttpConfig::readiness`]), `GET /health/live`
//! always 200, and `GET /metrics` the Prometheus text of [`HttpConfig::metrics`].
//! `GET /` (or `/index.html`) serves the explorer, a page that lists the methods
//! `rpc.discover` describes and calls them from a form (docs/openrpc.md).
//!
//! # HTTP status codes
//!
//! | status | when |
//! | --- | --- |
//! | 200 | every JSON-RPC answer, **including JSON-RPC errors** (the usual convention: the error is in the body) |
//! | 204 | the request was a notification, or a batch of notifications only: no body |
//! | 404 | a path other than `/rpc`, `/health`, `/health/live`, `/`, `/index.html` and (with [`HttpConfig::metrics`]) `/metrics` |
//! | 204 | also: a CORS preflight (`OPTIONS /rpc` or `OPTIONS /`) from an allowed origin |
//! | 405 | `/rpc` with a method other than POST (or OPTIONS), `/health`, `/health/live` and `/index.html` with other than GET/HEAD, `/` with other than GET/HEAD/POST (with an `Allow` header) |
//! | 408 | the body did not arrive within [`HttpConfig::body_read_timeout`] (connection closed) |
//! | 413 | the body is longer than [`HttpConfig::max_body`]: refused from `Content-Length` before any of it is read, or as soon as a chunked body passes the limit (connection closed) |
//! | 403 | a `Host` that [`HttpConfig::allowed_hosts`] does not name (any path); a CORS preflight (`OPTIONS`) from an origin [`HttpConfig::cors_origins`] does not list |
//! | 415 | a POST without a JSON `Content-Type`, or with none: `application/json` with any parameters, `application/json-rpc`, `application/jsonrequest` and `application/*+json` are JSON (browser pages cannot send these cross-origin without a preflight; see [`AllowedHosts`] for the browser rules) |
//! | 503 | `GET /health` once draining has started ([`HttpConfig::readiness`]); `GET /health/live` stays 200 |
//!
//! The 408, 413 and 415 answers carry a JSON-RPC error body (`"id": null`, -32600) with
//! the reason, so JSON-RPC clients can show it.
//!
//! # JSON-RPC error codes
//!
//! | code | when |
//! | --- | --- |
//! | -32700 | the body is not JSON (`"id": null`) |
//! | -32600 | not a request object, one of `jsonrpc`, `id`, `method`, `params` given twice, `"jsonrpc"` missing or not `"2.0"`, `"method"` missing or not a string, `"id"` not a string, number or null, an empty batch, a batch over [`HttpConfig::max_batch`] |
//! | -32601 | no method of that name (the message lists the known ones) |
//! | -32602 | the params do not make the request struct ([`ParamsError`](crate::json::ParamsError)), or the handler answered ZAP status 400 |
//! | -32603 | the handler answered ZAP status 500, wrote a response that cannot be read, or the answer cannot be serialized as JSON ([`ResultError`](crate::json::ResultError)) |
//! | -32001 / -32003 | the handler answered ZAP status 401 / 403 |
//! | -32010 ..= -32099 | the handler answered an application error ([`crate::app_error`]): its message and data as they are |
//! | -32000 | the handler answered any other status |
//!
//! Other errors raised by a handler carry its message in `error.message` and the ZAP
//! status in `error.data.status`. The `id` of an answer echoes the request's `id` as it was sent
//! (number, string or null).
//!
//! # Limits
//!
//! A body is read only up to [`HttpConfig::max_body`]; a batch holds at most
//! [`HttpConfig::max_batch`] calls; at most [`HttpConfig::max_connections`] connections
//! are served at once (further ones are refused: closed at once, as by the ZAP/TCP
//! server, and counted in [`ServerStats::refused`]); a connection that does
//! not send a complete request head within [`HttpConfig::header_read_timeout`] —
//! including an idle keep-alive connection — is closed.
//!
//! [`Service`]: crate::Service
//! [`Service::call`]: crate::Service::call

mod browser;
mod explorer;
#[cfg(unix)]
pub mod ipc;
#[cfg(feature = "zaphttp")]
mod over_zaphttp;
mod routes;
mod server;
mod stall;
mod ws;

use std::time::Duration;

pub use crate::accept::{Bound, ServerStats};
/// The JSON-RPC protocol this server carries (also at [`crate::jsonrpc`]).
pub use crate::jsonrpc::{code, handle_jsonrpc, handle_jsonrpc_for, BodyLimits, Caller, RpcError};
pub use browser::AllowedHosts;
#[cfg(unix)]
pub use ipc::IpcServer;
#[cfg(feature = "zaphttp")]
#[cfg_attr(docsrs, doc(cfg(feature = "zaphttp")))]
pub use over_zaphttp::HttpRoutes;
#[doc(hidden)]
pub use server::serve_stream;
pub use server::{serve_http, HttpServer};
/// The shutdown signal of [`HttpServer::run`] and [`serve_http`] (from `tokio-util`).
pub use tokio_util::sync::CancellationToken;

/// Which paths an HTTP listener serves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Routes {
    /// JSON-RPC, the explorer page, health and metrics.
    #[default]
    All,
    /// `GET /health`, `GET /health/live` and `GET /metrics` only (404 for anything
    /// else): an admin listener, on an address of its own, with connections of its own.
    HealthAndMetrics,
}

/// Limits and timeouts of the HTTP server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfig {
    /// Largest request body accepted, in bytes (default 4 MiB); larger ones get 413.
    /// A request's memory is bounded by a small multiple of this: its parsed JSON
    /// (a JSON value takes up to about 16 times its shortest text, e.g. `[0,0,…]`).
    pub max_body: usize,
    /// The budget for request-body bytes being read, shared with the other servers of
    /// the process by default ([`BufferBudget::process`](crate::BufferBudget::process),
    /// 1 GiB): what a body holds past 16 KiB is counted until its answer is made, and
    /// when the budget is spent the body waits to be read (within
    /// [`body_read_timeout`](Self::body_read_timeout); past it, 408).
    pub buffer_budget: crate::BufferBudget,
    /// Most calls in one batch (default 1000); larger batches get one -32600 error.
    pub max_batch: usize,
    /// Largest response body, in bytes (default 16 MiB): the call whose answer would
    /// pass it, and the later calls of its batch (which are not run), are answered with
    /// error -32005 (limit exceeded) instead. Nothing is cut off silently.
    pub max_answer: usize,
    /// Most connections served at once (default 1024); more are refused (closed at
    /// once, not queued) and counted in [`ServerStats::refused`].
    pub max_connections: usize,
    /// Most connections from one IP address at once (default `None`: no limit per
    /// address); more are refused like those past `max_connections`.
    pub max_connections_per_address: Option<usize>,
    /// Time allowed for a request head to arrive, counted from the end of the previous
    /// response on a keep-alive connection, so it is also the idle timeout (default 30 s).
    /// A response still being written (its bytes still going out) counts as activity;
    /// the connection is closed between this long and twice this long after its last
    /// activity, without a timer per request.
    pub header_read_timeout: Duration,
    /// Time allowed for a request body to arrive (default 30 s); past it, 408.
    pub body_read_timeout: Duration,
    /// How long an answer may wait without a byte of it being taken by the peer (default
    /// 30 s); past it the connection is closed and what it held is freed. A client that
    /// sends requests and never reads the answers holds a connection no longer than this.
    pub write_stall_timeout: Duration,
    /// After shutdown is triggered, how long requests in flight may take before their
    /// connections are dropped (default 30 s).
    pub drain_timeout: Duration,
    /// Coalesce the answers to pipelined HTTP/1.1 requests into one write (hyper's
    /// `pipeline_flush`). Off by default, because hyper does not flush while input is
    /// unread: a client that pipelines requests and never reads its answers is then
    /// never slowed down (the hostile harness sends 32 MiB without meeting back-pressure,
    /// where the default stalls it at about 8 MiB), and a request refused before its
    /// body was read (a chunked body over [`max_body`](Self::max_body)) loses its 413.
    /// Turn it on only behind a proxy that bounds what clients send.
    pub pipeline_flush: bool,
    /// Consulted before every call with the capability of the request's
    /// `Authorization: ZAP-Cap <base64>` header (empty when there is none); a refusal
    /// answers that call -32001 (401) or -32003 (403) with the reason, and the handler
    /// does not run. `None` (the default) serves everyone.
    pub authorize: Option<crate::service::Authorizer>,
    /// Calls in flight past which a JSON-RPC call is answered "overloaded" (-32006)
    /// without running: see [`LoadLimit`](crate::shed::LoadLimit). Default `None`.
    pub load_limit: Option<crate::shed::LoadLimit>,
    /// Serve HTTPS with these settings (feature `tls`); `None` (the default) serves plain
    /// HTTP. The server offers `http/1.1` by ALPN unless the settings name protocols of
    /// their own. A handshake that fails or does not finish within
    /// [`ServerTls::handshake_timeout`](crate::tls::ServerTls::handshake_timeout) closes
    /// the connection and is counted in [`ServerStats::tls`].
    #[cfg(feature = "tls")]
    pub tls: Option<crate::tls::ServerTls>,
    /// What `GET /health` reports: 200 while ready, 503 once draining has started (see
    /// [`Shutdown`](crate::shutdown::Shutdown)). `GET /health/live` answers 200 either
    /// way. Default: a state of its own, always ready.
    pub readiness: crate::shutdown::Readiness,
    /// Served at `GET /metrics` in the Prometheus text format (see
    /// [`metrics`](crate::metrics)); `None` (the default): 404 there. With
    /// [`authorize`](Self::authorize) set, reading it needs a capability valid for this
    /// server (as `rpc.discover` does); serve it on an admin listener of its own
    /// ([`Routes::HealthAndMetrics`]) for scrapers that carry none.
    pub metrics: Option<crate::metrics::Metrics>,
    /// Which paths this listener serves: everything (the default), or only health and
    /// metrics, for an admin listener that stays reachable however the data port is
    /// loaded.
    pub routes: Routes,
    /// The `Host` names answered; any other gets 403 (a defence against DNS rebinding,
    /// see [`AllowedHosts`]). Default: `localhost` (IP literals are always answered).
    pub allowed_hosts: AllowedHosts,
    /// The origins whose web pages may call this server and read its answers (CORS):
    /// their preflights are answered and their answers carry
    /// `Access-Control-Allow-Origin`. `*` allows every origin. Default: none, so no page
    /// of another origin can read an answer.
    pub cors_origins: Vec<String>,
    /// Accept WebSocket upgrades on the JSON-RPC paths (default true): JSON-RPC over
    /// text frames, with subscriptions (`eth_subscribe`).
    pub websocket: bool,
    /// Most live subscriptions on one WebSocket connection (default 100); more are
    /// refused with -32005.
    pub ws_max_subscriptions: usize,
    /// How often a WebSocket session pings its client (default 30 s).
    pub ws_ping_interval: Duration,
    /// A WebSocket session from which nothing has arrived, not even a pong, for this
    /// long is closed (default 90 s).
    pub ws_idle_timeout: Duration,
}

impl HttpConfig {
    /// Default [`HttpConfig::max_body`]: 4 MiB.
    pub const DEFAULT_MAX_BODY: usize = 4 << 20;
    /// Default [`HttpConfig::max_batch`].
    pub const DEFAULT_MAX_BATCH: usize = 1000;
    /// Default [`HttpConfig::max_answer`]: 16 MiB.
    pub const DEFAULT_MAX_ANSWER: usize = 16 << 20;
    /// Default [`HttpConfig::max_connections`].
    pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            max_body: Self::DEFAULT_MAX_BODY,
            max_batch: Self::DEFAULT_MAX_BATCH,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: None,
            max_answer: Self::DEFAULT_MAX_ANSWER,
            buffer_budget: crate::BufferBudget::process(),
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(30),
            drain_timeout: Duration::from_secs(30),
            pipeline_flush: false,
            authorize: None,
            load_limit: None,
            #[cfg(feature = "tls")]
            tls: None,
            readiness: crate::shutdown::Readiness::new(),
            metrics: None,
            routes: Routes::All,
            allowed_hosts: AllowedHosts::default(),
            cors_origins: Vec::new(),
            websocket: true,
            ws_max_subscriptions: 100,
            ws_ping_interval: Duration::from_secs(30),
            ws_idle_timeout: Duration::from_secs(90),
        }
    }
}

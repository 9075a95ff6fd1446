//! One HTTP request to one HTTP response: routing, the checks made before a body is
//! read (method, content type, declared length), the capped body read, and the
//! answers for each outcome.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use super::browser;
use super::ws::{self, SessionSlot};
use super::{HttpConfig, Routes};
use crate::budget::{BufferBudget, Held};
use crate::jsonrpc::{error_body, handle_jsonrpc_for, BodyLimits, Caller, RpcError};
use crate::metrics::Metrics;
use crate::service::Service;
use crate::BuilderPool;
use tokio_util::sync::CancellationToken;

/// What every connection of one server shares.
pub(super) struct Shared<S> {
    pub service: Arc<S>,
    pub pool: BuilderPool,
    pub config: HttpConfig,
}

pub(super) type Reply = Response<Full<Bytes>>;

/// Route one request. A WebSocket upgrade leaves its session in `session`, for the
/// connection to run once the 101 is sent; `shutdown` closes the session.
pub(super) async fn route<S: Service>(
    shared: &Shared<S>,
    req: Request<Incoming>,
    session: &SessionSlot,
    shutdown: &CancellationToken,
) -> Reply {
    let upgrade = matches!(req.uri().path(), "/rpc" | "/")
        && req.method() == Method::GET
        && ws::is_upgrade(&req);
    if !upgrade {
        return route_any(shared, req).await;
    }
    if let Some(refused) = refused_before_routing(shared, &req) {
        return refused;
    }
    let cap = match &shared.config.authorize {
        Some(_) => presented_cap(&req),
        None => Ok(Vec::new()),
    };
    // The upgrade's metadata headers apply to every call of the session.
    let metadata = match request_context(req.headers()) {
        Ok(context) => context
            .map(|c| c.metadata().clone())
            .filter(|m| !m.is_empty()),
        Err(why) => return rpc_error(StatusCode::BAD_REQUEST, why),
    };
    ws::upgrade(shared, req, cap, metadata, session, shutdown)
}

/// The refusal of a request for a host this server does not answer for, or for a path
/// its [`Routes`] leave out.
fn refused_before_routing<S, B>(shared: &Shared<S>, req: &Request<B>) -> Option<Reply> {
    if !shared.config.allowed_hosts.allows(req.headers()) {
        let host = req
            .headers()
            .get(header::HOST)
            .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned());
        return Some(rpc_error(
            StatusCode::FORBIDDEN,
            format!(
                "this server does not answer for Host {:?}: it is not among the server's allowed hosts",
                host.unwrap_or_default()
            ),
        ));
    }
    if shared.config.routes == Routes::HealthAndMetrics
        && !matches!(req.uri().path(), "/health" | "/health/live" | "/metrics")
    {
        return Some(text(
            StatusCode::NOT_FOUND,
            format!(
                "no such path: {} (this admin listener serves GET /health, /health/live and /metrics)\n",
                req.uri().path()
            ),
        ));
    }
    None
}

/// Route one request that is not a WebSocket upgrade, whatever carried it (HTTP/1.1, or
/// HTTP over ZAP frames).
pub(crate) async fn route_any<S: Service, B>(shared: &Shared<S>, req: Request<B>) -> Reply
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    if let Some(refused) = refused_before_routing(shared, &req) {
        return refused;
    }
    match (req.uri().path(), req.method()) {
        // Ethereum tools (web3.py, ethers) post to the URL they are given, usually `/`.
        ("/rpc" | "/", &Method::POST) => {
            let origin = browser::allowed_origin(&shared.config.cors_origins, req.headers()).cloned();
            let mut reply = rpc(shared, req).await;
            if let Some(origin) = origin {
                browser::allow_origin(reply.headers_mut(), &origin);
            }
            reply
        }
        ("/rpc" | "/", &Method::OPTIONS) => preflight(shared, &req),
        ("/rpc", _) => method_not_allowed("POST"),
        ("/health", &Method::GET | &Method::HEAD) => match shared.config.readiness.is_draining() {
            false => json(StatusCode::OK, Bytes::from_static(b"{\"status\":\"ok\"}")),
            true => json(
                StatusCode::SERVICE_UNAVAILABLE,
                Bytes::from_static(b"{\"status\":\"draining\"}"),
            ),
        },
        ("/health/live", &Method::GET | &Method::HEAD) => json(
            StatusCode::OK,
            Bytes::from_static(b"{\"status\":\"alive\"}"),
        ),
        ("/health" | "/health/live", _) => method_not_allowed("GET, HEAD"),
        ("/metrics", &Method::GET) if shared.config.metrics.is_some() => {
            if let Some(refused) = metrics_refusal(&shared.config, &req) {
                return refused;
            }
            let text = shared.config.metrics.as_ref().map(Metrics::encode);
            let body = Bytes::from(text.unwrap_or_default());
            with_type(StatusCode::OK, body, METRICS_TYPE)
        }
        ("/metrics", &Method::GET) => text(
            StatusCode::NOT_FOUND,
            "no metrics here: this server was started without them; serve them with \
             HttpConfig::metrics (a zap_runtime::metrics::Metrics, with the service wrapped in \
             Metered to count its calls)\n"
                .to_owned(),
        ),
        ("/" | "/index.html", &Method::GET | &Method::HEAD) => super::explorer::page(),
        ("/", _) => method_not_allowed("GET, HEAD, POST"),
        ("/index.html", _) => method_not_allowed("GET, HEAD"),
        (path, _) => text(
            StatusCode::NOT_FOUND,
            format!(
                "no such path: {path} (JSON-RPC is served at POST /rpc and POST /, health at GET /health)\n"
            ),
        ),
    }
}

/// `POST /rpc`: check the headers, read the body within its limits, answer the calls.
async fn rpc<S: Service, B>(shared: &Shared<S>, req: Request<B>) -> Reply
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    let config = &shared.config;
    // Required, so that no web page can post here without a CORS preflight.
    match req.headers().get(header::CONTENT_TYPE) {
        Some(found) if is_json(found) => {}
        Some(found) => {
            let found = String::from_utf8_lossy(found.as_bytes()).into_owned();
            return rpc_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Type {found:?} is not JSON: send Content-Type: application/json"),
            );
        }
        None => {
            return rpc_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "a JSON-RPC request needs Content-Type: application/json".to_owned(),
            )
        }
    }
    if let Some(declared) = declared_length(&req) {
        if declared > config.max_body as u64 {
            return too_large(config.max_body);
        }
    }
    // The deadline starts when the head arrives, before the body is read.
    let context = match request_context(req.headers()) {
        Ok(context) => context,
        Err(why) => return rpc_error(StatusCode::BAD_REQUEST, why),
    };
    // Read before the body consumes the request; checked per call by the authorizer.
    let cap = match &config.authorize {
        Some(_) => presented_cap(&req),
        None => Ok(Vec::new()),
    };
    // Held until the answer is made: the body's bytes live as long.
    let mut held = None;
    let body = read_body(
        req.into_body(),
        config.max_body,
        &config.buffer_budget,
        &mut held,
    );
    let body = match at_once_or_within(config.body_read_timeout, body).await {
        Ok(Ok(body)) => body,
        Ok(Err(BodyError::TooLarge)) => return too_large(config.max_body),
        Ok(Err(BodyError::Io(e))) => {
            tracing::debug!("could not read a request body: {e}");
            return closing(rpc_error(
                StatusCode::BAD_REQUEST,
                format!("could not read the request body: {e}"),
            ));
        }
        Err(_) => {
            return closing(rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {:?}",
                    config.body_read_timeout
                ),
            ))
        }
    };
    let answer = context.as_ref().and_then(|c| c.answer_slot()).cloned();
    let context = crate::call::with_capability(context, S::CAPABILITY, || {
        admitted_cap(config.authorize.as_ref(), &cap)
    });
    let caller = Caller {
        authorize: config.authorize.as_ref(),
        cap: cap.as_deref().map_err(|reason| *reason),
        context,
        load_limit: config.load_limit.as_ref(),
    };
    let limits = BodyLimits {
        max_batch: config.max_batch,
        max_answer: config.max_answer,
    };
    match handle_jsonrpc_for(&*shared.service, &shared.pool, &body, limits, &caller, None).await {
        Some(body) => {
            let mut reply = json(StatusCode::OK, Bytes::from(body));
            if let Some(answer) = answer {
                answer_headers(&answer.take(), reply.headers_mut());
            }
            reply
        }
        None => empty(StatusCode::NO_CONTENT),
    }
}

/// The answer metadata the handlers sent back, as `Zap-Meta-<key>` headers; a value
/// that cannot be a header value (control bytes) is left out, and logged.
fn answer_headers(metadata: &crate::context::Metadata, headers: &mut hyper::HeaderMap) {
    for (key, value) in metadata.iter() {
        let name = hyper::header::HeaderName::try_from(format!("{METADATA_PREFIX}{key}"));
        match (name, hyper::header::HeaderValue::from_bytes(value)) {
            (Ok(name), Ok(value)) => {
                headers.append(name, value);
            }
            _ => tracing::debug!(
                key,
                "answer metadata not sent: its value is not a header value"
            ),
        }
    }
}

/// `OPTIONS /rpc`: a CORS preflight, answered for the origins
/// [`HttpConfig::cors_origins`] lists and refused (403) for any other.
fn preflight<S: Service, B>(shared: &Shared<S>, req: &Request<B>) -> Reply {
    match browser::allowed_origin(&shared.config.cors_origins, req.headers()) {
        Some(origin) => {
            let mut reply = empty(StatusCode::NO_CONTENT);
            browser::preflight_headers(reply.headers_mut(), origin);
            reply
        }
        None => text(
            StatusCode::FORBIDDEN,
            "cross-origin requests are not allowed from this origin: it is not among the server's CORS origins\n".to_owned(),
        ),
    }
}

/// With capabilities on, `/metrics` on a listener that also serves calls needs what
/// `rpc.discover` needs: a capability valid for this server. An admin listener
/// ([`Routes::HealthAndMetrics`]) serves it to anyone who can reach its address.
/// The refusal to answer, if any.
fn metrics_refusal<B>(config: &HttpConfig, req: &Request<B>) -> Option<Reply> {
    let gate = config.authorize.as_ref()?;
    if config.routes == Routes::HealthAndMetrics {
        return None;
    }
    let mut why = String::new();
    let verdict = match presented_cap(req) {
        Ok(cap) => gate.authorize(&cap, 0, &mut why),
        Err(reason) => {
            why = format!("unauthorized: {reason}");
            Err(crate::rpc::Status::UNAUTHORIZED)
        }
    };
    let status = verdict.err()?;
    let code = match status {
        crate::rpc::Status::FORBIDDEN => StatusCode::FORBIDDEN,
        _ => StatusCode::UNAUTHORIZED,
    };
    Some(text(code, format!("{why}\n")))
}

/// The capability a policy checks each call of the request against, for the calls'
/// context ([`Context::capability`](crate::context::Context::capability)); `None` without
/// a policy or a capability. The context holds it for calls the policy admitted only:
/// a refused call never runs.
pub(super) fn admitted_cap(
    authorize: Option<&crate::service::Authorizer>,
    cap: &Result<Vec<u8>, &'static str>,
) -> Option<Bytes> {
    match (authorize, cap) {
        (Some(_), Ok(cap)) if !cap.is_empty() => Some(Bytes::copy_from_slice(cap)),
        _ => None,
    }
}

/// The capability of an `Authorization: ZAP-Cap <base64 of the capability message>`
/// header: empty when there is no such header, or why it cannot be read (another scheme,
/// several headers, bad base64), which refuses every call: nothing is guessed.
fn presented_cap<B>(req: &Request<B>) -> Result<Vec<u8>, &'static str> {
    use base64::Engine as _;
    let mut values = req.headers().get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(Vec::new());
    };
    if values.next().is_some() {
        return Err("more than one Authorization header");
    }
    let text = value
        .to_str()
        .map_err(|_| "the Authorization header is not ASCII")?;
    let (scheme, token) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
    if !scheme.eq_ignore_ascii_case("ZAP-Cap") {
        return Err("unsupported Authorization scheme: send `Authorization: ZAP-Cap <base64 of the capability>`");
    }
    base64::engine::general_purpose::STANDARD
        .decode(token.trim())
        .map_err(|_| "the ZAP-Cap token is not standard base64")
}

/// The Content-Length header as a number (`None` if absent or unreadable: hyper has
/// already refused malformed framing, and the capped read still applies).
fn declared_length<B>(req: &Request<B>) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Lenient on purpose: `application/json` (any parameters, any case), the
/// `application/json-rpc` and `application/jsonrequest` variants, and any `+json` type.
fn is_json(value: &HeaderValue) -> bool {
    let Ok(value) = value.to_str() else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    let is = |name: &str| essence.eq_ignore_ascii_case(name);
    let ends_with = |suffix: &str| {
        essence.len() >= suffix.len()
            && essence.as_bytes()[essence.len() - suffix.len()..]
                .eq_ignore_ascii_case(suffix.as_bytes())
    };
    let starts_with = |prefix: &str| {
        essence.len() >= prefix.len()
            && essence.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    };
    is("application/json")
        || is("application/json-rpc")
        || is("application/jsonrequest")
        || (starts_with("application/") && ends_with("+json"))
}

/// 413, closing the connection: the rest of the body is never read.
/// Body bytes not counted in the buffer budget: an ordinary request never touches it.
const UNCOUNTED_BODY: usize = 16 << 10;

/// Why a request body was not read.
enum BodyError {
    /// More than the limit.
    TooLarge,
    /// The connection failed.
    Io(String),
}

/// Read a request body of at most `max` bytes. What it holds past [`UNCOUNTED_BODY`] is
/// counted in `held`'s budget before more is read: when the budget is spent, reading
/// waits (the caller's timeout bounds the wait). A body that arrives in one chunk is
/// not copied.
async fn read_body<B>(
    mut body: B,
    max: usize,
    budget: &BufferBudget,
    held: &mut Option<Held>,
) -> Result<Bytes, BodyError>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    let mut single: Option<Bytes> = None;
    let mut whole = Vec::new();
    let mut len = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(|e| BodyError::Io(e.to_string()))?.into_data() else {
            continue; // trailers
        };
        len = len.saturating_add(data.len());
        if len > max {
            return Err(BodyError::TooLarge);
        }
        if len > UNCOUNTED_BODY {
            held.get_or_insert_with(|| Held::new(budget.clone()))
                .hold(len - UNCOUNTED_BODY)
                .await;
        }
        match single.take() {
            None if whole.is_empty() => single = Some(data),
            Some(first) => {
                whole.reserve(len);
                whole.extend_from_slice(&first);
                whole.extend_from_slice(&data);
            }
            None => whole.extend_from_slice(&data),
        }
    }
    Ok(single.unwrap_or_else(|| Bytes::from(whole)))
}

/// `future`'s output if it is ready at once (a body that came with its head: no timer
/// is made), else within `limit` (`Err` past it), as [`tokio::time::timeout`].
async fn at_once_or_within<F: Future>(
    limit: Duration,
    future: F,
) -> Result<F::Output, tokio::time::error::Elapsed> {
    let mut future = std::pin::pin!(future);
    let first = std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await;
    match first {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => tokio::time::timeout(limit, future).await,
    }
}

fn too_large(max_body: usize) -> Reply {
    closing(rpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body exceeds this server's limit of {max_body} bytes"),
    ))
}

/// An HTTP-level refusal of a `/rpc` request, with a JSON-RPC error body (id null,
/// -32600) so that JSON-RPC clients can show the reason.
fn rpc_error(status: StatusCode, message: String) -> Reply {
    let body = error_body(RpcError::invalid_request(message));
    json(status, Bytes::from(body))
}

fn method_not_allowed(allow: &'static str) -> Reply {
    let mut reply = text(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method not allowed: use {allow}\n"),
    );
    reply
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    reply
}

fn closing(mut reply: Reply) -> Reply {
    reply
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    reply
}

// Made once, at compile time: `HeaderValue::from_static` checks its text byte by byte.
const JSON_TYPE: HeaderValue = HeaderValue::from_static("application/json");
const TEXT_TYPE: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");
const METRICS_TYPE: HeaderValue = HeaderValue::from_static(Metrics::CONTENT_TYPE);

fn json(status: StatusCode, body: Bytes) -> Reply {
    with_type(status, body, JSON_TYPE)
}

pub(super) fn text(status: StatusCode, body: String) -> Reply {
    with_type(status, Bytes::from(body), TEXT_TYPE)
}

pub(super) fn empty(status: StatusCode) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::new()));
    *reply.status_mut() = status;
    reply
}

fn with_type(status: StatusCode, body: Bytes, content_type: HeaderValue) -> Reply {
    let mut reply = Response::new(Full::new(body));
    *reply.status_mut() = status;
    reply
        .headers_mut()
        .insert(header::CONTENT_TYPE, content_type);
    reply
}

/// The header that carries a JSON-RPC request's deadline: the milliseconds the caller
/// still waits, a decimal integer of at most 10 digits.
pub const TIMEOUT_HEADER: &str = "zap-timeout-ms";
/// Headers named with this prefix carry metadata: `Zap-Meta-Request-Id: 7f3a` is the
/// pair `request-id: 7f3a`.
pub const METADATA_PREFIX: &str = "zap-meta-";

/// The context of a JSON-RPC request from its headers ([`TIMEOUT_HEADER`],
/// [`METADATA_PREFIX`], and W3C `traceparent`/`tracestate` as the metadata pairs of
/// those names); `None` when it has none. A request without either header
/// costs one pass over the header names.
fn request_context(headers: &hyper::HeaderMap) -> Result<Option<crate::context::Context>, String> {
    let mut context = None::<crate::context::Context>;
    let mut metadata = crate::context::Metadata::new();
    for (name, value) in headers {
        let name = name.as_str();
        if name == TIMEOUT_HEADER {
            let text = value.to_str().unwrap_or("");
            let ms: u64 = match text.parse() {
                Ok(ms) if text.len() <= 10 && text.bytes().all(|b| b.is_ascii_digit()) => ms,
                _ => {
                    return Err(format!(
                        "{TIMEOUT_HEADER}: {text:?} is not a number of milliseconds (at most 10 digits)"
                    ))
                }
            };
            context = Some(
                context
                    .unwrap_or_default()
                    .with_budget(std::time::Duration::from_millis(ms)),
            );
        } else if let Some(key) = name.strip_prefix(METADATA_PREFIX) {
            metadata
                .insert(key, Bytes::copy_from_slice(value.as_bytes()))
                .map_err(|e| format!("{name}: {e}"))?;
        } else if name == crate::trace::TRACEPARENT || name == crate::trace::TRACESTATE {
            // W3C trace context: the same pairs ZAP calls carry. A tracestate past the
            // metadata limits is dropped (the trace goes on without it), never the call.
            let _ = metadata.insert(name, Bytes::copy_from_slice(value.as_bytes()));
        }
    }
    if !metadata.is_empty() {
        context = Some(context.unwrap_or_default().with_metadata(metadata));
    }
    // A caller that sends a context reads the metadata its answer carries back.
    Ok(context.map(|c| c.with_answer_metadata(crate::context::AnswerMetadata::new())))
}

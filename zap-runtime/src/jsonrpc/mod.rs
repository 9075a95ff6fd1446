//! The JSON-RPC 2.0 protocol, independent of HTTP (feature `jsonrpc`, which needs no
//! HTTP library): one request body in, one response body (or nothing, when every call
//! was a notification) out. The HTTP server (feature `http`) carries it; another
//! transport can carry the same bodies.
//!
//! A call goes through the same [`Service::call`] as a ZAP/TCP call: its `params` are
//! written as the request message by [`MethodInfo::params_to_wire`], the handler runs,
//! and the response message is turned into JSON by [`MethodInfo::result_to_json`].

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

mod batch;
mod subscribe;

pub use subscribe::{
    error_notification, namespace, notification, subscription_id, Subscriptions, NOTIFICATION,
    SUBSCRIBE, UNSUBSCRIBE,
};

use crate::call::{self, Admit, Admitted, NoPipeline, Outcome, Payload};
use crate::json::{CowStr, ParamsError, ResultError};
use crate::rpc::{Status, NO_TARGET};
use crate::service::{Authorizer, CallError, MethodInfo, Reply, Service};
use crate::BuilderPool;
use batch::{parse, Body};

/// The JSON-RPC error codes this server answers with.
pub mod code {
    /// The body is not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid request object (or the batch is empty or too large).
    pub const INVALID_REQUEST: i64 = -32600;
    /// No method with this name.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not make a request of the method's type, or the handler answered
    /// ZAP status 400 (bad request).
    pub const INVALID_PARAMS: i64 = -32602;
    /// The handler answered ZAP status 500, or its response could not be read or
    /// written as JSON.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A server error for a ZAP status without a closer JSON-RPC code.
    pub const SERVER_ERROR: i64 = -32000;
    /// The handler answered ZAP status 401 (unauthorized).
    pub const UNAUTHORIZED: i64 = -32001;
    /// The handler answered ZAP status 403 (forbidden).
    pub const FORBIDDEN: i64 = -32003;
    /// The answer would exceed the server's limit (EIP-1474's "limit exceeded").
    pub const LIMIT_EXCEEDED: i64 = -32005;
    /// The call's deadline passed before it was answered (ZAP status 504).
    pub const DEADLINE_EXCEEDED: i64 = -32004;
    /// The server is at its limit of calls in flight; retry elsewhere (ZAP status 503).
    pub const OVERLOADED: i64 = -32006;
    /// The caller cancelled the call (ZAP status 499).
    pub const CANCELLED: i64 = -32007;
    // -32010..=-32099: the handler answered an application error; its code is
    // `-(32000 + AppCode)` (see `crate::app_error`).
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// Extra detail: for errors raised by a handler, `{"status": <ZAP status>}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// -32700, for a body that is not JSON.
    pub fn parse_error(detail: impl core::fmt::Display) -> Self {
        RpcError::new(code::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// -32600, for JSON that is not a valid request.
    pub fn invalid_request(detail: impl core::fmt::Display) -> Self {
        RpcError::new(code::INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    fn method_not_found(method: &str, methods: &[MethodInfo]) -> Self {
        let known: Vec<&str> = methods
            .iter()
            .filter(|m| !m.streaming.is_stream())
            .map(|m| m.json_name)
            .collect();
        RpcError::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method:?} (this server has: {})",
                known.join(", ")
            ),
        )
    }

    fn invalid_params(err: &ParamsError) -> Self {
        RpcError::new(code::INVALID_PARAMS, format!("Invalid params: {err}"))
    }

    /// The JSON-RPC error for a handler's [`CallError`]: 400 → -32602, 401 → -32001,
    /// 403 → -32003, 404 → -32601, 500 → -32603, 504 → -32004, 503 → -32006,
    /// 499 → -32007, anything else → -32000; the ZAP status
    /// goes in `data.status`.
    ///
    /// An application error (ZAP status 32010..=32099, see [`crate::app_error`]) is
    /// answered as itself: code `-(status)`, its message, its data.
    pub fn from_call_error(err: &CallError) -> Self {
        if let Some(app) = err.app_error() {
            return RpcError {
                code: app.code.json_rpc_code(),
                message: app.message.into_owned(),
                data: app.data,
            };
        }
        let (code, what) = match err.status {
            Status::BAD_REQUEST => (code::INVALID_PARAMS, "Invalid params"),
            Status::UNAUTHORIZED => (code::UNAUTHORIZED, "Unauthorized"),
            Status::FORBIDDEN => (code::FORBIDDEN, "Forbidden"),
            Status::NOT_FOUND => (code::METHOD_NOT_FOUND, "Method not found"),
            Status::INTERNAL => (code::INTERNAL_ERROR, "Internal error"),
            Status::DEADLINE_EXCEEDED => (code::DEADLINE_EXCEEDED, "Deadline exceeded"),
            Status::OVERLOADED => (code::OVERLOADED, "Overloaded"),
            Status::CANCELLED => (code::CANCELLED, "Cancelled"),
            Status::TOO_MANY_REQUESTS => (code::LIMIT_EXCEEDED, "Limit exceeded"),
            _ => (code::SERVER_ERROR, "Server error"),
        };
        RpcError {
            code,
            message: format!("{what}: {}", err.message),
            data: Some(serde_json::json!({ "status": err.status.0 })),
        }
    }
}

/// An error response object (the error path may build values; answers do not).
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    error: &'a RpcError,
    id: &'a RawValue,
}

/// The raw JSON `null`, the id of answers to requests whose own id cannot be read.
fn null_id() -> &'static RawValue {
    RawValue::NULL
}

/// Append the error response for `id` to `out`.
fn write_error(out: &mut Vec<u8>, id: &RawValue, error: &RpcError) {
    let response = ErrorResponse {
        jsonrpc: "2.0",
        error,
        id,
    };
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, &response) {
        out.truncate(start);
        tracing::error!("cannot serialize a JSON-RPC error: {e}");
        out.extend_from_slice(INTERNAL_ERROR_BODY);
    }
}

/// A single error response with `"id": null`, serialized (for errors found before any
/// request could be read: parse errors, bodies that are too large).
pub fn error_body(error: RpcError) -> Vec<u8> {
    let mut out = Vec::new();
    write_error(&mut out, null_id(), &error);
    out
}

/// The answer when even an error cannot be serialized.
const INTERNAL_ERROR_BODY: &[u8] =
    br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}"#;

/// Answer one JSON-RPC body (a single request or a batch) with `service`.
///
/// Returns the response body, or `None` when there is nothing to answer because every
/// call was a notification (the HTTP layer answers 204 then). Batch members run one
/// after another, in order; a batch longer than `max_batch` (or empty) is refused whole
/// with one -32600 error, and the members of a batch over the limit are counted but
/// never kept.
pub async fn handle_jsonrpc<S: Service>(
    service: &S,
    pool: &BuilderPool,
    body: &[u8],
    max_batch: usize,
) -> Option<Vec<u8>> {
    let limits = BodyLimits {
        max_batch,
        max_answer: usize::MAX,
    };
    handle_jsonrpc_for(service, pool, body, limits, &Caller::default(), None).await
}

/// Who is calling, as far as the server checks it: the [`Authorizer`] to consult and
/// the capability the request presented. The default allows everything.
#[derive(Debug)]
pub struct Caller<'a> {
    /// The hook that decides each call, if the server has one.
    pub authorize: Option<&'a Authorizer>,
    /// The presented capability (from `Authorization: ZAP-Cap`), or why the header could
    /// not be read (then every call is refused 401 with that reason).
    pub cap: Result<&'a [u8], &'static str>,
    /// The context the request carries (its deadline, from the HTTP `Zap-Timeout-Ms`
    /// header, and its metadata), shared by every call of a batch; `None` for none.
    pub context: Option<crate::context::Context>,
    /// The server's limit on calls in flight, if it has one.
    pub load_limit: Option<&'a crate::shed::LoadLimit>,
}

impl Default for Caller<'_> {
    fn default() -> Self {
        Caller {
            authorize: None,
            cap: Ok(&[]),
            context: None,
            load_limit: None,
        }
    }
}

/// The limits of one JSON-RPC body: the calls a batch may hold, and the bytes its
/// answer may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyLimits {
    /// A longer batch is refused whole with one -32600 error.
    pub max_batch: usize,
    /// The call whose answer would take the response past this many bytes, and every
    /// later call of a batch (not run), are answered -32005 ([`code::LIMIT_EXCEEDED`]).
    pub max_answer: usize,
}

/// [`handle_jsonrpc`] for `caller`, within `limits`, on a carrier that may push
/// notifications: every call is authorised before its handler runs (and carries the
/// caller's context, under the caller's load limit); with `subs`, `eth_subscribe` and
/// `eth_unsubscribe` open and end subscriptions (see [`Subscriptions`]), without it they
/// are answered -32601, saying to connect over WebSocket. Every carrier of JSON-RPC
/// (HTTP, WebSocket) enters here.
///
/// The body is read once, borrowing: each request keeps its `id` and `params` as raw
/// JSON slices of the body, params go straight into the request message and the answer
/// is written straight into the response body. No `serde_json::Value` is built on the
/// way of a successful call.
pub async fn handle_jsonrpc_for<S: Service>(
    service: &S,
    pool: &BuilderPool,
    body: &[u8],
    limits: BodyLimits,
    caller: &Caller<'_>,
    mut subs: Option<&mut (dyn Subscriptions + '_)>,
) -> Option<Vec<u8>> {
    let BodyLimits {
        max_batch,
        max_answer,
    } = limits;
    let body = match crate::read::utf8(body) {
        Ok(body) => body,
        Err(e) => {
            let why = format!("invalid UTF-8 at byte {}", e.valid_up_to());
            return Some(error_body(RpcError::parse_error(why)));
        }
    };
    let parsed = match parse(body, max_batch) {
        Ok(parsed) => parsed,
        Err(e) => return Some(error_body(RpcError::parse_error(e))),
    };
    match parsed {
        Body::Batch(batch) if batch.is_empty() => Some(error_body(RpcError::invalid_request(
            "a batch must contain at least one request",
        ))),
        Body::TooLarge(count) => Some(error_body(RpcError::invalid_request(format!(
            "a batch of {count} requests exceeds this server's limit of {max_batch}"
        )))),
        Body::Batch(batch) => {
            let mut out = Vec::with_capacity(64 * batch.len() + 2);
            let mut gate = Gate::new(caller, max_answer);
            out.push(b'[');
            for call in batch {
                let before = out.len();
                if before > 1 {
                    out.push(b',');
                }
                if !handle_one(
                    service,
                    pool,
                    check(call),
                    &mut gate,
                    subs.as_deref_mut(),
                    &mut out,
                )
                .await
                {
                    out.truncate(before);
                }
            }
            if out.len() == 1 {
                return None;
            }
            out.push(b']');
            Some(out)
        }
        Body::Single(text) => {
            // The envelope is read straight from the body, which checks that it is JSON
            // on the way; only a body that fails is parsed again, for the right error.
            let call = match read_members(text) {
                Some(members) => check_members(members),
                None => match serde_json::from_str::<&RawValue>(text) {
                    Ok(request) => check(request),
                    Err(e) => return Some(error_body(RpcError::parse_error(e))),
                },
            };
            let mut out = Vec::with_capacity(128);
            let mut gate = Gate::new(caller, max_answer);
            handle_one(service, pool, call, &mut gate, subs, &mut out)
                .await
                .then_some(out)
        }
    }
}

/// What the calls of one HTTP request share: their authorisation and the answer's
/// size limit. A 401 says the presented capability proves nothing, whatever the method
/// ([`Authorize`](crate::service::Authorize)'s contract), so the first one answers every
/// later call of the request: a batch under one forged `Authorization` header costs one
/// check, not one per member.
struct Gate<'c, 'a> {
    caller: &'c Caller<'a>,
    unauthorized: Option<String>,
    max_answer: usize,
    /// The answer reached `max_answer`: later calls are not run.
    full: bool,
}

impl<'c, 'a> Gate<'c, 'a> {
    fn new(caller: &'c Caller<'a>, max_answer: usize) -> Self {
        Gate {
            caller,
            unauthorized: None,
            max_answer,
            full: false,
        }
    }

    /// The error of a call answered past the limit (`ran`: whether it was run).
    fn too_large(&self, ran: bool) -> RpcError {
        let what = if ran {
            "this call's answer would take the response past"
        } else {
            "not run: the response already reached"
        };
        RpcError::new(
            code::LIMIT_EXCEEDED,
            format!(
                "Limit exceeded: {what} this server's limit of {} bytes; ask for less (a smaller batch)",
                self.max_answer
            ),
        )
    }

    /// May the caller run method `ordinal` (0 for a name that is no method)?
    fn check(&mut self, ordinal: u32) -> Result<(), RpcError> {
        let Some(hook) = self.caller.authorize else {
            return Ok(());
        };
        let refuse = |status, why| Err(RpcError::from_call_error(&CallError::new(status, why)));
        if let Some(why) = &self.unauthorized {
            return refuse(Status::UNAUTHORIZED, why.clone());
        }
        let (status, why) = match self.caller.cap {
            Ok(cap) => {
                let mut why = String::new();
                match Some(hook).admit(cap, ordinal, &mut why) {
                    Ok(()) => return Ok(()),
                    Err(status) => (status, why),
                }
            }
            Err(reason) => (Status::UNAUTHORIZED, format!("unauthorized: {reason}")),
        };
        if status == Status::UNAUTHORIZED {
            self.unauthorized = Some(why.clone());
        }
        refuse(status, why)
    }
}

/// A request object's envelope, borrowed from the body: its id (`None` for a
/// notification), method and params (raw).
struct JsonCall<'a> {
    id: Option<&'a RawValue>,
    method: Cow<'a, str>,
    params: Option<&'a RawValue>,
}

/// The members of a request object, each kept raw; unknown members are skipped. One of
/// the four given twice is noted in `duplicate` and refuses the request: a proxy that
/// filters methods may read the first `"method"` where a parser that keeps the last
/// would run another one.
#[derive(Default)]
struct Members<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    duplicate: Option<&'static str>,
}

impl<'de> serde::de::Visitor<'de> for Members<'de> {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a request object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(mut self, mut map: A) -> Result<Self, A::Error> {
        while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
            let (name, slot) = match key.as_ref() {
                "jsonrpc" => ("jsonrpc", &mut self.jsonrpc),
                "id" => ("id", &mut self.id),
                "method" => ("method", &mut self.method),
                "params" => ("params", &mut self.params),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            let value = map.next_value::<&'de RawValue>()?;
            if slot.replace(value).is_some() {
                self.duplicate.get_or_insert(name);
            }
        }
        Ok(self)
    }
}

/// A JSON string's value, borrowed when it has no escapes; `None` if `raw` is not a
/// string.
fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    let quoted = text.strip_prefix('"')?;
    // The envelope reader checked the string already: without a backslash, its value
    // is what lies between the quotes.
    if let Some(value) = quoted.strip_suffix('"') {
        if !value.contains('\\') {
            return Some(Cow::Borrowed(value));
        }
    }
    serde_json::from_str::<CowStr<'_>>(text).ok().map(|s| s.0)
}

/// Whether a checked JSON number is one any JSON reader can read back (not `1e400`, nor
/// an integer of 400 digits): an integer of up to 18 digits always is (it fits an
/// `i64`); others are read to see.
fn readable_number(number: &str) -> bool {
    let digits = number.strip_prefix('-').unwrap_or(number);
    (digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()))
        || serde_json::from_str::<serde_json::Number>(number).is_ok()
}

/// Check the envelope of one request object. The error carries the id to answer with
/// (the request's own id if it is valid, else null).
fn check(request: &RawValue) -> Result<JsonCall<'_>, (&RawValue, RpcError)> {
    match read_members(request.get()) {
        Some(members) => check_members(members),
        None => Err((
            null_id(),
            RpcError::invalid_request("a request must be a JSON object"),
        )),
    }
}

/// The members of `text` if it is one JSON object, with nothing but JSON whitespace
/// around it; `None` for anything else (not an object, or not JSON).
fn read_members(text: &str) -> Option<Members<'_>> {
    let text = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !text.starts_with('{') {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = serde::Deserializer::deserialize_map(&mut de, Members::default()).ok()?;
    de.end().ok()?;
    Some(members)
}

/// Check the members of one request object (see [`check`]).
fn check_members<'a>(members: Members<'a>) -> Result<JsonCall<'a>, (&'a RawValue, RpcError)> {
    if let Some(name) = members.duplicate {
        return Err((
            null_id(),
            RpcError::invalid_request(format!("the {name:?} member is given more than once")),
        ));
    }
    let id = match members.id {
        None => None,
        Some(id) => match id.get().as_bytes().first() {
            Some(b'n' | b'"') => Some(id),
            // A number the answer can echo and any JSON reader can read back (not 1e400).
            Some(b'-' | b'0'..=b'9') if readable_number(id.get()) => Some(id),
            _ => {
                return Err((
                    null_id(),
                    RpcError::invalid_request("\"id\" must be a string, a number or null"),
                ))
            }
        },
    };
    let reply_id: &'a RawValue = id.unwrap_or(RawValue::NULL);
    match members.jsonrpc.map(raw_str) {
        Some(Some(version)) if version == "2.0" => {}
        Some(_) => {
            return Err((
                reply_id,
                RpcError::invalid_request("\"jsonrpc\" must be exactly \"2.0\""),
            ))
        }
        None => {
            return Err((
                reply_id,
                RpcError::invalid_request("the \"jsonrpc\": \"2.0\" member is missing"),
            ))
        }
    }
    let method = match members.method.map(raw_str) {
        Some(Some(method)) => method,
        Some(None) => {
            return Err((
                reply_id,
                RpcError::invalid_request("\"method\" must be a string"),
            ))
        }
        None => {
            return Err((
                reply_id,
                RpcError::invalid_request("the \"method\" member is missing"),
            ))
        }
    };
    Ok(JsonCall {
        id,
        method,
        params: members.params,
    })
}

/// Answer one request object into `out`; false (with `out` left as it was) for a
/// notification, whose outcome is not sent, error or not, as JSON-RPC 2.0 requires.
async fn handle_one<S: Service>(
    service: &S,
    pool: &BuilderPool,
    checked: Result<JsonCall<'_>, (&RawValue, RpcError)>,
    gate: &mut Gate<'_, '_>,
    subs: Option<&mut (dyn Subscriptions + '_)>,
    out: &mut Vec<u8>,
) -> bool {
    let call = match checked {
        Ok(call) => call,
        Err((id, error)) => {
            write_error(out, id, &error);
            return true;
        }
    };
    let start = out.len();
    if gate.full {
        let Some(id) = call.id else {
            return false;
        };
        write_error(out, id, &gate.too_large(false));
        return true;
    }
    out.extend_from_slice(br#"{"jsonrpc":"2.0","result":"#);
    let outcome = match subscribe::subscription_call::<S>(&call.method) {
        // A subscription opened by a notification would send notifications under an
        // id its client never learns, and hold a slot until the connection ends.
        Some((_, true)) if call.id.is_none() => Err(RpcError::new(
            code::INVALID_REQUEST,
            "Invalid request: a subscription is opened by a call with an id, not by a notification",
        )),
        Some(which) => subscribe::dispatch::<S>(pool, &call, which, gate, subs, out),
        None => dispatch(service, pool, &call, gate, out).await,
    };
    let Some(id) = call.id else {
        if let Err(e) = &outcome {
            tracing::debug!(method = %call.method, code = e.code, "JSON-RPC notification failed: {}", e.message);
        }
        out.truncate(start);
        return false;
    };
    match outcome {
        Ok(()) if out.len() > gate.max_answer => {
            out.truncate(start);
            gate.full = true;
            write_error(out, id, &gate.too_large(true));
        }
        Ok(()) => {
            out.extend_from_slice(br#","id":"#);
            out.extend_from_slice(id.get().as_bytes());
            out.push(b'}');
        }
        Err(error) => {
            tracing::debug!(method = %call.method, code = error.code, "JSON-RPC call failed: {}", error.message);
            out.truncate(start);
            write_error(out, id, &error);
        }
    }
    true
}

/// Find the method, build its request message, run the handler, and append its answer's
/// JSON to `out`.
async fn dispatch<S: Service>(
    service: &S,
    pool: &BuilderPool,
    call: &JsonCall<'_>,
    gate: &mut Gate<'_, '_>,
    out: &mut Vec<u8>,
) -> Result<(), RpcError> {
    // Streams are not calls: JSON-RPC over HTTP neither lists nor reaches them.
    let method = S::method_by_json_name(&call.method).filter(|m| !m.streaming.is_stream());
    // Before the method is looked up, so only an authorised caller learns which exist.
    gate.check(method.map_or(0, |m| m.ordinal))?;
    let Some(method) = method else {
        if call.method == DISCOVER {
            if let Some(document) = S::OPENRPC {
                out.extend_from_slice(document.as_bytes());
                return Ok(());
            }
        }
        return Err(RpcError::method_not_found(&call.method, S::METHODS));
    };
    let mut request = pool.get();
    (method.params_to_wire)(call.params, method.positional, &mut request)
        .map_err(|e| RpcError::invalid_params(&e))?;
    // A method without a request struct gets an empty payload, as over ZAP/TCP.
    let payload: &[u8] = if method.request.is_some() {
        request.as_bytes()
    } else {
        &[]
    };
    let mut answer = pool.get();
    // Admitted above, before the method was looked up; JSON-RPC has no pipelining.
    let admitted = call::Call {
        ordinal: method.ordinal,
        cap: &[],
        target: NO_TARGET,
        payload: Payload::Borrowed(payload),
    };
    let mut why = String::new();
    let reply = match call::run(
        service,
        &mut Admitted,
        &mut NoPipeline,
        admitted,
        &mut answer,
        &mut why,
        call::Around {
            context: gate.caller.context.clone(),
            limit: gate.caller.load_limit,
        },
    )
    .await
    {
        Outcome::Ran(reply) => reply,
        Outcome::Refused(status) => Err(CallError::new(status, why)),
    };
    let reply = reply.map_err(|e| {
        if e.status == Status::INTERNAL {
            tracing::warn!(method = %call.method, "handler failed: {}", e.message);
        }
        RpcError::from_call_error(&e)
    })?;
    match reply {
        Reply::Empty => {
            out.extend_from_slice(b"null");
            Ok(())
        }
        Reply::Message => (method.result_to_json)(answer.as_bytes(), method.result_field, out)
            .map_err(|e| {
                tracing::error!(method = %call.method, "cannot answer in JSON: {e}");
                let response = method.response.unwrap_or("response");
                RpcError::new(
                    code::INTERNAL_ERROR,
                    match e {
                        ResultError::Decode(e) => format!(
                            "Internal error: the response is not a valid {response} message: {e}"
                        ),
                        ResultError::Serialize(e) => format!(
                            "Internal error: the {response} response cannot be written as JSON: {e}"
                        ),
                    },
                )
            }),
    }
}

/// The OpenRPC service discovery method: answered with the schema's OpenRPC document
/// when the service carries one ([`Service::OPENRPC`]).
pub const DISCOVER: &str = "rpc.discover";

#[cfg(test)]
mod tests {
    use super::*;

    /// A value whose serialization always fails.
    struct Unserializable;

    impl Serialize for Unserializable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("refused on purpose"))
        }
    }

    #[test]
    fn an_error_that_fails_to_serialize_is_an_internal_error() {
        let error = RpcError {
            code: 1,
            message: "x".into(),
            data: Some(Value::Null),
        };
        let mut out = Vec::new();
        write_error(&mut out, null_id(), &error);
        let answer: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(answer["error"]["code"], 1);
        assert!(serde_json::to_vec(&Unserializable).is_err());
    }

    #[test]
    fn members_are_read_from_exactly_one_object() {
        let members = read_members(" \r\n\t{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"m\"}\n ");
        let members = members.expect("one object with JSON whitespace around it");
        assert_eq!(members.id.map(RawValue::get), Some("7"));
        assert!(members.params.is_none());
        for not_one_object in [
            "",
            "{",
            "[{}]",
            "7",
            "{} {}",
            "{}x",
            "{\"a\":tru}",
            "{\"a\":\"\\x\"}",
            // Whitespace that is not JSON's.
            "\u{a0}{}",
            "{}\u{2028}",
        ] {
            assert!(read_members(not_one_object).is_none(), "{not_one_object:?}");
        }
    }

    #[test]
    fn the_last_resort_body_is_a_valid_internal_error() {
        let answer: Value = serde_json::from_slice(INTERNAL_ERROR_BODY).unwrap();
        assert_eq!(answer["error"]["code"], code::INTERNAL_ERROR);
        assert_eq!(answer["jsonrpc"], "2.0");
    }

    #[test]
    fn envelopes_are_read_without_copies() {
        let raw: &RawValue = serde_json::from_str(
            r#"{"id":"a1","jsonrpc":"2.0","x":[1,{}],"method":"m","params":[1, 2]}"#,
        )
        .unwrap();
        let call = check(raw).map_err(|(_, e)| e).unwrap();
        assert_eq!(call.id.map(RawValue::get), Some(r#""a1""#));
        assert!(matches!(call.method, Cow::Borrowed("m")));
        assert_eq!(call.params.map(RawValue::get), Some("[1, 2]"));
        let escaped: &RawValue =
            serde_json::from_str(r#"{"jsonrpc":"2\u002e0","method":"a\u0062","id":7}"#).unwrap();
        let call = check(escaped).map_err(|(_, e)| e).unwrap();
        assert_eq!(call.method, "ab");
    }

    #[test]
    fn strings_and_numeric_ids_read_alike_with_and_without_escapes() {
        let raw = |text: &'static str| -> &'static RawValue { serde_json::from_str(text).unwrap() };
        for (text, value) in [
            (r#""eth_call""#, Some("eth_call")),
            (r#""""#, Some("")),
            (r#""a\"b""#, Some("a\"b")),
            (r#""\\""#, Some("\\")),
            (r#""\u0041\n""#, Some("A\n")),
            ("7", None),
            ("null", None),
        ] {
            assert_eq!(raw_str(raw(text)).as_deref(), value, "{text}");
        }
        assert!(matches!(raw_str(raw(r#""m""#)), Some(Cow::Borrowed("m"))));
        for (id, readable) in [
            ("0", true),
            ("-17", true),
            ("123456789012345678901234567890", true),
            ("1.5", true),
            ("-2e10", true),
            ("1e400", false),
            ("-1e400", false),
        ] {
            assert_eq!(readable_number(raw(id).get()), readable, "{id}");
        }
        let huge = format!("1{}", "0".repeat(400));
        assert!(!readable_number(&huge), "an integer past any f64");
        assert!(readable_number("999999999999999999"));
        assert!(readable_number("-999999999999999999"));
    }

    #[test]
    fn a_member_given_twice_is_an_invalid_request() {
        for (body, name) in [
            (
                r#"{"jsonrpc":"2.0","method":"a","method":"b","id":1}"#,
                "method",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"a","m\u0065thod":"b","id":1}"#,
                "method",
            ),
            (
                r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"a","id":1}"#,
                "jsonrpc",
            ),
            (r#"{"jsonrpc":"2.0","method":"a","id":1,"id":2}"#, "id"),
            (
                r#"{"jsonrpc":"2.0","method":"a","params":[],"params":{},"id":1}"#,
                "params",
            ),
        ] {
            let raw: &RawValue = serde_json::from_str(body).unwrap();
            let (id, error) = check(raw).map(|_| ()).unwrap_err();
            assert_eq!(id.get(), "null", "{body}");
            assert_eq!(error.code, code::INVALID_REQUEST, "{body}");
            assert!(
                error
                    .message
                    .contains(&format!("{name:?} member is given more than once")),
                "{body}: {}",
                error.message
            );
        }
        // Unknown members may repeat: they are skipped.
        let raw: &RawValue =
            serde_json::from_str(r#"{"jsonrpc":"2.0","method":"a","x":1,"x":2}"#).unwrap();
        assert!(check(raw).is_ok());
    }
}

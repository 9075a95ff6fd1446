//! The JSON-RPC 2.0 protocol, independent of HTTP: one request body in, one response
//! body (or nothing, when every call was a notification) out.
//!
//! A call goes through the same [`Service::call`] as a ZAP/TCP call: its `params` are
//! written as the request message by [`MethodInfo::params_to_wire`], the handler runs,
//! and the response message is turned into JSON by [`MethodInfo::result_to_json`].

use serde::Serialize;
use serde_json::Value;

use super::batch::{parse, Body};
use crate::json::{ParamsError, ResultError};
use crate::rpc::Status;
use crate::service::{Authorizer, CallError, MethodInfo, Reply, Service};
use crate::BuilderPool;

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
        let known: Vec<&str> = methods.iter().map(|m| m.json_name).collect();
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
    /// 403 → -32003, 404 → -32601, 500 → -32603, anything else → -32000; the ZAP status
    /// goes in `data.status`.
    pub fn from_call_error(err: &CallError) -> Self {
        let (code, what) = match err.status {
            Status::BAD_REQUEST => (code::INVALID_PARAMS, "Invalid params"),
            Status::UNAUTHORIZED => (code::UNAUTHORIZED, "Unauthorized"),
            Status::FORBIDDEN => (code::FORBIDDEN, "Forbidden"),
            Status::NOT_FOUND => (code::METHOD_NOT_FOUND, "Method not found"),
            Status::INTERNAL => (code::INTERNAL_ERROR, "Internal error"),
            _ => (code::SERVER_ERROR, "Server error"),
        };
        RpcError {
            code,
            message: format!("{what}: {}", err.message),
            data: Some(serde_json::json!({ "status": err.status.0 })),
        }
    }
}

/// One response object: `result` or `error`, never both.
#[derive(Debug, Serialize)]
struct Response {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError>,
    id: Value,
}

impl Response {
    fn new(id: Value, outcome: Result<Value, RpcError>) -> Self {
        let (result, error) = match outcome {
            Ok(result) => (Some(result), None),
            Err(error) => (None, Some(error)),
        };
        Response {
            jsonrpc: "2.0",
            result,
            error,
            id,
        }
    }
}

/// A single error response with `"id": null`, serialized (for errors found before any
/// request could be read: parse errors, bodies that are too large).
pub fn error_body(error: RpcError) -> Vec<u8> {
    to_json(&Response::new(Value::Null, Err(error)))
}

/// Serialize an answer. Should that fail, the answer becomes a -32603 error saying why
/// (`"id": null`: the failed answer may be a whole batch), never an empty body.
fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|e| {
        tracing::error!("cannot serialize a JSON-RPC answer: {e}");
        let error = RpcError::new(
            code::INTERNAL_ERROR,
            format!("Internal error: the answer cannot be written as JSON: {e}"),
        );
        serde_json::to_vec(&Response::new(Value::Null, Err(error)))
            .unwrap_or_else(|_| INTERNAL_ERROR_BODY.to_vec())
    })
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
/// never built.
pub async fn handle_jsonrpc<S: Service>(
    service: &S,
    pool: &BuilderPool,
    body: &[u8],
    max_batch: usize,
) -> Option<Vec<u8>> {
    handle_jsonrpc_as(service, pool, body, max_batch, &Caller::default()).await
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
}

impl Default for Caller<'_> {
    fn default() -> Self {
        Caller {
            authorize: None,
            cap: Ok(&[]),
        }
    }
}

/// [`handle_jsonrpc`] for `caller`: every call is authorised before its handler runs.
pub async fn handle_jsonrpc_as<S: Service>(
    service: &S,
    pool: &BuilderPool,
    body: &[u8],
    max_batch: usize,
    caller: &Caller<'_>,
) -> Option<Vec<u8>> {
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
            let mut responses = Vec::new();
            for call in batch {
                responses.extend(handle_one(service, pool, call, caller).await);
            }
            (!responses.is_empty()).then(|| to_json(&responses))
        }
        Body::Single(single) => handle_one(service, pool, single, caller)
            .await
            .map(|r| to_json(&r)),
    }
}

/// A request object, checked: its id (`None` for a notification), method and params.
struct Call {
    id: Option<Value>,
    method: String,
    params: Option<Value>,
}

/// Check the envelope of one request object. The error carries the id to answer with
/// (the request's own id if it is valid, else null).
fn check(request: Value) -> Result<Call, (Value, RpcError)> {
    let Value::Object(mut fields) = request else {
        return Err((
            Value::Null,
            RpcError::invalid_request("a request must be a JSON object"),
        ));
    };
    let id = match fields.remove("id") {
        None => None,
        Some(id @ (Value::Null | Value::Number(_) | Value::String(_))) => Some(id),
        Some(_) => {
            return Err((
                Value::Null,
                RpcError::invalid_request("\"id\" must be a string, a number or null"),
            ))
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    match fields.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
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
    let method = match fields.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => {
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
    Ok(Call {
        id,
        method,
        params: fields.remove("params"),
    })
}

/// Answer one request object; `None` for a notification (whose outcome is not sent,
/// error or not, as JSON-RPC 2.0 requires).
async fn handle_one<S: Service>(
    service: &S,
    pool: &BuilderPool,
    request: Value,
    caller: &Caller<'_>,
) -> Option<Response> {
    let call = match check(request) {
        Ok(call) => call,
        Err((id, error)) => return Some(Response::new(id, Err(error))),
    };
    let outcome = dispatch(service, pool, &call, caller).await;
    if let Err(e) = &outcome {
        tracing::debug!(method = %call.method, code = e.code, "JSON-RPC call failed: {}", e.message);
    }
    call.id.map(|id| Response::new(id, outcome))
}

/// Find the method, build its request message, run the handler, read its response.
async fn dispatch<S: Service>(
    service: &S,
    pool: &BuilderPool,
    call: &Call,
    caller: &Caller<'_>,
) -> Result<Value, RpcError> {
    let method = S::method_by_json_name(&call.method);
    if let Some(gate) = caller.authorize {
        // Before the method is looked up, so only an authorised caller learns which exist.
        let ordinal = method.map_or(0, |m| m.ordinal);
        let verdict = match caller.cap {
            Ok(cap) => {
                let mut why = String::new();
                gate.authorize(cap, ordinal, &mut why)
                    .map_err(|status| (status, why))
            }
            Err(reason) => Err((Status::UNAUTHORIZED, format!("unauthorized: {reason}"))),
        };
        if let Err((status, why)) = verdict {
            return Err(RpcError::from_call_error(&CallError::new(status, why)));
        }
    }
    let method = method.ok_or_else(|| RpcError::method_not_found(&call.method, S::METHODS))?;
    let mut request = pool.get();
    (method.params_to_wire)(call.params.as_ref(), &mut request)
        .map_err(|e| RpcError::invalid_params(&e))?;
    // A method without a request struct gets an empty payload, as over ZAP/TCP.
    let payload: &[u8] = if method.request.is_some() {
        request.as_bytes()
    } else {
        &[]
    };
    let mut out = pool.get();
    let reply = service
        .call(method.ordinal, payload, &mut out)
        .await
        .map_err(|e| {
            if e.status == Status::INTERNAL {
                tracing::warn!(method = %call.method, "handler failed: {}", e.message);
            }
            RpcError::from_call_error(&e)
        })?;
    match reply {
        Reply::Empty => Ok(Value::Null),
        Reply::Message => (method.result_to_json)(out.as_bytes()).map_err(|e| {
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
    fn an_answer_that_fails_to_serialize_is_an_internal_error() {
        let body = to_json(&Unserializable);
        let answer: Value = serde_json::from_slice(&body).expect("a JSON body, not empty");
        assert_eq!(answer["error"]["code"], code::INTERNAL_ERROR);
        assert_eq!(answer["id"], Value::Null);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("refused on purpose"), "{message}");
    }

    #[test]
    fn the_last_resort_body_is_a_valid_internal_error() {
        let answer: Value = serde_json::from_slice(INTERNAL_ERROR_BODY).unwrap();
        assert_eq!(answer["error"]["code"], code::INTERNAL_ERROR);
        assert_eq!(answer["jsonrpc"], "2.0");
    }
}

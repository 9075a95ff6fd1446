//! The contract between generated interfaces and transports.
//!
//! `zapc` generates, for every schema interface, a handler trait, a [`Service`]
//! implementation that dispatches by method ordinal, a [`MethodInfo`] table (JSON-RPC
//! names and JSON converters) and a client stub generic over [`Transport`]. The ZAP/TCP
//! server and the JSON-RPC fallback both drive the same [`Service::call`], so one
//! handler serves both.

use std::borrow::Cow;
use std::future::Future;

use bytes::Bytes;

use crate::app_error::{AppCode, AppError};
use crate::builder::Builder;
use crate::error::ParseError;
use crate::json::{ParamsError, ResultError};
use crate::rpc::Status;
use crate::stream::{StreamIo, Streaming};
use crate::transport::{ClientError, Transport};

/// What a handler call produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The response struct was written into the output builder as a complete message.
    Message,
    /// The method has no result: the response body is empty.
    Empty,
}

/// A failed call: the status to answer with and a message for the caller.
///
/// The protocol's own failures have constructors here ([`bad_request`], [`internal`],
/// ...); a service's own errors, which callers are meant to tell apart, are
/// [`AppError`]s, converted with `.into()` or `?` (see [`crate::app_error`]).
///
/// [`bad_request`]: CallError::bad_request
/// [`internal`]: CallError::internal
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub status: Status,
    pub message: Cow<'static, str>,
    /// An application error's data (JSON), if it has any.
    pub data: Option<Box<serde_json::Value>>,
}

impl CallError {
    /// An error with any status.
    pub fn new(status: Status, message: impl Into<Cow<'static, str>>) -> Self {
        CallError {
            status,
            message: message.into(),
            data: None,
        }
    }
    /// 500: the handler failed.
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        CallError::new(Status::INTERNAL, message)
    }
    /// 400: the request was not acceptable.
    pub fn bad_request(message: impl Into<Cow<'static, str>>) -> Self {
        CallError::new(Status::BAD_REQUEST, message)
    }
    /// 404: no method with this ordinal.
    pub fn unknown_method(service: &str, ordinal: u32) -> Self {
        CallError::new(
            Status::NOT_FOUND,
            format!("{service} has no method with ordinal {ordinal}"),
        )
    }
    /// 400: method `name` is a stream, which a call (dir 1, or JSON-RPC) cannot reach.
    pub fn stream_method(name: &str) -> Self {
        CallError::bad_request(format!(
            "`{name}` is a stream method: open it as a stream (dir 3), not as a call"
        ))
    }
    /// 400: the payload is not a message of the request type.
    pub fn bad_payload(request: &str, err: ParseError) -> Self {
        CallError::bad_request(format!("payload is not a valid {request} message: {err}"))
    }

    /// The application error this is, when its status is one (32010..=32099).
    pub fn app_error(&self) -> Option<AppError> {
        AppCode::from_status(self.status).map(|code| AppError {
            code,
            message: self.message.clone(),
            data: self.data.as_deref().cloned(),
        })
    }

    /// Append the ZAP response body to `out`: an application error's JSON body (see
    /// [`AppError::body`]), else the message as text.
    pub fn write_body(&self, out: &mut String) {
        match self.app_error() {
            Some(app) => out.push_str(&app.body()),
            None => out.push_str(&self.message),
        }
    }
}

impl From<AppError> for CallError {
    fn from(e: AppError) -> Self {
        CallError {
            status: e.code.status(),
            message: e.message,
            data: e.data.map(Box::new),
        }
    }
}

/// 500: the handler's answer could not be encoded (over the builder's limit).
impl From<crate::error::BuildError> for CallError {
    fn from(e: crate::error::BuildError) -> Self {
        CallError::internal(format!("cannot encode the answer: {e}"))
    }
}

impl core::fmt::Display for CallError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for CallError {}

/// One method of an interface, for transports that address methods by name (JSON-RPC).
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    /// 1-based ordinal.
    pub ordinal: u32,
    /// The capability permission bits a call needs (the schema's `requires`); 0 when it
    /// declares none. Only a server configured with a capability policy checks them.
    pub permissions: u64,
    /// The method name as written in the schema (`getBalance`).
    pub name: &'static str,
    /// A call, or which kind of stream ([`Service::stream`] serves those).
    pub streaming: Streaming,
    /// The JSON-RPC method name (`eth_getBalance`).
    pub json_name: &'static str,
    /// The request struct's schema name, if the method takes one.
    pub request: Option<&'static str>,
    /// The response struct's schema name, if the method returns one.
    pub response: Option<&'static str>,
    /// The JSON keys positional params fill, in order: the schema's
    /// `json(params = [...])`, else every request field in declaration order.
    pub positional: &'static [&'static str],
    /// `json(result = Field)`: the JSON key of the one response field the JSON-RPC result
    /// is; `None` for the whole response object.
    pub result_field: Option<&'static str>,
    /// JSON-RPC `params` (the raw JSON slice: an object by key, an array in
    /// [`positional`](Self::positional) order) to the request message, written into the
    /// builder as a complete message.
    pub params_to_wire: ParamsToWire,
    /// The response body to its JSON (the whole object, or the
    /// [`result_field`](Self::result_field)), appended to the buffer. For a stream
    /// method, one message the server sends.
    pub result_to_json: ResultToJson,
    /// `json(subscription = "newHeads")`: a server stream JSON-RPC clients open as this
    /// subscription (`eth_subscribe` over WebSocket); `None` for every other method.
    pub subscription: Option<&'static str>,
}

impl MethodInfo {
    /// A method of a service written by hand: `ordinal`, named `name` in ZAP and in
    /// JSON-RPC, with no permissions and no request or response schema: over JSON-RPC
    /// it takes no params (absent, `null`, `[]` or `{}`) and answers `null`.
    ///
    /// ```
    /// use zap_runtime::stream::Streaming;
    /// use zap_runtime::MethodInfo;
    ///
    /// const METHODS: &[MethodInfo] = &[
    ///     MethodInfo::new(1, "get", Streaming::Unary),
    ///     MethodInfo::new(2, "watch", Streaming::Server),
    /// ];
    /// # let _ = METHODS;
    /// ```
    pub const fn new(ordinal: u32, name: &'static str, streaming: Streaming) -> MethodInfo {
        MethodInfo {
            ordinal,
            permissions: 0,
            name,
            streaming,
            json_name: name,
            request: None,
            response: None,
            positional: &[],
            result_field: None,
            params_to_wire: crate::json::no_params,
            result_to_json: crate::json::no_result,
            subscription: None,
        }
    }
}

/// [`MethodInfo::params_to_wire`]: raw params, the positional keys, the builder to
/// write the request message into.
pub type ParamsToWire = fn(
    Option<&serde_json::value::RawValue>,
    &'static [&'static str],
    &mut Builder,
) -> Result<(), ParamsError>;

/// [`MethodInfo::result_to_json`]: the response body, the unwrapped field's key (if
/// any), the buffer to append the JSON to.
pub type ResultToJson = fn(&[u8], Option<&'static str>, &mut Vec<u8>) -> Result<(), ResultError>;

/// Decides, before any handler runs, whether a call may proceed: the hook both servers
/// consult for every call when configured with one (see [`Authorizer`]). The
/// capability policy (`zap_runtime::cap::Policy`, feature `cap`) implements it.
pub trait Authorize: Send + Sync + core::fmt::Debug {
    /// `Ok` to run method `ordinal` for a caller presenting `cap` (the request's `Cap`
    /// field, or the HTTP `Authorization: ZAP-Cap` token; empty when none was given).
    /// Otherwise the status to answer (401 when `cap` proves nothing, 403 when it does
    /// not cover the call) with the reason written into `why`. Implementations should
    /// not allocate when they allow a call: it runs on the hot path.
    ///
    /// A 401 must not depend on `ordinal`: the JSON-RPC server answers every later call
    /// of the same HTTP request (a batch under one `Authorization` header) with the
    /// first 401 it gets, without asking again.
    fn authorize(&self, cap: &[u8], ordinal: u32, why: &mut String) -> Result<(), Status>;
}

/// A shared [`Authorize`] hook, as server configurations hold it. Two are equal when
/// they are the same hook.
#[derive(Clone, Debug)]
pub struct Authorizer(pub std::sync::Arc<dyn Authorize>);

impl Authorizer {
    /// Share `hook` between servers and connections.
    pub fn new(hook: impl Authorize + 'static) -> Self {
        Authorizer(std::sync::Arc::new(hook))
    }

    /// Run the hook; see [`Authorize::authorize`].
    #[inline]
    pub fn authorize(&self, cap: &[u8], ordinal: u32, why: &mut String) -> Result<(), Status> {
        self.0.authorize(cap, ordinal, why)
    }
}

impl PartialEq for Authorizer {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Authorizer {}

/// A schema as a generated service embeds it ([`Service::SCHEMA`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSchema {
    /// `(path, text)` of each file: the schema itself, then every file it imports, their
    /// paths relative to the schema's folder.
    pub files: &'static [(&'static str, &'static str)],
    /// The files' SHA-256, computed as `docs/interop.md` states (`zapc::schema_hash`).
    pub sha256: [u8; 32],
}

/// A generated interface, ready to be served.
pub trait Service: Send + Sync + 'static {
    /// The interface name as written in the schema.
    const NAME: &'static str;
    /// Every method, in the schema's declaration order (ordinal order unless the schema
    /// gives explicit ordinals, `name @N`; ordinals need not be consecutive).
    const METHODS: &'static [MethodInfo];
    /// The service's OpenRPC document (JSON), which the JSON-RPC server answers
    /// `rpc.discover` with; generated from the schema by zapc. `None`: no discovery.
    const OPENRPC: Option<&'static str> = None;
    /// The schema's package (`package eth`); empty when it declares none.
    const PACKAGE: &'static str = "";
    /// The schema's files and their SHA-256, which the server's reflection answers with
    /// ([`crate::builtin::DESCRIBE`]); generated by zapc from the schema it compiled.
    /// `None`: reflection lists the methods without a schema.
    const SCHEMA: Option<EmbeddedSchema> = None;
    /// Whether the calls carry the capability the server's policy admitted them with
    /// in their context ([`Context::capability`](crate::context::Context::capability)).
    /// Off by default: the context of a call that carries none stays empty, and the
    /// call allocates nothing for it. A layer that reads it
    /// ([`CallLayer::CAPABILITY`](crate::layer::CallLayer)) turns it on for the service
    /// it wraps.
    const CAPABILITY: bool = false;

    /// Run method `ordinal` on `payload` (the request message, borrowed from the frame),
    /// writing the response message into `out` (a cleared builder).
    fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a;

    /// As [`Service::call`], with the request message owned: `payload` is the request
    /// cut out of the frame it came in without a copy (a [`Bytes`] sharing the
    /// connection's read buffer), so a handler may keep it past the call (queue it,
    /// hand it to another task). The ZAP/TCP server calls this for every request that
    /// arrives in a frame; the JSON-RPC server and pipelined calls (whose payload is a
    /// remembered result) use [`Service::call`].
    ///
    /// The default borrows `payload` for [`Service::call`]; generated services
    /// dispatch to the handler's `<method>_owned`, whose default does the same.
    fn call_owned<'a>(
        &'a self,
        ordinal: u32,
        payload: Bytes,
        out: &'a mut Builder,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send + 'a {
        async move { self.call(ordinal, &payload, out).await }
    }

    /// Run stream method `ordinal` (a method whose [`MethodInfo::streaming`] is not
    /// `Unary`): `open` is the opening message, `io` the stream's two directions. The
    /// future runs in its own task; the stream's server side ends when it returns (or
    /// when the transport drops it: the connection closed, the server shuts down), and
    /// an error is logged, since the wire has no status for streams.
    ///
    /// The default knows no stream method. Generated services dispatch to the
    /// handler's stream methods, with typed [`Sender`](crate::stream::Sender) and
    /// [`Receiver`](crate::stream::Receiver) halves.
    fn stream(
        self: std::sync::Arc<Self>,
        ordinal: u32,
        open: Bytes,
        io: StreamIo,
    ) -> impl Future<Output = Result<(), CallError>> + Send + 'static {
        let _ = (open, io);
        async move { Err(CallError::unknown_method(Self::NAME, ordinal)) }
    }

    /// The runtime answered a call (or ended a stream) of method `ordinal` with `status`
    /// itself, not the handler: the server was over its load limit (503), the
    /// deadline passed (504). The default does nothing; `metrics::Metered` counts it
    /// among the method's errors.
    fn runtime_answered(&self, ordinal: u32, status: Status) {
        let _ = (ordinal, status);
    }

    /// Look a method up by its JSON-RPC name.
    fn method_by_json_name(name: &str) -> Option<&'static MethodInfo> {
        Self::METHODS.iter().find(|m| m.json_name == name)
    }

    /// Look a method up by its ordinal.
    fn method(ordinal: u32) -> Option<&'static MethodInfo> {
        method_index(Self::METHODS, ordinal).map(|i| &Self::METHODS[i])
    }
}

/// Where method `ordinal` is in `methods`. Methods numbered by position sit at
/// `ordinal - 1`; with explicit ordinals (`name @N` in the schema) the table is searched.
pub(crate) fn method_index(methods: &[MethodInfo], ordinal: u32) -> Option<usize> {
    let at = (ordinal as usize).wrapping_sub(1);
    match methods.get(at) {
        Some(m) if m.ordinal == ordinal => Some(at),
        _ => methods.iter().position(|m| m.ordinal == ordinal),
    }
}

/// Run a service in-process: a [`Transport`] that calls [`Service::call`] directly.
/// Useful in tests and for embedding a service without a socket.
#[derive(Debug, Clone, Default)]
pub struct Local<S>(pub S);

impl<S: Service> Transport for Local<S> {
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        let mut out = Builder::new();
        match self.0.call(ordinal, payload, &mut out).await {
            Ok(Reply::Message) => Ok(out.take_bytes()),
            Ok(Reply::Empty) => Ok(Vec::new()),
            Err(e) => Err(status_error(e)),
        }
    }

    /// Through [`Service::call_owned`], with a copy of `payload` (the caller's bytes are
    /// only borrowed), as a server hands a handler its request; the answer is the
    /// builder's buffer, frozen without a copy.
    async fn call_bytes(&self, ordinal: u32, payload: &[u8]) -> Result<Bytes, ClientError> {
        let mut out = Builder::new();
        let payload = Bytes::copy_from_slice(payload);
        match self.0.call_owned(ordinal, payload, &mut out).await {
            Ok(Reply::Message) => Ok(Bytes::from(out.take_bytes())),
            Ok(Reply::Empty) => Ok(Bytes::new()),
            Err(e) => Err(status_error(e)),
        }
    }
}

fn status_error(e: CallError) -> ClientError {
    match e.app_error() {
        Some(app) => ClientError::App(app),
        None => ClientError::Status {
            status: e.status,
            message: e.message.into_owned(),
        },
    }
}

//! How a client reaches a service: the [`Transport`] trait that generated client stubs
//! are generic over, and [`ClientError`], why a call through one failed. Implemented by
//! the TCP client ([`crate::client::Client`], feature `client`) and by
//! [`Local`](crate::Local), which calls a service in-process.

use std::future::Future;

use bytes::Bytes;

use crate::error::ParseError;
use crate::rpc::Status;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The service answered with one of its application errors (see
    /// [`crate::app_error`]).
    #[error("{0}")]
    App(crate::AppError),
    /// The server answered with a non-200 status that is not an application error.
    #[error("server answered {status}: {message}")]
    Status { status: Status, message: String },
    /// The connection is closed (or closed while the call was in flight).
    #[error("connection closed{}", if .0.is_empty() { String::new() } else { format!(": {}", .0) })]
    Closed(String),
    /// No answer within the call's timeout.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The call's deadline (the budget it was sent with) passed before an answer came;
    /// the server was told the deadline and stops the handler then too.
    #[error("deadline exceeded: no answer within the call's deadline of {0:?}")]
    DeadlineExceeded(std::time::Duration),
    /// The socket failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The answer is not a valid message of the response type.
    #[error("response is not a valid message: {0}")]
    Decode(#[from] ParseError),
    /// The peer broke the protocol (bad frame, bad envelope).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The call could not be encoded: its request message is over the builder's limit.
    #[error("cannot encode the call: {0}")]
    Build(#[from] crate::error::BuildError),
}

impl ClientError {
    /// Whether the call's deadline passed: here ([`ClientError::DeadlineExceeded`]) or
    /// on the server (status 504).
    pub fn is_deadline_exceeded(&self) -> bool {
        matches!(self, ClientError::DeadlineExceeded(_))
            || matches!(self, ClientError::Status { status, .. } if *status == Status::DEADLINE_EXCEEDED)
    }

    /// Whether the server refused the call for load (status 503): it did not run, and
    /// may be sent to another server.
    pub fn is_overloaded(&self) -> bool {
        matches!(self, ClientError::Status { status, .. } if *status == Status::OVERLOADED)
    }

    /// The error for a non-200 answer with `body`: an application error when the status
    /// is one (32010..=32099, its body read by [`AppError::from_body`]), else
    /// [`ClientError::Status`] with the body as text.
    ///
    /// [`AppError::from_body`]: crate::AppError::from_body
    pub fn from_answer(status: Status, body: &[u8]) -> Self {
        match crate::AppCode::from_status(status) {
            Some(code) => ClientError::App(crate::AppError::from_body(code, body)),
            None => ClientError::Status {
                status,
                message: String::from_utf8_lossy(body).into_owned(),
            },
        }
    }
}

/// How a generated client stub sends a call: implemented by the TCP client (and by
/// anything else that can carry an envelope, e.g. an in-process loopback in tests).
pub trait Transport: Send + Sync {
    /// Send method `ordinal` with `payload`; resolve to the response body of a 200.
    fn call(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Vec<u8>, ClientError>> + Send;

    /// As [`Transport::call`], with the response body as [`Bytes`]: generated stubs'
    /// `<method>_owned` read the answer from it without copying a field. The TCP
    /// client hands out the body cut from its read buffer (no copy at all); the default
    /// wraps [`Transport::call`]'s vector (no copy either).
    fn call_bytes(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Bytes, ClientError>> + Send {
        async move { self.call(ordinal, payload).await.map(Bytes::from) }
    }

    /// As [`Transport::call`], for a method the schema marks `idempotent` or
    /// `no_side_effects` (generated stubs call this for those, and `call` for every
    /// other): safe to send again. The reconnecting and balanced clients retry it after
    /// a connection failure, under their `Retry` policy; the default sends it once.
    fn call_idempotent(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Vec<u8>, ClientError>> + Send {
        self.call(ordinal, payload)
    }

    /// As [`Transport::call_bytes`], for a method marked as for
    /// [`Transport::call_idempotent`]; the default sends it once.
    fn call_bytes_idempotent(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Bytes, ClientError>> + Send {
        self.call_bytes(ordinal, payload)
    }

    /// As [`Transport::call_idempotent`], for a method the schema marks
    /// `no_side_effects` (a read): besides being retried, it may be hedged (the balanced
    /// client sends a second copy elsewhere when the first is slow, and cancels the
    /// loser). The default is [`Transport::call_idempotent`].
    fn call_no_side_effects(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Vec<u8>, ClientError>> + Send {
        self.call_idempotent(ordinal, payload)
    }

    /// As [`Transport::call_bytes_idempotent`], for a `no_side_effects` method; the
    /// default is [`Transport::call_bytes_idempotent`].
    fn call_bytes_no_side_effects(
        &self,
        ordinal: u32,
        payload: &[u8],
    ) -> impl Future<Output = Result<Bytes, ClientError>> + Send {
        self.call_bytes_idempotent(ordinal, payload)
    }

    /// Open a stream of method `ordinal` with the opening message `open`: its two
    /// directions, raw (generated stubs wrap them in typed halves). The default
    /// carries no streams.
    fn open_stream(
        &self,
        ordinal: u32,
        open: &[u8],
    ) -> impl Future<Output = Result<crate::stream::StreamIo, ClientError>> + Send {
        let _ = (ordinal, open);
        async move {
            Err(ClientError::Protocol(
                "this transport does not carry streams".into(),
            ))
        }
    }
}

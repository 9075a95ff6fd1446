//! The RPC call envelope (spec §5): a request or response object inside a ZAP message
//! with header version 2 and flags `0xC800`.
//!
//! ```
//! use zap_runtime::{rpc::{Request, Response, Status}, Builder};
//! let mut b = Builder::new();
//! let wire = Request { method: 1, promise_id: 7, target: 0, cap: b"", payload: b"hi" }
//!     .encode(&mut b)?
//!     .to_vec();
//! let req = Request::parse(&wire)?;
//! assert_eq!((req.method, req.promise_id, req.payload), (1, 7, &b"hi"[..]));
//! let resp = Response { status: Status::OK, promise_id: 7, body: b"" }.encode(&mut b)?;
//! assert_eq!(Response::parse(resp)?.status, Status::OK);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::builder::Builder;
use crate::error::BuildError;
use crate::error::RequestError;
use crate::read::{Message, Object};
use crate::VERSION2;

/// The message type of RPC envelopes, carried in the high byte of the header flags.
pub const MSG_TYPE_RPC: u8 = 200;
/// The flags word of RPC envelopes: `MSG_TYPE_RPC << 8`.
pub const RPC_FLAGS: u16 = (MSG_TYPE_RPC as u16) << 8;
/// The `Target` of a call that does not pipeline on an earlier one.
pub const NO_TARGET: u32 = 0;

/// Request object layout: fixed size and field offsets.
pub mod request {
    pub const SIZE: usize = 28;
    pub const METHOD: usize = 0;
    pub const PROMISE_ID: usize = 4;
    pub const TARGET: usize = 8;
    pub const CAP: usize = 12;
    pub const PAYLOAD: usize = 20;
}

/// Response object layout: fixed size and field offsets (bytes 8..12 are unused).
pub mod response {
    pub const SIZE: usize = 20;
    pub const STATUS: usize = 0;
    pub const PROMISE_ID: usize = 4;
    pub const BODY: usize = 12;
}

/// A response status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Status(pub u32);

impl Status {
    pub const OK: Status = Status(200);
    pub const BAD_REQUEST: Status = Status(400);
    pub const UNAUTHORIZED: Status = Status(401);
    pub const FORBIDDEN: Status = Status(403);
    pub const NOT_FOUND: Status = Status(404);
    /// The caller sent more calls than a rate limit allows (`layer::RateLimit`).
    pub const TOO_MANY_REQUESTS: Status = Status(429);
    pub const INTERNAL: Status = Status(500);
    /// The call was cancelled by its caller before it was answered.
    pub const CANCELLED: Status = Status(499);
    /// The server is at its limit of calls in flight (server-wide or for the method):
    /// the call was not run, and may be retried on another server.
    pub const OVERLOADED: Status = Status(503);
    /// The call's deadline passed before it was answered: not run, or its handler
    /// dropped.
    pub const DEADLINE_EXCEEDED: Status = Status(504);

    /// A short reason phrase for the known codes.
    pub fn reason(self) -> &'static str {
        match self.0 {
            200 => "ok",
            400 => "bad request",
            401 => "unauthorized",
            403 => "forbidden",
            404 => "unknown method",
            500 => "handler error",
            429 => "too many requests",
            499 => "cancelled",
            503 => "overloaded",
            504 => "deadline exceeded",
            32_010..=32_099 => "application error",
            _ => "unknown status",
        }
    }
}

impl core::fmt::Display for Status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({})", self.0, self.reason())
    }
}

/// The root object of an envelope, if its whole fixed section is inside the message.
fn envelope_root(buf: &[u8], need: usize) -> Result<Object<'_>, RequestError> {
    let msg = Message::parse(buf)?;
    let root = msg.root();
    if root.is_null() || root.position() + need > msg.size() {
        return Err(RequestError::Truncated {
            root: msg.root_offset(),
            need,
            size: msg.size(),
        });
    }
    Ok(root)
}

/// A call: which method, which promise it answers to, and its payload (borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// 1-based method ordinal in the interface.
    pub method: u32,
    /// Caller-chosen, non-zero, unique per connection while in flight.
    pub promise_id: u32,
    /// 0, or the PromiseID of an earlier call whose result is this call's payload.
    pub target: u32,
    /// Opaque capability token (may be empty).
    pub cap: &'a [u8],
    /// The request struct, a complete ZAP message.
    pub payload: &'a [u8],
}

impl<'a> Request<'a> {
    /// Read a request envelope. Refuses a buffer that is not a message or whose root
    /// object is null or truncated.
    pub fn parse(buf: &'a [u8]) -> Result<Self, RequestError> {
        let root = envelope_root(buf, request::SIZE)?;
        Ok(Request {
            method: root.u32(request::METHOD),
            promise_id: root.u32(request::PROMISE_ID),
            target: root.u32(request::TARGET),
            cap: root.bytes(request::CAP),
            payload: root.bytes(request::PAYLOAD),
        })
    }

    /// Encode into `b` (cleared first), byte-identical to the other runtimes. Fails only
    /// for an envelope over the builder's limit.
    pub fn encode<'b>(&self, b: &'b mut Builder) -> Result<&'b [u8], BuildError> {
        encode_envelope(b, |b| self.write(b))
    }

    /// Write the envelope into a freshly cleared builder without finishing it.
    pub fn write(&self, b: &mut Builder) {
        b.set_version(VERSION2);
        let mut obj = b.start_object(request::SIZE);
        obj.set_u32(request::METHOD, self.method);
        obj.set_u32(request::PROMISE_ID, self.promise_id);
        obj.set_u32(request::TARGET, self.target);
        obj.set_bytes(request::CAP, self.cap);
        obj.set_bytes(request::PAYLOAD, self.payload);
        obj.finish_as_root();
    }
}

/// Clear `b`, `write` an envelope into it and finish it with the RPC flags.
fn encode_envelope(b: &mut Builder, write: impl FnOnce(&mut Builder)) -> Result<&[u8], BuildError> {
    b.clear();
    write(b);
    b.finish_with_flags(RPC_FLAGS)
}

/// Bytes of a response envelope before its body: the message header and the response
/// object (a non-empty body follows right after it).
pub const RESPONSE_HEAD: usize = crate::HEADER_SIZE + response::SIZE;

/// The response envelope for `status`, `promise_id` and a body of `body_len` bytes, up
/// to its body: what every server writes before the body, so that the servers' answers
/// have one writer (`Response::encode` is the builder-based reference it is tested
/// against). `None` when the message would not fit a u32 size.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) fn response_head(
    status: Status,
    promise_id: u32,
    body_len: usize,
) -> Option<[u8; RESPONSE_HEAD]> {
    const ROOT: usize = crate::HEADER_SIZE;
    let message = u32::try_from(RESPONSE_HEAD.checked_add(body_len)?).ok()?;
    let body = u32::try_from(body_len).ok()?;
    let mut head = [0u8; RESPONSE_HEAD];
    crate::wire::Header {
        version: crate::VERSION2,
        flags: RPC_FLAGS,
        root: ROOT as u32,
        size: message,
    }
    .write(&mut head);
    let mut put = |at: usize, bytes: &[u8]| head[at..at + bytes.len()].copy_from_slice(bytes);
    put(ROOT + response::STATUS, &status.0.to_le_bytes());
    put(ROOT + response::PROMISE_ID, &promise_id.to_le_bytes());
    if body_len != 0 {
        // The body's slot holds the distance from itself to the body.
        let rel = (RESPONSE_HEAD - (ROOT + response::BODY)) as u32;
        put(ROOT + response::BODY, &rel.to_le_bytes());
        put(ROOT + response::BODY + 4, &body.to_le_bytes());
    }
    Some(head)
}

/// An answer: status, the promise it resolves, and the body (borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response<'a> {
    pub status: Status,
    pub promise_id: u32,
    /// The response struct (a complete ZAP message) for 200, or an error text.
    pub body: &'a [u8],
}

impl<'a> Response<'a> {
    /// Read a response envelope.
    pub fn parse(buf: &'a [u8]) -> Result<Self, RequestError> {
        let root = envelope_root(buf, response::SIZE)?;
        Ok(Response {
            status: Status(root.u32(response::STATUS)),
            promise_id: root.u32(response::PROMISE_ID),
            body: root.bytes(response::BODY),
        })
    }

    /// Encode into `b` (cleared first), byte-identical to the other runtimes. Fails only
    /// for an envelope over the builder's limit.
    pub fn encode<'b>(&self, b: &'b mut Builder) -> Result<&'b [u8], BuildError> {
        encode_envelope(b, |b| self.write(b))
    }

    /// Write the envelope into a freshly cleared builder without finishing it.
    pub fn write(&self, b: &mut Builder) {
        b.set_version(VERSION2);
        let mut obj = b.start_object(response::SIZE);
        obj.set_u32(response::STATUS, self.status.0);
        obj.set_u32(response::PROMISE_ID, self.promise_id);
        obj.set_bytes(response::BODY, self.body);
        obj.finish_as_root();
    }

    /// The body as UTF-8 text (error responses carry a message), lossy.
    pub fn body_text(&self) -> std::borrow::Cow<'a, str> {
        String::from_utf8_lossy(self.body)
    }
}

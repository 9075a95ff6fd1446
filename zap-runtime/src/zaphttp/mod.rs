//! HTTP over ZAP frames ("zaphttp"), as the Go stack speaks it (`github.com/zap-proto/http`,
//! the transport under the zip web framework): HTTP requests and responses carried as
//! fixed-offset ZAP objects instead of text headers and chunked bodies, over TCP or a
//! unix socket.
//!
//! - [`Server`] serves any tower [`Service`](tower::Service) of
//!   `http::Request<`[`Body`]`>` (an axum `Router` runs unchanged) over TCP, and
//!   [`serve_unix`] over a unix socket.
//! - [`Client`] calls any zaphttp server: a `tower::Service<http::Request<B>>` with a
//!   pool of kept-alive connections, as Go's `Transport`.
//! - [`codec`] reads and writes the frames themselves.
//!
//! # The exchange
//!
//! One exchange at a time per connection: a request frame, then a response frame, or a
//! response head, data frames and an end frame for a streamed body. Connections are
//! kept alive and reused; there is no pipelining and no multiplexing. A frame is a
//! big-endian `u32` length (0 and more than [`MAX_FRAME`] close the connection), then
//! the message.
//!
//! # What this side decides where Go's leaves it open
//!
//! - **Streamed or whole.** A response body whose size is known
//!   ([`size_hint`](http_body::Body::size_hint) exact, as for `Full`, `String`, `Bytes`
//!   and axum's bodies made from them) and fits a frame goes out as one response frame,
//!   its trailers in the trailer slot. Any other body is streamed: a head, a data frame
//!   per chunk as the service yields it, an end frame with its trailers.
//! - **Request bodies are whole**, as Go sends them. A peer that streams a request
//!   (head and data frames after a request) is refused: 400, then the connection closes.
//! - **Version**: this side writes 1 and reads 1 and 2, as Go does.
//! - **Host** travels as an ordinary header. The client adds one from the URI's authority
//!   when the request has none.
//! - **Header names** are written in canonical case (`Content-Type`), as fasthttp writes
//!   them; they are case-insensitive on reading. `Content-Length` and `Trailer` are
//!   owned by the frame and never sent as headers. A streamed response's head says
//!   `Transfer-Encoding: chunked`, as Go's does.
//! - **A malformed frame** (a lying length, a slot out of bounds, a header block shorter
//!   than its count, an invalid method, URI, header name or value) gets a 400 with the
//!   reason in a `text/plain` body, then the connection is closed, as Go does; a frame
//!   longer than the bound closes the connection without an answer. A service that
//!   panics answers 500 and the connection stays.
//! - **No TLS**: the Go implementation has none yet. Serve zaphttp on a unix socket, on
//!   loopback or on a private network; its upstream plans a post-quantum handshake
//!   (X-Wing) with AEAD framing, which would change the bytes on the socket but not the
//!   frames.

mod body;
mod client;
pub mod codec;
mod convert;
#[cfg(test)]
mod goldens;
mod io;
mod server;

pub use crate::accept::ServerStats;
pub use body::Body;
pub use client::{Address, Client, ClientConfig};
pub use codec::{FrameError, FrameKind, MAX_FRAME};
#[doc(hidden)]
pub use server::serve_stream;
pub use server::{serve, AnswerBody, Counters, HttpService, PeerAddr, Server, ServerConfig};
#[cfg(unix)]
pub use server::{serve_unix, UnixServer};

/// A boxed error of a service or a body.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why an exchange failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection failed.
    #[error("zaphttp: {0}")]
    Io(#[from] std::io::Error),
    /// The peer sent a frame that is not valid.
    #[error("zaphttp: malformed frame: {0}")]
    Frame(#[from] FrameError),
    /// A frame whose length prefix passes the bound.
    #[error("zaphttp: a frame of {len} bytes passes the limit of {max}")]
    TooLarge {
        /// The length the prefix announced (or the frame would have).
        len: u64,
        /// The bound.
        max: usize,
    },
    /// A frame whose length prefix is 0.
    #[error("zaphttp: a zero-length frame")]
    Empty,
    /// The peer took too long.
    #[error("zaphttp: {0} timed out")]
    Timeout(&'static str),
    /// The peer closed the connection before the exchange was over.
    #[error("zaphttp: the peer closed the connection {0}")]
    Closed(&'static str),
    /// A frame that is valid but says something HTTP cannot (an invalid header name).
    #[error("zaphttp: {0}")]
    Invalid(String),
    /// The request's body failed while it was read.
    #[error("zaphttp: the request body: {0}")]
    Body(BoxError),
}

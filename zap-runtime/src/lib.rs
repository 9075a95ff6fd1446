//! # zap-runtime
//!
//! The ZAP wire format for Rust, as described in the project's `spec/wire.md` and spoken
//! by the Go, Python and TypeScript runtimes:
//!
//! * [`Message`], [`Object`] and [`List`]: zero-copy views over a `&[u8]`. Every getter
//!   is a bounds check and a load; out-of-range reads yield the zero value, never a panic.
//!   [`Fixed`], which generated readers hold, checks a struct's fixed section once, after
//!   which its fields are loads.
//! * [`Builder`]: writes messages byte-identical to the canonical builder, into a buffer
//!   it reuses. [`BuilderPool`] hands builders out and takes them back, so building a
//!   message after warm-up performs no heap allocation.
//! * [`Owned`]: a message that owns its bytes (`bytes::Bytes`: cheap to clone, `Send +
//!   Sync + 'static`) and hands out the same zero-copy readers, for values that must
//!   outlive the buffer they came in (a request kept past its call, an answer kept by a
//!   client). [`Builder::finish_bytes`] freezes a finished message into `Bytes` without a
//!   copy.
//! * [`ZapEnum`]: what schema enums (and `#[derive(Zap)]` enums) implement. Every enum is
//!   a [`Scalar`] of its representation, read and written like an integer, with numbers
//!   it does not declare kept as `Unknown(n)`; [`json::enum_value`] is its JSON form.
//! * [`rpc`]: the RPC call envelope (request/response objects, status codes) and
//!   [`frame`]: the TCP framings, `[len u32][dir u8][envelope]` (RPC transport) and
//!   [`frame::node`] (node transport: NodeID handshake, then
//!   `[len u32][reqID u32][flag u32][envelope]`), and how to tell them apart.
//! * [`stream`]: streams as the Go runtime carries them (open, messages both ways,
//!   half-close), with typed [`Sender`](stream::Sender) and [`Receiver`](stream::Receiver)
//!   halves for generated handlers and clients.
//! * [`Service`] and [`CallError`]: what a handler serves and fails with; [`AppError`]
//!   is a service's own error (a code, a message, data), which ZAP and JSON-RPC clients
//!   both receive as itself ([`app_error`]).
//!
//! ```
//! use zap_runtime::{Builder, Message};
//!
//! let mut b = Builder::new();
//! let mut obj = b.start_object(16);
//! obj.set_u32(0, 0xDEAD_BEEF);
//! obj.set_text(8, "zap");
//! obj.finish_as_root();
//! let bytes = b.finish()?;
//!
//! let msg = Message::parse(bytes).unwrap();
//! assert_eq!(msg.root().u32(0), 0xDEAD_BEEF);
//! assert_eq!(msg.root().text(8), "zap");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Features
//!
//! Without features the crate is the wire core above (readers, builders, pool, owned
//! messages, the RPC envelope, the framings, the JSON mapping, the [`Service`] and
//! [`Transport`] contracts and [`Local`], which calls a service in-process, and the
//! [`stream`] halves): no async runtime (only tokio's channels, for streams), no hyper.
//! Each feature adds one part:
//!
//! | Feature  | Enables |
//! |----------|---------|
//! | `server` | [`server`]: the ZAP/TCP server on tokio (accept loop, per-connection buffers, dispatch by ordinal, pipelining, limits), [`shutdown`] (signals, drain) and [`metrics`] (Prometheus text) |
//! | `client` | [`client`]: the async ZAP/TCP client, one pipelined connection shared by many callers, plus a reconnecting client and a balanced one over several servers |
//! | `jsonrpc` | [`jsonrpc`]: JSON-RPC 2.0 bodies (single calls and batches, `rpc.discover`) in and out of the same [`Service`], with no HTTP library: what any transport that carries JSON-RPC uses |
//! | `http`   | [`http`] (and `jsonrpc`): JSON-RPC 2.0 over HTTP/1.1 (hyper) serving the same [`Service`], with batches, `rpc.discover`, an explorer page, `/health` and `/metrics` |
//! | `tls`    | [`tls`]: rustls (aws-lc-rs) configurations for the server, the client and the HTTP server: PEM loading, X25519MLKEM768 preferred, TLS 1.3 only unless 1.2 is asked for, optional client certificates |
//! | `zaphttp` | [`zaphttp`]: HTTP over ZAP frames, as the Go stack speaks it: a server of any tower service of `http::Request` (an axum `Router` runs unchanged) and a pooled client, over TCP and unix sockets |
//! | `otel`   | [`trace::otel`] (and `server`, `client`): the call spans of [`trace::Traced`] exported to an OpenTelemetry collector over OTLP/HTTP, batched behind a bounded queue that drops and counts rather than wait; generated clients open client spans, so a chain of services is one trace |
//! | `cap`    | [`cap`]: capability tokens: decode and verify (Ed25519, ML-DSA-65, secp256k1), issue and attenuate, and a policy that servers consult before every call |
//!
//! ## A service, served and called
//!
//! zapc (from a `.zap` schema) and `#[derive(Zap)]` generate the [`Service`]
//! implementation, the handler trait it calls and a typed client stub. Written by hand,
//! a service is a match on the method's ordinal: here method 1 adds the two `u64`s of
//! its request and answers their sum. It is served on a free port with the `server`
//! feature and called with the `client` feature's [`Client`](client::Client):
//!
//! ```
//! use std::sync::Arc;
//!
//! use zap_runtime::client::Client;
//! use zap_runtime::server::{CancellationToken, Server, ServerConfig};
//! use zap_runtime::{Builder, CallError, Message, MethodInfo, Reply, Service, Transport};
//!
//! /// Method 1: `add(A u64 @0, B u64 @8) returns (Sum u64 @0)`.
//! struct Adder;
//!
//! impl Service for Adder {
//!     const NAME: &'static str = "Adder";
//!     // What JSON-RPC needs (names, JSON converters); generated code fills it in.
//!     const METHODS: &'static [MethodInfo] = &[];
//!
//!     async fn call<'a>(
//!         &'a self,
//!         ordinal: u32,
//!         payload: &'a [u8],
//!         out: &'a mut Builder,
//!     ) -> Result<Reply, CallError> {
//!         match ordinal {
//!             1 => {
//!                 let request = Message::parse(payload)
//!                     .map_err(|e| CallError::bad_payload("AddRequest", e))?
//!                     .root();
//!                 let mut sum = out.start_object(8);
//!                 sum.set_u64(0, request.u64(0).wrapping_add(request.u64(8)));
//!                 sum.finish_message()?;
//!                 Ok(Reply::Message)
//!             }
//!             n => Err(CallError::unknown_method(Self::NAME, n)),
//!         }
//!     }
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Serve on a free port until `stop` is cancelled.
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let stop = CancellationToken::new();
//!     let server = Server::new(listener, Arc::new(Adder), ServerConfig::default());
//!     let serving = tokio::spawn(server.run(stop.clone()));
//!
//!     // Call method 1 with A = 2 and B = 40.
//!     let client = Client::connect(addr).await?;
//!     let mut b = Builder::new();
//!     let mut request = b.start_object(16);
//!     request.set_u64(0, 2);
//!     request.set_u64(8, 40);
//!     let answer = client.call(1, request.finish_message()?).await?;
//!     assert_eq!(Message::parse(&answer)?.root().u64(0), 42);
//!
//!     // Shut down: the server drains its connections and returns.
//!     stop.cancel();
//!     serving.await??;
//!     Ok(())
//! }
//! ```
//!
//! With a schema, `build.rs` runs `zapc::Config::new().compile(&["schemas/eth.zap"])`,
//! [`include_schema!`] brings the generated module in, and the handler trait it declares
//! is all there is to write.

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "server", feature = "http"))]
mod accept;
pub mod app_error;
#[cfg(any(feature = "server", feature = "http"))]
mod budget;
mod builder;
pub mod builtin;
#[cfg(any(feature = "server", feature = "jsonrpc"))]
mod call;
#[cfg(feature = "cap")]
#[cfg_attr(docsrs, doc(cfg(feature = "cap")))]
pub mod cap;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod companions;
pub mod context;
pub mod copies;
mod enums;
mod error;
#[cfg(any(feature = "server", feature = "http"))]
mod fds;
pub mod frame;
#[cfg(any(feature = "server", feature = "client"))]
mod frame_reader;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
pub mod json;
#[cfg(feature = "jsonrpc")]
#[cfg_attr(docsrs, doc(cfg(feature = "jsonrpc")))]
pub mod jsonrpc;
#[cfg(any(feature = "server", feature = "jsonrpc"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "jsonrpc"))))]
pub mod layer;
#[cfg(any(feature = "server", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "http"))))]
pub mod metrics;
mod owned;
mod pool;
#[cfg(feature = "quic")]
#[cfg_attr(docsrs, doc(cfg(feature = "quic")))]
pub mod quic;
mod read;
pub mod rpc;
mod scalar;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
pub mod service;
#[cfg(any(feature = "server", feature = "http"))]
mod sharded;
#[cfg(any(feature = "server", feature = "jsonrpc"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "jsonrpc"))))]
pub mod shed;
#[cfg(any(feature = "server", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "http"))))]
pub mod shutdown;
pub mod stream;
#[cfg(feature = "tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
pub mod tls;
pub mod trace;
pub mod transport;
#[cfg(all(unix, any(feature = "server", feature = "http")))]
mod unix_socket;
pub mod wire;
mod zap_struct;
#[cfg(feature = "zaphttp")]
#[cfg_attr(docsrs, doc(cfg(feature = "zaphttp")))]
pub mod zaphttp;

pub use app_error::{AppCode, AppError};
#[cfg(any(feature = "server", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "http"))))]
pub use budget::{BufferBudget, DEFAULT_BUFFER_BUDGET};
pub use builder::{Builder, InlineObject, ListBuilder, ListRef, ObjectBuilder, PointerListRef};
/// The shared byte buffer owned messages and frames are made of (from the `bytes` crate).
pub use bytes::Bytes;
pub use enums::ZapEnum;
pub use error::{BuildError, FrameError, ParseError, RequestError};
pub use owned::Owned;
pub use pool::{BuilderPool, PooledBuilder};
pub use read::{
    Fixed, Framed, List, Message, Messages, Object, Pointers, Scalars, StridedObjects, Texts,
};
pub use scalar::Scalar;
pub use service::{
    Authorize, Authorizer, CallError, EmbeddedSchema, Local, MethodInfo, Reply, Service,
};
pub use transport::{ClientError, Transport};
pub use zap_struct::{DecodeBudget, Offset, PointerStructs, StructReader, Structs, ZapStruct};

/// What generated code (zapc's output and `#[derive(Zap)]`'s expansion) calls and users
/// do not: the crates it names without a dependency of the user's own, the list writers
/// and readers its getters and builders call, the bound it puts on nested structs and the
/// JSON converter types of its method tables. Not a stable API: it changes with the code
/// generator.
#[doc(hidden)]
pub mod __private {
    pub use bytes;
    pub use serde;
    pub use serde_json;

    pub use crate::__struct_companions as struct_companions;
    pub use crate::service::{ParamsToWire, ResultToJson};
    pub use crate::zap_struct::{
        struct_list, write_fixed_list, write_framed_list, write_pointer_list, write_scalar_list,
        write_struct_list, write_text_list, NestedStruct,
    };
}

/// Include the Rust module `zapc` generated for a schema from `build.rs`:
/// `zap_runtime::include_schema!("eth")` expands to
/// `include!(concat!(env!("OUT_DIR"), "/eth.rs"))`.
#[macro_export]
macro_rules! include_schema {
    ($name:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $name, ".rs"));
    };
}

/// The README (the crates.io page) is compiled and run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use wire::{HEADER_SIZE, MAGIC, VERSION1, VERSION2};
/// Objects and lists start at positions aligned to this many bytes.
pub const ALIGNMENT: usize = 8;

//! # zap-runtime
//!
//! The ZAP wire format for Rust, as described in the project's `spec/wire.md` and spoken
//! by the Go, Python and TypeScript runtimes:
//!
//! * [`Message`], [`Object`] and [`List`]: zero-copy views over a `&[u8]`. Every getter
//!   is a bounds check and a load; out-of-range reads yield the zero value, never a panic.
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

#[cfg(any(feature = "server", feature = "http"))]
mod accept;
mod builder;
#[cfg(feature = "cap")]
pub mod cap;
#[cfg(feature = "client")]
pub mod client;
pub mod copies;
mod enums;
mod error;
pub mod frame;
#[cfg(any(feature = "server", feature = "client"))]
mod frame_reader;
#[cfg(feature = "http")]
pub mod http;
pub mod json;
#[cfg(any(feature = "server", feature = "http"))]
pub mod metrics;
mod owned;
mod pool;
mod read;
pub mod rpc;
mod scalar;
#[cfg(feature = "server")]
pub mod server;
pub mod service;
#[cfg(any(feature = "server", feature = "http"))]
pub mod shutdown;
#[cfg(feature = "tls")]
pub mod tls;
pub mod transport;
mod zap_struct;

pub use builder::{Builder, ListBuilder, ListRef, ObjectBuilder, PointerListRef};
/// The shared byte buffer owned messages and frames are made of (from the `bytes` crate).
pub use bytes::Bytes;
pub use enums::ZapEnum;
pub use error::{BuildError, FrameError, ParseError, RequestError};
pub use owned::Owned;
pub use pool::{BuilderPool, PooledBuilder};
pub use read::{Framed, List, Message, Messages, Object, Pointers, Scalars, StridedObjects, Texts};
pub use scalar::Scalar;
pub use service::{Authorize, Authorizer, CallError, Local, MethodInfo, Reply, Service};
pub use transport::{ClientError, Transport};
pub use zap_struct::{DecodeBudget, Offset, PointerStructs, Structs, ZapStruct};

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

/// Length of the message header.
pub const HEADER_SIZE: usize = 16;
/// The four magic bytes every message starts with: `"ZAP\0"`.
pub const MAGIC: [u8; 4] = *b"ZAP\0";
/// Header version 1: what builders stamp by default.
pub const VERSION1: u16 = 1;
/// Header version 2: what RPC envelopes stamp. The data segment is identical.
pub const VERSION2: u16 = 2;
/// Objects and lists start at positions aligned to this many bytes.
pub const ALIGNMENT: usize = 8;

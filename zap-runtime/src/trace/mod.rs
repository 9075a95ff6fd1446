//! Distributed tracing: W3C trace context on every transport, a `tracing` span per
//! call, and (feature `otel`) export to OpenTelemetry.
//!
//! **Where the trace context travels.** On ZAP/TCP, QUIC and unix sockets it is call
//! metadata: the pairs `traceparent` and `tracestate` of the call context extension. On
//! JSON-RPC over HTTP the request headers `traceparent` and `tracestate` are read into
//! the same metadata pairs, and a WebSocket session takes those of its upgrade request.
//! A handler reads it with [`TraceParent::current`].
//!
//! **The server's span.** [`Traced`] wraps a service, as [`Metered`](crate::metrics::Metered)
//! and [`Layered`](crate::layer::Layered) do (or `Metered::traced` does it in the same
//! wrapper as the metrics), and opens a span per call (and per stream)
//! named `Service/method`, target `zap_runtime::trace`, level INFO, with the attributes
//! of OpenTelemetry's RPC conventions: `otel.kind = "server"`, `rpc.system`
//! (`zap` or `jsonrpc`), `rpc.service`, `rpc.method`, `network.transport`, the caller's
//! `network.peer.address` and `network.peer.port`, `zap.transport`, the answer's `rpc.zap.status_code`, and `otel.status_code = "ERROR"`
//! for a server-side failure (status 500 and up). With the `otel` feature the span's
//! parent is the caller's span (the remote context); without it the span records
//! `trace_id` and `parent_id` as fields, so a log line still names its trace. A
//! malformed `traceparent` is ignored and the call starts a trace of its own, as the W3C
//! recommendation says a receiver must.
//!
//! **The client's side.** A generated client's calls carry the current trace on: with
//! `otel`, a client span (`otel.kind = "client"`) per call whose context is sent as
//! `traceparent`; without it, the `traceparent` of the call being handled is passed on
//! unchanged. A `traceparent` set by hand in [`CallOptions`](crate::context::CallOptions)
//! wins.
//!
//! A service that is neither wrapped in [`Traced`] nor counted by a traced `Metered`
//! opens no span and pays nothing.

#[cfg(any(feature = "server", feature = "jsonrpc"))]
mod traced;
#[cfg(any(feature = "server", feature = "jsonrpc"))]
pub use traced::Traced;
// What `metrics::Metered` opens its spans with.
#[cfg(any(feature = "server", feature = "http"))]
pub(crate) use traced::{traced_stream, InSpan, Spans};

#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;

use std::fmt;

/// The metadata key (and HTTP header) of the W3C `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The metadata key (and HTTP header) of the W3C `tracestate`.
pub const TRACESTATE: &str = "tracestate";

/// A W3C `traceparent`: the trace a call belongs to and the caller's span in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    /// The trace id (never all zero).
    pub trace_id: [u8; 16],
    /// The caller's span id (never all zero).
    pub parent_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
}

/// The length of a version-00 `traceparent`.
const LEN: usize = 55;

impl TraceParent {
    /// Read a `traceparent` value: `00-<32 hex>-<16 hex>-<2 hex>`, lowercase, with
    /// neither id all zero. A later version (`01` to `fe`) is read by its first 55
    /// characters when what follows them starts with `-`, as the recommendation asks;
    /// version `ff` and anything else malformed is `None`.
    pub fn parse(text: &[u8]) -> Option<TraceParent> {
        if text.len() < LEN {
            return None;
        }
        let version = hex_byte(&text[0..2])?;
        if version == 0xff
            || (version == 0 && text.len() != LEN)
            || (text.len() > LEN && text[LEN] != b'-')
        {
            return None;
        }
        if text[2] != b'-' || text[35] != b'-' || text[52] != b'-' {
            return None;
        }
        let mut trace_id = [0; 16];
        for (i, byte) in trace_id.iter_mut().enumerate() {
            *byte = hex_byte(&text[3 + 2 * i..5 + 2 * i])?;
        }
        let mut parent_id = [0; 8];
        for (i, byte) in parent_id.iter_mut().enumerate() {
            *byte = hex_byte(&text[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&text[53..55])?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// Whether the caller recorded its span (flag bit 0).
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The same trace with `span_id` as the parent: what a call made from inside the
    /// span `span_id` sends.
    pub fn child(&self, span_id: [u8; 8]) -> TraceParent {
        TraceParent {
            parent_id: span_id,
            ..*self
        }
    }

    /// The value as it is sent (version 00, 55 ASCII bytes).
    pub fn encode(&self) -> [u8; LEN] {
        let mut out = [0u8; LEN];
        out[..3].copy_from_slice(b"00-");
        put_hex(&mut out[3..35], &self.trace_id);
        out[35] = b'-';
        put_hex(&mut out[36..52], &self.parent_id);
        out[52] = b'-';
        put_hex(&mut out[53..55], &[self.flags]);
        out
    }

    /// The trace id in hex (32 characters), as tracing back ends show it.
    pub fn trace_id_hex(&self) -> String {
        hex_string(&self.trace_id)
    }

    /// The parent span id in hex (16 characters).
    pub fn parent_id_hex(&self) -> String {
        hex_string(&self.parent_id)
    }

    /// The trace context of the call being handled: its `traceparent` metadata, if
    /// it sent a valid one.
    #[cfg(any(feature = "server", feature = "client", feature = "jsonrpc"))]
    pub fn current() -> Option<TraceParent> {
        crate::context::Context::current()
            .metadata()
            .get(TRACEPARENT)
            .and_then(TraceParent::parse)
    }
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.encode();
        // Only ASCII hex digits and dashes were written.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TraceParent({self})")
    }
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

fn hex_byte(two: &[u8]) -> Option<u8> {
    Some(hex_digit(two[0])? << 4 | hex_digit(two[1])?)
}

fn put_hex(out: &mut [u8], bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (pair, byte) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 15)];
    }
}

fn hex_string(bytes: &[u8]) -> String {
    let mut out = vec![0; bytes.len() * 2];
    put_hex(&mut out, bytes);
    String::from_utf8(out).unwrap_or_default()
}

/// The `traceparent` (and `tracestate`) a call sent now carries, when the calling code
/// is inside a trace and the call's own metadata names none: with `otel`, the current
/// span's context; otherwise the `traceparent` of the call being handled.
#[cfg(any(feature = "server", feature = "client", feature = "jsonrpc"))]
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn outgoing() -> Option<(TraceParent, Option<bytes::Bytes>)> {
    #[cfg(feature = "otel")]
    if let Some(found) = otel::current_span_context() {
        return Some(found);
    }
    crate::context::Context::with_current(|context| {
        let parent = context
            .metadata()
            .get(TRACEPARENT)
            .and_then(TraceParent::parse)?;
        let state = context
            .metadata()
            .get(TRACESTATE)
            .map(bytes::Bytes::copy_from_slice);
        Some((parent, state))
    })
    .flatten()
}

/// `call` as a generated client makes it: inside a client span (`Service/method`,
/// `otel.kind = "client"`) when the `otel` feature is on and the caller is inside a
/// recorded span, so the server's span is its child; the call itself otherwise.
#[inline]
pub fn client_call<F: std::future::Future>(
    service: &'static str,
    method: &'static str,
    call: F,
) -> impl std::future::Future<Output = F::Output> {
    #[cfg(feature = "otel")]
    {
        otel::client_call(service, method, call)
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = (service, method);
        call
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[test]
    fn reads_and_writes_the_recommendation_example() {
        let parent = TraceParent::parse(EXAMPLE.as_bytes()).unwrap();
        assert_eq!(parent.trace_id_hex(), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(parent.parent_id_hex(), "b7ad6b7169203331");
        assert!(parent.sampled());
        assert_eq!(parent.to_string(), EXAMPLE);
        let child = parent.child([1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            child.to_string(),
            "00-0af7651916cd43dd8448eb211c80319c-0102030405060708-01"
        );
    }

    #[test]
    fn refuses_what_the_recommendation_refuses() {
        let bad = [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0",
            // Uppercase hex.
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            // All-zero ids.
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            // Version ff, and version 00 with more after it.
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x",
            // Wrong separators.
            "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319cxb7ad6b7169203331-01",
            // A later version followed by something not starting with a dash.
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",
        ];
        for text in bad {
            assert_eq!(TraceParent::parse(text.as_bytes()), None, "{text:?}");
        }
        // A later version is read by its first fields.
        let later = "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-next";
        assert!(TraceParent::parse(later.as_bytes()).is_some());
    }

    proptest::proptest! {
        #[test]
        fn what_is_written_reads_back(
            trace_id in proptest::array::uniform16(proptest::num::u8::ANY),
            parent_id in proptest::array::uniform8(proptest::num::u8::ANY),
            flags: u8,
        ) {
            let parent = TraceParent { trace_id, parent_id, flags };
            let read = TraceParent::parse(&parent.encode());
            if trace_id == [0; 16] || parent_id == [0; 8] {
                proptest::prop_assert_eq!(read, None);
            } else {
                proptest::prop_assert_eq!(read, Some(parent));
            }
        }

        #[test]
        fn any_bytes_are_read_without_panicking(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..80)) {
            if let Some(parent) = TraceParent::parse(&bytes) {
                // What is accepted is version 00 text exactly, or a later version's prefix.
                proptest::prop_assert_eq!(&parent.encode()[3..], &bytes[3..55]);
            }
        }
    }
}

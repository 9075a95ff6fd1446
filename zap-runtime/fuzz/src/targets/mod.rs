//! The bodies of the fuzz targets, one module per target, each a `run(&[u8])`.
//!
//! They live in the library, not in `fuzz_targets/`, so that two drivers run the same
//! code: libFuzzer (`cargo +nightly fuzz run <target>`, through the one-line files in
//! `fuzz_targets/`) and the ordinary test `tests/corpus.rs`, which runs on stable in CI
//! over the seed corpus of [`crate::seeds`] and deterministic mutations of it. Every
//! check is an `assert!`, so a wrong answer fails both.

pub mod cap_verify;
pub mod envelope;
pub mod frame_decoder;
pub mod http_request;
pub mod jsonrpc;
pub mod kitchen_reader;
pub mod node_framing;
pub mod quic_stream;
pub mod reader;
pub mod roundtrip;
pub mod stream_dispatch;
pub mod ws_session;
pub mod zap_conn;
pub mod zaphttp_conn;

/// A target's body.
pub type Body = fn(&[u8]);

/// Every target by name, as `fuzz_targets/<name>.rs` calls it.
pub const ALL: [(&str, Body); 14] = [
    ("reader", reader::run),
    ("frame_decoder", frame_decoder::run),
    ("envelope", envelope::run),
    ("kitchen_reader", kitchen_reader::run),
    ("stream_dispatch", stream_dispatch::run),
    ("jsonrpc", jsonrpc::run),
    ("roundtrip", roundtrip::run),
    ("cap_verify", cap_verify::run),
    ("node_framing", node_framing::run),
    ("http_request", http_request::run),
    ("zap_conn", zap_conn::run),
    ("ws_session", ws_session::run),
    ("quic_stream", quic_stream::run),
    ("zaphttp_conn", zaphttp_conn::run),
];

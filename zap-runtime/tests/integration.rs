//! zap-runtime's integration tests, as one test binary: each file beside this one is a
//! module of it, so the dependency tree is linked once rather than once per file, and
//! the tests of all of them run side by side. `cargo test -p zap-runtime --test
//! integration <file>::` runs one file's tests. The tests that count allocations
//! (`alloc`, `cap_alloc`, `node_alloc`, `server_alloc`, `server_owned`) install a global
//! allocator and stay binaries of their own, as Cargo.toml lists.

// The Python and npm installers are included by more than one support module, each with
// its own private copy of them and of install.rs; nothing is shared between the copies,
// so loading a file more than once is harmless.
#![allow(clippy::duplicate_mod)]

// What the tests share: capability fixtures, servers on real sockets, TLS certificates,
// and the Python peer (installed into target/ on first use).
#[path = "support/cap_kit.rs"]
mod cap_kit;
mod http_support;
#[path = "tls_support/pki.rs"]
mod pki;
#[path = "support/python.rs"]
mod python;
#[path = "support/python_crypto.rs"]
mod python_crypto;
#[path = "support/quic.rs"]
mod quic_support;
mod server_support;
#[path = "support/zaphttp_peer.rs"]
mod zaphttp_peer;

mod build;
mod builtin;
mod call_context;
mod cap_hostile;
mod cap_interop_python;
mod cap_refusals;
mod cap_server;
mod client_errors;
mod hedging;
mod hostile;
mod http_jsonrpc;
mod http_ops;
mod http_stream_order;
mod http_transport;
mod interop_python;
mod ipc;
mod layers;
mod node_framing_prop;
mod node_transport;
mod read_limit;
mod reconnecting;
mod retries;
mod server_calls;
mod server_hostile;
mod server_limits;
mod server_pipeline;
mod server_shutdown;
mod server_vectored;
mod tls_server;
mod unix_server;
mod vectors;
mod ws_subscriptions;
mod zaphttp;
mod zaphttp_go;

#[path = "support/test_files.rs"]
mod test_files;

#[test]
fn every_test_file_is_built() {
    test_files::assert_every_test_file_is_built(env!("CARGO_MANIFEST_DIR"));
}

//! The eth-rpc example's integration tests, as one test binary: each file beside this
//! one is a module of it, so the dependency tree is linked once rather than once per
//! file, and the tests of all of them run side by side. `cargo test -p eth-rpc --test
//! integration <file>::` runs one file's tests. The tests that count allocations
//! (`alloc`, `hostile_harness`, `soak`) install a global allocator and stay binaries of
//! their own, as Cargo.toml lists.

// The Python and npm installers are included by more than one support module, each with
// its own private copy of them and of install.rs; nothing is shared between the copies,
// so loading a file more than once is harmless.
#![allow(clippy::duplicate_mod)]

// What the tests share: the example server in-process (`support`) and as a process
// (`process`), the hostile-client harness, TLS certificates, and the Python and npm
// peers (installed into target/ on first use).
mod harness;
#[path = "../../../zap-runtime/tests/support/node_js.rs"]
mod node_js;
#[path = "../../../zap-runtime/tests/support/npm.rs"]
mod npm;
mod otlp;
#[path = "../../../zap-runtime/tests/tls_support/pki.rs"]
mod pki;
mod process;
#[path = "../../../zap-runtime/tests/support/python.rs"]
mod python;
#[path = "../../../zap-runtime/tests/support/python_crypto.rs"]
mod python_crypto;
#[path = "../../../zap-runtime/tests/support/python_prometheus.rs"]
mod python_prometheus;
mod support;
#[path = "../../../zap-runtime/tests/support/zaphttp_peer.rs"]
mod zaphttp_peer;

mod balance;
mod browser;
mod browser_rules;
mod call_spans;
mod caps;
mod curl;
mod eth_clients;
mod execution_apis;
mod forged_caps;
mod haproxy;
mod heads;
mod hostile_streams;
mod http;
mod http_limits;
mod insecure_caps;
mod metrics;
mod otel;
mod python_tcp;
mod quic;
mod sigterm;
mod stalled_http;
mod tls;
mod ts_node;
mod websocket;
mod zap;
mod zap_slots;
mod zaphttp;

#[path = "../../../zap-runtime/tests/support/test_files.rs"]
mod test_files;

#[test]
fn every_test_file_is_built() {
    test_files::assert_every_test_file_is_built(env!("CARGO_MANIFEST_DIR"));
}

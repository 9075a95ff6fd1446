//! The tests of the code zapc generates, as one test binary: each file beside this one is
//! a module of it, so the dependency tree is linked once rather than once per file, and
//! the tests of all of them run side by side. `cargo test -p zapc-generated-tests --test
//! integration <file>::` runs one file's tests. `stream_alloc`, which counts
//! allocations with a global allocator of its own, stays a binary of its own, as
//! Cargo.toml lists.

// The notes service (a schema with streams of every kind) served over real sockets.
mod notes;

mod deprecated;
mod enums;
mod evolution;
mod go_peer;
mod imports;
mod recursive;
mod roundtrip;
mod service;
mod streams;
mod vectors;

#[path = "../../../../zap-runtime/tests/support/test_files.rs"]
mod test_files;

#[test]
fn every_test_file_is_built() {
    test_files::assert_every_test_file_is_built(env!("CARGO_MANIFEST_DIR"));
}

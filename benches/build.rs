//! Generate the code the benches compare: `schemas/eth.zap` (fixed layout),
//! `schemas/tails.zap` (the Go benchmark's layout) and `benches/schemas/logs.zap` (the
//! list-heavy eth_getLogs record) and `benches/schemas/records.zap` (the owned-answer
//! and echo record) with zapc; `proto/*.proto` with prost-build (with the
//! `rpc-peers` feature, tonic-prost-build: also the gRPC service of `eth.proto`), fed by
//! protox (a pure-Rust protobuf front end, so no `protoc`). The Cap'n Proto and
//! FlatBuffers code is generated ahead of time and committed, so building the benches
//! needs neither the `capnp` nor the `flatc`/planus tool: `schemas/capnp.sh` and
//! `schemas/planus.sh` regenerate it, and `tests/capnp_generated.rs` checks (where
//! `capnp` is installed) that the committed Cap'n Proto code is what capnpc writes today.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schemas = root.join("../schemas");
    let own = root.join("schemas");
    zapc::Config::new().compile(&[
        schemas.join("eth.zap"),
        schemas.join("tails.zap"),
        own.join("logs.zap"),
        own.join("records.zap"),
        own.join("echo.zap"),
    ])?;

    let proto = root.join("proto");
    let files = [proto.join("eth.proto"), proto.join("logs.proto")];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&proto])?;
    // With `rpc-peers`, the same messages plus the `Eth` service's tonic server and client.
    #[cfg(feature = "rpc-peers")]
    tonic_prost_build::configure().compile_fds(fds)?;
    #[cfg(not(feature = "rpc-peers"))]
    prost_build::Config::new().compile_fds(fds)?;

    Ok(())
}

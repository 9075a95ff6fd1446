//! Generate the code the benches compare: `schemas/eth.zap` (fixed layout) and
//! `schemas/tails.zap` (the Go benchmark's layout) with zapc, and `proto/eth.proto`
//! with prost-build, fed by protox (a pure-Rust protobuf front end, so no `protoc`).

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schemas = root.join("../schemas");
    zapc::Config::new().compile(&[schemas.join("eth.zap"), schemas.join("tails.zap")])?;

    let proto = root.join("proto");
    println!(
        "cargo:rerun-if-changed={}",
        proto.join("eth.proto").display()
    );
    let fds = protox::compile([proto.join("eth.proto")], [&proto])?;
    prost_build::Config::new().compile_fds(fds)?;
    Ok(())
}

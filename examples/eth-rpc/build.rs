//! Generate the Rust code of `schemas/eth.zap` (readers, builders, owned types, the `Eth`
//! handler trait, `EthService` and `EthClient`) into `OUT_DIR`, as any user's build
//! script would (`compile` prints the `cargo:rerun-if-changed` lines itself).

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/eth.zap");
    zapc::Config::new().compile(&[schema])?;
    Ok(())
}

//! Generate the Rust code of the schemas the fuzz targets exercise, as a user's build
//! script would: `kitchen` (every scalar, text, bytes, bytes_fixed, a framed struct list,
//! a struct pointer, a strided list), `lists` (every list shape) and `service` (an
//! interface, for a real generated `Service` dispatch), and `schemas/recursive.zap` of
//! this crate (self-referential structs).

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let mut schemas = ["kitchen.zap", "lists.zap", "service.zap"]
        .map(|s| dir.join(s))
        .to_vec();
    // A recursive schema of this crate's own (the regression test of a finding).
    schemas.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/recursive.zap"));
    zapc::Config::new().compile(&schemas)?;
    Ok(())
}

//! Generate Rust for every schema of the workspace's `schemas/` folder, exactly as a
//! user's build script would.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../schemas");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut schemas: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "zap"))
        .collect();
    schemas.sort();
    zapc::Config::new().compile(&schemas)?;
    Ok(())
}

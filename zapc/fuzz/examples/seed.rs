//! Write the seed corpus of the `load` target (`zapc_fuzz::seeds`, the same seeds
//! `tests/corpus.rs` runs) into `<dir>/load/`, one file per seed named by its hash, so
//! writing twice changes nothing. `./seed.sh` runs this with `dir` = `corpus`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "corpus".into()));
    let into = dir.join("load");
    std::fs::create_dir_all(&into)?;
    let seeds = zapc_fuzz::seeds::all();
    for (_, text) in &seeds {
        std::fs::write(into.join(zapc_fuzz::seeds::file_name(text)), text)?;
    }
    println!("load: {} seeds in {}", seeds.len(), into.display());
    Ok(())
}

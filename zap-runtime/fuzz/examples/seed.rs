//! Write the seed corpus of every target (`zap_fuzz::seeds`, the same seeds
//! `tests/corpus.rs` runs) into `<dir>/<target>/`, one file per seed named by its hash,
//! so writing twice changes nothing. `./seed.sh` runs this with `dir` = `corpus`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "corpus".into()));
    for (target, seeds) in zap_fuzz::seeds::all() {
        let into = dir.join(target);
        std::fs::create_dir_all(&into)?;
        for seed in &seeds {
            std::fs::write(into.join(zap_fuzz::seeds::file_name(seed)), seed)?;
        }
        println!("{target}: {} seeds in {}", seeds.len(), into.display());
    }
    Ok(())
}

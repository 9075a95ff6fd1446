//! The seed corpus of the `load` target: every schema of the repository's `schemas/`
//! (valid) and of `zapc/tests/invalid/` (each with an error the checker must report), in
//! a fixed order. `tests/corpus.rs` runs the target over them and mutations of them;
//! `examples/seed.rs` (behind `./seed.sh`) writes them to `corpus/load/` for libFuzzer.

use std::path::{Path, PathBuf};

/// The directories the seeds come from.
pub fn dirs() -> [PathBuf; 2] {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [here.join("../../schemas"), here.join("../tests/invalid")]
}

/// Every `.zap` file of [`dirs`], sorted by path. Panics when a directory cannot be read:
/// the corpus must not silently shrink.
pub fn all() -> Vec<(PathBuf, Vec<u8>)> {
    let mut paths = Vec::new();
    for dir in dirs() {
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "zap") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// A file name for `blob`: its FNV-1a hash and length, so writing the corpus twice gives
/// the same files.
pub fn file_name(blob: &[u8]) -> String {
    let hash = blob.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{hash:016x}-{}", blob.len())
}

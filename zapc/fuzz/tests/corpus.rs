//! The `load` target's body, run as an ordinary test on stable: over every schema of the
//! repository (valid and invalid, `zapc_fuzz::seeds`) and over deterministic mutations of
//! them (the mutator of `zap-runtime/fuzz`, with the words of `zap.dict`, fixed seed). No
//! coverage feedback, so a smoke test of the harness and a regression net, not a
//! substitute for `cargo +nightly fuzz run load`; CI runs it everywhere and the real
//! fuzzer only where a nightly toolchain exists.
//!
//! `FUZZ_MUTATIONS=<n>` runs `n` mutations instead of the default. A failing input is
//! printed as text (lossily); `cargo +nightly fuzz run load <file>` replays it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

// The same mutator as zap-runtime's fuzz project: one file, std only, so no shared crate
// is needed between the two fuzz workspaces.
#[path = "../../../zap-runtime/fuzz/src/mutate.rs"]
mod mutate;

use mutate::{mutate, parse_dict, Rng};
use zapc_fuzz::targets::load;

/// Mutations, unless `FUZZ_MUTATIONS` says otherwise. Each input that loads goes through
/// the whole code generator and `syn`, so fewer than the wire targets run.
const MUTATIONS: usize = 3000;

fn mutations() -> usize {
    match std::env::var("FUZZ_MUTATIONS") {
        Ok(n) => n.parse().expect("FUZZ_MUTATIONS is a number"),
        Err(_) => MUTATIONS,
    }
}

fn run_one(what: &str, input: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| load::run(input))).is_err() {
        panic!(
            "`load` failed on {what} ({} bytes):\n{}",
            input.len(),
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn load_over_the_schemas_and_mutations() {
    let seeds = zapc_fuzz::seeds::all();
    assert!(seeds.len() >= 20, "only {} schemas found", seeds.len());
    for (path, text) in &seeds {
        run_one(&path.display().to_string(), text);
    }

    let dict_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("zap.dict");
    let dict = parse_dict(&std::fs::read_to_string(dict_path).expect("zap.dict"));
    let words: Vec<&[u8]> = dict.iter().map(Vec::as_slice).collect();
    assert!(!words.is_empty(), "zap.dict has no words");

    let corpus: Vec<Vec<u8>> = seeds.into_iter().map(|(_, text)| text).collect();
    let mut rng = Rng::new(0x7a61_7063); // "zapc"
    let mut pool = corpus.clone();
    for i in 0..mutations() {
        let parent = pool[rng.below(pool.len())].clone();
        let child = mutate(&mut rng, &parent, &corpus, &words);
        run_one(&format!("mutation {i}"), &child);
        if i % 8 == 0 {
            pool.push(child);
        }
    }
}

/// The fuzz target calls the body this file runs.
#[test]
fn the_fuzz_target_calls_the_tested_body() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets/load.rs");
    let text = std::fs::read_to_string(file).expect("fuzz_targets/load.rs");
    assert!(text.contains("zapc_fuzz::targets::load::run(data)"));
}

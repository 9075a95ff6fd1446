//! The body of the `load` fuzz target, in a library so that two drivers run the same
//! code: libFuzzer (`fuzz_targets/load.rs`, nightly) and the ordinary test
//! `tests/corpus.rs` (stable, in CI), over the seeds of [`seeds`] and mutations of them.

pub mod seeds;

/// One module per target, each a `run(&[u8])`.
pub mod targets {
    pub mod load;
}

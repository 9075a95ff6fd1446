//! The `load` target; its body and what it checks: `src/lib.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zapc_fuzz::targets::load::run(data));

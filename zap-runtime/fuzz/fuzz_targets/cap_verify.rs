//! The `cap_verify` target; its body and what it checks: `src/targets/cap_verify.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::cap_verify::run(data));

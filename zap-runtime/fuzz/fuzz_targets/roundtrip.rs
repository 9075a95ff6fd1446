//! The `roundtrip` target; its body and what it checks: `src/targets/roundtrip.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::roundtrip::run(data));

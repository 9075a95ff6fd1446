//! The `envelope` target; its body and what it checks: `src/targets/envelope.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::envelope::run(data));

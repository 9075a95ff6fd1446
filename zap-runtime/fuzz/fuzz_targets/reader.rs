//! The `reader` target; its body and what it checks: `src/targets/reader.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::reader::run(data));

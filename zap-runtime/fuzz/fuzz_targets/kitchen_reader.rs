//! The `kitchen_reader` target; its body and what it checks: `src/targets/kitchen_reader.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::kitchen_reader::run(data));

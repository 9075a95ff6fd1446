//! The `frame_decoder` target; its body and what it checks: `src/targets/frame_decoder.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::frame_decoder::run(data));

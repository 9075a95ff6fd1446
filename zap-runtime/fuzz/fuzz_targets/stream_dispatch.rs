//! The `stream_dispatch` target; its body and what it checks: `src/targets/stream_dispatch.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::stream_dispatch::run(data));

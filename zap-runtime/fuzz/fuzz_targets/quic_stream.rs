//! The `quic_stream` target; its body and what it checks: `src/targets/quic_stream.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::quic_stream::run(data));

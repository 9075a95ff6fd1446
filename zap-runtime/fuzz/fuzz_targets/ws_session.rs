//! The `ws_session` target; its body and what it checks: `src/targets/ws_session.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::ws_session::run(data));

//! The `zap_conn` target; its body and what it checks: `src/targets/zap_conn.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::zap_conn::run(data));

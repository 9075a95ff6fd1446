//! The `zaphttp_conn` target; its body and what it checks: `src/targets/zaphttp_conn.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::zaphttp_conn::run(data));

//! The `http_request` target; its body and what it checks: `src/targets/http_request.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::http_request::run(data));

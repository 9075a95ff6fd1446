//! The `jsonrpc` target; its body and what it checks: `src/targets/jsonrpc.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::jsonrpc::run(data));

//! The `node_framing` target; its body and what it checks: `src/targets/node_framing.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zap_fuzz::targets::node_framing::run(data));

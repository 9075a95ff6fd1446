//! Parse arbitrary bytes as a ZAP message and, when they parse, run the full recursive
//! read walk (every Object getter at many offsets, every List accessor, following live
//! pointers), each result checked against the spec model in `src/lib.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    zap_fuzz::walk(data);
});

//! Parse arbitrary bytes as a ZAP message and, when they parse, run the full recursive
//! read walk (every Object getter at many offsets, every List accessor, following live
//! pointers), each result checked against the spec model in `src/lib.rs`.

/// The body of the `reader` fuzz target.
pub fn run(data: &[u8]) {
    crate::walk(data);
}

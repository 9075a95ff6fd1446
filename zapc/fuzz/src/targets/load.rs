//! The schema compiler on arbitrary text: `zapc::load_str` (pest parser, then
//! every check, then layout) must answer `Ok` or `Err` and never panic, overflow
//! the stack or hang; every error must render. Whatever loads must go through the
//! code generator (`zapc::codegen::render`) without a panic, and the generated
//! file must parse as Rust (`syn::parse_file`).
//!
//! Input: bytes, taken as UTF-8 when they are (most of the seed corpus), else
//! lossily converted, so the fuzzer's byte mutations still reach the grammar.

use zapc::codegen::{render, Options};

/// The body of the `load` fuzz target.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match zapc::load_str("fuzz.zap", &text) {
        Err(errors) => {
            assert!(!errors.is_empty(), "an error without a diagnostic");
            let _ = errors.render();
        }
        Ok(schema) => {
            let code = render(&schema, &Options::default());
            if let Err(e) = syn::parse_file(&code) {
                panic!("generated code does not parse: {e}\n--- schema\n{text}\n--- code\n{code}");
            }
        }
    }
}

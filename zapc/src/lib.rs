//! zapc: the ZAP schema compiler.
//!
//! Data flow, one way: `.zap` text --pest--> [`ast`] --[`check`]--> [`ir`] (laid out once)
//! --codegen--> Rust source. The same [`ir`] feeds `zapc layout`, `zapc encode/decode`
//! and `#[derive(Zap)]`.

pub mod ir;

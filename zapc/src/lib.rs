//! zapc: the ZAP schema compiler.
//!
//! Data flow, one way: `.zap` text --pest--> [`ast`] --[`check`]--> [`ir`] (laid out once)
//! --codegen--> Rust source. The same [`ir`] feeds `zapc layout`, `zapc encode/decode`
//! and `#[derive(Zap)]`.

pub mod ir;

pub mod ast;
pub mod check;
pub mod codegen;
mod config;
pub mod diag;
pub mod dynamic;
pub mod frontend;
pub mod lower;
pub mod parse;

pub use config::{module_name, Config, GenerateError, Generated};
pub use diag::{Diagnostic, Diagnostics};
pub use frontend::{load_file, load_str, LoadError};

//! zapc: the ZAP schema compiler.
//!
//! Data flow, one way:
//!
//! ```text
//! .zap text --[parse]--> ast --[resolve]--> names --[layout]--> slots (placed once)
//!   --[check]--> every error, or --[lower]--> ir --[codegen]--> Rust source
//! ```
//!
//! The same [`ir`] feeds `zapc layout`, `zapc encode/decode` and `#[derive(Zap)]`
//! (which builds its IR with [`layout::lay_out_struct`] and expands it with
//! [`codegen::structs::derive_companions`]).

pub mod ir;

pub mod ast;
pub mod check;
pub mod codegen;
pub mod compat;
mod config;
pub mod diag;
pub mod fmt;
pub mod frontend;
mod imports;
pub mod layout;
pub mod lower;
pub mod openrpc;
pub mod parse;
pub mod resolve;

pub use config::{module_name, Config, GenerateError, Generated};
pub use diag::{Diagnostic, Diagnostics};
pub use frontend::{load_file, load_str, load_str_in, LoadError};

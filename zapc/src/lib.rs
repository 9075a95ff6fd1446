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

// The stages, in data-flow order. Private: their one way in is `load_*` and their one
// way out is the IR; nothing outside the crate drives a stage by hand.
mod ast;
mod check;
mod diag;
mod frontend;
mod imports;
mod lower;
mod parse;
mod resolve;

// What users of the library work with: the laid-out model and the tools built on it.
pub mod codegen;
pub mod compat;
mod config;
pub mod fmt;
pub mod ir;
pub mod openrpc;

/// Slot placement, for `#[derive(Zap)]` (which lays out a Rust struct by the schema's
/// rule). Not a stable API.
#[doc(hidden)]
pub mod layout;

pub use config::{module_name, Config, GenerateError, Generated};
pub use diag::{Diagnostic, Diagnostics, Label};
pub use frontend::{load_file, load_str, load_str_in, LoadError};

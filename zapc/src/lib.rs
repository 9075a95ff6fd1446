//! zapc: the ZAP schema compiler, as a library for build scripts and tools (the `zapc`
//! command line is this crate's binary).
//!
//! A `.zap` schema declares structs at fixed byte offsets and interfaces of numbered
//! methods; zapc turns it into Rust: a zero-copy reader, a builder and an owned type (with
//! the JSON mapping) per struct, and a handler trait, a [`Service`] implementation and a
//! typed client stub per interface, all on [zap-runtime].
//!
//! ## From `build.rs`
//!
//! In `Cargo.toml`, the library without its command line (no clap, no runtime):
//!
//! ```toml
//! [dependencies]
//! zap-runtime = { version = "0.1", features = ["server", "client"] }
//!
//! [build-dependencies]
//! zapc = { version = "0.1", default-features = false }
//! ```
//!
//! In `build.rs`, one [`Config`] for the schemas (their imports are generated too, and a
//! `cargo:rerun-if-changed` line is printed for every file read):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     zapc::Config::new().compile(&["schemas/eth.zap"])?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate, `include_schema!` with the file stem brings the generated module in:
//!
//! ```text
//! // src/lib.rs
//! pub mod eth {
//!     zap_runtime::include_schema!("eth"); // include!(concat!(env!("OUT_DIR"), "/eth.rs"))
//! }
//! ```
//!
//! A schema with an error fails the build with the same caret diagnostic `zapc check`
//! prints (the error's `Debug` is that text, so returning it from `main` shows it):
//!
//! ```text
//! error: unknown type `u63`
//!   --> schemas/eth.zap:3:9
//!   |
//! 3 |     Id  u63 @0
//!   |         ^^^ not a built-in type, struct or alias
//!   |
//!   = hint: did you mean `u64`?
//! ```
//!
//! ## For tools
//!
//! [`load_file`], [`load_str`] and [`load_str_in`] check a schema and lay it out into an
//! [`ir::Schema`] (or return every error as [`Diagnostics`]); [`codegen::render`] turns
//! that into a Rust file, [`openrpc::document`] into its OpenRPC document,
//! [`compat::compare`] classifies the changes between two versions, and [`fmt`] writes a
//! schema in its canonical layout. Data flows one way:
//!
//! ```text
//! .zap text --parse--> syntax tree --resolve--> names --layout--> slots (placed once)
//!   --check--> every error, or --lower--> ir --codegen--> Rust source
//! ```
//!
//! `#[derive(Zap)]` (zap-derive) builds the same [`ir`] from a Rust struct and expands it
//! with the same code generator, so the two front ends cannot drift.
//!
//! [zap-runtime]: https://docs.rs/zap-runtime
//! [`Service`]: https://docs.rs/zap-runtime/latest/zap_runtime/trait.Service.html

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
pub mod export;
pub mod fmt;
pub mod ir;
pub mod openrpc;
pub mod portable;
mod sources;

// Slot placement, for `#[derive(Zap)]` (which lays out a Rust struct by the schema's
// rule). Not a stable API.
#[doc(hidden)]
pub mod layout;

/// The README (the crates.io page) is compiled with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use config::{module_name, Config, GenerateError, Generated};
pub use diag::{Diagnostic, Diagnostics, Label};
pub use frontend::{load_file, load_str, load_str_in, LoadError};
pub use sources::{schema_hash, source_files, SourceFile};

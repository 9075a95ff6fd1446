//! `zapc generate DIR|FILES -o OUT`: write Rust for schemas.

use std::path::PathBuf;
use std::process::ExitCode;

use zapc::Config;

use super::inputs::{schema_files, Depth};

/// Generate Rust code: one `.rs` per `.zap` file plus a `mod.rs` declaring them.
///
/// Each file gets a zero-copy reader, a builder and an owned type (with the JSON mapping)
/// per struct, and a handler trait, service and client stub per interface. Files are
/// rewritten only when their content changes, so builds are not retriggered needlessly.
/// The output is formatted with rustfmt when it is on the PATH (see --no-rustfmt).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc generate schemas/                 # every .zap in schemas/ -> src/generated/\n  zapc generate schemas/eth.zap -o src/eth_gen\n\nInclude the output with `mod generated;` (src/generated/mod.rs declares one module per schema)."
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all compiled.
    #[arg(value_name = "SCHEMA", required = true)]
    inputs: Vec<PathBuf>,
    /// Output folder (created if missing).
    #[arg(short, long, value_name = "DIR", default_value = "src/generated")]
    out: PathBuf,
    /// Leave the output as zapc formats it (prettyplease) instead of running rustfmt.
    #[arg(long)]
    no_rustfmt: bool,
}

/// Collect the schema files, generate, and report what was written.
pub fn run(args: &Args) -> ExitCode {
    let files = match schema_files(&args.inputs, Depth::Top) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut config = Config::new();
    config.out_dir(&args.out).rustfmt(!args.no_rustfmt);
    match config.compile(&files) {
        Ok(done) => {
            for path in &done.written {
                println!("wrote     {}", path.display());
            }
            for path in &done.unchanged {
                println!("unchanged {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            let text = e.to_string();
            eprint!("{text}");
            if !text.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
    }
}

//! `zapc generate DIR|FILES -o OUT`: write Rust for schemas.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zapc::Config;

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
    let files = match schema_files(&args.inputs) {
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

/// Expand folders into their `*.zap` files (sorted); keep files as given.
fn schema_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found = zap_files(input)?;
            if found.is_empty() {
                return Err(format!("{} contains no .zap files", input.display()));
            }
            files.append(&mut found);
        } else if input.exists() {
            files.push(input.clone());
        } else {
            return Err(format!("{}: no such file or folder", input.display()));
        }
    }
    Ok(files)
}

fn zap_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "zap"))
        .collect();
    files.sort();
    Ok(files)
}

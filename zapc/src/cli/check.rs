//! `zapc check [--portable] PATHS...`: validate schemas, print every error (and, with
//! `--portable`, what the other ZAP compilers would not read).

use std::path::PathBuf;
use std::process::ExitCode;

use zapc::{ir, load_file, portable};

use super::inputs::{schema_files, Depth};

/// Check schema files and report every error in each of them.
///
/// Prints one `ok` line per valid file to stdout and every diagnostic to stderr.
/// Exits with 0 when all files are valid, 1 otherwise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc check schemas/eth.zap schemas/lists.zap\n  zapc check schemas/              # every .zap file in schemas/\n  zapc check --portable --deny-warnings shared/   # one schema for Go and TypeScript too"
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all checked.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Also warn about every construct the Go and TypeScript `zapgen` do not read, or
    /// whose bytes their generated builders write differently, each with the fix or what
    /// `zapc export` writes instead.
    #[arg(long)]
    portable: bool,
    /// Fail (exit 1) when there is a warning, as for an error.
    #[arg(long)]
    deny_warnings: bool,
}

/// Check every file (all of them, even after a failure).
pub fn run(args: &Args) -> ExitCode {
    let files = match schema_files(&args.paths, Depth::Top) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut all_valid = true;
    for path in &files {
        match load_file(path) {
            Ok(schema) => println!("ok: {} ({})", path.display(), summary(&schema)),
            Err(error) => {
                all_valid = false;
                eprint!("{}", ensure_newline(error.to_string()));
                continue;
            }
        }
        if args.portable {
            match portable::portable_warnings(path) {
                Ok(None) => {}
                Ok(Some(warnings)) => {
                    all_valid &= !args.deny_warnings;
                    eprint!("{warnings}");
                }
                Err(error) => {
                    all_valid = false;
                    eprint!("{}", ensure_newline(error.to_string()));
                }
            }
        }
    }
    if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn summary(schema: &ir::Schema) -> String {
    let mut text = format!(
        "{}, {}",
        count(schema.structs.len(), "struct", "structs"),
        count(schema.interfaces.len(), "interface", "interfaces")
    );
    if !schema.enums.is_empty() {
        text.push_str(&format!(", {}", count(schema.enums.len(), "enum", "enums")));
    }
    text
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn ensure_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

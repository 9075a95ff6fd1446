//! `zapc check PATHS...`: validate schemas, print every error.

use std::path::PathBuf;
use std::process::ExitCode;

use zapc::{ir, load_file};

use super::inputs::{schema_files, Depth};

/// Check schema files and report every error in each of them.
///
/// Prints one `ok` line per valid file to stdout and every diagnostic to stderr.
/// Exits with 0 when all files are valid, 1 otherwise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc check schemas/eth.zap schemas/lists.zap\n  zapc check schemas/              # every .zap file in schemas/"
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all checked.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
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

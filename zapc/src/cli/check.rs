//! `zapc check FILES...`: validate schemas, print every error.

use std::path::PathBuf;
use std::process::ExitCode;

use zapc::{ir, load_file};

/// Check schema files and report every error in each of them.
///
/// Prints one `ok` line per valid file to stdout and every diagnostic to stderr.
/// Exits with 0 when all files are valid, 1 otherwise.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  zapc check schemas/eth.zap schemas/lists.zap")]
pub struct Args {
    /// The .zap files to check.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
}

/// Check every file (all of them, even after a failure).
pub fn run(args: &Args) -> ExitCode {
    let mut all_valid = true;
    for path in &args.files {
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

//! `zapc fmt [--check] [--indent] [PATHS...]`: write schemas in their canonical layout.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zapc::fmt::{format_checked, Style};

use super::inputs::{schema_files, Depth};

/// Format .zap files in the canonical layout (the rules: docs/fmt.md).
///
/// Each PATH is a .zap file or a directory (its .zap files, recursively, in name order);
/// `-` or no PATH reads standard input and writes the result to standard output. Files are
/// rewritten in place, only when their text changes. Only valid schemas are formatted, and
/// a result is written only if it loads to the same laid-out schema and keeps every comment.
///
/// Exits with 0 on success (with --check: nothing would change), 1 with --check when a file
/// would change (each is named, with the lines that would change), 2 when a file cannot be
/// read or is not a valid schema.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc fmt schemas/                  # rewrite every .zap file under schemas/\n  zapc fmt --check schemas/          # in CI: list what would change, exit 1 if anything would\n  zapc fmt --indent - < eth.zap      # the whitespace form, to standard output"
)]
pub struct Args {
    /// .zap files or directories; `-` (or nothing) for standard input to standard output.
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Change nothing: report the files that are not formatted and exit with 1 if any.
    #[arg(long)]
    check: bool,
    /// Write blocks in the whitespace form (a header line, then indented items) instead of
    /// braces. Without it, a file with the comment line `# zapc fmt: indent` is written in
    /// the whitespace form too.
    #[arg(long)]
    indent: bool,
}

/// What happened to one input.
enum Outcome {
    Unchanged,
    Changed,
    Failed,
}

pub fn run(args: &Args) -> ExitCode {
    let style = args.indent.then_some(Style::Indented);
    let mut inputs = Vec::new();
    if args.paths.is_empty() {
        inputs.push(PathBuf::from("-"));
    }
    for path in &args.paths {
        if path.as_os_str() == "-" {
            inputs.push(path.clone());
            continue;
        }
        match schema_files(std::slice::from_ref(path), Depth::Recursive) {
            Ok(mut files) => inputs.append(&mut files),
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        }
    }
    let mut failed = false;
    let mut would_change = Vec::new();
    for path in &inputs {
        match one(path, style, args.check) {
            Outcome::Unchanged => {}
            Outcome::Changed => would_change.push(path),
            Outcome::Failed => failed = true,
        }
    }
    if args.check && !would_change.is_empty() {
        let n = would_change.len();
        eprintln!(
            "{n} file{} not formatted; run `zapc fmt{}` on {}",
            if n == 1 { " is" } else { "s are" },
            if args.indent { " --indent" } else { "" },
            if n == 1 { "it" } else { "them" }
        );
    }
    if failed {
        ExitCode::from(2)
    } else if args.check && !would_change.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn one(path: &Path, style: Option<Style>, check: bool) -> Outcome {
    let stdin = path.as_os_str() == "-";
    let (name, text) = if stdin {
        let mut text = String::new();
        if let Err(error) = std::io::stdin().read_to_string(&mut text) {
            eprintln!("error: cannot read standard input: {error}");
            return Outcome::Failed;
        }
        ("<stdin>".to_owned(), text)
    } else {
        match std::fs::read_to_string(path) {
            Ok(text) => (path.display().to_string(), text),
            Err(error) => {
                eprintln!("error: cannot read {}: {error}", path.display());
                return Outcome::Failed;
            }
        }
    };
    let style = style.unwrap_or_else(|| Style::of_file(&text, Style::Braces));
    // Imports are read relative to the file (to the current directory for stdin).
    let dir = path
        .parent()
        .filter(|d| !stdin && !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let load = |name: &str, text: &str| zapc::load_str_in(name, text, dir);
    let formatted = match format_checked(&name, &text, style, load) {
        Ok(formatted) => formatted,
        Err(error) => {
            let mut message = error.to_string();
            if !message.ends_with('\n') {
                message.push('\n');
            }
            eprint!("{message}");
            return Outcome::Failed;
        }
    };
    if formatted == text {
        if stdin && !check {
            print!("{formatted}");
        }
        return Outcome::Unchanged;
    }
    if check {
        print!("{}", diff(&name, &text, &formatted));
        return Outcome::Changed;
    }
    if stdin {
        print!("{formatted}");
        let _ = std::io::stdout().flush();
    } else if let Err(error) = std::fs::write(path, &formatted) {
        eprintln!("error: cannot write {}: {error}", path.display());
        return Outcome::Failed;
    }
    Outcome::Changed
}

/// A unified-diff-like listing of the lines that formatting changes (no context lines).
fn diff(name: &str, old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    // Longest common subsequence of lines; schemas are small, and a huge file only costs
    // time, never a wrong answer.
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = format!("--- {name}\n+++ {name} (formatted)\n");
    let (mut i, mut j) = (0, 0);
    let mut hunk: Vec<String> = Vec::new();
    let mut hunk_start = (0, 0);
    let flush = |hunk: &mut Vec<String>, start: (usize, usize), out: &mut String| {
        if !hunk.is_empty() {
            out.push_str(&format!("@@ -{} +{} @@\n", start.0 + 1, start.1 + 1));
            for line in hunk.drain(..) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    };
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            flush(&mut hunk, hunk_start, &mut out);
            i += 1;
            j += 1;
            continue;
        }
        if hunk.is_empty() {
            hunk_start = (i, j);
        }
        if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            hunk.push(format!("-{}", old[i]));
            i += 1;
        } else {
            hunk.push(format!("+{}", new[j]));
            j += 1;
        }
    }
    flush(&mut hunk, hunk_start, &mut out);
    out
}

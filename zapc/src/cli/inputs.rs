//! The schema paths of a command line: one rule for every subcommand, so that
//! `zapc check schemas/` works wherever `zapc generate schemas/` does.

use std::path::{Path, PathBuf};

/// How far into a folder [`schema_files`] looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// The `*.zap` files directly in the folder: a folder is one set of sibling schemas
    /// (what `generate` writes as sibling modules and imports resolve against).
    Top,
    /// Also the `*.zap` files of its subfolders (`zapc fmt`, which treats each file alone).
    Recursive,
}

/// Expand each input: a folder becomes its `*.zap` files, sorted by path; anything else
/// is kept as given (whatever its extension; a missing file is reported by the command
/// when it reads it, as `cannot read PATH: ...`, so `check` goes on to the next file).
/// A folder without any `.zap` file is an error saying so.
pub fn schema_files(inputs: &[PathBuf], depth: Depth) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let start = files.len();
            zap_files(input, depth, &mut files)?;
            if files.len() == start {
                return Err(format!(
                    "{} contains no .zap files{}",
                    input.display(),
                    match depth {
                        Depth::Top => "",
                        Depth::Recursive => " (nor do its subfolders)",
                    }
                ));
            }
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}

/// The one schema file an option names (`encode --schema`, `decode --schema`): a folder
/// is refused, since the message is of one type declared in one file.
pub fn one_schema<'p>(path: &'p Path, option: &str) -> Result<&'p Path, String> {
    if path.is_dir() {
        Err(format!(
            "{option} {} is a folder: a message is one struct of one schema, so give the .zap file that declares it",
            path.display()
        ))
    } else {
        Ok(path)
    }
}

fn zap_files(dir: &Path, depth: Depth, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", dir.display());
    let mut entries = std::fs::read_dir(dir)
        .map_err(cannot)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(cannot)?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if depth == Depth::Recursive {
                zap_files(&path, depth, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "zap") {
            out.push(path);
        }
    }
    Ok(())
}

//! The front end in one call: `.zap` text in, checked and laid-out [`ir::Schema`] out,
//! or every error of the file.

use std::path::{Path, PathBuf};

use crate::ast::SchemaFile;
use crate::diag::Diagnostics;
use crate::imports::Loader;
use crate::ir;

/// Why a schema file could not be loaded.
///
/// `Debug` prints what `Display` does (the rendered diagnostics), so the error reads
/// well where it is shown with `{:?}`, as `main` returning an error does.
#[derive(thiserror::Error)]
pub enum LoadError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file, or a file it imports, was read but is not a valid schema. The
    /// diagnostics name the file they are about.
    #[error("{0}")]
    Invalid(#[from] Diagnostics),
}

/// Parse, check and lay out `text`. `source_name` names the text in diagnostics and in
/// [`ir::Schema::source_name`]. Reads no file: an `import` is an error here (use
/// [`load_str_in`] or [`load_file`]), so untrusted text cannot make the compiler read
/// files. Returns every error found, never panics.
pub fn load_str(source_name: &str, text: &str) -> Result<ir::Schema, Diagnostics> {
    load_text(source_name, text, Path::new("."), false)
}

/// [`load_str`] with the imports read relative to `dir`. An error in an imported file is
/// returned as that file's diagnostics.
pub fn load_str_in(source_name: &str, text: &str, dir: &Path) -> Result<ir::Schema, Diagnostics> {
    load_text(source_name, text, dir, true)
}

fn load_text(
    source_name: &str,
    text: &str,
    dir: &Path,
    read_imports: bool,
) -> Result<ir::Schema, Diagnostics> {
    load_with_tree(source_name, text, dir, read_imports).map(|(_, schema)| schema)
}

/// As [`load_str`] (or [`load_str_in`] with `read_imports`), with the file's syntax tree:
/// what `zapc compat` points its carets with. The text is parsed once for both.
pub(crate) fn load_with_tree(
    source_name: &str,
    text: &str,
    dir: &Path,
    read_imports: bool,
) -> Result<(SchemaFile, ir::Schema), Diagnostics> {
    match Loader::new(read_imports).load_with_tree(source_name, text, dir, None) {
        Ok(loaded) => Ok(loaded),
        Err(LoadError::Invalid(errors)) => Err(errors),
        // Only files read for imports can fail to be read, and those failures are
        // diagnostics at the `import`.
        Err(error @ LoadError::Io { .. }) => Err(Diagnostics::new(
            source_name,
            text,
            vec![crate::diag::Diagnostic::error(
                error.to_string(),
                0..0,
                "here",
            )],
        )),
    }
}

/// Read `path` and load it with the files it imports (relative to its directory), naming
/// it in diagnostics as the path was given.
pub fn load_file(path: &Path) -> Result<ir::Schema, LoadError> {
    load_file_with_tree(path).map(|loaded| loaded.schema)
}

/// A file loaded with what the tools that look at its spelling need: its text and its
/// syntax tree beside the checked schema.
pub(crate) struct LoadedFile {
    pub text: String,
    pub tree: SchemaFile,
    pub schema: ir::Schema,
}

/// As [`load_file`], with the file's text and syntax tree.
pub(crate) fn load_file_with_tree(path: &Path) -> Result<LoadedFile, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let canonical = std::fs::canonicalize(path).ok();
    let (tree, schema) =
        Loader::new(true).load_with_tree(&path.display().to_string(), &text, dir, canonical)?;
    Ok(LoadedFile { text, tree, schema })
}

impl std::fmt::Debug for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

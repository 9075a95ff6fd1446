//! The front end in one call: `.zap` text in, checked and laid-out [`ir::Schema`] out,
//! or every error of the file.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostics;
use crate::{check, ir, lower, parse};

/// Why a schema file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a valid schema.
    #[error("{0}")]
    Invalid(#[from] Diagnostics),
}

/// Parse, check and lay out `text`. `source_name` names the text in diagnostics and in
/// [`ir::Schema::source_name`]. Returns every error found, never panics.
pub fn load_str(source_name: &str, text: &str) -> Result<ir::Schema, Diagnostics> {
    let fail = |errors| Diagnostics::new(source_name, text, errors);
    let file = parse::parse(text).map_err(|error| fail(vec![error]))?;
    let cx = check::Context::new(&file);
    let errors = check::check(&cx);
    if !errors.is_empty() {
        return Err(fail(errors));
    }
    lower::lower(source_name, &cx).map_err(|error| fail(vec![error]))
}

/// Read `path` and [`load_str`] it, naming it in diagnostics as the path was given.
pub fn load_file(path: &Path) -> Result<ir::Schema, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(load_str(&path.display().to_string(), &text)?)
}

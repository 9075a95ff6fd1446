//! The `build.rs` API, in the spirit of prost-build:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     zapc::Config::new().compile(&["schemas/eth.zap"])?;
//!     Ok(())
//! }
//! ```
//!
//! and in the crate: `zap_runtime::include_schema!("eth");` (the file stem).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::codegen::{self, Options};
use crate::frontend::{load_file, LoadError};

/// Why code generation failed.
///
/// `Debug` prints what `Display` does: for an invalid schema, the same caret diagnostics
/// (file:line:col, the marked line, a hint) that `zapc check` prints. A build script
/// returning `Result<(), Box<dyn Error>>` therefore shows a readable error, not the
/// schema as an escaped string.
#[derive(thiserror::Error)]
pub enum GenerateError {
    /// A schema did not load (missing, unreadable or invalid); the diagnostics say why.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// No output folder: not run from a build script and no `out_dir` given.
    #[error("no output folder: OUT_DIR is not set (are you in build.rs?); call Config::out_dir")]
    NoOutDir,
    /// Two schema files would generate the same module.
    #[error("{a} and {b} would both generate module `{module}`")]
    DuplicateModule {
        module: String,
        a: PathBuf,
        b: PathBuf,
    },
    /// An imported file's module would not be named after its package, so the
    /// `super::<package>::Type` paths of its importers would not find it.
    #[error("{path} declares package `{package}`, but its generated module is `{module}`: an imported file must be named after its package (`{package}.zap`)")]
    ImportedModule {
        path: PathBuf,
        package: String,
        module: String,
    },
    /// Writing a generated file failed.
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

impl std::fmt::Debug for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Configures and runs code generation for a set of `.zap` files.
#[derive(Clone, Debug, Default)]
pub struct Config {
    out_dir: Option<PathBuf>,
    options: Options,
    emit_rerun: bool,
    rustfmt: bool,
}

/// What one generation run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// Files written because they were new or changed.
    pub written: Vec<PathBuf>,
    /// Files left alone because their content was already right.
    pub unchanged: Vec<PathBuf>,
}

impl Config {
    /// Defaults: output to `$OUT_DIR`, runtime at `::zap_runtime`, and
    /// `cargo:rerun-if-changed` lines when run from a build script.
    pub fn new() -> Self {
        Config {
            out_dir: None,
            options: Options::default(),
            emit_rerun: std::env::var_os("OUT_DIR").is_some(),
            rustfmt: false,
        }
    }

    /// Write generated files into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The runtime crate's path in generated code (default `::zap_runtime`), for a
    /// renamed dependency.
    pub fn runtime_path(&mut self, path: syn::Path) -> &mut Self {
        self.options.runtime = path;
        self
    }

    /// Also pass the output through `rustfmt` (when it is on the PATH), so generated
    /// files kept in a source tree pass `cargo fmt --check`. Off by default: the
    /// prettyplease output is deterministic and needs no external tool.
    pub fn rustfmt(&mut self, enabled: bool) -> &mut Self {
        self.rustfmt = enabled;
        self
    }

    fn finish_code(&self, code: String) -> String {
        if self.rustfmt {
            rustfmt(&code).unwrap_or(code)
        } else {
            code
        }
    }

    /// Generate `<stem>.rs` for every schema and every file they import (plus a `mod.rs`
    /// declaring them all as sibling modules, so `super::common::Kind` finds an imported
    /// type), writing a file only when its content changed.
    pub fn compile(&self, schemas: &[impl AsRef<Path>]) -> Result<Generated, GenerateError> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(GenerateError::NoOutDir)?,
        };
        fs::create_dir_all(&out_dir).map_err(|source| GenerateError::Write {
            path: out_dir.clone(),
            source,
        })?;
        let mut result = Generated::default();
        let mut modules: Vec<(String, PathBuf)> = Vec::new();
        // The files given, then the files they import (each once).
        let mut queue: Vec<PathBuf> = schemas.iter().map(|p| p.as_ref().to_path_buf()).collect();
        let mut seen: Vec<PathBuf> = Vec::new();
        let mut next = 0;
        while next < queue.len() {
            let path = queue[next].clone();
            next += 1;
            let path = path.as_path();
            let identity = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            if seen.contains(&identity) {
                continue;
            }
            seen.push(identity);
            if self.emit_rerun {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            let schema = load_file(path)?;
            let module = module_name(path);
            // Importers name an imported file's module after its package.
            for import in &schema.imports {
                let imported = PathBuf::from(&import.source_name);
                let package = import.package.clone().unwrap_or_default();
                let module = module_name(&imported);
                if module_name(Path::new(&format!("{package}.zap"))) != module {
                    return Err(GenerateError::ImportedModule {
                        path: imported,
                        package,
                        module,
                    });
                }
                queue.push(imported);
            }
            if let Some((_, other)) = modules.iter().find(|(m, _)| *m == module) {
                return Err(GenerateError::DuplicateModule {
                    module,
                    a: other.clone(),
                    b: path.to_path_buf(),
                });
            }
            // A schema with an interface embeds its files for its server's reflection.
            let code = if schema.interfaces.is_empty() {
                codegen::render(&schema, &self.options)
            } else {
                let options = Options {
                    sources: crate::source_files(path)?,
                    ..self.options.clone()
                };
                codegen::render(&schema, &options)
            };
            let code = self.finish_code(code);
            write_if_changed(&out_dir.join(format!("{module}.rs")), &code, &mut result)?;
            modules.push((module, path.to_path_buf()));
        }
        let names: Vec<String> = modules.into_iter().map(|(m, _)| m).collect();
        write_if_changed(
            &out_dir.join("mod.rs"),
            &codegen::render_mod(&names),
            &mut result,
        )?;
        Ok(result)
    }
}

/// The module (and file) name for a schema path: its snake_case file stem.
pub fn module_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    codegen::names::module_ident(&stem)
        .to_string()
        .trim_start_matches("r#")
        .to_string()
}

/// Format `code` with `rustfmt` from the PATH; `None` if it is missing or fails.
fn rustfmt(code: &str) -> Option<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(code.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    (out.status.success() && !out.stdout.is_empty()).then(|| String::from_utf8(out.stdout).ok())?
}

fn write_if_changed(
    path: &Path,
    content: &str,
    result: &mut Generated,
) -> Result<(), GenerateError> {
    if fs::read_to_string(path).is_ok_and(|old| old == content) {
        result.unchanged.push(path.to_path_buf());
        return Ok(());
    }
    fs::write(path, content).map_err(|source| GenerateError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    result.written.push(path.to_path_buf());
    Ok(())
}

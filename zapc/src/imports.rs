//! `import "other.zap"`: loading a file together with the files it imports.
//!
//! Each file is parsed, checked and laid out on its own, imports first, so that every
//! error is reported in the file it is in. A file sees the types of the files it imports
//! directly as `package.Type` (never unqualified: two imports may declare the same name,
//! and a reader of the schema always knows where a type comes from). To check a file, the
//! declarations of every file it imports (directly or not) join its names with their
//! package prefixed (`common.Kind`, and the types they use likewise), so aliases and
//! struct shapes of imported files resolve exactly as in their own file.
//!
//! Import paths are relative to the directory of the importing file. A missing file and an
//! import cycle are errors at the `import` that fails, like any other diagnostic.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::ast::{Declaration, ImportDecl, SchemaFile, TypeExpr, TypeKind};
use crate::diag::{Diagnostic, Diagnostics};
use crate::frontend::LoadError;
use crate::ir::{self, ListShape};
use crate::{check, lower, parse};

/// One loaded file.
struct Loaded {
    /// The file, as far as the file system can say (to find cycles and shared imports).
    canonical: PathBuf,
    /// How diagnostics name it.
    display: String,
    package: Option<String>,
    /// Its syntax tree with every name it declares qualified by its package.
    qualified: SchemaFile,
    /// Its IR with every struct name qualified (see [`ir::Schema::imports`]).
    ir: ir::Schema,
    /// Every file it imports, directly or not, as indices into [`Loader::done`],
    /// dependencies first.
    deps: Vec<usize>,
}

/// Loads files and their imports, each file once.
pub(crate) struct Loader {
    /// Whether imports may be read at all (not for text loaded on its own, which may be
    /// untrusted: it must not make the compiler read files).
    pub(crate) read_imports: bool,
    /// The import chain being loaded: canonical paths and display names.
    stack: Vec<(PathBuf, String)>,
    done: Vec<Loaded>,
}

impl Loader {
    /// A loader that reads imports (`read_imports`) or refuses them.
    pub(crate) fn new(read_imports: bool) -> Self {
        Loader {
            read_imports,
            stack: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Load `text`, named `display` in diagnostics, whose imports are relative to `dir`;
    /// `canonical` is the file's own path when it is a file (so importing it back is a
    /// cycle). Returns the file's syntax tree beside its schema (parsed once for both).
    pub(crate) fn load_with_tree(
        &mut self,
        display: &str,
        text: &str,
        dir: &Path,
        canonical: Option<PathBuf>,
    ) -> Result<(SchemaFile, ir::Schema), LoadError> {
        let (_, deps, mut schema, file) = self.load_one(display, text, dir, canonical, false)?;
        schema.imports = deps.iter().map(|&d| self.done[d].ir.clone()).collect();
        Ok((file, schema))
    }

    fn load_one(
        &mut self,
        display: &str,
        text: &str,
        dir: &Path,
        canonical: Option<PathBuf>,
        imported_by_another: bool,
    ) -> Result<(Option<usize>, Vec<usize>, ir::Schema, SchemaFile), LoadError> {
        let fail = |errors| LoadError::Invalid(Diagnostics::new(display, text, errors));
        let file = parse::parse(text).map_err(|error| fail(vec![error]))?;
        let own_package = file.packages().next().map(|p| p.name.text.clone());

        // The imports, loaded first; their problems are errors at the `import`.
        let me = canonical.clone().unwrap_or_else(|| dir.join(display));
        self.stack.push((me.clone(), display.to_owned()));
        let mut errors = Vec::new();
        let mut direct: Vec<(usize, &ImportDecl)> = Vec::new();
        for decl in file.imports() {
            match self.import(display, dir, decl) {
                Ok(Some(index)) => {
                    if !direct.iter().any(|(i, _)| *i == index) {
                        direct.push((index, decl));
                    }
                }
                Ok(None) => {}
                Err(Imported::Here(error)) => errors.push(error),
                Err(Imported::There(error)) => {
                    self.stack.pop();
                    return Err(error);
                }
            }
        }
        self.stack.pop();
        errors.extend(self.package_clashes(own_package.as_deref(), &direct));
        if !errors.is_empty() {
            return Err(fail(errors));
        }

        // Every file imported, directly or not, dependencies first.
        let mut deps: Vec<usize> = Vec::new();
        for (index, _) in &direct {
            for &d in self.done[*index].deps.iter().chain([index]) {
                if !deps.contains(&d) {
                    deps.push(d);
                }
            }
        }
        deps.sort_unstable();
        let imported: Vec<&SchemaFile> = deps.iter().map(|&d| &self.done[d].qualified).collect();
        let packages = direct
            .iter()
            .filter_map(|(i, _)| self.done[*i].package.clone())
            .collect();
        let shapes: HashMap<String, (u32, ListShape)> = deps
            .iter()
            .flat_map(|&d| &self.done[d].ir.structs)
            .map(|s| (s.name.clone(), (s.size, s.list_shape)))
            .collect();
        let cx = check::Context::with_imports(&file, &imported, packages, shapes);
        let errors = check::check(&cx);
        if !errors.is_empty() {
            return Err(fail(errors));
        }
        let schema = lower::lower(display, &cx).map_err(|error| fail(vec![error]))?;
        drop(cx);
        if !imported_by_another {
            // Nobody looks this file up by its qualified names: skip the copies.
            return Ok((None, deps, schema, file));
        }

        let loaded = Loaded {
            canonical: me,
            display: display.to_owned(),
            qualified: match &own_package {
                Some(package) => qualify_file(&file, package),
                None => file.clone(),
            },
            ir: match &own_package {
                Some(package) => qualify_schema(&schema, package),
                None => schema.clone(),
            },
            package: own_package,
            deps: deps.clone(),
        };
        self.done.push(loaded);
        Ok((Some(self.done.len() - 1), deps, schema, file))
    }

    /// Load the file `decl` names (or find it loaded). `Ok(None)`: nothing to add.
    fn import(
        &mut self,
        display: &str,
        dir: &Path,
        decl: &ImportDecl,
    ) -> Result<Option<usize>, Imported> {
        if !self.read_imports {
            return Err(Imported::Here(
                Diagnostic::error(
                    format!("cannot import \"{}\" here: this schema was given as text", decl.path),
                    decl.span.clone(),
                    "imports are read only for a schema loaded from a file",
                )
                .with_hint("load it with zapc::load_file, or zapc::load_str_in with the directory its imports are relative to"),
            ));
        }
        let path = dir.join(&decl.path);
        let shown = Path::new(display)
            .parent()
            .map_or_else(|| PathBuf::from(&decl.path), |p| p.join(&decl.path));
        let shown = shown.display().to_string();
        let unreadable = |error: std::io::Error| {
            Imported::Here(
                Diagnostic::error(
                    format!("cannot import \"{}\": {error}", decl.path),
                    decl.span.clone(),
                    "this file cannot be read",
                )
                .with_hint("an import path is relative to the directory of the importing file"),
            )
        };
        let canonical = std::fs::canonicalize(&path).map_err(unreadable)?;
        if !canonical.is_file() {
            return Err(unreadable(std::io::Error::other("not a regular file")));
        }
        if let Some(start) = self.stack.iter().position(|(p, _)| *p == canonical) {
            let chain: Vec<String> = self.stack[start..]
                .iter()
                .map(|(_, shown)| file_name(shown))
                .chain([file_name(&shown)])
                .collect();
            return Err(Imported::Here(
                Diagnostic::error(
                    format!("import cycle: {}", chain.join(" -> ")),
                    decl.span.clone(),
                    "this import leads back to a file that imports this one",
                )
                .with_hint(
                    "files cannot import each other; move the shared types into a file both import",
                ),
            ));
        }
        if let Some(index) = self.done.iter().position(|l| l.canonical == canonical) {
            return Ok(Some(index));
        }
        let text = std::fs::read_to_string(&canonical).map_err(unreadable)?;
        let parent = canonical
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let (index, _, _, _) = self
            .load_one(&shown, &text, &parent, Some(canonical), true)
            .map_err(Imported::There)?;
        let Some(index) = index else {
            return Ok(None);
        };
        if self.done[index].package.is_none() {
            return Err(Imported::Here(
                Diagnostic::error(
                    format!("\"{}\" declares no package", decl.path),
                    decl.span.clone(),
                    "an imported file needs a `package` declaration",
                )
                .with_hint(format!(
                    "add `package NAME` to {shown}: its types are named `NAME.Type` here"
                )),
            ));
        }
        Ok(Some(index))
    }

    /// Two imports that bring the same package, or one that brings this file's package.
    fn package_clashes(
        &self,
        own: Option<&str>,
        direct: &[(usize, &ImportDecl)],
    ) -> Vec<Diagnostic> {
        let mut errors = Vec::new();
        // Package name -> the file that declares it.
        let mut seen: HashMap<&str, &str> = HashMap::new();
        let mut files_seen: HashSet<usize> = HashSet::new();
        for (index, decl) in direct {
            for &d in self.done[*index].deps.iter().chain([index]) {
                if !files_seen.insert(d) {
                    continue;
                }
                let loaded = &self.done[d];
                let Some(package) = loaded.package.as_deref() else {
                    continue;
                };
                let clash = if own == Some(package) {
                    Some("this file's own package".to_owned())
                } else {
                    seen.get(package)
                        .map(|other| format!("the package of {}", file_name(other)))
                };
                match clash {
                    Some(what) => errors.push(
                        Diagnostic::error(
                            format!(
                                "package `{package}` of {} is also {what}",
                                file_name(&loaded.display)
                            ),
                            decl.span.clone(),
                            "this import brings a second package of the same name",
                        )
                        .with_hint("every file in an import graph needs its own package name, so `package.Type` names one type"),
                    ),
                    None => {
                        seen.insert(package, &loaded.display);
                    }
                }
            }
        }
        errors
    }
}

/// Where an import failed: at the `import` line of this file, or inside the imported file.
enum Imported {
    Here(Diagnostic),
    There(LoadError),
}

/// The file name of a displayed path, for short messages (`common.zap`).
fn file_name(shown: &str) -> String {
    Path::new(shown)
        .file_name()
        .map_or_else(|| shown.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// `file` with every name it declares, and every use of one, prefixed by `package.`.
fn qualify_file(file: &SchemaFile, package: &str) -> SchemaFile {
    let local: HashSet<String> = file
        .structs()
        .map(|s| s.name.text.clone())
        .chain(file.aliases().map(|a| a.name.text.clone()))
        .chain(file.interfaces().map(|i| i.name.text.clone()))
        .chain(file.enums().map(|e| e.name.text.clone()))
        .collect();
    let qualify = |name: &mut String| {
        if local.contains(name.as_str()) {
            *name = format!("{package}.{name}");
        }
    };
    let mut file = file.clone();
    for decl in &mut file.declarations {
        match decl {
            Declaration::Struct(s) => {
                qualify(&mut s.name.text);
                for field in &mut s.fields {
                    qualify_type(&mut field.ty, &qualify);
                }
            }
            Declaration::Alias(a) => {
                qualify(&mut a.name.text);
                qualify_type(&mut a.target, &qualify);
            }
            Declaration::Enum(e) => qualify(&mut e.name.text),
            Declaration::Interface(i) => {
                qualify(&mut i.name.text);
                for m in &mut i.methods {
                    for p in m.params.iter_mut().chain(&mut m.results) {
                        qualify_type(&mut p.ty, &qualify);
                    }
                }
            }
            _ => {}
        }
    }
    file
}

fn qualify_type(ty: &mut TypeExpr, qualify: &dyn Fn(&mut String)) {
    match &mut ty.kind {
        TypeKind::Named(name) => qualify(&mut name.text),
        TypeKind::List(inner) | TypeKind::Ptr(inner) => qualify_type(inner, qualify),
        TypeKind::BytesFixed(_) => {}
    }
}

/// The IR of a file as its importers see it: struct names qualified, interfaces left out.
fn qualify_schema(schema: &ir::Schema, package: &str) -> ir::Schema {
    let mut schema = schema.clone();
    let qualify = |name: &mut String| {
        if !name.contains('.') {
            *name = format!("{package}.{name}");
        }
    };
    for e in &mut schema.enums {
        qualify(&mut e.name);
    }
    for s in &mut schema.structs {
        qualify(&mut s.name);
        for field in &mut s.fields {
            match &mut field.ty {
                ir::Type::Struct(name) | ir::Type::Enum { name, .. } => qualify(name),
                ir::Type::List(list) => {
                    if let ir::Type::Struct(name) | ir::Type::Enum { name, .. } = &mut list.elem {
                        qualify(name);
                    }
                }
                _ => {}
            }
        }
    }
    schema.interfaces.clear();
    schema.imports.clear();
    schema
}

//! One version of a schema file, loaded for comparing and for pointing at its lines.

use super::*;

/// One version of a schema file: its text, syntax tree and laid-out model.
#[derive(Debug, Clone)]
pub struct Version {
    /// How the file is named in reports (`schemas/eth.zap`, `HEAD:schemas/eth.zap`).
    pub name: String,
    /// The schema text.
    pub text: String,
    /// The syntax tree: where each item was written, for the report's carets.
    pub(crate) file: SchemaFile,
    /// The laid-out model [`compare`] reads.
    pub schema: Schema,
}

impl Version {
    /// [`Version::load`] for a file with imports, read relative to `dir` (from the file
    /// system, also when `text` comes from git).
    pub fn load_in(name: &str, text: &str, dir: &std::path::Path) -> Result<Version, Diagnostics> {
        Version::loaded(
            name,
            text,
            crate::frontend::load_with_tree(name, text, dir, true)?,
        )
    }

    /// Parse, check and lay out `text` (through the front end, as `zapc check` does),
    /// keeping what [`render`](super::render) needs. An `import` is an error here.
    pub fn load(name: &str, text: &str) -> Result<Version, Diagnostics> {
        let dir = std::path::Path::new(".");
        Version::loaded(
            name,
            text,
            crate::frontend::load_with_tree(name, text, dir, false)?,
        )
    }

    fn loaded(
        name: &str,
        text: &str,
        (file, schema): (SchemaFile, Schema),
    ) -> Result<Version, Diagnostics> {
        Ok(Version {
            name: name.to_owned(),
            text: text.to_owned(),
            file,
            schema,
        })
    }

    /// An empty file under `name` (the other side of an added or removed file), with the
    /// given package so that only the declarations show up as changes.
    pub fn empty(name: &str, package: Option<String>) -> Version {
        Version {
            name: name.to_owned(),
            text: String::new(),
            file: SchemaFile::default(),
            schema: Schema {
                source_name: name.to_owned(),
                package,
                structs: Vec::new(),
                interfaces: Vec::new(),
                enums: Vec::new(),
                consts: Vec::new(),
                imports: Vec::new(),
            },
        }
    }

    /// The span of the declaration's name; the file start if it is not there.
    pub fn span_of(&self, item: &Item) -> Span {
        let file = &self.file;
        let found = match item {
            Item::Package => file.packages().next().map(|p| p.name.span.clone()),
            Item::Struct(name) => file
                .structs()
                .find(|s| s.name.text == *name)
                .map(|s| s.name.span.clone()),
            Item::Field { structure, field } => file
                .structs()
                .find(|s| s.name.text == *structure)
                .and_then(|s| s.fields.iter().find(|f| f.name.text == *field))
                .map(|f| f.name.span.clone()),
            Item::Interface(name) => file
                .interfaces()
                .find(|i| i.name.text == *name)
                .map(|i| i.name.span.clone()),
            Item::Method { interface, method } => file
                .interfaces()
                .find(|i| i.name.text == *interface)
                .and_then(|i| i.methods.iter().find(|m| m.name.text == *method))
                .map(|m| m.name.span.clone()),
            Item::Enum(name) => file
                .enums()
                .find(|e| e.name.text == *name)
                .map(|e| e.name.span.clone()),
            Item::EnumValue { enumeration, value } => file
                .enums()
                .find(|e| e.name.text == *enumeration)
                .and_then(|e| e.values.iter().find(|v| v.name.text == *value))
                .map(|v| v.name.span.clone()),
            Item::Const(name) => file
                .consts()
                .find(|c| c.name.text == *name)
                .map(|c| c.name.span.clone()),
            Item::ReservedField { structure, field } => file
                .structs()
                .find(|s| s.name.text == *structure)
                .and_then(|s| {
                    s.fields
                        .iter()
                        .find(|f| f.is_reserved() && f.name.text == *field)
                })
                .map(|f| f.name.span.clone()),
            Item::ReservedOrdinal { interface, ordinal } => file
                .interfaces()
                .find(|i| i.name.text == *interface)
                .and_then(|i| i.reserved.iter().find(|n| n.as_u32() == Some(*ordinal)))
                .map(|n| n.span.start.saturating_sub(1)..n.span.end),
        };
        found.or_else(|| self.import_span(item)).unwrap_or(0..0)
    }

    /// For a struct of an imported file (`common.Point`): the `import` that brings its
    /// file, or the first import.
    fn import_span(&self, item: &Item) -> Option<Span> {
        let structure = match item {
            Item::Struct(name)
            | Item::Field {
                structure: name, ..
            } => name,
            _ => return None,
        };
        let (package, _) = structure.split_once('.')?;
        let source = self
            .schema
            .imports
            .iter()
            .find(|i| i.package.as_deref() == Some(package))
            .map(|i| std::path::Path::new(&i.source_name).to_path_buf());
        let mut imports = self.file.imports();
        let first = self.file.imports().next().map(|i| i.span.clone());
        imports
            .find(|i| {
                source
                    .as_ref()
                    .is_some_and(|s| s.file_name() == std::path::Path::new(&i.path).file_name())
            })
            .map(|i| i.span.clone())
            .or(first)
    }
}

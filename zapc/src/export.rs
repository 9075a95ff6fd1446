//! `zapc export`: a schema in the dialect every ZAP compiler reads, with the same wire
//! layout.
//!
//! The Go runtime's `zapgen` and the TypeScript one of `@zap-proto/zap` read a smaller
//! language than zapc: a `package` line first, then only `struct`, `interface` and
//! `type X = T`; every field at an explicit `@offset`; `#` comments; methods numbered
//! 1, 2, 3 in the order they are written, with one named parameter and one named result
//! at most. [`export_file`] writes a zapc schema in that dialect, one file per package,
//! so the other compilers generate readers and builders of the same bytes:
//!
//! | zapc construct | in the exported file |
//! |---|---|
//! | `package` | kept; a file without one gets its file stem |
//! | field without `@N` | written at the offset zapc placed it, as every field is |
//! | `reserved Name T @N` | a field of that type at that offset (commented `reserved`), so the size and list shape stay |
//! | `type X = T` of a built-in type | kept (`type address = bytes_fixed[20]`) |
//! | an alias of a list or a struct | the type it names, written out |
//! | `enum` | its integer type on every field; the values in a comment |
//! | `const` | a comment with its type and value |
//! | `import` | every struct the file uses from another package, copied in under its own name |
//! | `json(...)`, `requires`, `deprecated` | a trailing `# zapc: ...` comment (only zapc reads them) |
//! | a method's `@N` | methods written in ordinal order; a gap before a later call becomes a placeholder `reservedN()` so the ordinals stay equal |
//! | a stream method | a comment with its ordinal and signature (zapgen's interfaces cannot say streams) |
//! | `list<ptr<T>>` | `list<T>`, commented: a pointer list |
//! | a struct named like a type TypeScript zapgen imports (`Message`, `Response`, ...) | `<Name>Struct` |
//! | a field whose TypeScript getter would shadow a `StructView` member (`F32`, `Text`, ...) | `<Name>Field` (names are not on the wire) |
//!
//! What cannot be said is refused with the reason: two structs of different packages
//! with the same name in one exported file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::ast::{self, SchemaFile, TypeKind};
use crate::frontend::{load_file_with_tree, LoadError};
use crate::ir::{self, ListShape, Type};

/// One schema written in the common dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The package name (the file's `package`, else its file stem).
    pub package: String,
    /// The `.zap` text.
    pub text: String,
    /// What was written differently from the zapc schema, one line each (for a
    /// command's report): constants and enums as comments, placeholders, stream methods.
    pub notes: Vec<String>,
}

/// Why a schema could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The schema itself does not load (the same errors `zapc check` prints).
    #[error("{0}")]
    Load(#[from] LoadError),
    /// The schema loads, but the common dialect cannot say it with the same layout.
    #[error("{file}: {message}")]
    Refused { file: String, message: String },
}

/// Export the schema at `path` (with the files it imports).
pub fn export_file(path: &Path) -> Result<Exported, ExportError> {
    let loaded = load_file_with_tree(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "schema".to_owned());
    export(&loaded.schema, &loaded.tree, &stem).map_err(|message| ExportError::Refused {
        file: path.display().to_string(),
        message,
    })
}

/// The structs an exported file declares: this file's, then every imported struct they
/// reach, under its unqualified name.
struct Names<'s> {
    /// Qualified (or local) schema name -> the name in the exported file.
    short: BTreeMap<&'s str, String>,
}

impl Names<'_> {
    fn of(&self, name: &str) -> String {
        self.short
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_owned())
    }
}

fn export(schema: &ir::Schema, tree: &SchemaFile, stem: &str) -> Result<Exported, String> {
    let package = schema.package.clone().unwrap_or_else(|| stem.to_owned());
    let mut notes = Vec::new();

    // The imported structs this file reaches, and the names they take in it.
    let imported = reached_imports(schema);
    let mut short: BTreeMap<&str, String> = BTreeMap::new();
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    for s in schema.structs.iter().chain(imported.iter().copied()) {
        let plain = ir::split_qualified(&s.name).map_or(s.name.as_str(), |(_, n)| n);
        let mut name = plain.to_owned();
        if TS_TYPE_NAMES.contains(&plain) {
            name.push_str("Struct");
            notes.push(format!(
                "struct {} renamed {name}: TypeScript zapgen imports a `{plain}` of its own",
                s.name
            ));
        }
        if let Some(other) = taken.get(&name) {
            return Err(format!(
                "struct `{}` would be exported as `{name}`, the name of `{other}`: the common \
                 dialect has one namespace per package and no imports; rename one of them",
                s.name
            ));
        }
        taken.insert(name.clone(), &s.name);
        short.insert(&s.name, name);
    }
    let names = Names { short };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Written by `zapc export` from {}: the same wire layout, in the",
        schema.source_name
    );
    out.push_str(
        "# dialect every ZAP schema compiler reads (the Go and TypeScript zapgen).\n\
         # Regenerate it rather than edit it.\n",
    );
    out.push('\n');
    let _ = writeln!(out, "package {package}");

    // Constants and enums first, as comments.
    for (n, c) in schema.consts.iter().enumerate() {
        if n == 0 || !c.doc.is_empty() {
            out.push('\n');
        }
        doc(&mut out, "", &c.doc);
        let _ = writeln!(
            out,
            "# const {}: {} = {}  (zapc only: not on the wire)",
            c.name,
            c.value.schema_type(),
            c.value.schema_syntax()
        );
        notes.push(format!("const {} written as a comment", c.name));
    }
    for e in schema.all_enums() {
        if !uses_enum(schema, &imported, &e.name) && ir::split_qualified(&e.name).is_some() {
            continue;
        }
        out.push('\n');
        doc(&mut out, "", &e.doc);
        let _ = writeln!(
            out,
            "# enum {} : {}  (zapc only: its fields are written as {})",
            e.name,
            e.repr.keyword(),
            e.repr.keyword()
        );
        for v in &e.values {
            let _ = writeln!(out, "#     {} = {}", v.name, v.value);
        }
        notes.push(format!("enum {} written as {}", e.name, e.repr.keyword()));
    }

    // Aliases of built-in types that this file's fields name.
    let aliases = kept_aliases(schema, tree);
    for (name, (alias_doc, ty)) in &aliases {
        out.push('\n');
        doc(&mut out, "", alias_doc);
        let _ = writeln!(out, "type {name} = {ty}");
    }

    let spelled = field_spellings(tree, &aliases);
    for s in &schema.structs {
        write_struct(
            &mut out,
            s,
            &names,
            spelled.get(s.name.as_str()),
            &mut notes,
        );
    }
    for s in &imported {
        out.push('\n');
        let _ = writeln!(out, "# From package {}.", package_of(&s.name));
        write_struct_body(&mut out, s, &names, None, &mut notes);
        notes.push(format!(
            "struct {} copied in as {}",
            s.name,
            names.of(&s.name)
        ));
    }
    for i in &schema.interfaces {
        write_interface(&mut out, i, &names, &mut notes);
    }
    Ok(Exported {
        package,
        text: out,
        notes,
    })
}

/// What the TypeScript zapgen imports from `@zap-proto/zap` into every generated file: a
/// struct of the same name would clash with it, so it is exported as `<Name>Struct`.
pub(crate) const TS_TYPE_NAMES: [&str; 12] = [
    "Builder",
    "Message",
    "StructView",
    "ListView",
    "Status",
    "Session",
    "Call",
    "Response",
    "PromiseHandle",
    "buildRequest",
    "parseRequest",
    "buildResponse",
];

/// The members of the TypeScript `StructView` every generated view extends: a field whose
/// getter (its name with the first letter lowered) is one of them would shadow it, so it
/// is exported as `<Name>Field`.
pub(crate) const TS_VIEW_MEMBERS: [&str; 23] = [
    "data",
    "offset",
    "dv",
    "constructor",
    "isNull",
    "bool",
    "u8",
    "u16",
    "u32",
    "u64",
    "i8",
    "i16",
    "i32",
    "i64",
    "f32",
    "f64",
    "bytesFixed",
    "bytes",
    "text",
    "object",
    "list",
    "wrap",
    "prototype",
];

/// The getter TypeScript zapgen makes of a field name: its first letter lowered.
pub(crate) fn ts_getter(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The name a field is exported with: its own, unless TypeScript's getter of it would
/// shadow a member of `StructView`.
fn field_name(s: &ir::Struct, f: &ir::Field) -> (String, Option<String>) {
    let getter = ts_getter(&f.name);
    if !TS_VIEW_MEMBERS.contains(&getter.as_str()) {
        return (f.name.clone(), None);
    }
    let mut name = format!("{}Field", f.name);
    while s.fields.iter().chain(&s.reserved).any(|o| o.name == name) {
        name.push('_');
    }
    let why = format!(
        "zapc: {} (renamed: `{getter}` is a member of TypeScript's StructView)",
        f.name
    );
    (name, Some(why))
}

fn package_of(qualified: &str) -> &str {
    ir::split_qualified(qualified).map_or("", |(p, _)| p)
}

/// Whether a field of this file or of a reached import has enum type `name`.
fn uses_enum(schema: &ir::Schema, imported: &[&ir::Struct], name: &str) -> bool {
    let mentions = |ty: &Type| match ty {
        Type::Enum { name: n, .. } => n == name,
        Type::List(list) => matches!(&list.elem, Type::Enum { name: n, .. } if n == name),
        _ => false,
    };
    schema
        .structs
        .iter()
        .chain(imported.iter().copied())
        .flat_map(|s| s.fields.iter().chain(&s.reserved))
        .any(|f| mentions(&f.ty))
}

/// The imported structs reached from this file's structs and methods, in the order the
/// imports list them.
fn reached_imports(schema: &ir::Schema) -> Vec<&ir::Struct> {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<&str> = Vec::new();
    for s in &schema.structs {
        todo.extend(struct_refs(s));
    }
    for i in &schema.interfaces {
        for m in &i.methods {
            for p in [&m.param, &m.stream_param, &m.result].into_iter().flatten() {
                todo.push(&p.ty);
            }
        }
    }
    while let Some(name) = todo.pop() {
        if ir::split_qualified(name).is_none() || !seen.insert(name) {
            continue;
        }
        if let Some(s) = schema.struct_named(name) {
            todo.extend(struct_refs(s));
        }
    }
    schema
        .imports
        .iter()
        .flat_map(|i| &i.structs)
        .filter(|s| seen.contains(s.name.as_str()))
        .collect()
}

fn struct_refs(s: &ir::Struct) -> impl Iterator<Item = &str> {
    s.fields
        .iter()
        .chain(&s.reserved)
        .filter_map(|f| match &f.ty {
            Type::Struct(name) => Some(name.as_str()),
            Type::List(list) => match &list.elem {
                Type::Struct(name) => Some(name.as_str()),
                _ => None,
            },
            _ => None,
        })
}

/// The aliases of this file that stand for a built-in type, with their docs and the
/// type (resolved through other aliases), by name.
fn kept_aliases(schema: &ir::Schema, tree: &SchemaFile) -> BTreeMap<String, (Vec<String>, String)> {
    let declared: BTreeMap<&str, &ast::AliasDecl> =
        tree.aliases().map(|a| (a.name.text.as_str(), a)).collect();
    let mut kept = BTreeMap::new();
    for decl in tree.structs() {
        let Some(s) = schema.structs.iter().find(|s| s.name == decl.name.text) else {
            continue;
        };
        for f in &decl.fields {
            let TypeKind::Named(name) = &f.ty.kind else {
                continue;
            };
            let Some(alias) = declared.get(name.text.as_str()) else {
                continue;
            };
            let Some(field) = s.slot_named(&f.name.text) else {
                continue;
            };
            if matches!(
                field.ty,
                Type::Scalar(_) | Type::Text | Type::Bytes | Type::BytesFixed(_)
            ) {
                kept.insert(
                    name.text.clone(),
                    (alias.doc.clone(), field.ty.schema_syntax()),
                );
            }
        }
    }
    kept
}

/// Per struct, per field: the alias a field is written with, when it is kept.
fn field_spellings<'t>(
    tree: &'t SchemaFile,
    aliases: &BTreeMap<String, (Vec<String>, String)>,
) -> BTreeMap<&'t str, BTreeMap<&'t str, &'t str>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for decl in tree.structs() {
        for f in &decl.fields {
            if let TypeKind::Named(name) = &f.ty.kind {
                if aliases.contains_key(&name.text) {
                    out.entry(decl.name.text.as_str())
                        .or_default()
                        .insert(f.name.text.as_str(), name.text.as_str());
                }
            }
        }
    }
    out
}

fn doc(out: &mut String, indent: &str, lines: &[String]) {
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            let _ = writeln!(out, "{indent}#");
        } else if line.starts_with(' ') {
            let _ = writeln!(out, "{indent}#{line}");
        } else {
            let _ = writeln!(out, "{indent}# {line}");
        }
    }
}

fn write_struct(
    out: &mut String,
    s: &ir::Struct,
    names: &Names<'_>,
    spelled: Option<&BTreeMap<&str, &str>>,
    renamed: &mut Vec<String>,
) {
    out.push('\n');
    doc(out, "", &s.doc);
    write_struct_body(out, s, names, spelled, renamed);
}

fn write_struct_body(
    out: &mut String,
    s: &ir::Struct,
    names: &Names<'_>,
    spelled: Option<&BTreeMap<&str, &str>>,
    renamed: &mut Vec<String>,
) {
    let _ = write!(out, "struct {} {{", names.of(&s.name));
    if s.deprecated {
        out.push_str("  # zapc: deprecated");
    }
    out.push('\n');
    let mut slots: Vec<(&ir::Field, bool)> = s
        .fields
        .iter()
        .map(|f| (f, false))
        .chain(s.reserved.iter().map(|f| (f, true)))
        .collect();
    slots.sort_by_key(|(f, _)| f.offset);
    for (f, reserved) in slots {
        doc(out, "    ", &f.doc);
        let ty = spelled
            .and_then(|m| m.get(f.name.as_str()))
            .map(|alias| (*alias).to_owned())
            .unwrap_or_else(|| type_syntax(&f.ty, names));
        let (name, why) = field_name(s, f);
        let _ = write!(out, "    {name} {ty} @{}", f.offset);
        let mut notes = Vec::new();
        if let Some(why) = why {
            renamed.push(format!(
                "field {}.{} renamed {name}: its TypeScript getter would shadow StructView's",
                s.name, f.name
            ));
            notes.push(why);
        }
        if reserved {
            notes.push("reserved: never read or written".to_owned());
        }
        match &f.ty {
            Type::Enum { name, .. } => notes.push(format!("enum {name}")),
            Type::List(list) => {
                if let Type::Enum { name, .. } = &list.elem {
                    notes.push(format!("list of enum {name}"));
                }
                match list.shape {
                    ListShape::Pointer => notes.push(format!(
                        "zapc: list<ptr<{}>>, a pointer list",
                        names.of(match &list.elem {
                            Type::Struct(n) => n,
                            _ => "",
                        })
                    )),
                    ListShape::Strided { width } => {
                        notes.push(format!("strided list, {width} bytes per element"))
                    }
                    ListShape::Framed => {}
                }
            }
            _ => {}
        }
        let mut zapc_only = Vec::new();
        if f.deprecated {
            zapc_only.push("deprecated".to_owned());
        }
        if !f.json.is_default() {
            zapc_only.push(field_json(&f.json));
        }
        if !zapc_only.is_empty() {
            notes.push(format!("zapc: {}", zapc_only.join(" ")));
        }
        if !notes.is_empty() {
            let _ = write!(out, "  # {}", notes.join("; "));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "}}  # size {}", s.size);
}

/// A concrete type in the common dialect: enums as their integer, imported structs by
/// their exported name, pointer lists as lists.
fn type_syntax(ty: &Type, names: &Names<'_>) -> String {
    match ty {
        Type::Enum { repr, .. } => repr.keyword().to_owned(),
        Type::Struct(name) => names.of(name),
        Type::List(list) => format!("list<{}>", type_syntax(&list.elem, names)),
        other => other.schema_syntax(),
    }
}

fn field_json(json: &ir::FieldJson) -> String {
    let mut options = Vec::new();
    if let Some(name) = &json.name {
        options.push(format!("name = \"{name}\""));
    }
    if json.quantity {
        options.push("quantity".to_owned());
    }
    if json.block_tags {
        options.push("block_tags".to_owned());
    }
    format!("json({})", options.join(", "))
}

fn method_json(json: &ir::MethodJson) -> Option<String> {
    let mut options = Vec::new();
    if let Some(name) = &json.name {
        options.push(format!("name = \"{name}\""));
    }
    if let Some(params) = &json.positional {
        options.push(format!("params = [{}]", params.join(", ")));
    }
    if let Some(field) = &json.result_field {
        options.push(format!("result = {field}"));
    }
    if let Some(name) = &json.subscription {
        options.push(format!("subscription = \"{name}\""));
    }
    (!options.is_empty()).then(|| format!("json({})", options.join(", ")))
}

fn write_interface(
    out: &mut String,
    i: &ir::Interface,
    names: &Names<'_>,
    notes: &mut Vec<String>,
) {
    out.push('\n');
    doc(out, "", &i.doc);
    let _ = writeln!(out, "interface {} {{", i.name);
    let mut methods: Vec<&ir::Method> = i.methods.iter().collect();
    methods.sort_by_key(|m| m.ordinal);
    // zapgen numbers methods 1, 2, 3 in the order they are written: every ordinal below
    // the last call that is not a call (a stream, a reserved or unused number) becomes a
    // placeholder, so each call keeps its number.
    let last_call = methods
        .iter()
        .filter(|m| m.streaming() == ir::Streaming::Unary)
        .map(|m| m.ordinal)
        .max()
        .unwrap_or(0);
    let taken: BTreeSet<&str> = i.methods.iter().map(|m| m.name.as_str()).collect();
    for ordinal in 1..=last_call.max(methods.last().map_or(0, |m| m.ordinal)) {
        let method = methods.iter().find(|m| m.ordinal == ordinal);
        match method {
            Some(m) if m.streaming() == ir::Streaming::Unary => {
                doc(out, "    ", &m.doc);
                let param = m
                    .param
                    .as_ref()
                    .map(|p| param_syntax(p, "req", names))
                    .unwrap_or_default();
                let _ = write!(out, "    {}({param})", m.name);
                if let Some(r) = &m.result {
                    let _ = write!(out, " returns ({})", param_syntax(r, "resp", names));
                }
                let mut extra = Vec::new();
                if m.idempotency != ir::Idempotency::Unknown {
                    extra.push(m.idempotency.keyword().to_owned());
                }
                if m.permissions != 0 {
                    extra.push(format!("requires {:#x}", m.permissions));
                }
                if m.deprecated {
                    extra.push("deprecated".to_owned());
                }
                if let Some(json) = method_json(&m.json) {
                    extra.push(json);
                }
                if !extra.is_empty() {
                    let _ = write!(out, "  # zapc: {}", extra.join(" "));
                }
                out.push('\n');
            }
            Some(m) => {
                doc(out, "    ", &m.doc);
                let _ = writeln!(
                    out,
                    "    # method {ordinal}: {}  ({}: zapc only)",
                    describe_stream(m, names),
                    m.streaming().describe()
                );
                notes.push(format!(
                    "{}.{} (method {ordinal}, {}) written as a comment",
                    i.name,
                    m.name,
                    m.streaming().describe()
                ));
                if ordinal < last_call {
                    placeholder(out, ordinal, &taken, "a stream");
                    notes.push(format!(
                        "{}: placeholder method for ordinal {ordinal}",
                        i.name
                    ));
                }
            }
            None if ordinal < last_call => {
                let why = if i.reserved.contains(&ordinal) {
                    "reserved"
                } else {
                    "unused"
                };
                placeholder(out, ordinal, &taken, why);
                notes.push(format!(
                    "{}: placeholder method for ordinal {ordinal} ({why})",
                    i.name
                ));
            }
            None => {}
        }
    }
    out.push_str("}\n");
}

fn placeholder(out: &mut String, ordinal: u32, taken: &BTreeSet<&str>, why: &str) {
    let mut name = format!("reserved{ordinal}");
    while taken.contains(name.as_str()) {
        name.push('_');
    }
    let _ = writeln!(
        out,
        "    {name}()  # a placeholder: ordinal {ordinal} is {why}; never call it"
    );
}

fn param_syntax(p: &ir::Param, default: &str, names: &Names<'_>) -> String {
    let name = if p.name.is_empty() { default } else { &p.name };
    format!("{name}: {}", names.of(&p.ty))
}

fn describe_stream(m: &ir::Method, names: &Names<'_>) -> String {
    let mut params = Vec::new();
    if let Some(p) = &m.param {
        params.push(param_syntax(p, "req", names));
    }
    if let Some(p) = &m.stream_param {
        params.push(format!("stream {}", names.of(&p.ty)));
    }
    let mut text = format!("{}({})", m.name, params.join(", "));
    if let Some(r) = &m.result {
        if m.result_stream {
            let _ = write!(text, " returns stream {}", names.of(&r.ty));
        } else {
            let _ = write!(text, " returns ({})", param_syntax(r, "resp", names));
        }
    }
    text
}

//! `zapc check --portable`: a warning for each construct of a schema that the Go and
//! TypeScript `zapgen` do not read, or whose bytes their generated builders do not write
//! as zapc does, with the fix or what `zapc export` does with it.

use std::path::Path;

use crate::ast::{self, Declaration, SchemaFile, TypeKind};
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::export::{ts_getter, TS_TYPE_NAMES, TS_VIEW_MEMBERS};
use crate::frontend::{load_file_with_tree, LoadError};
use crate::ir::{self, ListShape, Type};

/// Load the schema at `path` and return its portability warnings (`None` when it is in
/// the common dialect already).
pub fn portable_warnings(path: &Path) -> Result<Option<Diagnostics>, LoadError> {
    let loaded = load_file_with_tree(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let warnings = lint(&loaded.tree, &loaded.schema, &stem);
    Ok((!warnings.is_empty())
        .then(|| Diagnostics::new(&path.display().to_string(), &loaded.text, warnings)))
}

const EXPORT: &str = "`zapc export`";

fn warn(message: impl Into<String>, span: ast::Span, label: &str, hint: String) -> Diagnostic {
    Diagnostic::error(message, span, label)
        .with_severity(Severity::Warning)
        .with_hint(hint)
}

fn lint(tree: &SchemaFile, schema: &ir::Schema, stem: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if tree.packages().next().is_none() {
        out.push(warn(
            "no `package` line: the Go and TypeScript compilers require one",
            0..0,
            "the file starts here",
            format!("begin the file with `package {stem}` ({EXPORT} writes the file stem)"),
        ));
    }
    for declaration in &tree.declarations {
        match declaration {
            Declaration::Import(import) => out.push(warn(
                "`import` is zapc's: the other compilers read one file per package",
                import.span.clone(),
                "imported here",
                format!("{EXPORT} copies the structs this file uses from it into the file"),
            )),
            Declaration::Const(c) => out.push(warn(
                format!(
                    "constant `{}` is zapc's: the other compilers have no constants",
                    c.name.text
                ),
                c.name.span.clone(),
                "declared here",
                format!("{EXPORT} writes it as a comment"),
            )),
            Declaration::Enum(e) => out.push(warn(
                format!(
                    "enum `{}` is zapc's: the other compilers have no enums",
                    e.name.text
                ),
                e.name.span.clone(),
                "declared here",
                format!(
                    "{EXPORT} writes its fields as `{}` and lists the values in a comment",
                    e.repr.text
                ),
            )),
            Declaration::Struct(s) => {
                if let Some(ir) = schema.structs.iter().find(|x| x.name == s.name.text) {
                    struct_warnings(s, ir, schema, &mut out);
                }
            }
            Declaration::Interface(i) => {
                if let Some(ir) = schema.interfaces.iter().find(|x| x.name == i.name.text) {
                    interface_warnings(i, ir, &mut out);
                }
            }
            Declaration::Alias(_) | Declaration::Package(_) => {}
        }
    }
    out
}

fn struct_warnings(
    decl: &ast::StructDecl,
    s: &ir::Struct,
    schema: &ir::Schema,
    out: &mut Vec<Diagnostic>,
) {
    if TS_TYPE_NAMES.contains(&decl.name.text.as_str()) {
        out.push(warn(
            format!(
                "struct `{}` clashes with the `{}` TypeScript zapgen imports into every file",
                decl.name.text, decl.name.text
            ),
            decl.name.span.clone(),
            "named here",
            format!(
                "rename it; {EXPORT} writes it as `{}Struct`",
                decl.name.text
            ),
        ));
    }
    if let Some(span) = &decl.deprecated {
        out.push(zapc_only("`deprecated`", span.clone()));
    }
    for f in &decl.fields {
        let Some(field) = s.slot_named(&f.name.text) else {
            continue;
        };
        if f.offset.is_none() {
            out.push(warn(
                format!(
                    "field `{}` has no `@offset`: the other compilers need every offset written",
                    f.name.text
                ),
                f.name.span.clone(),
                "no offset",
                format!("write `@{}`, where zapc places it", field.offset),
            ));
        }
        if let Some(span) = &f.reserved {
            out.push(warn(
                "`reserved` slots are zapc's",
                span.clone(),
                "reserved here",
                format!("{EXPORT} writes the slot as a plain field, so the layout stays"),
            ));
        }
        if let Some(span) = &f.deprecated {
            out.push(zapc_only("`deprecated`", span.clone()));
        }
        if let Some(json) = &f.json {
            out.push(zapc_only("`json(...)`", json.span.clone()));
        }
        let getter = ts_getter(&f.name.text);
        if TS_VIEW_MEMBERS.contains(&getter.as_str()) {
            out.push(warn(
                format!(
                    "field `{}`: its TypeScript getter `{getter}` would shadow a member of StructView",
                    f.name.text
                ),
                f.name.span.clone(),
                "named here",
                format!("rename it; {EXPORT} writes it as `{}Field`", f.name.text),
            ));
        }
        type_warnings(&f.ty, &field.ty, schema, out);
    }
}

fn zapc_only(what: &str, span: ast::Span) -> Diagnostic {
    warn(
        format!("{what} is zapc's: the other compilers do not read it"),
        span,
        "here",
        format!("{EXPORT} keeps it as a comment"),
    )
}

fn type_warnings(
    written: &ast::TypeExpr,
    ty: &Type,
    schema: &ir::Schema,
    out: &mut Vec<Diagnostic>,
) {
    let span = written.span.clone();
    if let TypeKind::List(inner) = &written.kind {
        if matches!(inner.kind, TypeKind::Ptr(_)) {
            out.push(warn(
                "`ptr<T>` is zapc's: the other compilers have no pointer lists",
                span.clone(),
                "a pointer list",
                format!(
                    "{EXPORT} writes it as `list<T>`, whose builders write framed elements: \
                     use a framed list if other languages write this field"
                ),
            ));
            return;
        }
    }
    match ty {
        Type::List(list) => {
            if let ListShape::Strided { width } = list.shape {
                out.push(warn(
                    "a strided list: the generated Go and TypeScript builders write every list \
                     element framed, so they read this field but cannot write it",
                    span,
                    &format!("{width} bytes per element"),
                    "where Go or TypeScript code writes this field, build the list with the \
                     runtime's list builder (Go: `ListBuilder.AddUint32`), not `New<T>`"
                        .to_owned(),
                ));
            }
        }
        Type::Struct(name) => {
            let out_of_line = schema
                .struct_named(name)
                .is_some_and(|s| s.fields.iter().any(|f| !f.ty.is_inline()));
            if out_of_line {
                out.push(warn(
                    format!(
                        "a nested `{name}` with text, bytes, lists or structs in it: the \
                         generated Go and TypeScript builders copy a nested struct in as its \
                         fixed section only, so they read this field but cannot write it"
                    ),
                    span,
                    "nested here",
                    "if other languages write this field, keep the nested struct's fields \
                     inline (scalars and `bytes_fixed`)"
                        .to_owned(),
                ));
            }
        }
        _ => {}
    }
}

fn interface_warnings(decl: &ast::InterfaceDecl, i: &ir::Interface, out: &mut Vec<Diagnostic>) {
    for number in &decl.reserved {
        out.push(warn(
            "`reserved @N` is zapc's: the other compilers number methods by position",
            number.span.clone(),
            "reserved here",
            format!("{EXPORT} writes a placeholder method where a later call needs the number"),
        ));
    }
    for (position, m) in decl.methods.iter().enumerate() {
        let Some(method) = i.methods.iter().find(|x| x.name == m.name.text) else {
            continue;
        };
        let position = position as u32 + 1;
        if method.streaming() != ir::Streaming::Unary {
            out.push(warn(
                format!(
                    "`{}` is {}: the other compilers' interfaces cannot say streams",
                    m.name.text,
                    method.streaming().describe()
                ),
                m.name.span.clone(),
                "a stream",
                format!(
                    "{EXPORT} writes it as a comment with its ordinal; open it with a ZAP \
                     runtime's stream API; declare streams after the calls so no call needs a \
                     placeholder"
                ),
            ));
        } else if let Some(ordinal) = &m.ordinal {
            let hint = if method.ordinal == position {
                "drop it: the method is at that position".to_owned()
            } else {
                format!(
                    "declare the methods in ordinal order; {EXPORT} writes placeholders for \
                     the numbers no call has"
                )
            };
            out.push(warn(
                "`@N` on a method is zapc's: the other compilers number methods 1, 2, 3 as \
                 written",
                ordinal.span.clone(),
                "explicit ordinal",
                hint,
            ));
        }
        for p in m.params.iter().chain(&m.results) {
            if p.name.is_none() && p.stream.is_none() {
                out.push(warn(
                    "a parameter without a name: the other compilers need `name: Type`",
                    p.ty.span.clone(),
                    "unnamed",
                    format!(
                        "write `req: {}` ({EXPORT} names it)",
                        p.ty.to_schema_syntax()
                    ),
                ));
            }
        }
        if let Some((kind, span)) = &m.idempotency {
            out.push(zapc_only(&format!("`{}`", kind.keyword()), span.clone()));
        }
        if let Some(bits) = &m.requires {
            out.push(zapc_only("`requires`", bits.span.clone()));
        }
        if let Some(span) = &m.deprecated {
            out.push(zapc_only("`deprecated`", span.clone()));
        }
        if let Some(json) = &m.json {
            out.push(zapc_only("`json(...)`", json.span.clone()));
        }
    }
}

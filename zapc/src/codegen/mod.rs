//! IR -> Rust, with `quote` (never strings) and `prettyplease`.
//!
//! For every enum: a Rust enum with an `Unknown(raw)` arm and its `ZapEnum` impl
//! ([`enums::schema_enum`]). For every struct: an owned type with the JSON mapping, a zero-copy reader, a builder
//! and the `ZapStruct` impl that ties them to the runtime ([`structs::schema_struct`]).
//! For every interface: a method enum, a handler trait, a `Service` impl dispatching by
//! ordinal, and a typed client stub. `#[derive(Zap)]` calls
//! [`structs::derive_companions`], which shares everything but the owned type, so the
//! two front ends cannot drift.

// The per-item generators: `#[derive(Zap)]` calls them on the IR it builds. Not a
// stable API; use [`generate`] or [`render`].
#[doc(hidden)]
pub mod enums;
mod evolution;
mod field;
mod json;
#[doc(hidden)]
pub mod names;
mod service;
#[doc(hidden)]
pub mod structs;

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{self, Scalar, Schema, Type};

/// How to generate.
#[derive(Clone, Debug)]
pub struct Options {
    /// Path of the runtime crate in the generated code (`::zap_runtime` by default; the
    /// derive's `#[zap(crate = "...")]` changes it).
    pub runtime: syn::Path,
    /// The schema's files (the schema first, then every file it imports; see
    /// [`crate::source_files`]): each service embeds them, with their SHA-256, for the
    /// reflection its server answers (`Service::SCHEMA`). Empty: the services carry none.
    pub sources: Vec<crate::SourceFile>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime: syn::parse_quote!(::zap_runtime),
            sources: Vec::new(),
        }
    }
}

/// Everything generated for a schema, as tokens.
pub fn generate(schema: &Schema, opts: &Options) -> TokenStream {
    let eq_hash = eq_hash_structs(schema);
    let enums = schema.enums.iter().map(|e| enums::schema_enum(e, opts));
    let consts = evolution::constants(schema);
    let deprecated = evolution::deprecated_structs(schema);
    let structs = schema
        .structs
        .iter()
        .map(|s| struct_items(&deprecated, s, eq_hash.contains(s.name.as_str()), opts));
    let interfaces = schema
        .interfaces
        .iter()
        .map(|i| interface_items(schema, &deprecated, i, opts));
    quote! {
        #consts
        #(#enums)*
        #(#structs)*
        #(#interfaces)*
    }
}

/// The items of one struct, allowed to use deprecated items when it names any.
fn struct_items(
    deprecated: &HashSet<&str>,
    s: &ir::Struct,
    eq_hash: bool,
    opts: &Options,
) -> TokenStream {
    let tokens = structs::schema_struct(s, eq_hash, opts);
    if evolution::struct_uses_deprecated(s, deprecated) {
        evolution::allow_deprecated(tokens)
    } else {
        tokens
    }
}

/// The items of one interface, allowed to use deprecated items when it names any.
fn interface_items(
    schema: &Schema,
    deprecated: &HashSet<&str>,
    i: &ir::Interface,
    opts: &Options,
) -> TokenStream {
    let tokens = service::generate(schema, i, opts);
    if evolution::interface_uses_deprecated(i, deprecated) {
        evolution::allow_deprecated(tokens)
    } else {
        tokens
    }
}

/// The generated file for a schema: an `@generated` header naming the schema file, then
/// the items formatted by prettyplease.
///
/// Each struct's and interface's items are formatted on their own: prettyplease prints a
/// file's items back to back, so the text is the same as formatting [`generate`]'s
/// output at once, but the work stays proportional to one struct at a time (a schema of
/// thousands of structs formats several times faster than as one giant file).
pub fn render(schema: &Schema, opts: &Options) -> String {
    let mut out = header(&schema.source_name);
    let eq_hash = eq_hash_structs(schema);
    let deprecated = evolution::deprecated_structs(schema);
    if !schema.consts.is_empty() {
        out.push_str(&format_tokens(evolution::constants(schema)));
    }
    for e in &schema.enums {
        out.push_str(&format_tokens(enums::schema_enum(e, opts)));
    }
    for s in &schema.structs {
        let eq = eq_hash.contains(s.name.as_str());
        out.push_str(&format_tokens(struct_items(&deprecated, s, eq, opts)));
    }
    for i in &schema.interfaces {
        out.push_str(&format_tokens(interface_items(
            schema,
            &deprecated,
            i,
            opts,
        )));
    }
    out
}

/// The structs whose owned types can derive `Eq` and `Hash`: no float in any field, and
/// the same for every struct they reach (cycles included).
fn eq_hash_structs(schema: &Schema) -> HashSet<&str> {
    let has_float = |ty: &Type| match ty {
        Type::Scalar(s) => matches!(s, Scalar::F32 | Scalar::F64),
        Type::List(list) => matches!(list.elem, Type::Scalar(Scalar::F32 | Scalar::F64)),
        _ => false,
    };
    let child = |ty: &Type| -> Option<String> {
        match ty {
            Type::Struct(name) => Some(name.clone()),
            Type::List(list) => match &list.elem {
                Type::Struct(name) => Some(name.clone()),
                _ => None,
            },
            _ => None,
        }
    };
    // Imported structs count too (their modules decide the same way).
    let mut ok: HashMap<&str, bool> = schema
        .all_structs()
        .map(|s| (s.name.as_str(), !s.fields.iter().any(|f| has_float(&f.ty))))
        .collect();
    // Propagate "not Eq" along struct references until nothing changes.
    loop {
        let mut changed = false;
        for s in schema.all_structs() {
            if !ok[s.name.as_str()] {
                continue;
            }
            let reaches_float = s
                .fields
                .iter()
                .filter_map(|f| child(&f.ty))
                .any(|c| !ok.get(c.as_str()).copied().unwrap_or(false));
            if reaches_float {
                ok.insert(s.name.as_str(), false);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    ok.into_iter()
        .filter(|(_, eq)| *eq)
        .map(|(n, _)| n)
        .collect()
}

/// Doc attributes for doc-comment lines (rustdoc's leading space added), with `<` and
/// `>` outside code spans escaped: schema comments say `list<Point>`, which Markdown
/// would read as an HTML tag (and `cargo doc -D warnings` refuse).
fn doc_attrs(doc: &[String]) -> TokenStream {
    let lines = doc.iter().map(|l| format!(" {}", markdown_text(l)));
    quote!(#(#[doc = #lines])*)
}

/// `line` with `<` and `>` escaped outside backtick code spans.
fn markdown_text(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        match c {
            '`' => in_code = !in_code,
            '<' | '>' if !in_code => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The runtime path as written in attribute strings (`::zap_runtime`).
fn runtime_string(rt: &syn::Path) -> String {
    quote!(#rt).to_string().replace(' ', "")
}

/// The `mod.rs` that declares one module per generated file.
pub fn render_mod(modules: &[String]) -> String {
    let idents = modules.iter().map(|m| names::module_ident(m));
    let tokens = quote! { #(pub mod #idents;)* };
    format!(
        "{}{}",
        header("the schemas of this folder"),
        format_tokens(tokens)
    )
}

fn header(source: &str) -> String {
    format!(
        "// @generated by zapc {} from {source}. Do not edit: edit the schema and regenerate.\n\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Format tokens as a file. Tokens from this module always parse; should they ever not,
/// the output is a `compile_error!` saying so, so the bug cannot go unnoticed.
pub fn format_tokens(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => format!(
            "compile_error!({:?});\n",
            format!("zapc generated code that does not parse: {e}")
        ),
    }
}

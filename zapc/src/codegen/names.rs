//! Rust and JSON names for schema names (spec: "Conventions this project adds").

use heck::{ToShoutySnakeCase, ToSnakeCase};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// Words that cannot be identifiers at all, not even raw (`r#self` is not allowed).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Rust keywords (2015-2024 editions, strict and reserved) that need `r#`.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "try", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield",
];

/// An identifier for `name`, escaped if it is a keyword.
pub fn ident(name: &str) -> Ident {
    if NOT_RAW.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// snake_case form of a field or method name (`BlockHash` -> `block_hash`), unescaped.
pub fn snake(name: &str) -> String {
    name.to_snake_case()
}

/// The Rust identifier of a field or method (`BlockHash` -> `block_hash`).
pub fn field_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// The name of a field's offset constant (`BlockHash` -> `BLOCK_HASH_OFFSET`).
pub fn offset_const(name: &str) -> Ident {
    Ident::new(
        &format!("{}_OFFSET", name.to_shouty_snake_case()),
        Span::call_site(),
    )
}

/// A struct's or interface's type identifier, kept as written (`BalanceRequest`).
pub fn type_ident(name: &str) -> Ident {
    ident(name)
}

/// The Rust path of a struct named in a schema: `Kind`, or `super::common::Kind` for a
/// type of an imported file (`common.Kind`), whose generated module is a sibling of this
/// one named after its package.
pub fn type_path(name: &str) -> TokenStream {
    suffixed_path(name, "")
}

/// [`type_path`] with a suffix on the type: `super::common::KindReader`.
pub fn suffixed_path(name: &str, suffix: &str) -> TokenStream {
    match name.split_once('.') {
        Some((package, local)) => {
            let module = module_ident(package);
            let ty = if suffix.is_empty() {
                type_ident(local)
            } else {
                suffixed(local, suffix)
            };
            quote!(super::#module::#ty)
        }
        None if suffix.is_empty() => {
            let ty = type_ident(name);
            quote!(#ty)
        }
        None => {
            let ty = suffixed(name, suffix);
            quote!(#ty)
        }
    }
}

/// `FooReader`, `FooBuilder`, `EthService`, `EthClient`.
pub fn suffixed(name: &str, suffix: &str) -> Ident {
    Ident::new(&format!("{name}{suffix}"), Span::call_site())
}

/// A module name for a schema file stem (`eth`, `my-schema` -> `my_schema`).
pub fn module_ident(stem: &str) -> Ident {
    let snake = stem.to_snake_case();
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("schema_{snake}")
    } else {
        snake
    };
    ident(&snake)
}

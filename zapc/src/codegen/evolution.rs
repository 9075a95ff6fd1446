//! What schema evolution adds to generated code: Rust constants for `const`, and the
//! `#[allow(deprecated)]` that lets generated code use its own deprecated items, so that a
//! crate built with `-D warnings` compiles it while its users' uses still warn.

use std::collections::HashSet;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::doc_attrs;
use crate::ir::{Const, ConstValue, Interface, Schema, Struct, Type};

/// `pub const NAME: T = value;` for every constant (`&str` for `text`), with its doc comment
/// or a line saying where it comes from.
pub fn constants(schema: &Schema) -> TokenStream {
    let items = schema.consts.iter().map(constant);
    quote!(#(#items)*)
}

fn constant(c: &Const) -> TokenStream {
    // The checker refused names without a Rust form; a hand-built IR gets a placeholder.
    let rust = crate::check::const_rust_name(&c.name).unwrap_or_else(|| "UNNAMED".to_owned());
    let name = proc_macro2::Ident::new(&rust, proc_macro2::Span::call_site());
    let doc = if c.doc.is_empty() {
        doc_attrs(&[format!(
            "`{}`: `{}` constant of the schema, `{}`.",
            c.name,
            c.value.schema_type(),
            c.value.schema_syntax()
        )])
    } else {
        doc_attrs(&c.doc)
    };
    let (ty, value) = match &c.value {
        ConstValue::Int(scalar, n) => {
            let ty = super::field::scalar_type(*scalar);
            let magnitude = Literal::u128_unsuffixed(n.unsigned_abs());
            let value = if *n < 0 {
                quote!(-#magnitude)
            } else {
                quote!(#magnitude)
            };
            (ty, value)
        }
        ConstValue::Bool(b) => (quote!(bool), quote!(#b)),
        ConstValue::Text(text) => {
            let lit = Literal::string(text);
            (quote!(&str), quote!(#lit))
        }
    };
    quote! {
        #doc
        pub const #name: #ty = #value;
    }
}

/// The structs of `schema` declared `deprecated`.
pub fn deprecated_structs(schema: &Schema) -> HashSet<&str> {
    schema
        .structs
        .iter()
        .filter(|s| s.deprecated)
        .map(|s| s.name.as_str())
        .collect()
}

/// True when the code of `s` names something deprecated: the struct itself, one of its
/// fields, or a deprecated struct as a field's type or list element.
pub fn struct_uses_deprecated(s: &Struct, deprecated: &HashSet<&str>) -> bool {
    let names_deprecated = |ty: &Type| match ty {
        Type::Struct(name) => deprecated.contains(name.as_str()),
        Type::List(list) => {
            matches!(&list.elem, Type::Struct(name) if deprecated.contains(name.as_str()))
        }
        _ => false,
    };
    s.deprecated
        || s.fields
            .iter()
            .any(|f| f.deprecated || names_deprecated(&f.ty))
}

/// True when the code of `iface` names something deprecated: a method, or a deprecated
/// struct as a parameter or result.
pub fn interface_uses_deprecated(iface: &Interface, deprecated: &HashSet<&str>) -> bool {
    iface.methods.iter().any(|m| {
        m.deprecated
            || m.param
                .iter()
                .chain(&m.result)
                .any(|p| deprecated.contains(p.ty.as_str()))
    })
}

/// `#[deprecated]` when `on`, else nothing.
pub fn deprecated_attr(on: bool) -> TokenStream {
    if on {
        quote!(#[deprecated])
    } else {
        TokenStream::new()
    }
}

/// `tokens` (items) with `#[allow(deprecated)]` added to every item: generated code may
/// use the deprecated items it defines without a warning. Tokens that do not parse are
/// returned as they are (`format_tokens` reports them).
pub fn allow_deprecated(tokens: TokenStream) -> TokenStream {
    let Ok(mut file) = syn::parse2::<syn::File>(tokens.clone()) else {
        return tokens;
    };
    let allow: syn::Attribute = syn::parse_quote!(#[allow(deprecated)]);
    for item in &mut file.items {
        let attrs = match item {
            syn::Item::Struct(i) => &mut i.attrs,
            syn::Item::Impl(i) => &mut i.attrs,
            syn::Item::Const(i) => &mut i.attrs,
            syn::Item::Trait(i) => &mut i.attrs,
            syn::Item::Enum(i) => &mut i.attrs,
            syn::Item::Fn(i) => &mut i.attrs,
            _ => continue,
        };
        attrs.push(allow.clone());
    }
    quote!(#file)
}

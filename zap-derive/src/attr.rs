//! `#[zap(...)]` attributes: on the struct (or enum) `crate = "path"` and
//! `rename = "Name"`; on a field `offset = N`, `rename = "Name"`, `skip`, `enum = u8`
//! (a field of a ZAP enum type, or a `Vec` of one) and `json(...)` (the schema
//! language's field options: `name = "key"`, `quantity`, `block_tags`).

use syn::spanned::Spanned;
use syn::{Attribute, LitInt, LitStr};

use crate::ctxt::Ctxt;

/// The struct's `#[zap(...)]` options.
#[derive(Default)]
pub struct StructAttrs {
    /// `crate = "..."`: the runtime's path in the generated code.
    pub runtime: Option<syn::Path>,
    /// `rename = "..."`: the schema name (`ZapStruct::NAME`).
    pub rename: Option<LitStr>,
}

/// A field's `#[zap(...)]` options.
#[derive(Default)]
pub struct FieldAttrs {
    /// `offset = N` with the literal, for error spans.
    pub offset: Option<(u32, LitInt)>,
    /// `rename = "..."`: the schema name (its lowerCamelCase is the JSON key).
    pub rename: Option<LitStr>,
    /// `skip`: not on the wire (the field is filled with `Default` when read).
    pub skip: Option<proc_macro2::Span>,
    /// `json(...)`: the JSON options, as in a schema.
    pub json: zapc::ir::FieldJson,
    /// `enum = u8`: the field is a ZAP enum (or a `Vec` of one) of this representation.
    pub enum_repr: Option<zapc::ir::Scalar>,
    /// Where `quantity` / `block_tags` were written, for type errors.
    pub quantity: Option<proc_macro2::Span>,
    pub block_tags: Option<proc_macro2::Span>,
}

fn zap_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("zap"))
}

/// Record a repeated key as an error; true when the key is new.
fn first_time<T>(cx: &Ctxt, slot: &Option<T>, key: &syn::Path) -> bool {
    if slot.is_some() {
        cx.error_at(
            key,
            format!("duplicate `{}` in #[zap(...)]", path_name(key)),
        );
        false
    } else {
        true
    }
}

fn path_name(path: &syn::Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}

/// Parse the struct's attributes; problems go to `cx`.
pub fn struct_attrs(cx: &Ctxt, attrs: &[Attribute]) -> StructAttrs {
    let mut out = StructAttrs::default();
    for attr in zap_attrs(attrs) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                let path = lit.parse::<syn::Path>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        "`crate` takes the runtime's path, such as \"::zap_runtime\"",
                    )
                })?;
                if first_time(cx, &out.runtime, &meta.path) {
                    out.runtime = Some(path);
                }
            } else if meta.path.is_ident("rename") {
                let lit: LitStr = meta.value()?.parse()?;
                if first_time(cx, &out.rename, &meta.path) {
                    out.rename = Some(lit);
                }
            } else {
                let key = path_name(&meta.path);
                return Err(meta.error(format!(
                    "unknown zap attribute `{key}` on a struct; expected `crate = \"...\"` or `rename = \"...\"`"
                )));
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.push(e);
        }
    }
    out
}

/// Parse a field's attributes; problems go to `cx`.
pub fn field_attrs(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in zap_attrs(attrs) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("offset") {
                let value = meta.value()?;
                let lit: LitInt = value.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`offset` takes an integer literal: `offset = 8`")
                })?;
                let n = lit.base10_parse::<u32>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        "`offset` is a byte position in the fixed section: an integer from 0 to 4294967295",
                    )
                })?;
                if first_time(cx, &out.offset, &meta.path) {
                    out.offset = Some((n, lit));
                }
            } else if meta.path.is_ident("rename") {
                let lit: LitStr = meta.value()?.parse()?;
                if lit.value().is_empty() {
                    return Err(syn::Error::new(lit.span(), "`rename` needs a non-empty name"));
                }
                if first_time(cx, &out.rename, &meta.path) {
                    out.rename = Some(lit);
                }
            } else if meta.path.is_ident("skip") {
                if first_time(cx, &out.skip, &meta.path) {
                    out.skip = Some(meta.path.span());
                }
            } else if meta.path.is_ident("json") {
                meta.parse_nested_meta(|option| json_option(cx, &mut out, option))?;
            } else if meta.path.is_ident("enum") {
                let ident: syn::Ident = meta.value()?.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`enum` takes the enum's representation: `enum = u8`")
                })?;
                let repr = zapc::ir::Scalar::from_keyword(&ident.to_string())
                    .filter(|s| zapc::ir::Enum::REPRS.contains(s))
                    .ok_or_else(|| {
                        syn::Error::new(
                            ident.span(),
                            "a ZAP enum is a u8, u16 or u32: write `enum = u8`, `enum = u16` or `enum = u32`",
                        )
                    })?;
                if first_time(cx, &out.enum_repr, &meta.path) {
                    out.enum_repr = Some(repr);
                }
            } else {
                let key = path_name(&meta.path);
                return Err(meta.error(format!(
                    "unknown zap attribute `{key}` on a field; expected `offset = N`, `rename = \"...\"`, `skip`, `enum = u8|u16|u32` or `json(...)`"
                )));
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.push(e);
        }
    }
    let has_json = !out.json.is_default();
    if let (Some(skip), true) = (
        out.skip,
        out.offset.is_some() || out.rename.is_some() || has_json || out.enum_repr.is_some(),
    ) {
        cx.push(syn::Error::new(
            skip,
            "a skipped field is not on the wire: it takes no `offset`, `rename`, `enum` or `json`",
        ));
    }
    out
}

/// One option inside a field's `json(...)`.
fn json_option(
    cx: &Ctxt,
    out: &mut FieldAttrs,
    option: syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<()> {
    if option.path.is_ident("name") {
        let lit: LitStr = option.value()?.parse()?;
        let name = lit.value();
        if name.is_empty() || name.contains(' ') {
            return Err(syn::Error::new(
                lit.span(),
                "a JSON key cannot be empty or contain spaces",
            ));
        }
        if first_time(cx, &out.json.name, &option.path) {
            out.json.name = Some(name);
        }
    } else if option.path.is_ident("quantity") {
        if first_time(cx, &out.quantity, &option.path) {
            out.quantity = Some(option.path.span());
            out.json.quantity = true;
        }
    } else if option.path.is_ident("block_tags") {
        if first_time(cx, &out.block_tags, &option.path) {
            out.block_tags = Some(option.path.span());
            out.json.block_tags = true;
        }
    } else {
        let key = path_name(&option.path);
        return Err(option.error(format!(
            "unknown JSON option `{key}`; expected `name = \"...\"`, `quantity` or `block_tags`"
        )));
    }
    Ok(())
}

//! `#[derive(Zap)]` on a Rust enum: the same rule as an `enum` of a schema. The enum has
//! `#[repr(u8)]`, `#[repr(u16)]` or `#[repr(u32)]` (its width on the wire), fieldless
//! variants whose discriminants are the values' numbers (explicit, or counted as Rust
//! counts them), and one `Unknown(repr)` variant that keeps numbers it does not declare.
//! It is lowered to zapc's [`ir::Enum`] and expanded by zapc's
//! `codegen::enums::enum_companions`, token for token what a schema enum gets.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Fields};

use zapc::codegen::{enums, Options};
use zapc::ir::{self, Scalar};

use crate::attr::struct_attrs;
use crate::ctxt::Ctxt;

/// The name of the variant that keeps unknown numbers (as in a schema).
const UNKNOWN: &str = "Unknown";

/// What the derive knows of an enum input.
pub struct LoweredEnum {
    pub ir: ir::Enum,
    pub opts: Options,
}

/// The expansion for an enum.
pub fn expand(input: &DeriveInput, data: &DataEnum) -> syn::Result<TokenStream> {
    let LoweredEnum { ir, opts } = lower(input, data)?;
    Ok(enums::enum_companions(&ir, &input.ident, &opts))
}

/// Lower the enum, or every error found.
pub fn lower(input: &DeriveInput, data: &DataEnum) -> syn::Result<LoweredEnum> {
    let cx = Ctxt::default();
    let attrs = struct_attrs(&cx, &input.attrs);
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        cx.error_at(
            &input.generics,
            "#[derive(Zap)] does not support generic enums: an enum is a fixed-width integer on the wire",
        );
    }
    let repr = representation(&cx, input);
    let mut values = Vec::new();
    let mut unknown = false;
    // The discriminant Rust gives the next variant without `= N`.
    let mut next: Option<u64> = Some(0);
    for variant in &data.variants {
        let number = match &variant.discriminant {
            Some((_, expr)) => match literal(expr) {
                Some(n) => Some(n),
                None => {
                    cx.error_at(
                        expr,
                        "a ZAP enum value's number must be an integer literal: the derive needs it to write the schema's value",
                    );
                    None
                }
            },
            None => next,
        };
        next = number.and_then(|n| n.checked_add(1));
        if variant.ident == UNKNOWN {
            unknown = true;
            check_unknown(&cx, variant, repr);
            continue;
        }
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_at(
                &variant.fields,
                format!(
                    "the values of a ZAP enum are fieldless: only `{UNKNOWN}({})` holds a number",
                    repr.map_or("u8", Scalar::keyword)
                ),
            );
            continue;
        }
        let Some(number) = number else {
            continue;
        };
        let value = match (repr, u32::try_from(number)) {
            (Some(repr), Ok(value)) if u64::from(value) <= max_of(repr) => value,
            (Some(repr), _) => {
                cx.error_at(
                    variant_number_tokens(variant),
                    format!(
                        "value `{}` is {number}, which does not fit `{}`",
                        variant.ident,
                        repr.keyword()
                    ),
                );
                continue;
            }
            (None, _) => continue,
        };
        values.push(ir::EnumValue {
            name: syn::ext::IdentExt::unraw(&variant.ident).to_string(),
            doc: Vec::new(),
            value,
        });
    }
    if !unknown {
        cx.error_at(
            &input.ident,
            format!(
                "#[derive(Zap)] on an enum needs a variant `{UNKNOWN}({})`: it keeps the numbers the enum does not declare (values added by a newer version), so they are not lost",
                repr.map_or("u8", Scalar::keyword)
            ),
        );
    }
    if data.variants.iter().all(|v| v.ident == UNKNOWN) {
        cx.error_at(
            &input.ident,
            "a ZAP enum needs at least one value besides `Unknown`",
        );
    }
    cx.check()?;
    let repr = repr.ok_or_else(|| syn::Error::new(input.span(), "no representation"))?;
    let name = match &attrs.rename {
        Some(lit) => lit.value(),
        None => syn::ext::IdentExt::unraw(&input.ident).to_string(),
    };
    Ok(LoweredEnum {
        ir: ir::Enum {
            name,
            doc: Vec::new(),
            repr,
            values,
        },
        opts: Options {
            runtime: attrs.runtime.unwrap_or_else(|| Options::default().runtime),
            ..Options::default()
        },
    })
}

/// `#[repr(u8)]`, `#[repr(u16)]` or `#[repr(u32)]`.
fn representation(cx: &Ctxt, input: &DeriveInput) -> Option<Scalar> {
    let mut words: Vec<syn::Ident> = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        // `repr(C)`, `repr(align(8))` and the like are not integers; only words are kept.
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(ident) = meta.path.get_ident() {
                words.push(ident.clone());
            }
            if meta.input.peek(syn::token::Paren) {
                let _ = meta.input.parse::<proc_macro2::Group>();
            }
            Ok(())
        });
    }
    let is_integer = |w: &str| {
        Scalar::from_keyword(w).is_some_and(|s| s != Scalar::Bool)
            || matches!(w, "u128" | "i128" | "usize" | "isize")
    };
    let Some(word) = words.iter().find(|w| is_integer(&w.to_string())) else {
        cx.error_at(
            &input.ident,
            "#[derive(Zap)] on an enum needs #[repr(u8)], #[repr(u16)] or #[repr(u32)]: the representation is its width on the wire",
        );
        return None;
    };
    let text = word.to_string();
    let repr = Scalar::from_keyword(&text).filter(|s| ir::Enum::REPRS.contains(s));
    if repr.is_none() {
        cx.error_at(
            word,
            format!("a ZAP enum is a u8, u16 or u32 on the wire, not `{text}`"),
        );
    }
    repr
}

/// `Unknown(repr)`: one unnamed field of the representation's type.
fn check_unknown(cx: &Ctxt, variant: &syn::Variant, repr: Option<Scalar>) {
    let Some(repr) = repr else {
        return;
    };
    let holds_repr = match &variant.fields {
        Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
            let ty = &fields.unnamed[0].ty;
            quote::quote!(#ty).to_string() == repr.keyword()
        }
        _ => false,
    };
    if !holds_repr {
        cx.error_at(
            variant,
            format!(
                "`{UNKNOWN}` holds the number a reader does not know: write `{UNKNOWN}({})`, the enum's representation",
                repr.keyword()
            ),
        );
    }
}

/// An integer literal discriminant (`= 7`, `= 0x10`).
fn literal(expr: &syn::Expr) -> Option<u64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        syn::Expr::Group(g) => literal(&g.expr),
        syn::Expr::Paren(p) => literal(&p.expr),
        _ => None,
    }
}

/// Where a variant's number is written (its discriminant, else the variant).
fn variant_number_tokens(variant: &syn::Variant) -> TokenStream {
    match &variant.discriminant {
        Some((_, expr)) => quote::quote!(#expr),
        None => quote::quote!(#variant),
    }
}

fn max_of(repr: Scalar) -> u64 {
    (1u64 << (repr.width() * 8)) - 1
}

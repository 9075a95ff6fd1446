//! A `#[derive(Zap)]` input to zapc's IR, then zapc's code generator: the same layout
//! rules (`zapc::layout::lay_out_struct`) and the same companions
//! (`structs::derive_companions`: everything but the owned type, which is the user's) as
//! a `.zap` schema.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use zapc::codegen::structs::{self, RustField, RustStruct};
use zapc::codegen::Options;
use zapc::ir;
use zapc::layout::{lay_out_struct, FieldSpec, LayoutError};

use crate::attr::{field_attrs, struct_attrs};
use crate::ctxt::Ctxt;
use crate::types::map_field;

/// The expansion of `#[derive(Zap)]` for `input`, or every error found, each at its token.
pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    if let Data::Enum(data) = &input.data {
        return crate::enums::expand(input, data);
    }
    let Lowered { ir, rust, opts } = lower(input)?;
    let checks = enum_checks(input, &rust, &ir, &opts);
    let companions = structs::derive_companions(&ir, &rust, &opts);
    Ok(quote::quote! {
        #companions
        #checks
    })
}

/// For every field declared `#[zap(enum = u8)]`: a check, spanned at the field's type,
/// that the type is a `ZapEnum` of that representation (one clear error at the field
/// instead of a missing `Scalar` impl somewhere in the generated code).
fn enum_checks(
    input: &DeriveInput,
    rust: &RustStruct,
    s: &ir::Struct,
    opts: &Options,
) -> TokenStream {
    let rt = &opts.runtime;
    let checks: Vec<TokenStream> = rust
        .fields
        .iter()
        .zip(&s.fields)
        .filter_map(|(r, f)| {
            let ty = r.enum_ty.as_ref()?;
            let repr = match &f.ty {
                ir::Type::Enum { repr, .. } => *repr,
                ir::Type::List(list) => match &list.elem {
                    ir::Type::Enum { repr, .. } => *repr,
                    _ => return None,
                },
                _ => return None,
            };
            let repr = quote::format_ident!("{}", repr.keyword());
            Some(quote::quote_spanned!(ty.span()=> __zap_is_enum::<#ty, #repr>();))
        })
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    let _ = input;
    quote::quote! {
        const _: () = {
            fn __zap_is_enum<E: #rt::ZapEnum<Repr = R>, R>() {}
            #[allow(dead_code)]
            fn __zap_fields_of_enum_type() {
                #(#checks)*
            }
        };
    }
}

/// What the derive knows of its input: the laid-out struct, how Rust spells it (one
/// [`RustField`] per IR field), and the generator options its attributes ask for.
pub struct Lowered {
    pub ir: ir::Struct,
    pub rust: RustStruct,
    pub opts: Options,
}

/// Lower the input struct, or every error found.
pub fn lower(input: &DeriveInput) -> syn::Result<Lowered> {
    let cx = Ctxt::default();
    let attrs = struct_attrs(&cx, &input.attrs);
    check_generics(&cx, input);
    let fields = named_fields(&cx, input);

    // Rust field (for error spans and offsets) next to its FieldSpec.
    let mut specs = Vec::new();
    let mut rust_fields = Vec::new();
    let mut placed: Vec<(&syn::Field, Option<syn::LitInt>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut names: Vec<(String, &syn::Field)> = Vec::new();
    let params = generic_names(&input.generics);
    for field in fields.iter().flat_map(|f| f.named.iter()) {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let fattrs = field_attrs(&cx, &field.attrs);
        if fattrs.skip.is_some() {
            skipped.push(ident);
            continue;
        }
        if mentions(&field.ty, &params) {
            // Already reported as a generic struct; a second error would only confuse.
            continue;
        }
        let mapped = match fattrs.enum_repr {
            Some(repr) => crate::types::map_enum_field(&field.ty, repr),
            None => map_field(&field.ty),
        };
        let mapped = match mapped {
            Ok(m) => m,
            Err(e) => {
                cx.push(e);
                continue;
            }
        };
        let name = match &fattrs.rename {
            Some(lit) => lit.value(),
            None => syn::ext::IdentExt::unraw(&ident)
                .to_string()
                .to_upper_camel_case(),
        };
        if let Some((_, earlier)) = names.iter().find(|(n, _)| n == &name) {
            let at = fattrs
                .rename
                .as_ref()
                .map_or(field.span(), |lit| lit.span());
            cx.push(syn::Error::new(
                at,
                format!(
                    "two fields have the schema name `{name}` (the other is `{}`); rename one",
                    earlier
                        .ident
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                ),
            ));
        }
        names.push((name.clone(), field));
        check_json_options(&cx, &fattrs, &mapped.ty);
        specs.push(FieldSpec {
            name,
            doc: doc_lines(&field.attrs),
            ty: mapped.ty,
            offset: fattrs.offset.as_ref().map(|(n, _)| *n),
            json: fattrs.json.clone(),
        });
        rust_fields.push(RustField {
            ident,
            ty: field.ty.clone(),
            struct_ty: mapped.struct_ty,
            enum_ty: mapped.enum_ty,
        });
        placed.push((field, fattrs.offset.map(|(_, lit)| lit)));
    }

    let name = match &attrs.rename {
        Some(lit) => lit.value(),
        None => syn::ext::IdentExt::unraw(&input.ident).to_string(),
    };
    let rust = RustStruct {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        skipped,
        fields: rust_fields,
    };
    let laid_out = lay_out_struct(name, doc_lines(&input.attrs), specs);
    let structure = match laid_out {
        Ok(s) => Some(s),
        Err(errors) => {
            for e in errors {
                cx.push(layout_error(&e, &placed));
            }
            None
        }
    };
    cx.check()?;
    let structure = structure.ok_or_else(|| syn::Error::new(input.span(), "no layout"))?;
    let opts = Options {
        runtime: attrs.runtime.unwrap_or_else(|| Options::default().runtime),
        ..Options::default()
    };
    Ok(Lowered {
        ir: structure,
        rust,
        opts,
    })
}

/// The named fields, or an error at what makes the input something else. A unit struct
/// has no fields (an empty message).
fn named_fields<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<&'a syn::FieldsNamed> {
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(named),
            Fields::Unit => None,
            Fields::Unnamed(unnamed) => {
                cx.error_at(
                    unnamed,
                    "#[derive(Zap)] needs named fields: a tuple struct's fields have no names for the getters, setters and JSON keys",
                );
                None
            }
        },
        // Expanded by `crate::enums` before this is reached.
        Data::Enum(_) => None,
        Data::Union(u) => {
            cx.error_at(
                u.union_token,
                "#[derive(Zap)] is for structs with named fields, not unions",
            );
            None
        }
    }
}

fn check_generics(cx: &Ctxt, input: &DeriveInput) {
    if !input.generics.params.is_empty() {
        cx.error_at(
            &input.generics,
            "#[derive(Zap)] does not support generic structs: a ZAP struct's layout is fixed, so every field type must be concrete",
        );
    } else if let Some(clause) = &input.generics.where_clause {
        cx.error_at(clause, "#[derive(Zap)] does not support where clauses");
    }
}

/// The names of the struct's generic parameters (types, lifetimes, consts).
fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .map(|p| match p {
            syn::GenericParam::Type(t) => t.ident.to_string(),
            syn::GenericParam::Lifetime(l) => l.lifetime.ident.to_string(),
            syn::GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect()
}

/// True when `ty` names one of `params` anywhere in its tokens.
fn mentions(ty: &syn::Type, params: &[String]) -> bool {
    fn walk(tokens: TokenStream, params: &[String]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => params.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), params),
            _ => false,
        })
    }
    !params.is_empty() && walk(quote::quote!(#ty), params)
}

/// A layout error at the later field's `offset` literal (or its name).
fn layout_error(e: &LayoutError, placed: &[(&syn::Field, Option<syn::LitInt>)]) -> syn::Error {
    let ident = |i: usize| {
        placed[i]
            .0
            .ident
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    let at = |i: usize| match &placed[i].1 {
        Some(lit) => lit.span(),
        None => placed[i]
            .0
            .ident
            .as_ref()
            .map_or_else(proc_macro2::Span::call_site, |i| i.span()),
    };
    match e {
        LayoutError::Overlap {
            field,
            slot,
            other,
            other_slot,
        } => syn::Error::new(
            at(*field),
            format!(
                "field `{}` (bytes {}..{}) overlaps field `{}` (bytes {}..{}); give it an offset outside bytes {}..{} (gaps are allowed)",
                ident(*field),
                slot.offset,
                slot.end(),
                ident(*other),
                other_slot.offset,
                other_slot.end(),
                other_slot.offset,
                other_slot.end(),
            ),
        ),
        LayoutError::TooLarge { field, end } => syn::Error::new(
            at(*field),
            format!(
                "field `{}` ends at byte {end}, past the 32-bit limit of a fixed section",
                ident(*field)
            ),
        ),
    }
}

/// `///` lines, without the one leading space rustdoc adds.
fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect()
}

/// `quantity` needs an unsigned integer and `block_tags` a `u64`, as in a schema.
fn check_json_options(cx: &Ctxt, attrs: &crate::attr::FieldAttrs, ty: &zapc::ir::Type) {
    use zapc::ir::{Scalar, Type};
    if let Some(span) = attrs.quantity {
        if !matches!(
            ty,
            Type::Scalar(Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64)
        ) {
            cx.push(syn::Error::new(
                span,
                "`quantity` needs an unsigned integer field (u8 to u64): Ethereum quantities are unsigned",
            ));
        }
    }
    if let Some(span) = attrs.block_tags {
        if *ty != Type::Scalar(Scalar::U64) {
            cx.push(syn::Error::new(
                span,
                "`block_tags` needs a `u64` field: block tags map to reserved block numbers near u64::MAX",
            ));
        }
    }
}

//! The items of one enum, from two entry points:
//!
//! * [`schema_enum`]: an enum of a `.zap` schema: the Rust enum (one unit variant per
//!   value, then `Unknown(repr)`) and its companions.
//! * [`enum_companions`]: what `#[derive(Zap)]` adds to a Rust enum declared the same
//!   way, token for token the companions of the schema enum.
//!
//! The companions: `Default` (the value numbered 0 if declared, else `Unknown(0)`, the
//! enum's reading of absent bytes), `ZapEnum` (which makes the enum a `Scalar`), `From`
//! both ways between the enum and its representation, and serde's `Serialize` and
//! `Deserialize` through `<rt>::json::enum_value` (a name, or the number when unknown).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::field::scalar_type;
use super::{doc_attrs, names, Options};
use crate::ir::Enum;

/// The Rust enum of a schema enum and its companions.
pub fn schema_enum(e: &Enum, opts: &Options) -> TokenStream {
    let ident = names::type_ident(&e.name);
    let repr = scalar_type(e.repr);
    let doc = if e.doc.is_empty() {
        doc_attrs(&[
            format!(
                "`{}`, a `{}` on the wire. Numbers this schema does not declare",
                e.name,
                e.repr.keyword()
            ),
            "are kept in `Unknown`, and written back unchanged.".to_owned(),
        ])
    } else {
        doc_attrs(&e.doc)
    };
    let variants = e.values.iter().map(|v| {
        let variant = names::type_ident(&v.name);
        let doc = if v.doc.is_empty() {
            doc_attrs(&[format!("`{}` = {}.", v.name, v.value)])
        } else {
            doc_attrs(&v.doc)
        };
        quote!(#doc #variant,)
    });
    let lint = if e.values.iter().all(|v| is_upper_camel(&v.name)) {
        TokenStream::new()
    } else {
        quote!(#[allow(non_camel_case_types)])
    };
    let companions = enum_companions(e, &ident, opts);
    quote! {
        #doc
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
        )]
        #lint
        pub enum #ident {
            #(#variants)*
            /// A number this schema does not declare (added by a newer one), kept as read.
            Unknown(#repr),
        }

        #companions
    }
}

/// `Default`, `ZapEnum`, `From` both ways and serde for the Rust enum `owner`, whose unit
/// variants are `e`'s values (by name) and whose `Unknown` variant holds the
/// representation.
pub fn enum_companions(e: &Enum, owner: &Ident, opts: &Options) -> TokenStream {
    let rt = &opts.runtime;
    let serde = quote!(#rt::__private::serde);
    let repr = scalar_type(e.repr);
    let name = &e.name;
    let variants: Vec<Ident> = e
        .values
        .iter()
        .map(|v| names::type_ident(&v.name))
        .collect();
    let numbers: Vec<Literal> = e
        .values
        .iter()
        .map(|v| Literal::u32_unsuffixed(v.value))
        .collect();
    let value_names = e.values.iter().map(|v| v.name.as_str());
    let default = match e.values.iter().position(|v| v.value == 0) {
        Some(i) => {
            let variant = &variants[i];
            quote!(#owner::#variant)
        }
        None => quote!(#owner::Unknown(0)),
    };
    quote! {
        const _: () = {
            /// The value numbered 0, which is what absent bytes read as.
            impl ::core::default::Default for #owner {
                fn default() -> Self {
                    #default
                }
            }

            impl #rt::ZapEnum for #owner {
                type Repr = #repr;
                const NAME: &'static str = #name;
                const VALUES: &'static [(&'static str, #repr)] = &[#((#value_names, #numbers)),*];

                #[inline]
                fn from_repr(raw: #repr) -> Self {
                    match raw {
                        #(#numbers => #owner::#variants,)*
                        other => #owner::Unknown(other),
                    }
                }

                #[inline]
                fn to_repr(self) -> #repr {
                    match self {
                        #(#owner::#variants => #numbers,)*
                        #owner::Unknown(raw) => raw,
                    }
                }
            }

            impl ::core::convert::From<#repr> for #owner {
                #[inline]
                fn from(raw: #repr) -> Self {
                    <#owner as #rt::ZapEnum>::from_repr(raw)
                }
            }

            impl ::core::convert::From<#owner> for #repr {
                #[inline]
                fn from(value: #owner) -> Self {
                    <#owner as #rt::ZapEnum>::to_repr(value)
                }
            }

            impl #serde::Serialize for #owner {
                fn serialize<__S: #serde::Serializer>(
                    &self,
                    serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    #rt::json::enum_value::serialize(self, serializer)
                }
            }

            impl<'de> #serde::Deserialize<'de> for #owner {
                fn deserialize<__D: #serde::Deserializer<'de>>(
                    deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    #rt::json::enum_value::deserialize(deserializer)
                }
            }
        };
    }
}

/// True for `UpperCamel` names (no underscore, first letter upper case).
fn is_upper_camel(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase()) && !name.contains('_')
}

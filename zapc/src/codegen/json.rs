//! The JSON mapping of a struct declared in Rust, as `Serialize` and `Deserialize` impls.
//!
//! A derive cannot put serde attributes on the user's struct, so the impls go through
//! private shadow structs that carry them (a schema struct's owned type carries the same
//! attributes directly). Absent JSON fields read as zero, like absent wire fields;
//! skipped fields take `Default`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::field::FieldGen;
use super::runtime_string;

/// `Serialize` and `Deserialize` for `name`, whose wire fields are `fields` and whose
/// `skipped` initialisers fill the rest; `children` are the struct types its fields name
/// (see `structs::where_clause`: every impl here carries the same bound on them).
pub fn shadow_impls(
    name: &Ident,
    fields: &[FieldGen<'_>],
    skipped: &[TokenStream],
    children: &[&syn::Type],
    rt: &syn::Path,
) -> TokenStream {
    let serde = quote!(#rt::__private::serde);
    let (bounds, shadow_bound) = child_bounds(children, rt);
    let serde_crate = format!("{}::__private::serde", runtime_string(rt));
    let idents: Vec<&Ident> = fields.iter().map(|f| &f.ident).collect();
    let types: Vec<&TokenStream> = fields.iter().map(FieldGen::owned_ty).collect();
    let attrs: Vec<TokenStream> = fields.iter().map(FieldGen::json_attrs).collect();
    let zeros = fields.iter().map(FieldGen::zero);
    let value = if fields.is_empty() {
        quote!(_value)
    } else {
        quote!(value)
    };
    quote! {
        impl #serde::Serialize for #name #bounds {
            fn serialize<__S: #serde::Serializer>(
                &self,
                serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #[derive(#serde::Serialize)]
                #[serde(crate = #serde_crate)]
                #shadow_bound
                struct __ZapJson<'zap> {
                    #(#attrs #idents: &'zap #types,)*
                    #[serde(skip)]
                    __zap_owner: ::core::marker::PhantomData<&'zap ()>,
                }
                #serde::Serialize::serialize(
                    &__ZapJson { #(#idents: &self.#idents,)* __zap_owner: ::core::marker::PhantomData },
                    serializer,
                )
            }
        }

        impl<'de> #serde::Deserialize<'de> for #name #bounds {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                #[derive(#serde::Deserialize)]
                #[serde(crate = #serde_crate, default = "__zap_zero")]
                #shadow_bound
                struct __ZapJson {
                    #(#attrs #idents: #types,)*
                }
                fn __zap_zero() -> __ZapJson {
                    __ZapJson { #(#idents: #zeros,)* }
                }
                let #value = <__ZapJson as #serde::Deserialize<'de>>::deserialize(deserializer)?;
                ::core::result::Result::Ok(Self {
                    #(#idents: value.#idents,)*
                    #(#skipped)*
                })
            }
        }
    }
}

/// The where clause of the impls, and the same bound as serde's `bound` attribute for the
/// shadow structs' own derived impls, its literal spanned at the first child type so that
/// a child that is not a ZAP struct is still reported once, at the field.
fn child_bounds(children: &[&syn::Type], rt: &syn::Path) -> (TokenStream, TokenStream) {
    let Some(first) = children.first() else {
        return (TokenStream::new(), TokenStream::new());
    };
    let clause = super::structs::where_clause(children, rt);
    let text = children
        .iter()
        .map(|ty| {
            format!(
                "{}: {}::__private::NestedStruct",
                quote!(#ty),
                runtime_string(rt)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let lit = syn::LitStr::new(&text, syn::spanned::Spanned::span(first));
    (clause, quote!(#[serde(bound = #lit)]))
}

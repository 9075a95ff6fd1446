//! The items of one struct, from two entry points:
//!
//! * [`schema_struct`]: a struct of a `.zap` schema. The owned type is generated too, with
//!   serde's JSON mapping as attributes on its fields.
//! * [`derive_companions`]: a struct declared in Rust (`#[derive(Zap)]`). The owned type
//!   is the user's, which a derive cannot annotate, so the JSON mapping is written as
//!   `Serialize`/`Deserialize` impls through private shadow structs (`codegen/json.rs`).
//!
//! Both emit the same companions: `SIZE` and `*_OFFSET` constants, the zero-copy reader,
//! the builder and the `ZapStruct` impl. The reader and builder types are items of the
//! caller's module (users name them); every impl sits inside `const _: () = { ... };`
//! with fully qualified paths, so the code compiles next to user items called `Result`,
//! `Option`, `Vec` or `String`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};

use super::field::{FieldGen, FieldNames};
use super::{doc_attrs, json, names, runtime_string, Options};
use crate::ir::{self, ListShape, Struct, Type};

/// How Rust spells a struct declared with `#[derive(Zap)]`: only what the wire layout
/// does not say. Kept out of the IR, which describes the layout alone.
#[derive(Debug, Clone)]
pub struct RustStruct {
    /// The struct's identifier (the schema name may differ with `#[zap(rename)]`).
    pub ident: Ident,
    /// The struct's visibility, given to the generated reader and builder types.
    pub vis: syn::Visibility,
    /// Fields that are not on the wire (`#[zap(skip)]`): `Default` when a value is read.
    pub skipped: Vec<Ident>,
    /// One entry per field of the IR struct, in the same order.
    pub fields: Vec<RustField>,
}

/// How Rust spells one field of a struct declared in Rust.
#[derive(Debug, Clone)]
pub struct RustField {
    /// The field's identifier: the owned field, the getter and the setter are named after
    /// it (the schema name, used for JSON, may differ with `#[zap(rename)]`).
    pub ident: Ident,
    /// The field's type as written.
    pub ty: syn::Type,
    /// The struct type that a [`Type::Struct`] in this field's type stands for (the
    /// pointer's target or the list's element), as written, so that generated code names
    /// it by its path and errors point at it.
    pub struct_ty: Option<syn::Type>,
    /// The enum type that a [`Type::Enum`] in this field's type stands for (the field's
    /// type or the list's element), as written.
    pub enum_ty: Option<syn::Type>,
}

/// Every item of a schema struct: the owned type (deriving `Eq` and `Hash` when
/// `eq_hash`, i.e. no float is reachable from it) and its companions.
pub fn schema_struct(s: &Struct, eq_hash: bool, opts: &Options) -> TokenStream {
    let owner = names::type_ident(&s.name);
    let fields = schema_fields(s, &owner, opts);
    let owned = owned_struct(s, &owner, &fields, eq_hash, &opts.runtime);
    let companions = companions_of_schema_struct(s, &owner, &fields, opts);
    quote! {
        #owned
        #companions
    }
}

/// The companions of a schema struct alone (what [`schema_struct`] emits after the owned
/// type): what the derive must emit, token for token, for a Rust twin of the struct.
pub fn schema_companions(s: &Struct, opts: &Options) -> TokenStream {
    let owner = names::type_ident(&s.name);
    let fields = schema_fields(s, &owner, opts);
    companions_of_schema_struct(s, &owner, &fields, opts)
}

/// [`companions`] with what a schema struct adds: bounds on the structs it names.
fn companions_of_schema_struct(
    s: &Struct,
    owner: &Ident,
    fields: &[FieldGen<'_>],
    opts: &Options,
) -> TokenStream {
    let children: Vec<syn::Type> = schema_children(s)
        .into_iter()
        .map(|name| {
            let path = names::type_path(name);
            syn::parse_quote!(#path)
        })
        .collect();
    let extra = Extra {
        skipped: Vec::new(),
        bounds: where_clause(&children.iter().collect::<Vec<_>>(), &opts.runtime),
    };
    companions(s, owner, &syn::parse_quote!(pub), fields, &extra, opts)
}

/// The generators of a schema struct's fields, named by the conventions.
fn schema_fields<'a>(s: &'a Struct, owner: &Ident, opts: &'a Options) -> Vec<FieldGen<'a>> {
    s.fields
        .iter()
        .map(|f| FieldGen::new(f, FieldNames::for_schema(f), owner, &opts.runtime))
        .collect()
}

/// The distinct structs the fields of a schema struct name, other than itself, in field
/// order (as [`child_types`] finds them for a derive).
fn schema_children(s: &Struct) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for field in &s.fields {
        let child = match &field.ty {
            Type::Struct(name) => name,
            Type::List(list) => match &list.elem {
                Type::Struct(name) => name,
                _ => continue,
            },
            _ => continue,
        };
        if child != &s.name && !names.contains(&child.as_str()) {
            names.push(child);
        }
    }
    names
}

/// The companions of a struct declared in Rust, and its JSON mapping as impls. `rust`
/// must describe the same fields as `s`, in order (the derive builds both from one list).
pub fn derive_companions(s: &Struct, rust: &RustStruct, opts: &Options) -> TokenStream {
    let rt = &opts.runtime;
    let owner = &rust.ident;
    let fields: Vec<FieldGen<'_>> = s
        .fields
        .iter()
        .zip(&rust.fields)
        .map(|(f, r)| {
            let ty = &r.ty;
            let names = FieldNames {
                ident: r.ident.clone(),
                snake: syn::ext::IdentExt::unraw(&r.ident).to_string(),
                owned_ty: Some(quote!(#ty)),
                struct_ty: r.struct_ty.as_ref().map(|t| quote!(#t)),
                enum_ty: r.enum_ty.as_ref().map(|t| quote!(#t)),
            };
            FieldGen::new(f, names, owner, rt)
        })
        .collect();
    // `field: Default::default()` for fields not on the wire, spanned at the field so a
    // missing `Default` is reported there.
    let skipped: Vec<TokenStream> = rust
        .skipped
        .iter()
        .map(|f| quote_spanned!(f.span()=> #f: ::core::default::Default::default(),))
        .collect();
    let children = child_types(rust);
    let bounds = where_clause(&children, rt);
    let extra = Extra {
        skipped: skipped.clone(),
        bounds,
    };
    let companions = companions(s, owner, &rust.vis, &fields, &extra, opts);
    let json = json::shadow_impls(owner, &fields, &skipped, &children, rt);
    quote! {
        #companions
        const _: () = { #json };
    }
}

/// What differs between the two front ends' companions.
struct Extra {
    /// `field: Default::default(),` for every skipped field (a derive's `#[zap(skip)]`).
    skipped: Vec<TokenStream>,
    /// `where Child: NestedStruct, ...` for the struct types its fields name.
    bounds: TokenStream,
}

/// `where Child: NestedStruct` for every struct type the fields of a Rust struct name
/// (other than itself), each predicate spanned at the type as written. When a child is not
/// a ZAP struct, every impl carrying these bounds fails at that one span with one message,
/// which the compiler reports once: a single error at the field, instead of one per use.
/// (`NestedStruct` is implemented without bounds, so two derived structs that point at
/// each other do not make these bounds a cycle.)
pub(super) fn where_clause(children: &[&syn::Type], rt: &syn::Path) -> TokenStream {
    if children.is_empty() {
        return TokenStream::new();
    }
    let predicates = children.iter().map(|ty| {
        let span = syn::spanned::Spanned::span(ty);
        respan(quote!(#ty: #rt::__private::NestedStruct), span)
    });
    quote!(where #(#predicates),*)
}

/// `tokens` with every span set to `span`, so that an error anywhere in them is reported
/// at one place.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

/// The distinct struct types the fields of a Rust struct name, other than itself.
fn child_types(rust: &RustStruct) -> Vec<&syn::Type> {
    let mut seen = Vec::new();
    rust.fields
        .iter()
        .filter_map(|f| f.struct_ty.as_ref())
        .filter(|ty| {
            let text = quote!(#ty).to_string();
            let is_self = rust.ident == text || text == "Self";
            let new = !seen.contains(&text);
            seen.push(text);
            new && !is_self
        })
        .collect()
}

/// The owned struct of a schema struct, with serde's JSON mapping on its fields, and its
/// `Default` (spelled out when an array is longer than `#[derive(Default)]` supports).
fn owned_struct(
    s: &Struct,
    name: &Ident,
    fields: &[FieldGen<'_>],
    eq_hash: bool,
    rt: &syn::Path,
) -> TokenStream {
    let doc = if s.doc.is_empty() {
        doc_attrs(&[
            format!(
                "`{}`, owned: to and from the wire with `ZapStruct`,",
                s.name
            ),
            format!(
                "to and from JSON with serde. [`{}Reader`] reads it without copying.",
                s.name
            ),
        ])
    } else {
        doc_attrs(&s.doc)
    };
    let owned_fields = fields.iter().map(FieldGen::owned_field);
    let long_array = s
        .fields
        .iter()
        .any(|f| matches!(f.ty, Type::BytesFixed(n) if n > 32));
    let (derive_default, manual_default) = if long_array {
        let idents = fields.iter().map(|f| &f.ident);
        let zeros = fields.iter().map(FieldGen::zero);
        (
            TokenStream::new(),
            quote! {
                impl ::core::default::Default for #name {
                    fn default() -> Self {
                        Self { #(#idents: #zeros,)* }
                    }
                }
            },
        )
    } else {
        (quote!(::core::default::Default,), TokenStream::new())
    };
    let eq_hash = if eq_hash {
        quote!(::core::cmp::Eq, ::core::hash::Hash,)
    } else {
        TokenStream::new()
    };
    let serde_crate = format!("{}::__private::serde", runtime_string(rt));
    let deprecated = super::evolution::deprecated_attr(s.deprecated);
    quote! {
        #doc
        #deprecated
        #[derive(
            ::core::clone::Clone,
            ::core::fmt::Debug,
            #derive_default
            ::core::cmp::PartialEq,
            #eq_hash
            #rt::__private::serde::Serialize,
            #rt::__private::serde::Deserialize,
        )]
        #[serde(crate = #serde_crate, default)]
        pub struct #name {
            #(#owned_fields)*
        }

        #manual_default
    }
}

/// Constants, reader, builder and the `ZapStruct` impl of the struct whose owned type is
/// `owner`.
fn companions(
    s: &Struct,
    owner: &Ident,
    vis: &syn::Visibility,
    fields: &[FieldGen<'_>],
    extra: &Extra,
    opts: &Options,
) -> TokenStream {
    let rt = &opts.runtime;
    let (skipped, bounds) = (&extra.skipped, &extra.bounds);
    let type_name = syn::ext::IdentExt::unraw(owner).to_string();
    let reader = names::suffixed(&type_name, "Reader");
    let builder = names::suffixed(&type_name, "Builder");
    let size = Literal::u32_unsuffixed(s.size);
    let schema_name = &s.name;
    let inline = matches!(s.list_shape, ListShape::Strided { .. });
    let json_fields = s.fields.iter().map(ir::Field::json_key);
    let offsets = fields.iter().map(FieldGen::offset_const);
    let getters = fields.iter().map(FieldGen::getter);
    let debug_entries = fields.iter().map(FieldGen::debug_entry);
    let setters = fields.iter().map(FieldGen::setters);
    let from_reader = fields.iter().map(FieldGen::decode);
    // Children and lists first, `text` and `bytes` payloads last: nothing is appended
    // after a payload, so each is copied straight into the message (`set_bytes_last`)
    // and the bytes are those of setting every field in order.
    let writes = fields
        .iter()
        .filter(|f| !f.is_payload())
        .chain(fields.iter().filter(|f| f.is_payload()))
        .map(FieldGen::write);
    let inline_encode = if inline {
        inline_encode(owner, fields, rt)
    } else {
        TokenStream::new()
    };
    let size_doc = format!(" Size of `{schema_name}`'s fixed section in bytes.");
    let reader_name = reader.to_string();
    let r_param = if fields.is_empty() {
        quote!(_r)
    } else {
        quote!(r)
    };
    let obj_param = if fields.is_empty() {
        quote!(_obj)
    } else {
        quote!(obj)
    };
    let bounds_list = match bounds.is_empty() {
        true => TokenStream::new(),
        false => {
            // `where A: X, B: Y` → `A: X, B: Y,` for the macro's `where` clauses.
            let predicates: TokenStream = bounds.clone().into_iter().skip(1).collect();
            quote!(#predicates,)
        }
    };

    let deprecated = super::evolution::deprecated_attr(s.deprecated);
    quote! {
        #rt::__private::struct_companions! {
            #deprecated
            #vis struct #owner as #schema_name {
                reader: #reader,
                builder: #builder,
                bounds: { #bounds_list },
            }
        }

        const _: () = {
            impl #owner {
                #[doc = #size_doc]
                pub const SIZE: usize = #size;
                #(#offsets)*
            }

            impl<'a> #reader<'a> #bounds {
                #(#getters)*
            }

            /// The fields, not the message bytes.
            impl ::core::fmt::Debug for #reader<'_> #bounds {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#reader_name) #(#debug_entries)* .finish()
                }
            }

            impl<'b> #builder<'b> #bounds {
                #(#setters)*
            }

            impl #rt::ZapStruct for #owner #bounds {
                const NAME: &'static str = #schema_name;
                const SIZE: usize = #owner::SIZE;
                const JSON_FIELDS: &'static [&'static str] = &[#(#json_fields),*];
                const INLINE: bool = #inline;
                type Reader<'a> = #reader<'a>;

                fn from_reader_in(#r_param: Self::Reader<'_>, __budget: &mut #rt::DecodeBudget) -> Self {
                    Self {
                        #(#from_reader)*
                        #(#skipped)*
                    }
                }

                #[inline]
                fn write_fields(&self, #obj_param: &mut #rt::ObjectBuilder<'_>) {
                    #(#writes)*
                }

                #inline_encode
            }
        };
    }
}

/// For a struct whose fields are all inline, `ZapStruct::encode` as one stack array
/// copied into the builder (`Builder::encode_inline`): the layout is known here, so the
/// header and every field go to constant positions. Same bytes as the generic path.
fn inline_encode(owner: &Ident, fields: &[FieldGen<'_>], rt: &syn::Path) -> TokenStream {
    let writes = fields.iter().map(FieldGen::inline_write);
    let m = if fields.is_empty() {
        quote!(_m)
    } else {
        quote!(m)
    };
    quote! {
        #[inline]
        fn encode<'b>(
            &self,
            b: &'b mut #rt::Builder,
        ) -> ::core::result::Result<&'b [u8], #rt::BuildError> {
            const LEN: usize = #rt::HEADER_SIZE + #owner::SIZE;
            b.encode_inline(|#m: &mut #rt::InlineObject<LEN>| { #(#writes)* })
        }
    }
}

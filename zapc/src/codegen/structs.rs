//! The items of one struct: owned type, reader, builder, `ZapStruct` and the JSON mapping.
//!
//! The reader and builder types are items of the caller's module (users name them); every
//! impl sits inside `const _: () = { ... };` with fully qualified paths, so the code
//! compiles next to user items called `Result`, `Option`, `Vec` or `String`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};

use super::fields::{field_code, FieldCode};
use super::names;
use super::Options;
use crate::ir::{ListShape, Schema, Struct, Type};

fn doc_attrs(doc: &[String]) -> TokenStream {
    let lines = doc.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// Generate every item of `s`. With `owned_definition` false (the derive), the owned
/// struct itself is the user's and only the impls and companion types are generated.
pub fn generate(
    _schema: &Schema,
    s: &Struct,
    opts: &Options,
    owned_definition: bool,
) -> TokenStream {
    let rt = &opts.runtime;
    let (name, vis) = match &s.rust {
        Some(rust) => (rust.ident.clone(), rust.vis.clone()),
        None => (names::type_ident(&s.name), syn::parse_quote!(pub)),
    };
    let type_name = syn::ext::IdentExt::unraw(&name).to_string();
    let reader = names::suffixed(&type_name, "Reader");
    let builder = names::suffixed(&type_name, "Builder");
    let size = Literal::usize_unsuffixed(s.size as usize);
    let schema_name = &s.name;
    let inline = matches!(s.list_shape, ListShape::Strided { .. });
    let codes: Vec<FieldCode> = s.fields.iter().map(|f| field_code(f, rt)).collect();
    let json_fields: Vec<String> = s.fields.iter().map(|f| names::json_key(&f.name)).collect();
    // `field: Default::default()` for fields not on the wire, spanned at the field so a
    // missing `Default` is reported there.
    let skipped: Vec<TokenStream> = s
        .rust
        .iter()
        .flat_map(|r| &r.skipped)
        .map(|f| quote_spanned!(f.span()=> #f: ::core::default::Default::default(),))
        .collect();

    let owned = if owned_definition {
        owned_struct(s, &codes)
    } else {
        TokenStream::new()
    };
    let json = json_impls(&name, &codes, &skipped, rt);
    let inline_encode = inline_encode(s, &codes, rt);
    let offsets = codes.iter().map(|c| &c.offset_const);
    let getters = codes.iter().map(|c| &c.getter);
    let setters = codes.iter().map(|c| &c.setter);
    let from_reader = codes.iter().map(|c| &c.from_reader);
    let writes = codes.iter().map(|c| &c.write);
    let size_doc = format!(" Size of `{schema_name}`'s fixed section in bytes.");
    let reader_doc = format!(
        " Zero-copy reader of a `{schema_name}`: every getter is a bounds check and a load."
    );
    let builder_doc = format!(" Writes a `{schema_name}` through the runtime builder; setters in field order give the canonical bytes.");
    let obj_param = if codes.is_empty() {
        quote!(_obj)
    } else {
        quote!(obj)
    };
    let r_param = if codes.is_empty() {
        quote!(_r)
    } else {
        quote!(r)
    };

    quote! {
        #owned

        #[doc = #reader_doc]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug)]
        #vis struct #reader<'a> {
            obj: #rt::Object<'a>,
        }

        #[doc = #builder_doc]
        #[derive(::core::fmt::Debug)]
        #vis struct #builder<'b> {
            obj: #rt::ObjectBuilder<'b>,
        }

        const _: () = {
            impl #name {
                #[doc = #size_doc]
                pub const SIZE: usize = #size;
                #(#offsets)*
            }

            impl<'a> #reader<'a> {
                /// View an object (e.g. a message root or a list element) as this struct.
                #[inline]
                pub fn from_object(obj: #rt::Object<'a>) -> Self {
                    Self { obj }
                }

                /// Parse a complete message and view its root.
                pub fn parse(buf: &'a [u8]) -> ::core::result::Result<Self, #rt::ParseError> {
                    #rt::Message::parse(buf).map(|m| Self::from_object(m.root()))
                }

                /// The underlying object view.
                pub fn as_object(&self) -> #rt::Object<'a> {
                    self.obj
                }

                /// Copy every field into the owned type.
                pub fn to_value(&self) -> #name {
                    <#name as #rt::ZapStruct>::from_reader(*self)
                }

                #(#getters)*
            }

            impl<'b> #builder<'b> {
                /// Start the object on `b` (as the root, finish with
                /// [`Self::finish_message`]; as a child, with [`Self::finish`]).
                pub fn new(b: &'b mut #rt::Builder) -> Self {
                    Self { obj: b.start_object(#size) }
                }

                /// The runtime builder, to build children while this object is open.
                pub fn builder(&mut self) -> &mut #rt::Builder {
                    self.obj.builder()
                }

                #(#setters)*

                /// Finish as a child object; returns its position for the parent's pointer.
                pub fn finish(self) -> u32 {
                    self.obj.finish()
                }

                /// Finish as the root object and finish the message; returns its bytes.
                pub fn finish_message(self) -> &'b [u8] {
                    self.obj.finish_message()
                }
            }

            impl #rt::ZapStruct for #name {
                const NAME: &'static str = #schema_name;
                const SIZE: usize = #size;
                const JSON_FIELDS: &'static [&'static str] = &[#(#json_fields),*];
                const INLINE: bool = #inline;
                type Reader<'a> = #reader<'a>;

                #[inline]
                fn reader(obj: #rt::Object<'_>) -> #reader<'_> {
                    #reader::from_object(obj)
                }

                fn from_reader(r: #reader<'_>) -> Self {
                    let mut budget = #rt::DecodeBudget::for_message(r.as_object().message_bytes().len());
                    Self::from_reader_in(r, &mut budget)
                }

                fn from_reader_in(#r_param: #reader<'_>, __budget: &mut #rt::DecodeBudget) -> Self {
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

            #json
        };
    }
}

/// For a struct whose fields are all inline, `ZapStruct::encode` as one stack array
/// copied into the builder (`Builder::encode_inline`): the layout is known here, so the
/// header and every field go to constant positions. Same bytes as the generic path.
fn inline_encode(s: &Struct, codes: &[FieldCode], rt: &syn::Path) -> TokenStream {
    if !matches!(s.list_shape, ListShape::Strided { .. }) {
        return TokenStream::new();
    }
    let writes = s.fields.iter().zip(codes).map(|(f, c)| {
        let ident = &c.ident;
        let pos = Literal::usize_unsuffixed(16 + f.offset as usize);
        match &f.ty {
            Type::Scalar(k) => {
                let t = super::fields::scalar_type(*k);
                quote!(<#t as #rt::Scalar>::write_at(self.#ident, m, #pos);)
            }
            Type::BytesFixed(n) => {
                let n = Literal::usize_unsuffixed(*n as usize);
                quote!(m[#pos..#pos + #n].copy_from_slice(&self.#ident);)
            }
            // Not inline: the struct would not be strided.
            _ => TokenStream::new(),
        }
    });
    let len = Literal::usize_unsuffixed(16 + s.size as usize);
    let m = if s.fields.is_empty() {
        quote!(_m)
    } else {
        quote!(m)
    };
    quote! {
        #[inline]
        fn encode<'b>(&self, b: &'b mut #rt::Builder) -> &'b [u8] {
            b.encode_inline(|#m: &mut [u8; #len]| { #(#writes)* })
        }
    }
}

/// The owned struct of a schema struct and its `Default` (arrays of any length are zero).
fn owned_struct(s: &Struct, codes: &[FieldCode]) -> TokenStream {
    let name = names::type_ident(&s.name);
    let doc = doc_attrs(&s.doc);
    let fields = codes.iter().map(|c| &c.owned);
    let idents = codes.iter().map(|c| &c.ident);
    let zeros = codes.iter().map(|c| &c.zero);
    // `#[derive(Default)]` stops at arrays of 32; beyond that the zero value is spelled out.
    let long_array = s
        .fields
        .iter()
        .any(|f| matches!(f.ty, crate::ir::Type::BytesFixed(n) if n > 32));
    let (derive_default, manual_default) = if long_array {
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
    quote! {
        #doc
        #[derive(::core::clone::Clone, ::core::fmt::Debug, #derive_default ::core::cmp::PartialEq)]
        pub struct #name {
            #(#fields)*
        }

        #manual_default
    }
}

/// `Serialize` and `Deserialize` with the spec's JSON mapping, through private shadow
/// structs that carry the serde attributes, so the same code serves a schema's owned
/// type and a user's struct (whose definition a derive cannot annotate). Absent JSON
/// fields read as zero, like absent wire fields; skipped fields take `Default`.
fn json_impls(
    name: &Ident,
    codes: &[FieldCode],
    skipped: &[TokenStream],
    rt: &syn::Path,
) -> TokenStream {
    let serde = quote!(#rt::__private::serde);
    let serde_crate = format!(
        "{}::__private::serde",
        quote!(#rt).to_string().replace(' ', "")
    );
    let idents: Vec<&Ident> = codes.iter().map(|c| &c.ident).collect();
    let types: Vec<&TokenStream> = codes.iter().map(|c| &c.owned_ty).collect();
    let attrs: Vec<&TokenStream> = codes.iter().map(|c| &c.json_attrs).collect();
    let zeros = codes.iter().map(|c| &c.zero);
    let value = if codes.is_empty() {
        quote!(_value)
    } else {
        quote!(value)
    };
    quote! {
        impl #serde::Serialize for #name {
            fn serialize<__S: #serde::Serializer>(
                &self,
                serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #[derive(#serde::Serialize)]
                #[serde(crate = #serde_crate)]
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

        impl<'de> #serde::Deserialize<'de> for #name {
            fn deserialize<__D: #serde::Deserializer<'de>>(
                deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                #[derive(#serde::Deserialize)]
                #[serde(crate = #serde_crate, default = "__zap_zero")]
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

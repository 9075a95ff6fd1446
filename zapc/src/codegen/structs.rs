//! The items of one struct: owned type (+ JSON mapping), reader, builder, `ZapStruct`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::fields::{field_code, FieldCode};
use super::names;
use super::Options;
use crate::ir::{ListShape, Schema, Struct};

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
    let name = names::type_ident(&s.name);
    let reader = names::suffixed(&s.name, "Reader");
    let builder = names::suffixed(&s.name, "Builder");
    let size = Literal::usize_unsuffixed(s.size as usize);
    let schema_name = &s.name;
    let inline = matches!(s.list_shape, ListShape::Strided { .. });
    let codes: Vec<FieldCode> = s.fields.iter().map(|f| field_code(f, rt)).collect();
    let json_fields: Vec<String> = s.fields.iter().map(|f| names::json_key(&f.name)).collect();

    let owned = if owned_definition {
        owned_struct(s, &codes, rt)
    } else {
        TokenStream::new()
    };
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

        impl #name {
            #[doc = #size_doc]
            pub const SIZE: usize = #size;
            #(#offsets)*
        }

        #[doc = #reader_doc]
        #[derive(Clone, Copy, Debug)]
        pub struct #reader<'a> {
            obj: #rt::Object<'a>,
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

        #[doc = #builder_doc]
        #[derive(Debug)]
        pub struct #builder<'b> {
            obj: #rt::ObjectBuilder<'b>,
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

            fn from_reader(#r_param: #reader<'_>) -> Self {
                Self { #(#from_reader)* }
            }

            #[inline]
            fn write_fields(&self, #obj_param: &mut #rt::ObjectBuilder<'_>) {
                #(#writes)*
            }
        }
    }
}

/// The owned struct, its `Default` (arrays of any length are zero) and serde derives.
fn owned_struct(s: &Struct, codes: &[FieldCode], rt: &syn::Path) -> TokenStream {
    let name = names::type_ident(&s.name);
    let doc = doc_attrs(&s.doc);
    let fields = codes.iter().map(|c| &c.owned);
    let defaults = codes.iter().map(|c| &c.default);
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
                        Self { #(#defaults)* }
                    }
                }
            },
        )
    } else {
        (quote!(::core::default::Default,), TokenStream::new())
    };
    let serde_crate = format!(
        "{}::__private::serde",
        quote!(#rt).to_string().replace(' ', "")
    );
    quote! {
        #doc
        #[derive(Clone, Debug, #derive_default PartialEq, #rt::__private::serde::Serialize, #rt::__private::serde::Deserialize)]
        #[serde(crate = #serde_crate, default)]
        pub struct #name {
            #(#fields)*
        }

        #manual_default
    }
}

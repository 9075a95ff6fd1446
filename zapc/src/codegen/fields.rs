//! The code of one field, by type: its owned type and JSON mapping, reader getter,
//! conversion from the reader, write statement and builder setters.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::names;
use crate::ir::{Field, ListShape, Scalar, Type};

/// Everything generated for one field.
pub struct FieldCode {
    /// The field's identifier in the owned struct.
    pub ident: Ident,
    /// The owned struct's field type (the Rust type as written, for a field declared in
    /// Rust).
    pub owned_ty: TokenStream,
    /// The owned struct's field (schema structs only).
    pub owned: TokenStream,
    /// The zero value of the owned field (`Default`, and absent JSON fields).
    pub zero: TokenStream,
    /// The field's attributes in the JSON mapping: rename and `with`.
    pub json_attrs: TokenStream,
    /// The reader's getter.
    pub getter: TokenStream,
    /// `name: <from reader r>` for `ZapStruct::from_reader`.
    pub from_reader: TokenStream,
    /// The statement setting this field from `self` on `obj` in `write_fields`.
    pub write: TokenStream,
    /// The typed builder's setter(s).
    pub setter: TokenStream,
    /// `pub const NAME_OFFSET: usize = ..;`
    pub offset_const: TokenStream,
}

/// Names the getters of a reader must not take (they are the reader's own methods).
const READER_METHODS: &[&str] = &["from_object", "parse", "as_object", "to_value"];

/// The snake_case Rust name of a field: its identifier (unescaped) when declared in
/// Rust, the snake_case schema name otherwise. Getters, setters and offset constants are
/// named after it.
fn rust_name(field: &Field) -> String {
    match &field.rust {
        Some(rust) => syn::ext::IdentExt::unraw(&rust.ident).to_string(),
        None => names::snake(&field.name),
    }
}

/// The field's identifier in the owned struct.
fn owned_ident(field: &Field) -> Ident {
    match &field.rust {
        Some(rust) => rust.ident.clone(),
        None => names::field_ident(&field.name),
    }
}

/// The reader getter's identifier for a field.
pub fn getter_ident(field: &Field) -> Ident {
    let snake = rust_name(field);
    if READER_METHODS.contains(&snake.as_str()) {
        format_ident!("{snake}_field")
    } else {
        names::ident(&snake)
    }
}

/// The Rust type a [`Type::Struct`] in this field's type stands for: the path written in
/// Rust, or the schema name.
fn struct_type(field: &Field, name: &str) -> TokenStream {
    match field.rust.as_ref().and_then(|r| r.struct_ty.as_ref()) {
        Some(ty) => quote!(#ty),
        None => {
            let ident = names::type_ident(name);
            quote!(#ident)
        }
    }
}

pub fn scalar_type(s: Scalar) -> TokenStream {
    match s {
        Scalar::Bool => quote!(bool),
        Scalar::U8 => quote!(u8),
        Scalar::U16 => quote!(u16),
        Scalar::U32 => quote!(u32),
        Scalar::U64 => quote!(u64),
        Scalar::I8 => quote!(i8),
        Scalar::I16 => quote!(i16),
        Scalar::I32 => quote!(i32),
        Scalar::I64 => quote!(i64),
        Scalar::F32 => quote!(f32),
        Scalar::F64 => quote!(f64),
    }
}

fn lit(n: u32) -> Literal {
    Literal::usize_unsuffixed(n as usize)
}

/// The runtime path as a string, for serde's `with = "..."` attributes.
fn path_string(rt: &syn::Path) -> String {
    quote!(#rt).to_string().replace(' ', "")
}

/// `#[serde(with = "<rt>::json::<module>")]`.
fn serde_with(rt: &syn::Path, module: &str) -> TokenStream {
    let with = format!("{}::json::{module}", path_string(rt));
    quote!(#[serde(with = #with)])
}

fn doc_attrs(doc: &[String]) -> TokenStream {
    let lines = doc.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// Generate the code of one field.
pub fn field_code(field: &Field, rt: &syn::Path) -> FieldCode {
    let name = owned_ident(field);
    let getter = getter_ident(field);
    let snake = rust_name(field);
    let setter = format_ident!("set_{}", snake);
    let setter_at = format_ident!("set_{}_at", snake);
    let off = lit(field.offset);
    let json = names::json_key(&field.name);
    let doc = doc_attrs(&field.doc);
    let offset_name = names::offset_const(&snake);
    let offset_doc = format!(" Byte offset of `{}` in the fixed section.", field.name);
    let offset_const = quote! {
        #[doc = #offset_doc]
        pub const #offset_name: usize = #off;
    };
    let value = quote!(self.#name);
    let got = quote!(r.#getter());
    let parts = TypeCode::of(field, rt, &off, &value, &got);
    let TypeCode {
        owned_ty,
        zero,
        getter_ty,
        getter_body,
        from_reader,
        write,
        setter_arg,
        setter_body,
        with,
    } = parts;
    let with_attr = with.map(|m| serde_with(rt, m)).unwrap_or_default();
    let owned_ty = match &field.rust {
        Some(rust) => {
            let ty = &rust.ty;
            quote!(#ty)
        }
        None => owned_ty,
    };
    let owned = quote! {
        #doc
        pub #name: #owned_ty,
    };
    let getter_fn = quote! {
        #doc
        #[inline]
        pub fn #getter(&self) -> #getter_ty { #getter_body }
    };
    let needs_at = matches!(field.ty, Type::Struct(_) | Type::List(_));
    let setter_at_fn = if needs_at {
        let at_ty = if matches!(field.ty, Type::Struct(_)) {
            quote!(u32)
        } else {
            quote!(#rt::ListRef)
        };
        let at_stmt = if matches!(field.ty, Type::Struct(_)) {
            quote!(self.obj.set_object(#off, at);)
        } else {
            quote!(self.obj.set_list(#off, at);)
        };
        let at_doc = format!(
            " Point `{}` at a child already built with [`Self::builder`].",
            field.name
        );
        quote! {
            #[doc = #at_doc]
            pub fn #setter_at(&mut self, at: #at_ty) -> &mut Self {
                #at_stmt
                self
            }
        }
    } else {
        TokenStream::new()
    };
    FieldCode {
        ident: name.clone(),
        owned_ty,
        owned,
        zero,
        json_attrs: quote! {
            #[serde(rename = #json)]
            #with_attr
        },
        getter: getter_fn,
        from_reader: quote!(#name: #from_reader,),
        write,
        setter: quote! {
            #doc
            pub fn #setter(&mut self, v: #setter_arg) -> &mut Self {
                #setter_body
                self
            }
            #setter_at_fn
        },
        offset_const,
    }
}

/// The per-type pieces of a field's code.
struct TypeCode {
    owned_ty: TokenStream,
    zero: TokenStream,
    getter_ty: TokenStream,
    getter_body: TokenStream,
    /// Expression turning getter value `v` into the owned value.
    from_reader: TokenStream,
    /// Statement writing the owned value onto `obj`.
    write: TokenStream,
    setter_arg: TokenStream,
    setter_body: TokenStream,
    /// serde `with` module under `<rt>::json`, if the default mapping is not the spec's.
    with: Option<&'static str>,
}

impl TypeCode {
    fn of(
        field: &Field,
        rt: &syn::Path,
        off: &Literal,
        v: &TokenStream,
        got: &TokenStream,
    ) -> TypeCode {
        let off = off.clone();
        match &field.ty {
            Type::Scalar(s) => {
                let t = scalar_type(*s);
                let with = match s {
                    Scalar::U64 => Some("u64_lenient"),
                    Scalar::I64 => Some("i64_lenient"),
                    _ => None,
                };
                let o = off.clone();
                TypeCode {
                    owned_ty: t.clone(),
                    zero: quote!(::core::default::Default::default()),
                    getter_ty: t.clone(),
                    getter_body: quote!(self.obj.get::<#t>(#off)),
                    from_reader: got.clone(),
                    write: quote!(obj.set::<#t>(#o, #v);),
                    setter_arg: t.clone(),
                    setter_body: quote!(self.obj.set::<#t>(#off, v);),
                    with,
                }
            }
            Type::Text => {
                let o = off.clone();
                TypeCode {
                    owned_ty: quote!(::std::string::String),
                    zero: quote!(::core::default::Default::default()),
                    getter_ty: quote!(&'a str),
                    getter_body: quote!(self.obj.text(#off)),
                    from_reader: quote!(::std::string::String::from(#got)),
                    write: quote!(obj.set_text(#o, &#v);),
                    setter_arg: quote!(&str),
                    setter_body: quote!(self.obj.set_text(#off, v);),
                    with: None,
                }
            }
            Type::Bytes => {
                let o = off.clone();
                TypeCode {
                    owned_ty: quote!(::std::vec::Vec<u8>),
                    zero: quote!(::core::default::Default::default()),
                    getter_ty: quote!(&'a [u8]),
                    getter_body: quote!(self.obj.bytes(#off)),
                    from_reader: quote!(#got.to_vec()),
                    write: quote!(obj.set_bytes(#o, &#v);),
                    setter_arg: quote!(&[u8]),
                    setter_body: quote!(self.obj.set_bytes(#off, v);),
                    with: Some("hex_bytes"),
                }
            }
            Type::BytesFixed(n) => {
                let n = lit(*n);
                let o = off.clone();
                TypeCode {
                    owned_ty: quote!([u8; #n]),
                    zero: quote!([0u8; #n]),
                    getter_ty: quote!(&'a [u8; #n]),
                    getter_body: quote!(self.obj.bytes_fixed::<#n>(#off)),
                    from_reader: quote!(*#got),
                    write: quote!(obj.set_bytes_fixed(#o, &#v);),
                    setter_arg: quote!(&[u8; #n]),
                    setter_body: quote!(self.obj.set_bytes_fixed(#off, v);),
                    with: Some("hex_array"),
                }
            }
            Type::Struct(name) => {
                let owned = struct_type(field, name);
                let o = off.clone();
                TypeCode {
                    owned_ty: quote!(::core::option::Option<::std::boxed::Box<#owned>>),
                    zero: quote!(::core::option::Option::None),
                    getter_ty: quote!(::core::option::Option<<#owned as #rt::ZapStruct>::Reader<'a>>),
                    getter_body: quote! {
                        let obj = self.obj.object(#off);
                        if obj.is_null() { ::core::option::Option::None } else { ::core::option::Option::Some(<#owned as #rt::ZapStruct>::reader(obj)) }
                    },
                    // `From` boxes for `Option<Box<T>>` and is the identity for `Option<T>`.
                    from_reader: quote!(#got.and_then(|c| __budget.child::<#owned>(c)).map(::core::convert::From::from)),
                    write: quote! {
                        if let ::core::option::Option::Some(child) = &#v {
                            let at = <#owned as #rt::ZapStruct>::write(child, obj.builder());
                            obj.set_object(#o, at);
                        }
                    },
                    setter_arg: quote!(&#owned),
                    setter_body: quote! {
                        let at = <#owned as #rt::ZapStruct>::write(v, self.obj.builder());
                        self.obj.set_object(#off, at);
                    },
                    with: None,
                }
            }
            Type::List(list) => Self::list(field, &list.elem, list.shape, rt, off, v, got),
        }
    }

    fn list(
        field: &Field,
        elem: &Type,
        shape: ListShape,
        rt: &syn::Path,
        off: Literal,
        v: &TokenStream,
        got: &TokenStream,
    ) -> TypeCode {
        // (owned element type, getter type, getter body, from_reader, writer fn, with)
        let (elem_ty, getter_ty, getter_body, from_reader, writer, with) = match (elem, shape) {
            (Type::Scalar(s), _) => {
                let t = scalar_type(*s);
                let with = match s {
                    Scalar::U64 => Some("u64_list"),
                    Scalar::I64 => Some("i64_list"),
                    _ => None,
                };
                (
                    t.clone(),
                    quote!(#rt::Scalars<'a, #t>),
                    quote!(self.obj.list(#off).scalars::<#t>()),
                    quote!(#got.collect()),
                    quote!(#rt::write_scalar_list),
                    with,
                )
            }
            (Type::BytesFixed(n), _) => {
                let n = lit(*n);
                (
                    quote!([u8; #n]),
                    quote!(impl ::core::iter::ExactSizeIterator<Item = &'a [u8; #n]> + ::core::clone::Clone + 'a),
                    quote!(self.obj.list(#off).bytes_fixed_items::<#n>()),
                    quote!(#got.copied().collect()),
                    quote!(#rt::write_fixed_list),
                    Some("hex_array_list"),
                )
            }
            (Type::Text, _) => (
                quote!(::std::string::String),
                quote!(#rt::Texts<'a>),
                quote!(self.obj.list(#off).texts()),
                quote!(#got.map(::std::string::String::from).collect()),
                quote!(#rt::write_text_list),
                None,
            ),
            (Type::Bytes, _) => (
                quote!(::std::vec::Vec<u8>),
                quote!(#rt::Framed<'a>),
                quote!(self.obj.list(#off).framed()),
                quote!(#got.map(<[u8]>::to_vec).collect()),
                quote!(#rt::write_framed_list),
                Some("hex_bytes_list"),
            ),
            (Type::Struct(name), ListShape::Pointer) => {
                let owned = struct_type(field, name);
                (
                    quote!(::core::option::Option<#owned>),
                    quote!(impl ::core::iter::Iterator<Item = ::core::option::Option<<#owned as #rt::ZapStruct>::Reader<'a>>> + ::core::clone::Clone + 'a),
                    quote!(self.obj.list(#off).pointers().map(|o| if o.is_null() { ::core::option::Option::None } else { ::core::option::Option::Some(<#owned as #rt::ZapStruct>::reader(o)) })),
                    quote!(#got.map_while(|o| match o {
                        ::core::option::Option::None => ::core::option::Option::Some(::core::option::Option::None),
                        ::core::option::Option::Some(e) => __budget.child::<#owned>(e).map(::core::option::Option::Some),
                    }).collect()),
                    quote!(#rt::write_pointer_list),
                    None,
                )
            }
            // Strided or framed: `T::INLINE` decides, at compile time, in the runtime.
            (Type::Struct(name), _) => {
                let owned = struct_type(field, name);
                (
                    quote!(#owned),
                    quote!(#rt::Structs<'a, #owned>),
                    quote!(#rt::struct_list::<#owned>(self.obj.list(#off))),
                    quote!(#got.map_while(|e| __budget.child::<#owned>(e)).collect()),
                    quote!(#rt::write_struct_list),
                    None,
                )
            }
            // Lists of lists are refused by the checker; generate an empty list view so
            // a hand-built IR cannot make the generator panic.
            (Type::List(_), _) => (
                quote!(()),
                quote!(#rt::List<'a>),
                quote!(self.obj.list(#off)),
                quote!({ let _ = #got; ::std::vec::Vec::new() }),
                quote!((|_: &mut #rt::Builder, _: &[()]| #rt::ListRef::default())),
                None,
            ),
        };
        let o = off.clone();
        let w = writer.clone();
        TypeCode {
            owned_ty: quote!(::std::vec::Vec<#elem_ty>),
            zero: quote!(::core::default::Default::default()),
            getter_ty,
            getter_body,
            from_reader,
            write: quote! {
                if !#v.is_empty() {
                    let list = #w(obj.builder(), &#v);
                    obj.set_list(#o, list);
                }
            },
            setter_arg: quote!(&[#elem_ty]),
            setter_body: quote! {
                if !v.is_empty() {
                    let list = #writer(self.obj.builder(), v);
                    self.obj.set_list(#off, list);
                }
            },
            with,
        }
    }
}

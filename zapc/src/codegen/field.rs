//! The code of one field. A [`FieldGen`] knows the field's [`Kind`] with every Rust type
//! already spelled, and has one method per generated piece: the owned field, its zero,
//! the reader's getter and `Debug` entry, the conversion from the reader, the write in
//! `write_fields`, the one-copy encode, and the builder's setters.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{doc_attrs, names, runtime_string};
use crate::ir::{Field, ListShape, Scalar, Type};

/// What a field holds, with the Rust spelling of every type it involves.
enum Kind {
    /// A scalar; `with` names the serde adapter under `<rt>::json`, if any.
    Scalar {
        ty: TokenStream,
        with: Option<&'static str>,
    },
    Text,
    Bytes,
    /// `bytes_fixed[N]`.
    Fixed(u32),
    /// A pointer to a child struct (`ty` is the child's owned type).
    Child {
        ty: TokenStream,
    },
    List(ListKind),
}

/// The element kinds of a list.
enum ListKind {
    Scalars {
        ty: TokenStream,
        with: Option<&'static str>,
    },
    Fixed(u32),
    Texts,
    Bytes,
    /// `list<T>` of structs: strided or framed, decided by `T::INLINE` in the runtime.
    Structs {
        ty: TokenStream,
    },
    /// `list<ptr<T>>`.
    Pointers {
        ty: TokenStream,
    },
}

/// Names the getters of a reader must not take (they are the reader's own methods).
const READER_METHODS: &[&str] = &["from_object", "parse", "as_object", "to_value"];

/// How the Rust side spells one field: schema fields follow the naming conventions, a
/// derive passes what the user wrote.
pub struct FieldNames {
    /// The owned struct's field.
    pub ident: Ident,
    /// snake_case base of the getter, setters and offset constant (unescaped).
    pub snake: String,
    /// The owned field's type, when the user wrote it (derive).
    pub owned_ty: Option<TokenStream>,
    /// The Rust type a [`Type::Struct`] in this field stands for, when the user wrote it.
    pub struct_ty: Option<TokenStream>,
    /// The Rust type a [`Type::Enum`] in this field stands for, when the user wrote it.
    pub enum_ty: Option<TokenStream>,
}

impl FieldNames {
    /// The conventions for a schema field (`BlockHash` -> `block_hash`).
    pub fn for_schema(field: &Field) -> Self {
        FieldNames {
            ident: names::field_ident(&field.name),
            snake: names::snake(&field.name),
            owned_ty: None,
            struct_ty: None,
            enum_ty: None,
        }
    }
}

/// Everything needed to generate one field's code.
pub struct FieldGen<'a> {
    field: &'a Field,
    kind: Kind,
    /// The owned struct's field.
    pub ident: Ident,
    getter: Ident,
    setter: Ident,
    setter_at: Ident,
    offset_const: Ident,
    /// `Owner::FIELD_OFFSET`, how every body names the field's position.
    offset: TokenStream,
    owned_ty: TokenStream,
    rt: &'a syn::Path,
}

impl<'a> FieldGen<'a> {
    /// The generator of `field`, a field of the struct whose owned type is `owner`.
    pub fn new(field: &'a Field, names: FieldNames, owner: &Ident, rt: &'a syn::Path) -> Self {
        let struct_ty = |name: &str| match &names.struct_ty {
            Some(ty) => ty.clone(),
            None => names::type_path(name),
        };
        let enum_ty = |name: &str| match &names.enum_ty {
            Some(ty) => ty.clone(),
            None => names::type_path(name),
        };
        let kind = Kind::of(&field.ty, &struct_ty, &enum_ty);
        let offset_const = names::offset_const(&names.snake);
        let owned_ty = names.owned_ty.clone().unwrap_or_else(|| kind.owned_ty(rt));
        let getter = if READER_METHODS.contains(&names.snake.as_str()) {
            format_ident!("{}_field", names.snake)
        } else {
            names::ident(&names.snake)
        };
        FieldGen {
            field,
            ident: names.ident,
            getter,
            setter: format_ident!("set_{}", names.snake),
            setter_at: format_ident!("set_{}_at", names.snake),
            offset: quote!(#owner::#offset_const),
            offset_const,
            owned_ty,
            kind,
            rt,
        }
    }

    /// The owned field's type.
    pub fn owned_ty(&self) -> &TokenStream {
        &self.owned_ty
    }

    /// The schema's doc comment, or a line saying what the field is and where.
    fn doc(&self) -> TokenStream {
        if !self.field.doc.is_empty() {
            return doc_attrs(&self.field.doc);
        }
        let f = self.field;
        let ty = f.ty.schema_syntax();
        let line = match &self.kind {
            Kind::Scalar { .. } | Kind::Fixed(_) => {
                format!("`{}`: `{ty}` at byte {}.", f.name, f.offset)
            }
            Kind::Child { .. } => format!(
                "`{}`: a `{ty}`, pointed at from byte {}; `None` when null.",
                f.name, f.offset
            ),
            Kind::Text | Kind::Bytes | Kind::List(_) => format!(
                "`{}`: `{ty}`, slot at byte {}; empty when absent.",
                f.name, f.offset
            ),
        };
        doc_attrs(&[line])
    }

    /// `pub const FIELD_OFFSET: usize = N;`
    pub fn offset_const(&self) -> TokenStream {
        let name = &self.offset_const;
        let at = proc_macro2::Literal::u32_unsuffixed(self.field.offset);
        let doc = format!(
            " Byte offset of `{}` in the fixed section.",
            self.field.name
        );
        quote! {
            #[doc = #doc]
            pub const #name: usize = #at;
        }
    }

    /// `#[deprecated]` for a field declared `deprecated`, else nothing.
    fn deprecated(&self) -> TokenStream {
        super::evolution::deprecated_attr(self.field.deprecated)
    }

    /// The field of a schema struct's owned type, with its JSON attributes.
    pub fn owned_field(&self) -> TokenStream {
        let (doc, ident, ty, json) = (self.doc(), &self.ident, &self.owned_ty, self.json_attrs());
        let deprecated = self.deprecated();
        quote! {
            #doc
            #deprecated
            #json
            pub #ident: #ty,
        }
    }

    /// `#[serde(rename = "key", with = "<rt>::json::adapter")]`, without the parts
    /// serde needs no word for.
    pub fn json_attrs(&self) -> TokenStream {
        let key = self.field.json_key();
        let json = &self.field.json;
        let adapter = match (&self.kind, json.quantity, json.block_tags) {
            (Kind::Scalar { .. }, true, true) => Some("block_quantity"),
            (Kind::Scalar { .. }, false, true) => Some("block_number"),
            (Kind::Scalar { .. }, true, false) => Some("quantity"),
            _ => self.kind.json_with(),
        };
        let rt = runtime_string(self.rt);
        // serde names a field by its identifier: say the key only where it differs.
        let ident = syn::ext::IdentExt::unraw(&self.ident).to_string();
        let rename = (key != ident).then(|| quote!(rename = #key,));
        match adapter {
            // Absent from JSON, a block is Ethereum's default block, `latest`.
            Some(adapter) if json.block_tags => {
                let with = format!("{rt}::json::{adapter}");
                let default = format!("{rt}::json::block_tag::latest");
                quote!(#[serde(#rename with = #with, default = #default)])
            }
            Some(adapter) => {
                let with = format!("{rt}::json::{adapter}");
                quote!(#[serde(#rename with = #with)])
            }
            None if rename.is_some() => quote!(#[serde(rename = #key)]),
            None => TokenStream::new(),
        }
    }

    /// The zero value of the owned field (absent on the wire and in JSON).
    pub fn zero(&self) -> TokenStream {
        match &self.kind {
            Kind::Fixed(n) => {
                let n = lit(*n);
                quote!([0u8; #n])
            }
            Kind::Child { .. } => quote!(::core::option::Option::None),
            _ => quote!(::core::default::Default::default()),
        }
    }

    /// The reader's getter.
    pub fn getter(&self) -> TokenStream {
        let (doc, name, rt, off) = (self.doc(), &self.getter, self.rt, &self.offset);
        let (ty, body) = match &self.kind {
            Kind::Scalar { ty, .. } => (quote!(#ty), quote!(self.obj.get::<#ty>(#off))),
            Kind::Text => (quote!(&'a str), quote!(self.obj.text(#off))),
            Kind::Bytes => (quote!(&'a [u8]), quote!(self.obj.bytes(#off))),
            Kind::Fixed(n) => {
                let n = lit(*n);
                (
                    quote!(&'a [u8; #n]),
                    quote!(self.obj.bytes_fixed::<#n>(#off)),
                )
            }
            Kind::Child { ty } => (
                quote!(::core::option::Option<<#ty as #rt::ZapStruct>::Reader<'a>>),
                quote! {
                    let obj = self.obj.object(#off);
                    if obj.is_null() {
                        ::core::option::Option::None
                    } else {
                        ::core::option::Option::Some(<#ty as #rt::ZapStruct>::reader(obj))
                    }
                },
            ),
            Kind::List(list) => list.getter(rt, off),
        };
        let deprecated = self.deprecated();
        quote! {
            #doc
            #deprecated
            #[inline]
            pub fn #name(&self) -> #ty { #body }
        }
    }

    /// The field's entry in the reader's `Debug`: values for scalars, bytes and scalar
    /// lists; where a child or a list of structs or strings is (a message may point into
    /// itself, so children are not followed).
    pub fn debug_entry(&self) -> TokenStream {
        let (getter, off) = (&self.getter, &self.offset);
        let key = syn::ext::IdentExt::unraw(getter).to_string();
        match &self.kind {
            Kind::Child { .. } => quote!(.field(#key, &self.obj.object(#off))),
            Kind::List(ListKind::Scalars { .. }) => quote!(.field(#key, &self.#getter())),
            Kind::List(_) => quote!(.field(#key, &self.obj.list(#off))),
            _ => quote!(.field(#key, &self.#getter())),
        }
    }

    /// `ident: <the value read through reader r>,` for `ZapStruct::from_reader_in`.
    pub fn decode(&self) -> TokenStream {
        let (ident, getter) = (&self.ident, &self.getter);
        let got = quote!(r.#getter());
        let value = match &self.kind {
            Kind::Scalar { .. } => got,
            Kind::Text => quote!(::std::string::String::from(#got)),
            Kind::Bytes => quote!(#got.to_vec()),
            Kind::Fixed(_) => quote!(*#got),
            // `From` boxes for `Option<Box<T>>` and is the identity for `Option<T>`.
            Kind::Child { ty } => quote! {
                #got.and_then(|c| __budget.child::<#ty>(c)).map(::core::convert::From::from)
            },
            Kind::List(list) => list.decode(&got),
        };
        quote!(#ident: #value,)
    }

    /// A `text` or `bytes` field: its payload goes after the object's children.
    pub fn is_payload(&self) -> bool {
        matches!(self.kind, Kind::Text | Kind::Bytes)
    }

    /// The statement writing the owned value onto `obj` in `ZapStruct::write_fields`
    /// (payload fields are written after every other field; see `companions`).
    pub fn write(&self) -> TokenStream {
        let (ident, off, rt) = (&self.ident, &self.offset, self.rt);
        let value = quote!(self.#ident);
        match &self.kind {
            Kind::Scalar { ty, .. } => quote!(obj.set::<#ty>(#off, #value);),
            Kind::Text => quote!(obj.set_text_last(#off, &#value);),
            Kind::Bytes => quote!(obj.set_bytes_last(#off, &#value);),
            Kind::Fixed(_) => quote!(obj.set_bytes_fixed(#off, &#value);),
            Kind::Child { ty } => quote! {
                if let ::core::option::Option::Some(child) = &#value {
                    let at = <#ty as #rt::ZapStruct>::write(child, obj.builder());
                    obj.set_object(#off, at.position());
                }
            },
            Kind::List(list) => {
                let writer = list.writer(rt);
                quote! {
                    if !#value.is_empty() {
                        let list = #writer(obj.builder(), &#value);
                        obj.set_list(#off, list);
                    }
                }
            }
        }
    }

    /// The statement setting this (inline) field on the one-copy encode's
    /// `InlineObject` `m`.
    pub fn inline_write(&self) -> TokenStream {
        let (ident, off) = (&self.ident, &self.offset);
        match &self.kind {
            Kind::Scalar { ty, .. } => quote!(m.set::<#ty>(#off, self.#ident);),
            Kind::Fixed(_) => quote!(m.set_bytes_fixed(#off, &self.#ident);),
            // Not inline: a struct with such a field has no one-copy encode.
            _ => TokenStream::new(),
        }
    }

    /// The typed builder's setter, and for children and lists the `_at` setter that
    /// links one built separately.
    pub fn setters(&self) -> TokenStream {
        let (rt, off, setter) = (self.rt, &self.offset, &self.setter);
        let doc = if self.field.doc.is_empty() {
            let line = format!(
                "Set `{}` (`{}` at byte {}).",
                self.field.name,
                self.field.ty.schema_syntax(),
                self.field.offset
            );
            doc_attrs(&[line])
        } else {
            doc_attrs(&self.field.doc)
        };
        let (arg, body) = match &self.kind {
            Kind::Scalar { ty, .. } => (quote!(#ty), quote!(self.obj.set::<#ty>(#off, v);)),
            Kind::Text => (quote!(&str), quote!(self.obj.set_text(#off, v);)),
            Kind::Bytes => (quote!(&[u8]), quote!(self.obj.set_bytes(#off, v);)),
            Kind::Fixed(n) => {
                let n = lit(*n);
                (
                    quote!(&[u8; #n]),
                    quote!(self.obj.set_bytes_fixed(#off, v);),
                )
            }
            Kind::Child { ty } => (
                quote!(&#ty),
                quote! {
                    let at = <#ty as #rt::ZapStruct>::write(v, self.obj.builder());
                    self.obj.set_object(#off, at.position());
                },
            ),
            Kind::List(list) => {
                let (elem, writer) = (list.owned_elem(rt), list.writer(rt));
                (
                    quote!(&[#elem]),
                    quote! {
                        if !v.is_empty() {
                            let list = #writer(self.obj.builder(), v);
                            self.obj.set_list(#off, list);
                        }
                    },
                )
            }
        };
        let at = self.setter_at();
        let deprecated = self.deprecated();
        quote! {
            #doc
            #deprecated
            pub fn #setter(&mut self, v: #arg) -> &mut Self {
                #body
                self
            }
            #at
        }
    }

    fn setter_at(&self) -> TokenStream {
        let (rt, off, name) = (self.rt, &self.offset, &self.setter_at);
        let (what, arg, body) = match &self.kind {
            Kind::Child { ty } => (
                format!("a `{}`", self.field.ty.schema_syntax()),
                quote!(#rt::Offset<#ty>),
                quote!(self.obj.set_object(#off, at.position());),
            ),
            Kind::List(_) => (
                "a list".to_owned(),
                quote!(#rt::ListRef),
                quote!(self.obj.set_list(#off, at);),
            ),
            _ => return TokenStream::new(),
        };
        let doc = format!(
            " Point `{}` at {what} already built with [`Self::builder`].",
            self.field.name
        );
        let deprecated = self.deprecated();
        quote! {
            #[doc = #doc]
            #deprecated
            pub fn #name(&mut self, at: #arg) -> &mut Self {
                #body
                self
            }
        }
    }
}

impl Kind {
    fn of(
        ty: &Type,
        struct_ty: &dyn Fn(&str) -> TokenStream,
        enum_ty: &dyn Fn(&str) -> TokenStream,
    ) -> Kind {
        match ty {
            // An enum is a `Scalar` (through `ZapEnum`) with its own serde impls.
            Type::Enum { name, .. } => Kind::Scalar {
                ty: enum_ty(name),
                with: None,
            },
            Type::Scalar(s) => Kind::Scalar {
                ty: scalar_type(*s),
                with: match s {
                    Scalar::U64 => Some("u64_lenient"),
                    Scalar::I64 => Some("i64_lenient"),
                    _ => None,
                },
            },
            Type::Text => Kind::Text,
            Type::Bytes => Kind::Bytes,
            Type::BytesFixed(n) => Kind::Fixed(*n),
            Type::Struct(name) => Kind::Child {
                ty: struct_ty(name),
            },
            Type::List(list) => Kind::List(match (&list.elem, list.shape) {
                (Type::Enum { name, .. }, _) => ListKind::Scalars {
                    ty: enum_ty(name),
                    with: None,
                },
                (Type::Scalar(s), _) => ListKind::Scalars {
                    ty: scalar_type(*s),
                    with: match s {
                        Scalar::U64 => Some("u64_list"),
                        Scalar::I64 => Some("i64_list"),
                        _ => None,
                    },
                },
                (Type::BytesFixed(n), _) => ListKind::Fixed(*n),
                (Type::Text, _) => ListKind::Texts,
                (Type::Bytes, _) => ListKind::Bytes,
                (Type::Struct(name), ListShape::Pointer) => ListKind::Pointers {
                    ty: struct_ty(name),
                },
                (Type::Struct(name), _) => ListKind::Structs {
                    ty: struct_ty(name),
                },
                // Lists of lists are refused by the checker and the derive; a hand-built
                // IR gets a list of bytes rather than a generator panic.
                (Type::List(_), _) => ListKind::Bytes,
            }),
        }
    }

    fn owned_ty(&self, rt: &syn::Path) -> TokenStream {
        match self {
            Kind::Scalar { ty, .. } => ty.clone(),
            Kind::Text => quote!(::std::string::String),
            Kind::Bytes => quote!(::std::vec::Vec<u8>),
            Kind::Fixed(n) => {
                let n = lit(*n);
                quote!([u8; #n])
            }
            Kind::Child { ty } => quote!(::core::option::Option<::std::boxed::Box<#ty>>),
            Kind::List(list) => {
                let elem = list.owned_elem(rt);
                quote!(::std::vec::Vec<#elem>)
            }
        }
    }

    /// The serde adapter under `<rt>::json` that gives the spec's JSON mapping.
    fn json_with(&self) -> Option<&'static str> {
        match self {
            Kind::Scalar { with, .. } | Kind::List(ListKind::Scalars { with, .. }) => *with,
            Kind::Bytes => Some("hex_bytes"),
            Kind::Fixed(_) => Some("hex_array"),
            Kind::List(ListKind::Fixed(_)) => Some("hex_array_list"),
            Kind::List(ListKind::Bytes) => Some("hex_bytes_list"),
            _ => None,
        }
    }
}

impl ListKind {
    fn owned_elem(&self, _rt: &syn::Path) -> TokenStream {
        match self {
            ListKind::Scalars { ty, .. } | ListKind::Structs { ty } => ty.clone(),
            ListKind::Fixed(n) => {
                let n = lit(*n);
                quote!([u8; #n])
            }
            ListKind::Texts => quote!(::std::string::String),
            ListKind::Bytes => quote!(::std::vec::Vec<u8>),
            ListKind::Pointers { ty } => quote!(::core::option::Option<#ty>),
        }
    }

    /// The getter's return type and body.
    fn getter(&self, rt: &syn::Path, off: &TokenStream) -> (TokenStream, TokenStream) {
        let list = quote!(self.obj.list(#off));
        match self {
            ListKind::Scalars { ty, .. } => (
                quote!(#rt::Scalars<'a, #ty>),
                quote!(#list.scalars::<#ty>()),
            ),
            ListKind::Fixed(n) => {
                let n = lit(*n);
                (
                    quote!(impl ::core::iter::ExactSizeIterator<Item = &'a [u8; #n]> + ::core::clone::Clone + 'a),
                    quote!(#list.bytes_fixed_items::<#n>()),
                )
            }
            ListKind::Texts => (quote!(#rt::Texts<'a>), quote!(#list.texts())),
            ListKind::Bytes => (quote!(#rt::Framed<'a>), quote!(#list.framed())),
            ListKind::Structs { ty } => (
                quote!(#rt::Structs<'a, #ty>),
                quote!(#rt::__private::struct_list::<#ty>(#list)),
            ),
            ListKind::Pointers { ty } => (
                quote!(#rt::PointerStructs<'a, #ty>),
                quote!(#rt::PointerStructs::new(#list.pointers())),
            ),
        }
    }

    /// The owned list from the getter's value `got`.
    fn decode(&self, got: &TokenStream) -> TokenStream {
        match self {
            ListKind::Scalars { .. } => quote!(#got.collect()),
            ListKind::Fixed(_) => quote!(#got.copied().collect()),
            ListKind::Texts => quote!(#got.map(::std::string::String::from).collect()),
            ListKind::Bytes => quote!(#got.map(<[u8]>::to_vec).collect()),
            ListKind::Structs { ty } => quote!(__budget.children::<#ty>(#got)),
            ListKind::Pointers { ty } => quote!(__budget.optional_children::<#ty>(#got)),
        }
    }

    /// The runtime function writing the owned list.
    fn writer(&self, rt: &syn::Path) -> TokenStream {
        match self {
            ListKind::Scalars { .. } => quote!(#rt::__private::write_scalar_list),
            ListKind::Fixed(_) => quote!(#rt::__private::write_fixed_list),
            ListKind::Texts => quote!(#rt::__private::write_text_list),
            ListKind::Bytes => quote!(#rt::__private::write_framed_list),
            ListKind::Structs { .. } => quote!(#rt::__private::write_struct_list),
            ListKind::Pointers { .. } => quote!(#rt::__private::write_pointer_list),
        }
    }
}

/// The Rust type of a scalar.
pub fn scalar_type(s: Scalar) -> TokenStream {
    let ident = format_ident!("{}", s.keyword());
    quote!(#ident)
}

fn lit(n: u32) -> proc_macro2::Literal {
    proc_macro2::Literal::u32_unsuffixed(n)
}

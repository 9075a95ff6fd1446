//! Rust field types to ZAP types (spec/wire.md §2):
//!
//! | Rust | ZAP |
//! |---|---|
//! | `bool`, `u8`..`u64`, `i8`..`i64`, `f32`, `f64` | the scalar of the same name |
//! | `[u8; N]` (N a literal) | `bytes_fixed[N]` |
//! | `String` | `text` |
//! | `Vec<u8>` | `bytes` |
//! | `Option<T>`, `Option<Box<T>>` (T a ZAP struct) | `T`: a pointer, null is `None` |
//! | `Vec<E>` for E one of the above (not `u8`), or a ZAP struct | `list<E>` |
//! | `Vec<Option<T>>` (T a ZAP struct) | `list<ptr<T>>` |
//!
//! Types are recognised by their last path segment (as serde does for `Option`), so
//! `::std::string::String` and `String` both mean `text`.

use syn::{GenericArgument, PathArguments, Type};

use zapc::ir::{self, List, ListShape, Scalar};

/// A field type mapped to ZAP: the IR type and, when it involves a struct, that struct's
/// Rust type (the pointer target or the list element).
pub struct Mapped {
    pub ty: ir::Type,
    pub struct_ty: Option<Type>,
    /// The enum's Rust type, for a field declared `#[zap(enum = ...)]`.
    pub enum_ty: Option<Type>,
}

const SUPPORTED: &str = "supported field types: bool, u8..u64, i8..i64, f32, f64, [u8; N], String, \
Vec<u8>, Option<T> or Option<Box<T>> for a ZAP struct T, and Vec of any of these (Vec<Option<T>> for a pointer list)";

/// Map a field's type, or explain at the offending token why it has no ZAP type.
pub fn map_field(ty: &Type) -> syn::Result<Mapped> {
    let ty = strip(ty);
    if let Some(fixed) = bytes_fixed(ty)? {
        return Ok(plain(fixed));
    }
    let Some((name, args)) = last_segment(ty) else {
        return Err(unsupported(ty));
    };
    if let Some(s) = scalar(&name, args) {
        return Ok(plain(ir::Type::Scalar(s)));
    }
    match (name.as_str(), single_arg(args)) {
        ("String", None) if args.is_empty() => Ok(plain(ir::Type::Text)),
        ("Vec", Some(elem)) => {
            if is_u8(elem) {
                Ok(plain(ir::Type::Bytes))
            } else {
                list(elem)
            }
        }
        ("Option", Some(inner)) => pointer(ty, inner),
        ("Box", Some(inner)) => Err(syn::Error::new_spanned(
            ty,
            format!(
                "a nested struct is a pointer that may be null: write `Option<Box<{}>>`",
                tokens(inner)
            ),
        )),
        _ => Err(not_a_field_type(ty, &name, args)),
    }
}

/// A field declared `#[zap(enum = repr)]`: an enum type `E` (a path without generic
/// arguments) or `Vec<E>`, a strided list of it. Whether `E` really is a ZAP enum of that
/// representation is checked by the compiler (`E: ZapEnum<Repr = repr>`), at this token.
pub fn map_enum_field(ty: &Type, repr: Scalar) -> syn::Result<Mapped> {
    let ty = strip(ty);
    let enum_type = |e: &Type| ir::Type::Enum {
        name: struct_name(e),
        repr,
    };
    if let Some((name, args)) = last_segment(ty) {
        if name == "Vec" {
            if let Some(elem) = single_arg(args).map(strip).and_then(struct_path) {
                return Ok(Mapped {
                    ty: list_of(
                        enum_type(elem),
                        ListShape::Strided {
                            width: repr.width(),
                        },
                    ),
                    struct_ty: None,
                    enum_ty: Some(elem.clone()),
                });
            }
        } else if let Some(e) = struct_path(ty) {
            return Ok(Mapped {
                ty: enum_type(e),
                struct_ty: None,
                enum_ty: Some(e.clone()),
            });
        }
    }
    Err(syn::Error::new_spanned(
        ty,
        "`#[zap(enum = ...)]` is for a field of a ZAP enum type `E` or a `Vec<E>`",
    ))
}

/// `[u8; N]` with a literal N.
fn bytes_fixed(ty: &Type) -> syn::Result<Option<ir::Type>> {
    let Type::Array(array) = ty else {
        return Ok(None);
    };
    if !is_u8(&array.elem) {
        return Err(syn::Error::new_spanned(
            &array.elem,
            "only byte arrays `[u8; N]` have a ZAP type (bytes_fixed[N]); use Vec<T> for a list",
        ));
    }
    let n = match &array.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<u32>().ok(),
        _ => {
            return Err(syn::Error::new_spanned(
                &array.len,
                "the length of a `[u8; N]` field must be an integer literal: the derive lays out the struct and needs the number",
            ))
        }
    };
    match n {
        Some(n) if n > 0 => Ok(Some(ir::Type::BytesFixed(n))),
        _ => Err(syn::Error::new_spanned(
            &array.len,
            "bytes_fixed[N] needs 1 to 4294967295 bytes",
        )),
    }
}

/// `Option<T>` / `Option<Box<T>>` for a struct `T`.
fn pointer(whole: &Type, inner: &Type) -> syn::Result<Mapped> {
    let inner = strip(inner);
    let target = match last_segment(inner) {
        Some((name, args)) if name == "Box" => single_arg(args).map(strip).unwrap_or(inner),
        _ => inner,
    };
    if let Some(target) = struct_path(target) {
        return Ok(Mapped {
            ty: ir::Type::Struct(struct_name(target)),
            struct_ty: Some(target.clone()),
            enum_ty: None,
        });
    }
    Err(syn::Error::new_spanned(
        whole,
        format!(
            "`Option` is for a nested ZAP struct (a pointer that may be null); `{}` is not one. \
ZAP has no optional scalars or strings: an absent field reads as zero or empty, so use `{}` itself",
            tokens(inner),
            tokens(inner)
        ),
    ))
}

/// `Vec<E>` (E not `u8`).
fn list(elem: &Type) -> syn::Result<Mapped> {
    let elem = strip(elem);
    if let Some((name, args)) = last_segment(elem) {
        if name == "Option" {
            let target = single_arg(args).map(strip);
            if let Some(target) = target.and_then(struct_path) {
                return Ok(Mapped {
                    ty: list_of(ir::Type::Struct(struct_name(target)), ListShape::Pointer),
                    struct_ty: Some(target.clone()),
                    enum_ty: None,
                });
            }
            return Err(syn::Error::new_spanned(
                elem,
                "a list element `Option<T>` makes a pointer list (list<ptr<T>>): T must be a ZAP struct",
            ));
        }
        if name == "Vec" && single_arg(args).is_some_and(|e| !is_u8(e)) {
            return Err(syn::Error::new_spanned(
                elem,
                "ZAP has no lists of lists; wrap the inner list in a struct",
            ));
        }
    }
    if let Some(target) = struct_path(elem) {
        // Strided or framed: the element's `ZapStruct::INLINE` decides when the generated
        // code compiles (this derive cannot see another struct's fields).
        return Ok(Mapped {
            ty: list_of(ir::Type::Struct(struct_name(target)), ListShape::Framed),
            struct_ty: Some(target.clone()),
            enum_ty: None,
        });
    }
    let mapped = map_field(elem).map_err(|e| {
        let mut err = syn::Error::new_spanned(elem, "this list element has no ZAP type");
        err.combine(e);
        err
    })?;
    let shape = match &mapped.ty {
        ir::Type::Scalar(_) | ir::Type::Enum { .. } | ir::Type::BytesFixed(_) => {
            ListShape::Strided {
                width: mapped.ty.slot_width(),
            }
        }
        ir::Type::Text | ir::Type::Bytes => ListShape::Framed,
        ir::Type::Struct(_) | ir::Type::List(_) => ListShape::Framed,
    };
    Ok(Mapped {
        ty: list_of(mapped.ty, shape),
        struct_ty: mapped.struct_ty,
        enum_ty: mapped.enum_ty,
    })
}

fn list_of(elem: ir::Type, shape: ListShape) -> ir::Type {
    ir::Type::List(Box::new(List { elem, shape }))
}

/// A struct type as a list element or pointer target: any path without generic
/// arguments that is not a known non-struct type. Whether it really is a ZAP struct is
/// checked by the compiler (`T: ZapStruct`), at this token.
fn struct_path(ty: &Type) -> Option<&Type> {
    let (name, args) = last_segment(ty)?;
    let known = scalar(&name, args).is_some()
        || matches!(
            name.as_str(),
            "String"
                | "Vec"
                | "Option"
                | "Box"
                | "usize"
                | "isize"
                | "u128"
                | "i128"
                | "char"
                | "str"
        );
    (args.is_empty() && !known).then_some(ty)
}

/// Explain why a path type has no ZAP type.
fn not_a_field_type(ty: &Type, name: &str, args: &PathArguments) -> syn::Error {
    let message = match name {
        "usize" | "isize" => format!(
            "`{name}` has no fixed width on the wire; use u32/u64 (or i32/i64)"
        ),
        "u128" | "i128" => "ZAP has no 128-bit integers; use `[u8; 16]` (bytes_fixed[16])".to_owned(),
        "char" => "ZAP has no char type; use u32 or String".to_owned(),
        _ if args.is_empty() => format!(
            "a nested struct is a pointer that may be null: write `Option<{name}>` or `Option<Box<{name}>>`"
        ),
        _ => format!("`{}` has no ZAP type; {SUPPORTED}", tokens(ty)),
    };
    syn::Error::new_spanned(ty, message)
}

fn unsupported(ty: &Type) -> syn::Error {
    syn::Error::new_spanned(ty, format!("this type has no ZAP type; {SUPPORTED}"))
}

fn plain(ty: ir::Type) -> Mapped {
    Mapped {
        ty,
        struct_ty: None,
        enum_ty: None,
    }
}

/// Parentheses and invisible groups (from `macro_rules!`) do not change a type.
fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip(&p.elem),
        Type::Group(g) => strip(&g.elem),
        other => other,
    }
}

/// The last segment of a path type (no `<T as Trait>::` form): its name and arguments.
fn last_segment(ty: &Type) -> Option<(String, &PathArguments)> {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map(|s| (s.ident.to_string(), &s.arguments)),
        _ => None,
    }
}

/// The one type argument of `Name<T>`.
fn single_arg(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = args else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(t)] => Some(t),
        _ => None,
    }
}

fn scalar(name: &str, args: &PathArguments) -> Option<Scalar> {
    if !args.is_empty() {
        return None;
    }
    Scalar::from_keyword(name)
}

fn is_u8(ty: &Type) -> bool {
    matches!(last_segment(ty), Some((name, args)) if name == "u8" && args.is_empty())
}

/// The schema name of a struct type: its last path segment.
fn struct_name(ty: &Type) -> String {
    last_segment(ty).map(|(name, _)| name).unwrap_or_default()
}

fn tokens(t: &impl quote::ToTokens) -> String {
    let s = quote::quote!(#t).to_string();
    s.replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
}

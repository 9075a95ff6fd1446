//! `const NAME: Type = value`: an integer, `bool` or `text` type, a value of that kind
//! that fits it, and a Rust name of its own.

use std::collections::HashMap;

use super::Context;
use crate::ast::{ConstDecl, ConstLiteral, Ident};
use crate::diag::Diagnostic;
use crate::ir::{ConstType, Scalar};
use crate::resolve::{BuiltinType, Resolved};

/// The types a constant may have, for hints.
const CONST_TYPES: &str = "an integer type (u8 u16 u32 u64 i8 i16 i32 i64), `bool` or `text`";

/// The type of a constant, if it is one a constant may have (aliases followed).
pub(crate) fn const_type(cx: &Context<'_>, decl: &ConstDecl) -> Option<ConstType> {
    match cx.symbols.resolve(&decl.ty)? {
        Resolved::Builtin(BuiltinType::Text) => Some(ConstType::Text),
        Resolved::Builtin(BuiltinType::Scalar(Scalar::Bool)) => Some(ConstType::Bool),
        Resolved::Builtin(BuiltinType::Scalar(s)) => integer_range(s).map(|_| ConstType::Int(s)),
        _ => None,
    }
}

/// The smallest and largest value of an integer scalar; `None` for floats and `bool`.
pub(crate) fn integer_range(scalar: Scalar) -> Option<(i128, i128)> {
    Some(match scalar {
        Scalar::U8 => (0, u8::MAX.into()),
        Scalar::U16 => (0, u16::MAX.into()),
        Scalar::U32 => (0, u32::MAX.into()),
        Scalar::U64 => (0, u64::MAX.into()),
        Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
        Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
        Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
        Scalar::I64 => (i64::MIN.into(), i64::MAX.into()),
        Scalar::Bool | Scalar::F32 | Scalar::F64 => return None,
    })
}

/// The Rust name of a constant: SHOUTY_SNAKE_CASE (`maxLogs` -> `MAX_LOGS`); `None` when
/// that does not start with a letter (`_1`).
pub fn rust_name(name: &str) -> Option<String> {
    let shouty = heck::ToShoutySnakeCase::to_shouty_snake_case(name);
    shouty
        .starts_with(|c: char| c.is_ascii_alphabetic())
        .then_some(shouty)
}

/// A constant whose type is not an integer, `bool` or `text`, or whose value is not of
/// its type's kind or does not fit it.
pub(super) fn const_values(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.consts() {
        let Some(ty) = const_type(cx, decl) else {
            errors.push(unsupported_type(cx, decl));
            continue;
        };
        let written = decl.ty.to_schema_syntax();
        let expected = match ty {
            ConstType::Int(_) => "an integer",
            ConstType::Bool => "`true` or `false`",
            ConstType::Text => "a quoted text",
        };
        let example = match ty {
            ConstType::Int(_) => "`1000`",
            ConstType::Bool => "`true`",
            ConstType::Text => "`\"zap\"`",
        };
        let kind_fits = matches!(
            (ty, &decl.value),
            (ConstType::Int(_), ConstLiteral::Integer { .. })
                | (ConstType::Bool, ConstLiteral::Bool { .. })
                | (ConstType::Text, ConstLiteral::Text { .. })
        );
        if !kind_fits {
            errors.push(
                Diagnostic::error(
                    format!(
                        "constant `{}` is a `{written}`, but its value is {}",
                        decl.name.text,
                        decl.value.kind()
                    ),
                    decl.value.span(),
                    format!("expected {expected}"),
                )
                .with_secondary(decl.ty.span.clone(), "the constant's type")
                .with_hint(format!("write {expected} here, e.g. {example}")),
            );
            continue;
        }
        let ConstType::Int(scalar) = ty else {
            continue;
        };
        let Some((min, max)) = integer_range(scalar) else {
            continue;
        };
        let fits = decl.value.integer().filter(|v| (min..=max).contains(v));
        if fits.is_none() {
            let ConstLiteral::Integer { text, span } = &decl.value else {
                continue;
            };
            errors.push(
                Diagnostic::error(
                    format!(
                        "{text} does not fit `{written}` (constant `{}`)",
                        decl.name.text
                    ),
                    span.clone(),
                    format!("out of range for `{}`", scalar.keyword()),
                )
                .with_secondary(decl.ty.span.clone(), "the constant's type")
                .with_hint(format!(
                    "{} `{}` holds {min} to {max}: use a value in that range or a wider type",
                    if scalar.keyword().starts_with('i') {
                        "an"
                    } else {
                        "a"
                    },
                    scalar.keyword()
                )),
            );
        }
    }
}

fn unsupported_type(cx: &Context<'_>, decl: &ConstDecl) -> Diagnostic {
    let written = decl.ty.to_schema_syntax();
    let unknown = matches!(&decl.ty.kind, crate::ast::TypeKind::Named(_))
        && cx.symbols.resolve(&decl.ty).is_none()
        && cx
            .file
            .interfaces()
            .all(|i| i.name.text != written.as_str());
    let message = if unknown {
        format!("unknown type `{written}` for constant `{}`", decl.name.text)
    } else {
        format!(
            "constant `{}` has type `{written}`, which a constant cannot have",
            decl.name.text
        )
    };
    Diagnostic::error(message, decl.ty.span.clone(), "not a constant type")
        .with_hint(format!("a constant has {CONST_TYPES}"))
}

/// A constant without a Rust name, or two constants with the same one.
pub(super) fn const_names(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let mut first_seen: HashMap<String, &Ident> = HashMap::new();
    for decl in cx.file.consts() {
        let Some(rust) = rust_name(&decl.name.text) else {
            errors.push(
                Diagnostic::error(
                    format!("constant `{}` has no Rust name", decl.name.text),
                    decl.name.span.clone(),
                    "gives no identifier in SHOUTY_SNAKE_CASE",
                )
                .with_hint("start the name with a letter, e.g. `MAX_LOGS`"),
            );
            continue;
        };
        match first_seen.get(&rust) {
            // Two constants of the same schema name are reported as duplicate declarations.
            Some(first) if first.text != decl.name.text => errors.push(
                Diagnostic::error(
                    format!(
                        "constants `{}` and `{}` are both generated as `{rust}`",
                        first.text, decl.name.text
                    ),
                    decl.name.span.clone(),
                    format!("also `{rust}` in Rust"),
                )
                .with_secondary(first.span.clone(), format!("`{rust}` in Rust"))
                .with_hint("constants become SHOUTY_SNAKE_CASE Rust names: rename one of them"),
            ),
            Some(_) => {}
            None => {
                first_seen.insert(rust, &decl.name);
            }
        }
    }
}

//! An enum has a representation of `u8`, `u16` or `u32`, at least one value, unique value
//! names and numbers, every number within its representation, and no value called
//! `Unknown` (the generated Rust enum's arm for numbers a reader does not know).

use std::collections::HashMap;

use super::Context;
use crate::ast::{EnumDecl, EnumValueDecl};
use crate::diag::Diagnostic;
use crate::ir::Scalar;
use crate::layout::enum_repr;

/// The name of the generated arm that keeps unknown numbers.
pub const UNKNOWN: &str = "Unknown";

/// A representation other than `u8`, `u16` or `u32`.
pub(super) fn enum_representation(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.enums() {
        if enum_repr(decl).is_some() {
            continue;
        }
        let repr = &decl.repr;
        let why = match Scalar::from_keyword(&repr.text) {
            Some(Scalar::U64) => "64-bit enums are not supported",
            Some(_) => "an enum is an unsigned integer",
            None => "not an integer type",
        };
        errors.push(
            Diagnostic::error(
                format!(
                    "enum `{}` is represented as `{}`, which an enum cannot be",
                    decl.name.text, repr.text
                ),
                repr.span.clone(),
                why,
            )
            .with_hint("write `u8`, `u16` or `u32` after the colon: `enum Color : u8 { ... }`"),
        );
    }
}

/// An enum without values.
pub(super) fn empty_enums(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.enums().filter(|e| e.values.is_empty()) {
        errors.push(
            Diagnostic::error(
                format!("enum `{}` has no values", decl.name.text),
                decl.name.span.clone(),
                "declared without values",
            )
            .with_hint("give it at least one value: `Name = 0`"),
        );
    }
}

/// A value name used twice in one enum, two names that are one Rust variant, or a value
/// named `Unknown`.
pub(super) fn enum_value_names(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.enums() {
        let mut first_seen: HashMap<&str, &EnumValueDecl> = HashMap::new();
        // The generated variant of each value: `self` becomes `self_`, so a value named
        // `self_` beside it would generate a Rust enum that does not compile.
        let mut rust_names: HashMap<String, &EnumValueDecl> = HashMap::new();
        for value in &decl.values {
            let name = &value.name;
            let rust = crate::codegen::names::type_ident(&name.text).to_string();
            match rust_names.get(&rust) {
                Some(first) if first.name.text != name.text => errors.push(
                    Diagnostic::error(
                        format!(
                            "values `{}` and `{}` of enum `{}` are both the Rust variant `{rust}`",
                            first.name.text, name.text, decl.name.text
                        ),
                        name.span.clone(),
                        format!("generated as `{rust}`"),
                    )
                    .with_secondary(first.name.span.clone(), format!("also generated as `{rust}`"))
                    .with_hint("a Rust keyword that cannot be a raw identifier gets a trailing `_`; rename one of the two"),
                ),
                Some(_) => {}
                None => {
                    rust_names.insert(rust, value);
                }
            }
            if name.text == UNKNOWN {
                errors.push(
                    Diagnostic::error(
                        format!("enum `{}` declares a value named `{UNKNOWN}`", decl.name.text),
                        name.span.clone(),
                        "reserved name",
                    )
                    .with_hint(
                        "`Unknown(n)` is the generated arm that keeps numbers a reader does not know; choose another name",
                    ),
                );
            }
            match first_seen.get(name.text.as_str()) {
                Some(first) => errors.push(
                    Diagnostic::error(
                        format!(
                            "duplicate value `{}` in enum `{}`",
                            name.text, decl.name.text
                        ),
                        name.span.clone(),
                        "declared again here",
                    )
                    .with_secondary(first.name.span.clone(), "first declared here")
                    .with_hint(format!(
                        "every value of `{}` needs its own name",
                        decl.name.text
                    )),
                ),
                None => {
                    first_seen.insert(&name.text, value);
                }
            }
        }
    }
}

/// A number used by two values of one enum, or one that does not fit its representation.
pub(super) fn enum_value_numbers(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.enums() {
        let mut first_seen: HashMap<u64, &EnumValueDecl> = HashMap::new();
        for value in &decl.values {
            let Some(number) = parse_value(value) else {
                errors.push(out_of_range(decl, value, "does not fit 32 bits"));
                continue;
            };
            if let Some(repr) = enum_repr(decl) {
                let max = max_of(repr);
                if number > max {
                    errors.push(out_of_range(
                        decl,
                        value,
                        &format!("larger than {max}, the largest `{}`", repr.keyword()),
                    ));
                    continue;
                }
            }
            match first_seen.get(&number) {
                Some(first) => errors.push(
                    Diagnostic::error(
                        format!(
                            "values `{}` and `{}` of enum `{}` are both {number}",
                            first.name.text, value.name.text, decl.name.text
                        ),
                        value.value.span.clone(),
                        "number used again here",
                    )
                    .with_secondary(first.value.span.clone(), "first used here")
                    .with_hint(
                        "on the wire a value is only its number: give every value its own number",
                    ),
                ),
                None => {
                    first_seen.insert(number, value);
                }
            }
        }
    }
}

/// The value's number, if it fits 32 bits.
fn parse_value(value: &EnumValueDecl) -> Option<u64> {
    value.value.as_u32().map(u64::from)
}

/// The largest number of an unsigned representation.
fn max_of(repr: Scalar) -> u64 {
    (1u64 << (repr.width() * 8)) - 1
}

fn out_of_range(decl: &EnumDecl, value: &EnumValueDecl, why: &str) -> Diagnostic {
    let hint = match enum_repr(decl) {
        Some(Scalar::U8) => "use a smaller number, or a wider representation (`u16`, `u32`)",
        Some(Scalar::U16) => "use a smaller number, or a wider representation (`u32`)",
        _ => "use a smaller number: an enum holds at most 32 bits",
    };
    Diagnostic::error(
        format!(
            "value `{}` of enum `{}` is {}, which does not fit `{}`",
            value.name.text, decl.name.text, value.value.digits, decl.repr.text
        ),
        value.value.span.clone(),
        why,
    )
    .with_hint(hint)
}

//! Explicit method ordinals, reserved ordinals and reserved field slots: every method has
//! its own ordinal from 1 to `u32::MAX`, never one a `reserved @N` line keeps, and a
//! reserved slot's name and bytes are never reused.

use std::collections::BTreeMap;

use super::Context;
use crate::ast::{FieldDecl, Ident, InterfaceDecl, MethodDecl, Number, Span, StructDecl};
use crate::diag::Diagnostic;
use crate::layout::Slot;

/// The first ordinal of the methods every zap-runtime server answers beside its
/// interface's own (reflection, health: `zap_runtime::builtin::RESERVED_FROM`).
const RESERVED_ORDINALS: u32 = 0xFFFF_FF00;

/// An explicit ordinal (`@N`) or a `reserved @N` that is 0, does not fit 32 bits, or is
/// one of the ordinals every server reserves.
pub(super) fn ordinals_out_of_range(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for interface in cx.file.interfaces() {
        let explicit = interface.methods.iter().filter_map(|m| m.ordinal.as_ref());
        let methods = explicit.clone().count();
        for (index, number) in explicit.chain(&interface.reserved).enumerate() {
            // A `reserved @N` line may restate what every server reserves; a method may not take it.
            let a_method = index < methods;
            match number.as_u32() {
                Some(0) => errors.push(
                    Diagnostic::error(
                        "method ordinal 0 is not allowed",
                        at_sign(number),
                        "ordinals start at 1",
                    )
                    .with_hint(
                        "a call names its method by a 1-based ordinal: number methods from `@1`",
                    ),
                ),
                Some(ordinal) if a_method && ordinal >= RESERVED_ORDINALS => errors.push(
                    Diagnostic::error(
                        format!(
                            "ordinal {ordinal:#X} is reserved for the methods every server answers"
                        ),
                        at_sign(number),
                        "reserved: 0xFFFFFF00 and above",
                    )
                    .with_hint(
                        "reflection and health sit at 0xFFFFFF01..0xFFFFFF03 in every interface: \
                         number methods below 0xFFFFFF00 (4294967040)",
                    ),
                ),
                Some(_) => {}
                None => errors.push(
                    Diagnostic::error(
                        format!("ordinal {} does not fit in 32 bits", number.digits),
                        at_sign(number),
                        "too large",
                    )
                    .with_hint("a call carries its method ordinal as a u32: at most 4294967295"),
                ),
            }
        }
    }
}

/// The span of `@N`, from the `@` before the digits.
fn at_sign(number: &Number) -> Span {
    number.span.start.saturating_sub(1)..number.span.end
}

/// The ordinal of the `position`-th method (0-based): its explicit `@N`, else its 1-based
/// position among the interface's methods (`reserved` lines do not count). `None` when the
/// explicit ordinal is out of range (reported by [`ordinals_out_of_range`]).
pub(crate) fn method_ordinal(position: usize, method: &MethodDecl) -> Option<u32> {
    match &method.ordinal {
        Some(number) => number.as_u32().filter(|n| *n != 0),
        None => u32::try_from(position + 1).ok(),
    }
}

/// Who holds an ordinal.
#[derive(Clone, Copy)]
enum Holder<'a> {
    /// A method with `@N` written.
    Explicit(&'a MethodDecl),
    /// A method numbered by its position.
    Implicit(&'a MethodDecl),
    /// A `reserved @N` line.
    Reserved(&'a Number),
}

impl Holder<'_> {
    fn start(&self) -> usize {
        match self {
            Holder::Explicit(m) | Holder::Implicit(m) => m.name.span.start,
            Holder::Reserved(n) => n.span.start,
        }
    }
}

/// Two methods with one ordinal, or a method with a reserved ordinal, or an ordinal
/// reserved twice. For a method numbered by position that collides with an explicit one,
/// the error is at the numbered one (it is the one to fix).
pub(super) fn ordinal_conflicts(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for interface in cx.file.interfaces() {
        let mut by_ordinal: BTreeMap<u32, Vec<Holder<'_>>> = BTreeMap::new();
        for (position, method) in interface.methods.iter().enumerate() {
            let Some(ordinal) = method_ordinal(position, method) else {
                continue;
            };
            let holder = match method.ordinal {
                Some(_) => Holder::Explicit(method),
                None => Holder::Implicit(method),
            };
            by_ordinal.entry(ordinal).or_default().push(holder);
        }
        for number in &interface.reserved {
            if let Some(ordinal) = number.as_u32().filter(|n| *n != 0) {
                by_ordinal
                    .entry(ordinal)
                    .or_default()
                    .push(Holder::Reserved(number));
            }
        }
        let free = by_ordinal
            .keys()
            .next_back()
            .map_or(1, |n| n.saturating_add(1));
        for (ordinal, mut holders) in by_ordinal {
            if holders.len() < 2 {
                continue;
            }
            holders.sort_by_key(Holder::start);
            conflicts(interface, ordinal, &holders, free, errors);
        }
    }
}

/// The errors of one ordinal held more than once, `holders` in declaration order.
fn conflicts(
    interface: &InterfaceDecl,
    ordinal: u32,
    holders: &[Holder<'_>],
    free: u32,
    errors: &mut Vec<Diagnostic>,
) {
    let reserved: Vec<&Number> = holders
        .iter()
        .filter_map(|h| match h {
            Holder::Reserved(n) => Some(*n),
            _ => None,
        })
        .collect();
    if let Some((first, again)) = reserved.split_first() {
        for number in again {
            errors.push(
                Diagnostic::error(
                    format!("ordinal {ordinal} is reserved twice"),
                    at_sign(number),
                    "reserved again here",
                )
                .with_secondary(at_sign(first), "first reserved here")
                .with_hint("remove one of the two `reserved` lines"),
            );
        }
        for holder in holders {
            let (method, span, how) = match holder {
                Holder::Explicit(m) => (*m, explicit_span(m), "given explicitly"),
                Holder::Implicit(m) => (*m, m.name.span.clone(), "by its position"),
                Holder::Reserved(_) => continue,
            };
            errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` has ordinal {ordinal} ({how}), which is reserved",
                        method.name.text
                    ),
                    span,
                    format!("ordinal {ordinal}"),
                )
                .with_secondary(at_sign(first), "reserved here")
                .with_hint(format!(
                    "a reserved ordinal belonged to a removed method, and old clients may still \
                     call it: give `{}` an unused ordinal, e.g. `{} @{free} (...)`",
                    method.name.text, method.name.text
                )),
            );
        }
        return;
    }
    // Methods only; at least one has `@N` (positions are distinct).
    let owner = holders.iter().find_map(|h| match h {
        Holder::Explicit(m) => Some(*m),
        _ => None,
    });
    let Some(owner) = owner else {
        return;
    };
    for holder in holders {
        match holder {
            Holder::Explicit(m) if std::ptr::eq(*m, owner) => {}
            Holder::Explicit(m) => errors.push(
                Diagnostic::error(
                    format!(
                        "methods `{}` and `{}` have the same ordinal {ordinal}",
                        owner.name.text, m.name.text
                    ),
                    explicit_span(m),
                    format!("ordinal {ordinal} again"),
                )
                .with_secondary(explicit_span(owner), "first given here")
                .with_hint(format!(
                    "a call carries only the ordinal: every method of `{}` needs its own",
                    interface.name.text
                )),
            ),
            Holder::Implicit(m) => errors.push(
                Diagnostic::error(
                    format!(
                        "method `{}` gets ordinal {ordinal} from its position, which method `{}` \
                         takes explicitly",
                        m.name.text, owner.name.text
                    ),
                    m.name.span.clone(),
                    format!("ordinal {ordinal} by position"),
                )
                .with_secondary(explicit_span(owner), format!("ordinal {ordinal} given here"))
                .with_hint(format!(
                    "give `{}` an explicit ordinal that no other method has, e.g. `{} @{free} (...)`",
                    m.name.text, m.name.text
                )),
            ),
            Holder::Reserved(_) => {}
        }
    }
}

/// The `@N` of a method with an explicit ordinal, else its name.
fn explicit_span(method: &MethodDecl) -> Span {
    match &method.ordinal {
        Some(number) => at_sign(number),
        None => method.name.span.clone(),
    }
}

/// A field that takes the name of an earlier reserved slot of its struct.
pub(super) fn reserved_name_reused(decl: &StructDecl, name: &Ident) -> Diagnostic {
    let reserved = decl
        .fields
        .iter()
        .find(|f| f.is_reserved() && f.name.text == name.text);
    let mut diagnostic = Diagnostic::error(
        format!(
            "field `{}` of `{}` takes the name of a reserved field",
            name.text, decl.name.text
        ),
        name.span.clone(),
        "declared again here",
    );
    if let Some(reserved) = reserved {
        diagnostic = diagnostic.with_secondary(reserved.name.span.clone(), "reserved here");
    }
    diagnostic.with_hint(
        "a reserved field keeps its name so that it is never reused with another meaning: \
         choose another name",
    )
}

/// The hint for two slots sharing bytes where one of them is a reserved slot (the later
/// one is reported, as for two fields; `offsets::overlap_error` writes the rest).
pub(super) fn reserved_overlap_hint(
    field: &FieldDecl,
    slot: &Slot,
    other: &FieldDecl,
    other_slot: &Slot,
) -> String {
    if field.is_reserved() && other.is_reserved() {
        "two reserved slots cannot share bytes: each keeps the bytes of one removed field"
            .to_owned()
    } else {
        format!(
            "a reserved slot keeps the bytes of a removed field, which old peers may still \
             write: place `{}` outside bytes {}..{}",
            if field.is_reserved() {
                &other.name.text
            } else {
                &field.name.text
            },
            if field.is_reserved() {
                slot.offset
            } else {
                other_slot.offset
            },
            if field.is_reserved() {
                slot.end()
            } else {
                other_slot.end()
            }
        )
    }
}

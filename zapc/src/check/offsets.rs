//! Offsets fit 32 bits, slots end within 32 bits, and no two slots share a byte.

use super::Context;
use crate::ast::FieldDecl;
use crate::diag::Diagnostic;
use crate::layout::Slot;

/// An explicit `@N` with N > u32::MAX.
pub(super) fn offset_too_large(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let offsets = file
        .structs()
        .flat_map(|s| &s.fields)
        .filter_map(|f| f.offset.as_ref());
    for offset in offsets.filter(|o| o.as_u32().is_none()) {
        errors.push(
            Diagnostic::error(
                format!("offset {} does not fit in 32 bits", offset.digits),
                offset.span.clone(),
                "too large",
            )
            .with_hint("offsets are byte positions in a fixed section of at most 4294967295 bytes"),
        );
    }
}

/// A slot that ends past u32::MAX (the struct size would not fit 32 bits). Once per struct.
pub(super) fn struct_too_large(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for (index, decl) in file.structs().enumerate() {
        let Some(slots) = cx.slots.of(index) else {
            continue;
        };
        let limit = u64::from(u32::MAX);
        let too_far = decl.fields.iter().zip(slots).find(|(_, s)| s.end() > limit);
        if let Some((field, slot)) = too_far {
            errors.push(
                Diagnostic::error(
                    format!(
                        "field `{}` ends at byte {}, past the 32-bit limit",
                        field.name.text,
                        slot.end()
                    ),
                    field.name.span.clone(),
                    format!(
                        "`{}` would make `{}` larger than 4294967295 bytes",
                        field.name.text, decl.name.text
                    ),
                )
                .with_hint("move the field to a smaller offset or make it narrower"),
            );
        }
    }
}

/// A slot sharing bytes with an earlier field's slot; reported at the later field.
pub(super) fn overlapping_slots(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    for (index, decl) in file.structs().enumerate() {
        let Some(slots) = cx.slots.of(index) else {
            continue;
        };
        let placed: Vec<(&FieldDecl, Slot)> =
            decl.fields.iter().zip(slots.iter().copied()).collect();
        for (index, (field, slot)) in placed.iter().enumerate() {
            let earlier = placed[..index].iter().find(|(_, e)| e.overlaps(slot));
            if let Some((other, other_slot)) = earlier {
                errors.push(overlap_error(field, slot, other, other_slot));
            }
        }
    }
}

fn overlap_error(
    field: &FieldDecl,
    slot: &Slot,
    other: &FieldDecl,
    other_slot: &Slot,
) -> Diagnostic {
    let what = |f: &FieldDecl| {
        if f.is_reserved() {
            format!("reserved field `{}`", f.name.text)
        } else {
            format!("field `{}`", f.name.text)
        }
    };
    let hint = if field.is_reserved() || other.is_reserved() {
        super::evolution::reserved_overlap_hint(field, slot, other, other_slot)
    } else {
        format!(
            "give `{}` an offset outside bytes {}..{} (gaps are allowed)",
            field.name.text,
            other_slot.offset,
            other_slot.end()
        )
    };
    let span = field.offset.as_ref().map_or(field.name.span.clone(), |o| {
        o.span.start.saturating_sub(1)..o.span.end
    });
    Diagnostic::error(
        format!(
            "{} (bytes {}..{}) overlaps {} (bytes {}..{})",
            what(field),
            slot.offset,
            slot.end(),
            what(other),
            other_slot.offset,
            other_slot.end()
        ),
        span,
        format!("`{}` starts at byte {}", field.name.text, slot.offset),
    )
    .with_secondary(
        other.name.span.clone(),
        format!(
            "`{}` occupies bytes {}..{}",
            other.name.text,
            other_slot.offset,
            other_slot.end()
        ),
    )
    .with_hint(hint)
}

//! Slot placement: the one place where offsets are computed.
//!
//! An omitted `@Offset` is the running sum of the previous slot widths (no alignment); an
//! explicit `@N` is kept and moves the cursor to `N + width`. Arithmetic is done in `u64`,
//! so a slot ending past `u32::MAX` is representable and can be reported, never wrapped.

use crate::ast::{FieldDecl, TypeExpr};

use super::symbols::{Resolved, Symbols};

/// Where one field's slot sits in its object's fixed section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub offset: u64,
    pub width: u64,
}

impl Slot {
    /// First byte after the slot.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.width)
    }

    /// True when the two slots share at least one byte (empty slots share none).
    pub fn overlaps(&self, other: &Slot) -> bool {
        self.offset < other.end() && other.offset < self.end()
    }
}

/// Width of the slot a field of type `ty` occupies, if the type is known and legal as a
/// field type.
pub fn slot_width<'a>(symbols: &Symbols<'a>, ty: &'a TypeExpr) -> Option<u64> {
    let width = match symbols.resolve(ty)? {
        Resolved::Builtin(builtin) => builtin.to_ir().slot_width(),
        Resolved::Struct(_) => 4,
        Resolved::List(_) => 8,
        Resolved::BytesFixed(n) => n.as_u32()?,
        Resolved::Ptr(_) => return None,
    };
    Some(u64::from(width))
}

/// Place every field of a struct, in declaration order. `None` when some field's width is
/// unknown or an explicit offset does not fit `u32` (both reported by their own rules).
pub fn place_slots<'a>(symbols: &Symbols<'a>, fields: &'a [FieldDecl]) -> Option<Vec<Slot>> {
    let mut cursor = 0u64;
    let mut slots = Vec::with_capacity(fields.len());
    for field in fields {
        let width = slot_width(symbols, &field.ty)?;
        let offset = match &field.offset {
            Some(number) => u64::from(number.as_u32()?),
            None => cursor,
        };
        let slot = Slot { offset, width };
        cursor = slot.end();
        slots.push(slot);
    }
    Some(slots)
}

/// The fixed size of an object: the largest slot end (0 without fields).
pub fn object_size(slots: &[Slot]) -> u64 {
    slots.iter().map(Slot::end).max().unwrap_or(0)
}

//! Slot placement: the one place where offsets are computed.
//!
//! An omitted `@Offset` is the running sum of the previous slot widths (no alignment); an
//! explicit `@N` is kept and moves the cursor to `N + width`. Arithmetic is done in `u64`,
//! so a slot ending past `u32::MAX` is representable and can be reported, never wrapped.
//!
//! A schema's slots are placed once, into a [`SlotTable`] that the checks (overlaps,
//! sizes) and the lowering to IR both read. `#[derive(Zap)]` places its fields with the
//! same rule through [`lay_out_struct`].

use crate::ast::{FieldDecl, SchemaFile, TypeExpr};
use crate::ir;
use crate::resolve::{Resolved, Symbols};

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
        Resolved::Enum(decl) => enum_repr(decl)?.width(),
        Resolved::List(_) => 8,
        Resolved::BytesFixed(n) => n.as_u32()?,
        Resolved::Ptr(_) => return None,
    };
    Some(u64::from(width))
}

/// The representation of an enum, if it is one of [`ir::Enum::REPRS`] (else reported by
/// the enum rules).
pub fn enum_repr(decl: &crate::ast::EnumDecl) -> Option<ir::Scalar> {
    ir::Scalar::from_keyword(&decl.repr.text).filter(|s| ir::Enum::REPRS.contains(s))
}

/// Place every field of a struct, in declaration order. `None` when some field's width is
/// unknown or an explicit offset does not fit `u32` (both reported by their own rules).
pub fn place_slots<'a>(symbols: &Symbols<'a>, fields: &'a [FieldDecl]) -> Option<Vec<Slot>> {
    let specs = fields
        .iter()
        .map(|field| {
            let width = slot_width(symbols, &field.ty)?;
            let offset = match &field.offset {
                Some(number) => Some(u64::from(number.as_u32()?)),
                None => None,
            };
            Some((width, offset))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(place(specs))
}

/// The placement rule itself, for any front end: `(width, explicit offset)` of each field
/// in declaration order to its slot.
pub fn place(fields: impl IntoIterator<Item = (u64, Option<u64>)>) -> Vec<Slot> {
    let mut cursor = 0u64;
    let mut slots = Vec::new();
    for (width, offset) in fields {
        let slot = Slot {
            offset: offset.unwrap_or(cursor),
            width,
        };
        cursor = slot.end();
        slots.push(slot);
    }
    slots
}

/// The slots of every struct of a file, placed once, in declaration order.
#[derive(Debug, Default)]
pub struct SlotTable {
    /// One entry per struct declaration; `None` when some field's width is unknown or an
    /// explicit offset does not fit `u32` (both reported by their own rules).
    structs: Vec<Option<Vec<Slot>>>,
}

impl SlotTable {
    /// Place the fields of every struct of `file`.
    pub fn place<'a>(file: &'a SchemaFile, symbols: &Symbols<'a>) -> Self {
        SlotTable {
            structs: file
                .structs()
                .map(|decl| place_slots(symbols, &decl.fields))
                .collect(),
        }
    }

    /// The slots of the `index`-th struct declaration (in [`SchemaFile::structs`] order),
    /// one per field, if they could all be placed.
    pub fn of(&self, index: usize) -> Option<&[Slot]> {
        self.structs.get(index)?.as_deref()
    }
}

/// A field before layout: what a front end knows about it.
#[derive(Debug, Clone)]
pub struct FieldSpec {
    pub name: String,
    pub doc: Vec<String>,
    pub ty: ir::Type,
    /// The explicit offset (`@N`, `#[zap(offset = N)]`), if any.
    pub offset: Option<u32>,
    /// How the field looks in JSON (never changes its slot).
    pub json: ir::FieldJson,
}

/// Why fields cannot be laid out. Indexes are positions in the field list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// Field `field` shares bytes with the earlier field `other`.
    Overlap {
        field: usize,
        slot: Slot,
        other: usize,
        other_slot: Slot,
    },
    /// Field `field` ends past `u32::MAX`.
    TooLarge { field: usize, end: u64 },
}

/// Lay out a struct declared in Rust: place every field, refuse overlaps and sizes past
/// 32 bits (every problem is reported), then build it as [`struct_from_slots`] does.
pub fn lay_out_struct(
    name: String,
    doc: Vec<String>,
    fields: Vec<FieldSpec>,
) -> Result<ir::Struct, Vec<LayoutError>> {
    let slots = place(
        fields
            .iter()
            .map(|f| (u64::from(f.ty.slot_width()), f.offset.map(u64::from))),
    );
    let errors = layout_errors(&slots);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(struct_from_slots(name, doc, fields, &slots))
}

/// Every overlap and every slot past 32 bits among placed slots.
fn layout_errors(slots: &[Slot]) -> Vec<LayoutError> {
    let mut errors = Vec::new();
    for (index, slot) in slots.iter().enumerate() {
        if slot.end() > u64::from(u32::MAX) {
            errors.push(LayoutError::TooLarge {
                field: index,
                end: slot.end(),
            });
        }
        if let Some(other) = slots[..index].iter().position(|e| e.overlaps(slot)) {
            errors.push(LayoutError::Overlap {
                field: index,
                slot: *slot,
                other,
                other_slot: slots[other],
            });
        }
    }
    errors
}

/// A laid-out struct from fields and their placed slots (one per field, in order), which
/// the caller has checked: no overlaps, every slot within 32 bits.
pub fn struct_from_slots(
    name: String,
    doc: Vec<String>,
    fields: Vec<FieldSpec>,
    slots: &[Slot],
) -> ir::Struct {
    // Every slot ends within 32 bits (checked by the caller), so these conversions hold.
    let to_u32 = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let all_inline = fields.iter().all(|f| f.ty.is_inline());
    let fields = fields
        .into_iter()
        .zip(slots)
        .map(|(f, slot)| ir::Field {
            name: f.name,
            doc: f.doc,
            ty: f.ty,
            json: f.json,
            offset: to_u32(slot.offset),
            width: to_u32(slot.width),
            deprecated: false,
        })
        .collect();
    let size = to_u32(object_size(slots));
    ir::Struct {
        name,
        doc,
        fields,
        size,
        list_shape: ir::ListShape::of_struct(all_inline, size),
        deprecated: false,
        reserved: Vec::new(),
    }
}

/// The fixed size of an object: the largest slot end (0 without fields).
pub fn object_size(slots: &[Slot]) -> u64 {
    slots.iter().map(Slot::end).max().unwrap_or(0)
}

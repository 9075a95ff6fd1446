//! Whether two types are the same on the wire and in JSON, and how they differ.

use super::*;

pub(super) fn positional(names: &Option<Vec<String>>) -> String {
    match names {
        Some(names) => format!("[{}]", names.join(", ")),
        None => "declaration order".to_owned(),
    }
}

/// The JSON differences of one field (key, `quantity`, `block_tags`).
pub(super) fn json_changes(old_f: &Field, new_f: &Field) -> Vec<String> {
    let (old_key, new_key) = (old_f.json_key(), new_f.json_key());
    let key =
        (old_key != new_key).then(|| format!("JSON key changes from `{old_key}` to `{new_key}`"));
    key.into_iter()
        .chain(option_changes(old_f, new_f))
        .collect()
}

/// The `json(quantity)` and `json(block_tags)` differences of one field.
pub(super) fn option_changes(old_f: &Field, new_f: &Field) -> Vec<String> {
    [
        ("quantity", old_f.json.quantity, new_f.json.quantity),
        ("block_tags", old_f.json.block_tags, new_f.json.block_tags),
    ]
    .into_iter()
    .filter(|(_, old_on, new_on)| old_on != new_on)
    .map(|(option, _, new_on)| {
        let verb = if new_on { "added" } else { "removed" };
        format!("json({option}) {verb}: its JSON encoding changes")
    })
    .collect()
}

/// How a field's type changed on the wire, as the end of a sentence starting with the field,
/// or `None` when both read the same bytes the same way.
pub(super) fn type_change(
    old: &Schema,
    old_ty: &Type,
    new: &Schema,
    new_ty: &Type,
) -> Option<String> {
    if same_wire_type(old, old_ty, new, new_ty) {
        return None;
    }
    let (o, n) = (old_ty.schema_syntax(), new_ty.schema_syntax());
    if let Some(message) = enum_width_change(old_ty, new_ty) {
        return Some(message);
    }
    if let (Type::List(ol), Type::List(nl)) = (old_ty, new_ty) {
        if ol.elem == nl.elem {
            let shape = |s: &ListShape| match s {
                ListShape::Strided { width } => format!("strided ({width} bytes per element)"),
                ListShape::Framed => "framed".to_owned(),
                ListShape::Pointer => "a pointer list".to_owned(),
            };
            return Some(format!(
                "(`{n}`): its elements change from {} to {}, so old peers misread every \
                 element after the first",
                shape(&ol.shape),
                shape(&nl.shape)
            ));
        }
    }
    if let (Type::Struct(_), Type::Struct(_)) = (old_ty, new_ty) {
        return Some(format!(
            "points to `{n}` instead of `{o}`, whose layouts differ: old peers read the child \
             object with the other layout"
        ));
    }
    let (ow, nw) = (old_ty.slot_width(), new_ty.slot_width());
    if ow != nw {
        Some(format!(
            "resized from `{o}` ({ow} bytes) to `{n}` ({nw} bytes): old peers read a different \
             number of bytes"
        ))
    } else {
        Some(format!(
            "retyped from `{o}` to `{n}`: old peers read the same bytes as another type"
        ))
    }
}

/// A field (or list) of an enum whose representation changed, as [`type_change`] says it.
pub(super) fn enum_width_change(old_ty: &Type, new_ty: &Type) -> Option<String> {
    match (old_ty, new_ty) {
        (Type::Enum { name: a, repr: x }, Type::Enum { name: b, repr: y }) if a == b && x != y => {
            Some(format!(
                "is resized with enum `{a}` from `{}` to `{}`: old peers read {} where new \
                 ones write {}",
                x.keyword(),
                y.keyword(),
                bytes(x.width()),
                bytes(y.width())
            ))
        }
        (Type::List(a), Type::List(b)) => enum_width_change(&a.elem, &b.elem).map(|_| {
            format!(
                "(`{}`): its elements are resized with their enum, so old peers misread every \
                 element after the first",
                new_ty.schema_syntax()
            )
        }),
        _ => None,
    }
}

/// "1 byte", "2 bytes".
pub(super) fn bytes(n: u32) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

/// How the JSON of a field changes when its type changes between an enum and an integer of
/// the same width, or between two enums (same bytes on the wire, reported by
/// [`type_change`] otherwise), as the end of a sentence starting with the field.
pub(super) fn enum_json_change(
    old: &Schema,
    old_ty: &Type,
    new: &Schema,
    new_ty: &Type,
) -> Option<String> {
    if !same_wire_type(old, old_ty, new, new_ty) {
        return None;
    }
    let (o, n) = (old_ty.schema_syntax(), new_ty.schema_syntax());
    match (old_ty, new_ty) {
        (Type::List(a), Type::List(b)) => enum_json_change(old, &a.elem, new, &b.elem).map(|_| {
            format!(
                "changes from `{o}` to `{n}`: the same bytes, but the JSON of its elements \
                 changes between value names and numbers"
            )
        }),
        (Type::Enum { .. }, Type::Scalar(_)) => Some(format!(
            "changes from `{o}` to `{n}`: the same bytes, but its JSON is now the number \
             instead of the value's name"
        )),
        (Type::Scalar(_), Type::Enum { .. }) => Some(format!(
            "changes from `{o}` to `{n}`: the same bytes, but its JSON is now the value's name \
             instead of the number"
        )),
        (Type::Enum { name: a, .. }, Type::Enum { name: b, .. }) if a != b => {
            let values = |schema: &Schema, name: &str| schema.enum_named(name).map(value_set);
            (values(old, a) != values(new, b)).then(|| {
                format!(
                    "changes from enum `{o}` to enum `{n}`, whose values differ: the same \
             bytes, but JSON clients see other names"
                )
            })
        }
        _ => None,
    }
}

/// True when two enums declare the same names with the same numbers.
pub(super) fn same_values(a: &Enum, b: &Enum) -> bool {
    value_set(a) == value_set(b)
}

/// The `(name, number)` pairs of an enum, sorted.
pub(super) fn value_set(e: &Enum) -> Vec<(String, u32)> {
    let mut values: Vec<(String, u32)> =
        e.values.iter().map(|v| (v.name.clone(), v.value)).collect();
    values.sort_unstable();
    values
}

/// True when a value of `old_ty` (in `old`) and one of `new_ty` (in `new`) are written and
/// read identically. Struct names are not on the wire: a struct renamed with the same layout
/// is the same type. A struct kept under its name is compared by name here; its own changes
/// are reported on the struct.
pub(super) fn same_wire_type(old: &Schema, old_ty: &Type, new: &Schema, new_ty: &Type) -> bool {
    same_type(old, old_ty, new, new_ty, &mut Vec::new())
}

pub(super) fn same_type(
    old: &Schema,
    old_ty: &Type,
    new: &Schema,
    new_ty: &Type,
    seen: &mut Vec<(String, String)>,
) -> bool {
    match (old_ty, new_ty) {
        (Type::Struct(a), Type::Struct(b)) => same_struct(old, a, new, b, seen),
        (Type::List(a), Type::List(b)) => {
            let shapes = match (a.shape, b.shape) {
                (ListShape::Strided { width: x }, ListShape::Strided { width: y }) => x == y,
                (x, y) => x == y,
            };
            shapes && same_type(old, &a.elem, new, &b.elem, seen)
        }
        // An enum is its representation on the wire: enum names and value names are not
        // there (value changes are reported on the enum, JSON differences on the field).
        (Type::Enum { repr: a, .. }, Type::Enum { repr: b, .. })
        | (Type::Enum { repr: a, .. }, Type::Scalar(b))
        | (Type::Scalar(a), Type::Enum { repr: b, .. }) => a == b,
        (a, b) => a == b,
    }
}

pub(super) fn same_struct(
    old: &Schema,
    a: &str,
    new: &Schema,
    b: &str,
    seen: &mut Vec<(String, String)>,
) -> bool {
    if a == b {
        return true;
    }
    let pair = (a.to_owned(), b.to_owned());
    if seen.contains(&pair) {
        return true;
    }
    seen.push(pair);
    let (Some(sa), Some(sb)) = (old.struct_named(a), new.struct_named(b)) else {
        return false;
    };
    fn slots(s: &Struct) -> Vec<&Field> {
        let mut fields: Vec<&Field> = s.fields.iter().collect();
        fields.sort_by_key(|f| f.offset);
        fields
    }
    let (fa, fb) = (slots(sa), slots(sb));
    sa.size == sb.size
        && fa.len() == fb.len()
        && fa.iter().zip(&fb).all(|(x, y)| {
            x.offset == y.offset && x.width == y.width && same_type(old, &x.ty, new, &y.ty, seen)
        })
}

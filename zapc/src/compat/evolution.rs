//! The compatibility rules of schema evolution: reserved field slots and ordinals,
//! deprecation and constants (docs/compat.md, "Reserved slots, ordinals, deprecation and
//! constants").

use super::{Class, Comparison, Item, Side};
use crate::ir::{Field, Interface, Method, Struct};

/// The first slot of `slots` sharing a byte with `field`'s.
fn overlapping<'s>(slots: &'s [Field], field: &Field) -> Option<&'s Field> {
    let (start, end) = (field.offset, field.offset + field.width);
    slots
        .iter()
        .find(|r| r.offset < end && start < r.offset + r.width)
}

impl Comparison<'_> {
    /// The message of a field removed from `new_s` when a reserved slot of `new_s` now
    /// keeps its bytes, if one does.
    pub(super) fn field_reserved(&self, new_s: &Struct, old_f: &Field) -> Option<String> {
        let slot = new_s
            .reserved
            .iter()
            .find(|r| r.name == old_f.name)
            .or_else(|| overlapping(&new_s.reserved, old_f))?;
        Some(format!(
            "field `{}` ({} @{}) removed and its slot reserved (`reserved {} {} @{}`): as for \
             any removal, old writers still fill its {} bytes and old readers read zero from \
             new writers; the reservation only keeps later versions from reusing the bytes",
            old_f.name,
            old_f.ty.schema_syntax(),
            old_f.offset,
            slot.name,
            slot.ty.schema_syntax(),
            slot.offset,
            old_f.width
        ))
    }

    /// The class of a field added over a slot the old version reserved, if it is over one.
    pub(super) fn field_over_reserved(
        &self,
        old_s: &Struct,
        new_f: &Field,
    ) -> Option<(Class, String)> {
        let slot = overlapping(&old_s.reserved, new_f)?;
        let name = &new_f.name;
        let restored = slot.name == new_f.name
            && slot.offset == new_f.offset
            && super::same_wire_type(self.old, &slot.ty, self.new, &new_f.ty);
        if restored {
            return Some((
                Class::Safe,
                format!(
                    "field `{name}` restored from its reserved slot (same offset and type): \
                     peers of the old version write zero there, which reads as absent"
                ),
            ));
        }
        Some((
            Class::WireBreaking,
            format!(
                "field `{name}` ({} @{}) reuses bytes of reserved field `{}` ({} @{}): peers \
                 from before the reservation may still write `{}` there, and `{name}` reads \
                 their bytes",
                new_f.ty.schema_syntax(),
                new_f.offset,
                slot.name,
                slot.ty.schema_syntax(),
                slot.offset,
                slot.name
            ),
        ))
    }

    /// Reserved slots added, dropped or changed, and `deprecated` added or removed on the
    /// struct and its fields.
    pub(super) fn struct_evolution(&mut self, old_s: &Struct, new_s: &Struct) {
        let slot_item = |s: &Struct, name: &str| Item::ReservedField {
            structure: s.name.clone(),
            field: name.to_owned(),
        };
        for old_r in &old_s.reserved {
            if let Some(new_r) = new_s.reserved.iter().find(|r| r.name == old_r.name) {
                if new_r.offset != old_r.offset || new_r.ty != old_r.ty {
                    self.push(
                        Class::Safe,
                        format!(
                            "reserved slot `{}` changes from {} @{} to {} @{}: reserved bytes \
                             are never read or written",
                            old_r.name,
                            old_r.ty.schema_syntax(),
                            old_r.offset,
                            new_r.ty.schema_syntax(),
                            new_r.offset
                        ),
                        Side::New,
                        slot_item(new_s, &new_r.name),
                    );
                }
                continue;
            }
            if overlapping(&new_s.fields, old_r).is_some() {
                continue; // Reported on the field that reuses it.
            }
            let shrinks = if new_s.size < old_s.size {
                format!(
                    "; `{}` shrinks from {} to {} bytes, which nothing reads (a list of `{}` \
                     whose elements change width is reported at the list)",
                    new_s.name, old_s.size, new_s.size, new_s.name
                )
            } else {
                String::new()
            };
            let (class, message) = (
                Class::Safe,
                format!(
                    "reservation of `{}` ({} @{}) dropped: reserved bytes are never read or \
                     written, but a later field may reuse bytes that peers from before the \
                     reservation still write{shrinks}",
                    old_r.name,
                    old_r.ty.schema_syntax(),
                    old_r.offset
                ),
            );
            self.push(class, message, Side::Old, slot_item(old_s, &old_r.name));
        }
        for new_r in &new_s.reserved {
            // Matched by name, or over an old reserved slot (a reservation renamed).
            let known = old_s.reserved.iter().any(|r| r.name == new_r.name)
                || overlapping(&old_s.reserved, new_r).is_some();
            // A field turned into a reserved slot is reported as the field's removal.
            if known || overlapping(&old_s.fields, new_r).is_some() {
                continue;
            }
            let (start, end) = (new_r.offset, new_r.offset + new_r.width);
            let message = if end <= old_s.size {
                format!(
                    "reserved slot `{}` added in unused bytes {start}..{end}: reserved bytes are \
                     never read or written",
                    new_r.name
                )
            } else {
                format!(
                    "reserved slot `{}` appended at @{start}: `{}` grows from {} to {} bytes, \
                     but reserved bytes are never read (a list of `{}` whose elements change \
                     width is reported at the list)",
                    new_r.name, new_s.name, old_s.size, new_s.size, new_s.name
                )
            };
            self.push(
                Class::Safe,
                message,
                Side::New,
                slot_item(new_s, &new_r.name),
            );
        }
        if old_s.deprecated != new_s.deprecated {
            self.push(
                Class::Safe,
                format!(
                    "struct `{}` {}: its generated types {} `#[deprecated]`; nothing changes \
                     on the wire or in JSON",
                    new_s.name,
                    marked(new_s.deprecated),
                    carry(new_s.deprecated)
                ),
                Side::New,
                Item::Struct(new_s.name.clone()),
            );
        }
    }

    /// `deprecated` added to or removed from a field kept under its name.
    pub(super) fn field_evolution(&mut self, new_s: &Struct, old_f: &Field, new_f: &Field) {
        if old_f.deprecated != new_f.deprecated {
            self.push(
                Class::Safe,
                format!(
                    "field `{}` {}: its generated accessors {} `#[deprecated]`; it stays on \
                     the wire and in JSON",
                    new_f.name,
                    marked(new_f.deprecated),
                    carry(new_f.deprecated)
                ),
                Side::New,
                Item::Field {
                    structure: new_s.name.clone(),
                    field: new_f.name.clone(),
                },
            );
        }
    }

    /// The message of a method removed whose ordinal the new version reserves, if it does.
    pub(super) fn method_reserved(&self, new_i: &Interface, old_m: &Method) -> Option<String> {
        new_i.reserved.contains(&old_m.ordinal).then(|| {
            format!(
                "method `{}` removed and its ordinal {} reserved: old clients calling it get \
                 status 404, so this breaks them; no method can take ordinal {} later, and \
                 every other method keeps its ordinal",
                old_m.name, old_m.ordinal, old_m.ordinal
            )
        })
    }

    /// The class of a method added with an ordinal the old version reserved, if it did.
    pub(super) fn method_over_reserved(
        &self,
        old_i: &Interface,
        new_m: &Method,
    ) -> Option<(Class, String)> {
        old_i.reserved.contains(&new_m.ordinal).then(|| {
            (
                Class::WireBreaking,
                format!(
                    "method `{}` takes ordinal {}, which the old schema reserved: clients from \
                     before the reservation still call ordinal {} for the removed method and \
                     reach `{}`",
                    new_m.name, new_m.ordinal, new_m.ordinal, new_m.name
                ),
            )
        })
    }

    /// Reserved ordinals added or dropped (those of removed or moved methods are reported
    /// with the method).
    pub(super) fn interface_evolution(&mut self, old_i: &Interface, new_i: &Interface) {
        let item = |ordinal: u32, i: &Interface| Item::ReservedOrdinal {
            interface: i.name.clone(),
            ordinal,
        };
        for &ordinal in &old_i.reserved {
            let kept = new_i.reserved.contains(&ordinal);
            let taken = new_i.methods.iter().any(|m| m.ordinal == ordinal);
            if !kept && !taken {
                self.push(
                    Class::Safe,
                    format!(
                        "reservation of ordinal {ordinal} dropped: nothing changes on the wire \
                         now, but a later method may take it and be reached by clients from \
                         before the reservation"
                    ),
                    Side::Old,
                    item(ordinal, old_i),
                );
            }
        }
        for &ordinal in &new_i.reserved {
            let known = old_i.reserved.contains(&ordinal);
            let was_method = old_i.methods.iter().any(|m| m.ordinal == ordinal);
            if !known && !was_method {
                self.push(
                    Class::Safe,
                    format!("ordinal {ordinal} reserved: no method had it"),
                    Side::New,
                    item(ordinal, new_i),
                );
            }
        }
    }

    /// `deprecated` added to or removed from a method kept under its name.
    pub(super) fn method_evolution(
        &self,
        old_m: &Method,
        new_m: &Method,
    ) -> Option<(Class, String)> {
        (old_m.deprecated != new_m.deprecated).then(|| {
            (
                Class::Safe,
                format!(
                    "method `{}` {}: its handler and client stub {} `#[deprecated]`{}; calls \
                     work as before",
                    new_m.name,
                    marked(new_m.deprecated),
                    carry(new_m.deprecated),
                    if new_m.deprecated {
                        " and OpenRPC marks it deprecated"
                    } else {
                        ""
                    }
                ),
            )
        })
    }

    /// Constants added, removed, retyped or given another value: never on the wire, so
    /// always safe, and reported as notes (code built from each version keeps its value).
    pub(super) fn constants(&mut self) {
        for old_c in &self.old.consts {
            let item = Item::Const(old_c.name.clone());
            match self.new.consts.iter().find(|c| c.name == old_c.name) {
                None => self.push(
                    Class::Safe,
                    format!(
                        "constant `{}` removed: constants are not on the wire (Rust code naming \
                         it no longer compiles)",
                        old_c.name
                    ),
                    Side::Old,
                    item,
                ),
                Some(new_c) if new_c.value != old_c.value => {
                    let show = |c: &crate::ir::Const, typed: bool| match typed {
                        true => format!("`{}` {}", c.value.schema_type(), c.value.schema_syntax()),
                        false => c.value.schema_syntax(),
                    };
                    let typed = old_c.value.schema_type() != new_c.value.schema_type();
                    self.push(
                        Class::Safe,
                        format!(
                            "constant `{}` changes from {} to {}: constants are not on the \
                             wire, but code built from the old schema keeps the old value",
                            old_c.name,
                            show(old_c, typed),
                            show(new_c, typed)
                        ),
                        Side::New,
                        item,
                    );
                }
                Some(_) => {}
            }
        }
        for new_c in &self.new.consts {
            if self.old.consts.iter().all(|c| c.name != new_c.name) {
                self.push(
                    Class::Safe,
                    format!("constant `{}` added", new_c.name),
                    Side::New,
                    Item::Const(new_c.name.clone()),
                );
            }
        }
    }
}

fn marked(deprecated: bool) -> &'static str {
    if deprecated {
        "marked deprecated"
    } else {
        "no longer deprecated"
    }
}

fn carry(deprecated: bool) -> &'static str {
    if deprecated {
        "now carry"
    } else {
        "no longer carry"
    }
}

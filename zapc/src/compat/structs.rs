//! The rules for structs and their fields.

use super::*;

impl Comparison<'_> {
    pub(super) fn struct_removed(&mut self, old_struct: &Struct) {
        let name = &old_struct.name;
        // Struct names are not on the wire: a new struct with the same layout is a rename.
        let renamed = self.new.structs.iter().find(|s| {
            self.old.struct_named(&s.name).is_none()
                && !self.renamed_structs.contains(&s.name)
                && same_struct(self.old, name, self.new, &s.name, &mut Vec::new())
        });
        // A struct moved into an imported file (`common.Point`), layout kept: the same.
        let moved = self
            .new
            .imports
            .iter()
            .flat_map(|i| &i.structs)
            .filter(|s| self.old.struct_named(&s.name).is_none())
            .filter(|s| same_struct(self.old, name, self.new, &s.name, &mut Vec::new()))
            .min_by_key(|s| s.name.split_once('.').map(|(_, local)| local) != Some(name.as_str()));
        if let Some(moved) = moved {
            self.push(
                Class::Safe,
                format!(
                    "struct `{name}` moved to an imported file as `{}`: same layout, and struct \
                     names are not on the wire (generated type paths change)",
                    moved.name
                ),
                Side::Old,
                Item::Struct(name.clone()),
            );
            return;
        }
        if let Some(new_struct) = renamed {
            self.renamed_structs.insert(new_struct.name.clone());
            self.push(
                Class::Safe,
                format!(
                    "struct `{name}` renamed to `{}`: same layout, and struct names are not on \
                     the wire (generated type names change)",
                    new_struct.name
                ),
                Side::New,
                Item::Struct(new_struct.name.clone()),
            );
            return;
        }
        let mut places: Vec<String> = uses_of(self.old, name)
            .iter()
            .map(|u| format!("`{}`", u.place()))
            .collect();
        if used_by_method(self.old, name) {
            places.push("a method".to_owned());
        }
        let (class, message) = if places.is_empty() {
            (
                Class::Safe,
                format!("struct `{name}` removed; nothing in the old schema refers to it"),
            )
        } else {
            (
                Class::WireBreaking,
                format!(
                    "struct `{name}` removed while the old schema uses it ({}): peers built \
                     from the old schema still send and expect it",
                    places.join(", ")
                ),
            )
        };
        self.push(class, message, Side::Old, Item::Struct(name.clone()));
    }

    pub(super) fn structure(&mut self, old_s: &Struct, new_s: &Struct) {
        let item = |field: &str| Item::Field {
            structure: new_s.name.clone(),
            field: field.to_owned(),
        };
        let mut renamed_to = BTreeSet::new();
        for old_f in &old_s.fields {
            if let Some(new_f) = new_s.fields.iter().find(|f| f.name == old_f.name) {
                self.field(new_s, old_f, new_f);
                continue;
            }
            // Same slot, same type, another name: a rename, invisible on the wire.
            let rename = new_s.fields.iter().find(|f| {
                f.offset == old_f.offset
                    && old_s.fields.iter().all(|o| o.name != f.name)
                    && same_wire_type(self.old, &old_f.ty, self.new, &f.ty)
            });
            if let Some(new_f) = rename {
                renamed_to.insert(new_f.name.clone());
                self.field_renamed(new_s, old_f, new_f);
                continue;
            }
            if let Some(message) = self.field_reserved(new_s, old_f) {
                let item = Item::Field {
                    structure: old_s.name.clone(),
                    field: old_f.name.clone(),
                };
                self.push(Class::WireBreaking, message, Side::Old, item);
                continue;
            }
            self.push(
                Class::WireBreaking,
                format!(
                    "field `{}` ({} @{}) removed: old writers still fill its {} bytes and \
                     old readers read zero from new writers",
                    old_f.name,
                    old_f.ty.schema_syntax(),
                    old_f.offset,
                    old_f.width
                ),
                Side::Old,
                Item::Field {
                    structure: old_s.name.clone(),
                    field: old_f.name.clone(),
                },
            );
        }
        for new_f in &new_s.fields {
            if renamed_to.contains(&new_f.name) || old_s.fields.iter().any(|f| f.name == new_f.name)
            {
                continue;
            }
            let (class, message) = self.field_added(old_s, new_f);
            self.push(class, message, Side::New, item(&new_f.name));
        }
        self.struct_evolution(old_s, new_s);
        if old_s.doc != new_s.doc {
            self.push(
                Class::Safe,
                format!("doc comment of struct `{}` changed", new_s.name),
                Side::New,
                Item::Struct(new_s.name.clone()),
            );
        }
    }

    fn field(&mut self, new_s: &Struct, old_f: &Field, new_f: &Field) {
        let at = || Item::Field {
            structure: new_s.name.clone(),
            field: new_f.name.clone(),
        };
        let name = &new_f.name;
        if old_f.offset != new_f.offset {
            self.push(
                Class::WireBreaking,
                format!(
                    "field `{name}` moved from @{} to @{}: peers built from the old schema \
                     read and write it at the old offset",
                    old_f.offset, new_f.offset
                ),
                Side::New,
                at(),
            );
        }
        if let Some(message) = type_change(self.old, &old_f.ty, self.new, &new_f.ty) {
            self.push(
                Class::WireBreaking,
                format!("field `{name}` {message}"),
                Side::New,
                at(),
            );
        }
        for message in json_changes(old_f, new_f) {
            self.push(
                Class::JsonBreaking,
                format!("field `{name}`: {message}"),
                Side::New,
                at(),
            );
        }
        if let Some(message) = enum_json_change(self.old, &old_f.ty, self.new, &new_f.ty) {
            self.push(
                Class::JsonBreaking,
                format!("field `{name}` {message}"),
                Side::New,
                at(),
            );
        }
        if old_f.doc != new_f.doc {
            self.push(
                Class::Safe,
                format!("doc comment of field `{name}` changed"),
                Side::New,
                at(),
            );
        }
        self.field_evolution(new_s, old_f, new_f);
    }

    fn field_renamed(&mut self, new_s: &Struct, old_f: &Field, new_f: &Field) {
        let at = || Item::Field {
            structure: new_s.name.clone(),
            field: new_f.name.clone(),
        };
        let (old_key, new_key) = (old_f.json_key(), new_f.json_key());
        if old_key == new_key {
            self.push(
                Class::Safe,
                format!(
                    "field `{}` renamed to `{}`: same slot, same type, same JSON key `{new_key}` \
                     (generated accessors are renamed)",
                    old_f.name, new_f.name
                ),
                Side::New,
                at(),
            );
        } else {
            self.push(
                Class::JsonBreaking,
                format!(
                    "field `{}` renamed to `{}`: same slot and type, but its JSON key changes \
                     from `{old_key}` to `{new_key}` (keep it with json(name = \"{old_key}\"))",
                    old_f.name, new_f.name
                ),
                Side::New,
                at(),
            );
        }
        for message in option_changes(old_f, new_f) {
            self.push(
                Class::JsonBreaking,
                format!("field `{}`: {message}", new_f.name),
                Side::New,
                at(),
            );
        }
    }

    /// A field that has no counterpart in the old struct.
    fn field_added(&self, old_s: &Struct, new_f: &Field) -> (Class, String) {
        if let Some(found) = self.field_over_reserved(old_s, new_f) {
            return found;
        }
        let name = &new_f.name;
        let (start, end) = (new_f.offset, new_f.offset + new_f.width);
        if let Some(old_f) = old_s
            .fields
            .iter()
            .find(|f| f.offset < end && start < f.offset + f.width)
        {
            return (
                Class::WireBreaking,
                format!(
                    "field `{name}` added over bytes {start}..{end}, where old writers still \
                     write `{}` (@{}, {} bytes)",
                    old_f.name, old_f.offset, old_f.width
                ),
            );
        }
        if end <= old_s.size {
            return (
                Class::Safe,
                format!(
                    "field `{name}` added in unused bytes {start}..{end} inside the old object: \
                     old writers zero-fill them (spec §4), so new readers read zero, and old \
                     readers ignore them"
                ),
            );
        }
        // The field reaches past the old fixed section: what an old writer put there?
        if let Some(reason) = self.what_follows(old_s) {
            return (
                Class::WireBreaking,
                format!(
                    "field `{name}` appended at @{start} past the old size {}: {reason}, so a \
                     new reader reads those bytes as `{name}` in old messages",
                    old_s.size
                ),
            );
        }
        (
            Class::Safe,
            format!(
                "field `{name}` appended at @{start}: `{}` is only ever a message root with \
                 inline fields, so an old message ends at its fixed section and a new reader \
                 reads zero (spec §3); old readers ignore the extra bytes",
                old_s.name
            ),
        )
    }

    /// Why, in an old message, other bytes may follow the fixed section of `old_s`; `None`
    /// when it is always the last thing of its message.
    fn what_follows(&self, old_s: &Struct) -> Option<String> {
        if let Some(f) = old_s.fields.iter().find(|f| !f.ty.is_inline()) {
            return Some(format!(
                "old writers put the out-of-line data of `{}` (field `{}`) right after its \
                 fixed section",
                old_s.name, f.name
            ));
        }
        let uses = uses_of(self.old, &old_s.name);
        uses.iter()
            .find_map(|u| match u {
                Use::Pointer { place } | Use::PointerList { place } => Some(format!(
                    "`{}` is a child object in `{place}`, and other objects of the message may \
                     follow it",
                    old_s.name
                )),
                Use::Strided { .. } => None,
            })
            .or_else(|| {
                uses.iter().find_map(|u| match u {
                    Use::Strided { place } => Some(format!(
                        "`{}` is a strided list element in `{place}`, and the next element \
                         follows it",
                        old_s.name
                    )),
                    _ => None,
                })
            })
    }
}

//! The rules for enums and their values.

use super::*;

impl Comparison<'_> {
    /// Enums matched by name; an enum that disappears while one with the same
    /// representation and values appears is a rename (enum names are not on the wire nor
    /// in JSON). Fields of an enum type report their own changes.
    pub(super) fn enums(&mut self) {
        let mut renamed = BTreeSet::new();
        for old_e in &self.old.enums {
            if let Some(new_e) = self.new.enum_named(&old_e.name) {
                self.enumeration(old_e, new_e);
                continue;
            }
            let rename = self.new.enums.iter().find(|n| {
                self.old.enum_named(&n.name).is_none()
                    && !renamed.contains(&n.name)
                    && n.repr == old_e.repr
                    && same_values(old_e, n)
            });
            let (class, message, side, item) = match rename {
                Some(new_e) => {
                    renamed.insert(new_e.name.clone());
                    (
                        Class::Safe,
                        format!(
                            "enum `{}` renamed to `{}`: same representation and values, and \
             enum names are neither on the wire nor in JSON (generated type \
             names change)",
                            old_e.name, new_e.name
                        ),
                        Side::New,
                        Item::Enum(new_e.name.clone()),
                    )
                }
                None => (
                    Class::Safe,
                    format!(
                        "enum `{}` removed (the fields that used it report their own changes)",
                        old_e.name
                    ),
                    Side::Old,
                    Item::Enum(old_e.name.clone()),
                ),
            };
            self.push(class, message, side, item);
        }
        for new_e in &self.new.enums {
            if self.old.enum_named(&new_e.name).is_none() && !renamed.contains(&new_e.name) {
                self.push(
                    Class::Safe,
                    format!("enum `{}` added", new_e.name),
                    Side::New,
                    Item::Enum(new_e.name.clone()),
                );
            }
        }
    }

    fn enumeration(&mut self, old_e: &Enum, new_e: &Enum) {
        let name = &new_e.name;
        if old_e.repr != new_e.repr {
            self.push(
                Class::WireBreaking,
                format!(
                    "enum `{name}` changes from `{}` to `{}`: every field of this type changes \
             width, and old peers read {} where new ones write {}",
                    old_e.repr.keyword(),
                    new_e.repr.keyword(),
                    bytes(old_e.repr.width()),
                    bytes(new_e.repr.width())
                ),
                Side::New,
                Item::Enum(name.clone()),
            );
        }
        let value_item = |side_e: &Enum, value: &str| Item::EnumValue {
            enumeration: side_e.name.clone(),
            value: value.to_owned(),
        };
        for old_v in &old_e.values {
            if let Some(new_v) = new_e.values.iter().find(|v| v.name == old_v.name) {
                if new_v.value != old_v.value {
                    self.push(
                        Class::WireBreaking,
                        format!(
                            "value `{}` of enum `{name}` renumbered from {} to {}: only the \
             number is on the wire, so old and new peers mean different \
             values by the same bytes",
                            old_v.name, old_v.value, new_v.value
                        ),
                        Side::New,
                        value_item(new_e, &new_v.name),
                    );
                } else if new_v.doc != old_v.doc {
                    self.push(
                        Class::Safe,
                        format!(
                            "doc comment of value `{}` of enum `{name}` changed",
                            old_v.name
                        ),
                        Side::New,
                        value_item(new_e, &new_v.name),
                    );
                }
                continue;
            }
            let same_number = new_e
                .values
                .iter()
                .find(|v| v.value == old_v.value && old_e.values.iter().all(|o| o.name != v.name));
            match same_number {
                Some(new_v) => self.push(
                    Class::JsonBreaking,
                    format!(
                        "value {} of enum `{name}` renamed from `{}` to `{}`: the same number \
             on the wire, but value names are the JSON form, so JSON clients \
             send and expect the other name",
                        old_v.value, old_v.name, new_v.name
                    ),
                    Side::New,
                    value_item(new_e, &new_v.name),
                ),
                None => self.push(
                    Class::WireBreaking,
                    format!(
                        "value `{}` (= {}) of enum `{name}` removed: old writers still send {}, \
             which new readers only see as `Unknown({})`",
                        old_v.name, old_v.value, old_v.value, old_v.value
                    ),
                    Side::Old,
                    value_item(old_e, &old_v.name),
                ),
            }
        }
        for new_v in &new_e.values {
            let known_name = old_e.values.iter().any(|v| v.name == new_v.name);
            let known_number = old_e.values.iter().any(|v| v.value == new_v.value);
            if !known_name && !known_number {
                self.push(
                    Class::Safe,
                    format!(
                        "value `{}` (= {}) added to enum `{name}`: old readers keep it as \
             `Unknown({})` and write it back unchanged (their JSON shows the number)",
                        new_v.name, new_v.value, new_v.value
                    ),
                    Side::New,
                    value_item(new_e, &new_v.name),
                );
            }
        }
        if old_e.doc != new_e.doc {
            self.push(
                Class::Safe,
                format!("doc comment of enum `{name}` changed"),
                Side::New,
                Item::Enum(name.clone()),
            );
        }
    }
}

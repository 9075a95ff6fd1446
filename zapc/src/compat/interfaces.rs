//! The rules for interfaces and their methods.

use super::*;

impl Comparison<'_> {
    pub(super) fn interfaces(&mut self) {
        let unmatched_old: Vec<&Interface> = self
            .old
            .interfaces
            .iter()
            .filter(|i| self.new.interfaces.iter().all(|n| n.name != i.name))
            .collect();
        let unmatched_new: Vec<&Interface> = self
            .new
            .interfaces
            .iter()
            .filter(|i| self.old.interfaces.iter().all(|o| o.name != i.name))
            .collect();
        // The interface name is not on the wire (a call carries only the method ordinal):
        // when exactly one interface disappears and one appears, it was renamed.
        let renamed = unmatched_old.len() == 1 && unmatched_new.len() == 1;
        for old_i in &self.old.interfaces {
            if let Some(new_i) = self.new.interfaces.iter().find(|n| n.name == old_i.name) {
                self.interface(old_i, new_i);
            } else if renamed {
                let new_i = unmatched_new[0];
                self.push(
                    Class::Safe,
                    format!(
                        "interface `{}` renamed to `{}`: the name is not on the wire",
                        old_i.name, new_i.name
                    ),
                    Side::New,
                    Item::Interface(new_i.name.clone()),
                );
                self.interface(old_i, new_i);
            } else {
                self.push(
                    Class::WireBreaking,
                    format!(
                        "interface `{}` removed: old clients calling its methods get status 404",
                        old_i.name
                    ),
                    Side::Old,
                    Item::Interface(old_i.name.clone()),
                );
            }
        }
        if !renamed {
            for new_i in unmatched_new {
                self.push(
                    Class::Safe,
                    format!("interface `{}` added", new_i.name),
                    Side::New,
                    Item::Interface(new_i.name.clone()),
                );
            }
        }
    }

    fn interface(&mut self, old_i: &Interface, new_i: &Interface) {
        let at = |m: &Method| Item::Method {
            interface: new_i.name.clone(),
            method: m.name.clone(),
        };
        let mut renamed_to = BTreeSet::new();
        for old_m in &old_i.methods {
            if let Some(new_m) = new_i.methods.iter().find(|m| m.name == old_m.name) {
                self.method(old_i, new_i, old_m, new_m);
                continue;
            }
            let rename = new_i.methods.iter().find(|m| {
                m.ordinal == old_m.ordinal && old_i.methods.iter().all(|o| o.name != m.name)
            });
            if let Some(new_m) = rename {
                renamed_to.insert(new_m.name.clone());
                self.push(
                    Class::Safe,
                    format!(
                        "method `{}` renamed to `{}` (ordinal {} kept): the name is not on the \
                         wire",
                        old_m.name, new_m.name, new_m.ordinal
                    ),
                    Side::New,
                    at(new_m),
                );
                self.method(old_i, new_i, old_m, new_m);
                continue;
            }
            if let Some(message) = self.method_reserved(new_i, old_m) {
                let item = Item::Method {
                    interface: old_i.name.clone(),
                    method: old_m.name.clone(),
                };
                self.push(Class::WireBreaking, message, Side::Old, item);
                continue;
            }
            self.push(
                Class::WireBreaking,
                format!(
                    "method `{}` (ordinal {}) removed: old clients calling ordinal {} get \
                     status 404, or reach whichever method takes that ordinal",
                    old_m.name, old_m.ordinal, old_m.ordinal
                ),
                Side::Old,
                Item::Method {
                    interface: old_i.name.clone(),
                    method: old_m.name.clone(),
                },
            );
        }
        for new_m in &new_i.methods {
            if renamed_to.contains(&new_m.name)
                || old_i.methods.iter().any(|m| m.name == new_m.name)
            {
                continue;
            }
            if let Some((class, message)) = self.method_over_reserved(old_i, new_m) {
                self.push(class, message, Side::New, at(new_m));
                continue;
            }
            self.push(
                Class::Safe,
                format!(
                    "method `{}` added with ordinal {}",
                    new_m.name, new_m.ordinal
                ),
                Side::New,
                at(new_m),
            );
        }
        self.interface_evolution(old_i, new_i);
        if old_i.doc != new_i.doc {
            self.push(
                Class::Safe,
                format!("doc comment of interface `{}` changed", new_i.name),
                Side::New,
                Item::Interface(new_i.name.clone()),
            );
        }
    }

    fn method(&mut self, old_i: &Interface, new_i: &Interface, old_m: &Method, new_m: &Method) {
        let item = Item::Method {
            interface: new_i.name.clone(),
            method: new_m.name.clone(),
        };
        let name = &new_m.name;
        let mut found = Vec::new();
        if old_m.ordinal != new_m.ordinal {
            found.push((
                Class::WireBreaking,
                format!(
                    "method `{name}` moves from ordinal {} to {}: a call carries only the \
                     ordinal, so old clients reach another method",
                    old_m.ordinal, new_m.ordinal
                ),
            ));
        }
        if old_m.streaming() != new_m.streaming() {
            found.push((
                Class::WireBreaking,
                format!(
                    "method `{name}` changes from {} to {}: a call and each kind of stream \
                     are opened and answered differently on the wire",
                    old_m.streaming().describe(),
                    new_m.streaming().describe()
                ),
            ));
        }
        for (what, old_p, new_p) in [
            ("parameter", &old_m.param, &new_m.param),
            ("stream parameter", &old_m.stream_param, &new_m.stream_param),
            ("result", &old_m.result, &new_m.result),
        ] {
            if let Some(message) = self.param_change(old_p, new_p) {
                found.push((
                    Class::WireBreaking,
                    format!("method `{name}`: {what} {message}"),
                ));
            }
        }
        for (what, old_p, new_p) in [
            ("parameter", &old_m.param, &new_m.param),
            ("result", &old_m.result, &new_m.result),
        ] {
            if let (Some(o), Some(n)) = (old_p, new_p) {
                if o.name != n.name {
                    found.push((
                        Class::Safe,
                        format!(
                            "method `{name}`: {what} renamed from `{}` to `{}` (names of \
                             parameters are not on the wire nor in JSON)",
                            o.name, n.name
                        ),
                    ));
                }
            }
        }
        if new_m.idempotency == crate::ir::Idempotency::Unknown
            && old_m.idempotency != crate::ir::Idempotency::Unknown
        {
            found.push((
                Class::WireBreaking,
                format!(
                    "method `{name}` is no longer `{}`: clients built from the old schema retry \
                     it, and a call that is not safe to repeat may then run twice",
                    old_m.idempotency.keyword()
                ),
            ));
        } else if new_m.idempotency == crate::ir::Idempotency::Unknown {
        } else if old_m.idempotency == crate::ir::Idempotency::Unknown {
            found.push((
                Class::Safe,
                format!(
                    "method `{name}` is now `{}`: clients built from the new schema may retry it",
                    new_m.idempotency.keyword()
                ),
            ));
        } else if new_m.idempotency != old_m.idempotency {
            found.push((
                Class::Safe,
                format!(
                    "method `{name}` is now `{}` instead of `{}` (idempotent either way: \
                     retried alike)",
                    new_m.idempotency.keyword(),
                    old_m.idempotency.keyword()
                ),
            ));
        }
        let added_bits = new_m.permissions & !old_m.permissions;
        if added_bits != 0 {
            found.push((
                Class::WireBreaking,
                format!(
                    "method `{name}` requires {:#x} instead of {:#x}: old clients' capabilities \
                     may lack bits {added_bits:#x}, and their calls are refused with status 403",
                    new_m.permissions, old_m.permissions
                ),
            ));
        } else if new_m.permissions != old_m.permissions {
            found.push((
                Class::Safe,
                format!(
                    "method `{name}` requires {:#x} instead of {:#x} (fewer permission bits)",
                    new_m.permissions, old_m.permissions
                ),
            ));
        }
        let (old_rpc, new_rpc) = (
            old_m.json_rpc_name(&old_i.name),
            new_m.json_rpc_name(&new_i.name),
        );
        if old_rpc != new_rpc {
            found.push((
                Class::JsonBreaking,
                format!(
                    "method `{name}`: JSON-RPC name changes from `{old_rpc}` to `{new_rpc}` \
                     (keep it with json(name = \"{old_rpc}\"))"
                ),
            ));
        }
        if old_m.json.positional != new_m.json.positional {
            found.push((
                Class::JsonBreaking,
                format!(
                    "method `{name}`: positional JSON-RPC params change from {} to {}",
                    positional(&old_m.json.positional),
                    positional(&new_m.json.positional)
                ),
            ));
        }
        if old_m.json.result_field != new_m.json.result_field {
            let show = |r: &Option<String>| match r {
                Some(field) => format!("field `{field}` alone"),
                None => "the whole response object".to_owned(),
            };
            found.push((
                Class::JsonBreaking,
                format!(
                    "method `{name}`: the JSON-RPC result changes from {} to {}",
                    show(&old_m.json.result_field),
                    show(&new_m.json.result_field)
                ),
            ));
        }
        found.extend(self.method_evolution(old_m, new_m));
        if old_m.doc != new_m.doc {
            found.push((
                Class::Safe,
                format!("doc comment of method `{name}` changed"),
            ));
        }
        for (class, message) in found {
            self.push(class, message, Side::New, item.clone());
        }
    }

    /// How a parameter or result changed on the wire, if it did.
    fn param_change(&self, old_p: &Option<Param>, new_p: &Option<Param>) -> Option<String> {
        match (old_p, new_p) {
            (None, None) => None,
            (Some(o), None) => Some(format!("`{}` removed", o.ty)),
            (None, Some(n)) => Some(format!("`{}` added", n.ty)),
            (Some(o), Some(n)) => {
                let (old_ty, new_ty) = (Type::Struct(o.ty.clone()), Type::Struct(n.ty.clone()));
                (!same_wire_type(self.old, &old_ty, self.new, &new_ty)).then(|| {
                    format!(
                        "type changes from `{}` to `{}`, whose layouts differ",
                        o.ty, n.ty
                    )
                })
            }
        }
    }
}

//! Compatibility between two versions of a schema: every change, classified by what it does
//! to peers built from the other version.
//!
//! The rules follow from the wire format (spec §2 to §5, and §7: an object carries no size
//! on the wire, so a reader trusts its own schema for every offset and width):
//!
//! - [`Class::WireBreaking`]: a peer built from the other version reads different values
//!   from the same bytes (a field moved, resized, retyped or removed, a struct grown where
//!   something follows its fixed section, a method renumbered or removed).
//! - [`Class::JsonBreaking`]: the binary messages are unchanged, but a JSON or JSON-RPC client
//!   sees different keys, names or encodings.
//! - [`Class::Safe`]: neither; reported so that the user sees every change.
//!
//! [`compare`] works on the laid-out [`Schema`]s only; [`Version`] keeps the text and syntax
//! tree of each side so that [`render`] can point at the line of each change in the style of
//! `zapc check`. The rules table with its reasons is in `docs/compat.md`.

mod evolution;

use std::collections::BTreeSet;
use std::fmt;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config, DisplayStyle};

use crate::ast::{SchemaFile, Span};
use crate::diag::Diagnostics;
use crate::ir::{Enum, Field, Interface, ListShape, Method, Param, Schema, Struct, Type};
use crate::{check, lower, parse};

/// What a change does to peers built from the other version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Old and new binary peers read different values from the same bytes.
    WireBreaking,
    /// The binary format is unchanged; the JSON mapping or JSON-RPC names are not.
    JsonBreaking,
    /// Nothing a deployed peer sees changes.
    Safe,
}

impl Class {
    /// The name used in reports and in `--allow`: `wire-breaking`, `json-breaking`, `safe`.
    pub fn name(self) -> &'static str {
        match self {
            Class::WireBreaking => "wire-breaking",
            Class::JsonBreaking => "json-breaking",
            Class::Safe => "safe",
        }
    }

    /// True for the two breaking classes.
    pub fn is_breaking(self) -> bool {
        self != Class::Safe
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which version a change is located in: the new one, or the old one for removals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Old,
    New,
}

/// The declaration a change is about, by name (the IR has no spans; [`Version::span_of`]
/// finds them in the syntax tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Package,
    Struct(String),
    Field {
        structure: String,
        field: String,
    },
    Interface(String),
    Method {
        interface: String,
        method: String,
    },
    /// A `const`.
    Const(String),
    /// A `reserved Name Type @N` slot.
    ReservedField {
        structure: String,
        field: String,
    },
    /// A `reserved @N` line.
    ReservedOrdinal {
        interface: String,
        ordinal: u32,
    },
    Enum(String),
    EnumValue {
        enumeration: String,
        value: String,
    },
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub class: Class,
    /// One line: what changed and why it has this class.
    pub message: String,
    /// The version the declaration is looked up in.
    pub side: Side,
    pub item: Item,
}

/// Every change from `old` to `new`, in the order of the old file's declarations, then the
/// added ones.
pub fn compare(old: &Schema, new: &Schema) -> Vec<Change> {
    let mut cx = Comparison {
        old,
        new,
        changes: Vec::new(),
        renamed_structs: BTreeSet::new(),
    };
    cx.package();
    for old_struct in &old.structs {
        match new.struct_named(&old_struct.name) {
            Some(new_struct) => cx.structure(old_struct, new_struct),
            None => cx.struct_removed(old_struct),
        }
    }
    for new_struct in &new.structs {
        if old.struct_named(&new_struct.name).is_none()
            && !cx.renamed_structs.contains(&new_struct.name)
        {
            cx.push(
                Class::Safe,
                format!("struct `{}` added", new_struct.name),
                Side::New,
                Item::Struct(new_struct.name.clone()),
            );
        }
    }
    cx.enums();
    // Structs of imported files, kept under their qualified names (`common.Point`): their
    // changes reach this file's messages. (A removed or renamed one shows up where this
    // file uses it.)
    for old_struct in old.imports.iter().flat_map(|i| &i.structs) {
        if let Some(new_struct) = new.struct_named(&old_struct.name) {
            if old_struct != new_struct {
                cx.structure(old_struct, new_struct);
            }
        }
    }
    cx.interfaces();
    cx.constants();
    cx.changes
}

/// Where a struct is used, for the size rules.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Use {
    /// A `S` field: a child object, other objects may follow it.
    Pointer { place: String },
    /// A `list<ptr<S>>` field: children elsewhere in the message.
    PointerList { place: String },
    /// A `list<S>` laid out strided: elements back to back at a fixed width.
    Strided { place: String },
}

impl Use {
    fn place(&self) -> &str {
        match self {
            Use::Pointer { place } | Use::PointerList { place } | Use::Strided { place } => place,
        }
    }
}

/// Every field of `schema` that embeds or points at struct `name`.
fn uses_of(schema: &Schema, name: &str) -> Vec<Use> {
    let mut uses = Vec::new();
    for s in &schema.structs {
        for f in &s.fields {
            let place = format!("{}.{}", s.name, f.name);
            match &f.ty {
                Type::Struct(target) if target == name => uses.push(Use::Pointer { place }),
                Type::List(list) if list.elem == Type::Struct(name.to_owned()) => {
                    uses.push(match list.shape {
                        ListShape::Pointer => Use::PointerList { place },
                        ListShape::Strided { .. } => Use::Strided { place },
                        // A framed element is a complete message with its own header: the
                        // struct is the root there, nothing of another object follows it.
                        ListShape::Framed => continue,
                    })
                }
                _ => {}
            }
        }
    }
    uses
}

/// True when a method of `schema` takes or returns struct `name`.
fn used_by_method(schema: &Schema, name: &str) -> bool {
    schema
        .interfaces
        .iter()
        .flat_map(|i| &i.methods)
        .flat_map(|m| m.param.iter().chain(&m.result))
        .any(|p| p.ty == name)
}

struct Comparison<'a> {
    old: &'a Schema,
    new: &'a Schema,
    changes: Vec<Change>,
    /// New structs that are old ones under another name.
    renamed_structs: BTreeSet<String>,
}

impl Comparison<'_> {
    fn push(&mut self, class: Class, message: String, side: Side, item: Item) {
        self.changes.push(Change {
            class,
            message,
            side,
            item,
        });
    }

    fn package(&mut self) {
        if self.old.package == self.new.package {
            return;
        }
        let show = |p: &Option<String>| match p {
            Some(name) => format!("`{name}`"),
            None => "none".to_owned(),
        };
        let side = if self.new.package.is_some() {
            Side::New
        } else {
            Side::Old
        };
        self.push(
            Class::JsonBreaking,
            format!(
                "package renamed from {} to {}: the package is not on the wire, but it is the \
                 title of the OpenRPC document that `rpc.discover` returns to JSON clients",
                show(&self.old.package),
                show(&self.new.package)
            ),
            side,
            Item::Package,
        );
    }

    fn struct_removed(&mut self, old_struct: &Struct) {
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

    fn structure(&mut self, old_s: &Struct, new_s: &Struct) {
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

    /// Enums matched by name; an enum that disappears while one with the same
    /// representation and values appears is a rename (enum names are not on the wire nor
    /// in JSON). Fields of an enum type report their own changes.
    fn enums(&mut self) {
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

    fn interfaces(&mut self) {
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

fn positional(names: &Option<Vec<String>>) -> String {
    match names {
        Some(names) => format!("[{}]", names.join(", ")),
        None => "declaration order".to_owned(),
    }
}

/// The JSON differences of one field (key, `quantity`, `block_tags`).
fn json_changes(old_f: &Field, new_f: &Field) -> Vec<String> {
    let (old_key, new_key) = (old_f.json_key(), new_f.json_key());
    let key =
        (old_key != new_key).then(|| format!("JSON key changes from `{old_key}` to `{new_key}`"));
    key.into_iter()
        .chain(option_changes(old_f, new_f))
        .collect()
}

/// The `json(quantity)` and `json(block_tags)` differences of one field.
fn option_changes(old_f: &Field, new_f: &Field) -> Vec<String> {
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
fn type_change(old: &Schema, old_ty: &Type, new: &Schema, new_ty: &Type) -> Option<String> {
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
fn enum_width_change(old_ty: &Type, new_ty: &Type) -> Option<String> {
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
fn bytes(n: u32) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

/// How the JSON of a field changes when its type changes between an enum and an integer of
/// the same width, or between two enums (same bytes on the wire, reported by
/// [`type_change`] otherwise), as the end of a sentence starting with the field.
fn enum_json_change(old: &Schema, old_ty: &Type, new: &Schema, new_ty: &Type) -> Option<String> {
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
fn same_values(a: &Enum, b: &Enum) -> bool {
    value_set(a) == value_set(b)
}

/// The `(name, number)` pairs of an enum, sorted.
fn value_set(e: &Enum) -> Vec<(String, u32)> {
    let mut values: Vec<(String, u32)> =
        e.values.iter().map(|v| (v.name.clone(), v.value)).collect();
    values.sort_unstable();
    values
}

/// True when a value of `old_ty` (in `old`) and one of `new_ty` (in `new`) are written and
/// read identically. Struct names are not on the wire: a struct renamed with the same layout
/// is the same type. A struct kept under its name is compared by name here; its own changes
/// are reported on the struct.
fn same_wire_type(old: &Schema, old_ty: &Type, new: &Schema, new_ty: &Type) -> bool {
    same_type(old, old_ty, new, new_ty, &mut Vec::new())
}

fn same_type(
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

fn same_struct(
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

/// One version of a schema file: its text, syntax tree and laid-out model.
#[derive(Debug, Clone)]
pub struct Version {
    /// How the file is named in reports (`schemas/eth.zap`, `HEAD:schemas/eth.zap`).
    pub name: String,
    /// The schema text.
    pub text: String,
    /// The syntax tree: where each item was written, for the report's carets.
    pub(crate) file: SchemaFile,
    /// The laid-out model [`compare`] reads.
    pub schema: Schema,
}

impl Version {
    /// [`Version::load`] for a file with imports, read relative to `dir` (from the file
    /// system, also when `text` comes from git).
    pub fn load_in(name: &str, text: &str, dir: &std::path::Path) -> Result<Version, Diagnostics> {
        let schema = crate::frontend::load_str_in(name, text, dir)?;
        let file = parse::parse(text).map_err(|error| Diagnostics::new(name, text, vec![error]))?;
        Ok(Version {
            name: name.to_owned(),
            text: text.to_owned(),
            file,
            schema,
        })
    }

    /// Parse, check and lay out `text`, keeping what [`render`] needs.
    pub fn load(name: &str, text: &str) -> Result<Version, Diagnostics> {
        let fail = |errors| Diagnostics::new(name, text, errors);
        let file = parse::parse(text).map_err(|error| fail(vec![error]))?;
        let cx = check::Context::new(&file);
        let errors = check::check(&cx);
        if !errors.is_empty() {
            return Err(fail(errors));
        }
        let schema = lower::lower(name, &cx).map_err(|error| fail(vec![error]))?;
        Ok(Version {
            name: name.to_owned(),
            text: text.to_owned(),
            file,
            schema,
        })
    }

    /// An empty file under `name` (the other side of an added or removed file), with the
    /// given package so that only the declarations show up as changes.
    pub fn empty(name: &str, package: Option<String>) -> Version {
        Version {
            name: name.to_owned(),
            text: String::new(),
            file: SchemaFile::default(),
            schema: Schema {
                source_name: name.to_owned(),
                package,
                structs: Vec::new(),
                interfaces: Vec::new(),
                enums: Vec::new(),
                consts: Vec::new(),
                imports: Vec::new(),
            },
        }
    }

    /// The span of the declaration's name; the file start if it is not there.
    pub fn span_of(&self, item: &Item) -> Span {
        let file = &self.file;
        let found = match item {
            Item::Package => file.packages().next().map(|p| p.name.span.clone()),
            Item::Struct(name) => file
                .structs()
                .find(|s| s.name.text == *name)
                .map(|s| s.name.span.clone()),
            Item::Field { structure, field } => file
                .structs()
                .find(|s| s.name.text == *structure)
                .and_then(|s| s.fields.iter().find(|f| f.name.text == *field))
                .map(|f| f.name.span.clone()),
            Item::Interface(name) => file
                .interfaces()
                .find(|i| i.name.text == *name)
                .map(|i| i.name.span.clone()),
            Item::Method { interface, method } => file
                .interfaces()
                .find(|i| i.name.text == *interface)
                .and_then(|i| i.methods.iter().find(|m| m.name.text == *method))
                .map(|m| m.name.span.clone()),
            Item::Enum(name) => file
                .enums()
                .find(|e| e.name.text == *name)
                .map(|e| e.name.span.clone()),
            Item::EnumValue { enumeration, value } => file
                .enums()
                .find(|e| e.name.text == *enumeration)
                .and_then(|e| e.values.iter().find(|v| v.name.text == *value))
                .map(|v| v.name.span.clone()),
            Item::Const(name) => file
                .consts()
                .find(|c| c.name.text == *name)
                .map(|c| c.name.span.clone()),
            Item::ReservedField { structure, field } => file
                .structs()
                .find(|s| s.name.text == *structure)
                .and_then(|s| {
                    s.fields
                        .iter()
                        .find(|f| f.is_reserved() && f.name.text == *field)
                })
                .map(|f| f.name.span.clone()),
            Item::ReservedOrdinal { interface, ordinal } => file
                .interfaces()
                .find(|i| i.name.text == *interface)
                .and_then(|i| i.reserved.iter().find(|n| n.as_u32() == Some(*ordinal)))
                .map(|n| n.span.start.saturating_sub(1)..n.span.end),
        };
        found.or_else(|| self.import_span(item)).unwrap_or(0..0)
    }

    /// For a struct of an imported file (`common.Point`): the `import` that brings its
    /// file, or the first import.
    fn import_span(&self, item: &Item) -> Option<Span> {
        let structure = match item {
            Item::Struct(name)
            | Item::Field {
                structure: name, ..
            } => name,
            _ => return None,
        };
        let (package, _) = structure.split_once('.')?;
        let source = self
            .schema
            .imports
            .iter()
            .find(|i| i.package.as_deref() == Some(package))
            .map(|i| std::path::Path::new(&i.source_name).to_path_buf());
        let mut imports = self.file.imports();
        let first = self.file.imports().next().map(|i| i.span.clone());
        imports
            .find(|i| {
                source
                    .as_ref()
                    .is_some_and(|s| s.file_name() == std::path::Path::new(&i.path).file_name())
            })
            .map(|i| i.span.clone())
            .or(first)
    }
}

/// The changes as `zapc check`-style diagnostics (plain text, ASCII, no colour), one per
/// change: `error[wire-breaking]`, `error[json-breaking]`, `note[safe]`; a breaking class in
/// `allowed` is shown as a `warning`.
pub fn render(old: &Version, new: &Version, changes: &[Change], allowed: &[Class]) -> String {
    let mut files = SimpleFiles::new();
    let old_id = files.add(old.name.as_str(), old.text.as_str());
    let new_id = files.add(new.name.as_str(), new.text.as_str());
    let config = Config {
        display_style: DisplayStyle::Rich,
        chars: Chars::ascii(),
        ..Config::default()
    };
    let mut out = NoColor::new(Vec::new());
    for change in changes {
        let (id, version) = match change.side {
            Side::Old => (old_id, old),
            Side::New => (new_id, new),
        };
        let severity = match change.class {
            Class::Safe => Severity::Note,
            class if allowed.contains(&class) => Severity::Warning,
            _ => Severity::Error,
        };
        let label = match change.side {
            Side::Old => "in the old version",
            Side::New => "here",
        };
        let diagnostic = CsDiagnostic::new(severity)
            .with_code(change.class.name())
            .with_message(change.message.clone())
            .with_labels(vec![
                Label::primary(id, version.span_of(&change.item)).with_message(label)
            ]);
        if term::emit(&mut out, &config, &files, &diagnostic).is_err() {
            let line = format!("{}: {}\n", change.class, change.message);
            out.get_mut().extend_from_slice(line.as_bytes());
        }
    }
    String::from_utf8_lossy(out.get_ref()).into_owned()
}

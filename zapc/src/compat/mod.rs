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

mod enums;
mod evolution;
mod interfaces;
mod render;
mod structs;
mod types;
mod version;

pub use render::render;
use types::*;
pub use version::Version;

use std::collections::BTreeSet;
use std::fmt;

use crate::ast::{SchemaFile, Span};
use crate::diag::Diagnostics;
use crate::ir::{Enum, Field, Interface, ListShape, Method, Param, Schema, Struct, Type};

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
}

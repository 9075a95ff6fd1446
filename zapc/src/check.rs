//! Semantic checks on a parsed file: one function per rule, every error collected.
//!
//! Each rule looks at the whole file and appends what it finds; no rule stops the others,
//! so one run reports every problem. Rules that need a type's meaning skip types another
//! rule already reports (an unknown name, an alias cycle), so each mistake is told once.

mod alias_cycles;
mod bytes_fixed;
mod consts;
mod duplicates;
pub mod enums;
mod evolution;
mod imports;
mod indentation;
mod json;
mod lists;
mod methods;
mod names;
mod offsets;
mod owned_names;
mod package;
mod pointers;
mod suggest;
mod types;

pub(crate) use consts::const_type;
pub use consts::rust_name as const_rust_name;
pub(crate) use evolution::method_ordinal;
pub(crate) use json::{field_json, method_json};

use std::collections::HashMap;

use crate::ast::{SchemaFile, TypeExpr, TypeKind};
use crate::diag::Diagnostic;
use crate::ir::ListShape;
use crate::layout::SlotTable;
use crate::resolve::Symbols;

/// What every rule reads: the file, its names ([`crate::resolve`]) and its slots, placed
/// once ([`crate::layout`]).
pub struct Context<'a> {
    pub file: &'a SchemaFile,
    pub symbols: Symbols<'a>,
    pub slots: SlotTable,
    /// The packages this file imports directly: the ones it may name in `pkg.Type`.
    pub imported_packages: Vec<String>,
    /// Size and list shape of every imported struct, by qualified name.
    pub imported_shapes: HashMap<String, (u32, ListShape)>,
}

impl<'a> Context<'a> {
    /// Resolve the names of `file` and place its slots: `imported` are the imported
    /// files (all of them, transitively), with every name they declare qualified by
    /// their package.
    pub fn with_imports(
        file: &'a SchemaFile,
        imported: &[&'a SchemaFile],
        imported_packages: Vec<String>,
        imported_shapes: HashMap<String, (u32, ListShape)>,
    ) -> Self {
        let symbols = Symbols::collect_with_imports(file, imported);
        let slots = SlotTable::place(file, &symbols);
        Context {
            file,
            symbols,
            slots,
            imported_packages,
            imported_shapes,
        }
    }
}

/// A rule: reads the context and appends its errors.
type Rule = fn(&Context<'_>, &mut Vec<Diagnostic>);

/// Every rule, in the order their errors are found (the report is sorted by position).
const RULES: &[Rule] = &[
    package::more_than_one_package,
    indentation::tabs_in_indentation,
    duplicates::duplicate_declarations,
    duplicates::duplicate_fields,
    duplicates::duplicate_methods,
    names::builtin_names_redeclared,
    types::unknown_types,
    imports::qualified_type_names,
    alias_cycles::alias_cycles,
    bytes_fixed::empty_or_oversized_bytes_fixed,
    pointers::ptr_outside_list,
    pointers::ptr_to_non_struct,
    lists::list_of_lists,
    methods::too_many_parameters,
    methods::too_many_results,
    methods::non_struct_parameters,
    methods::permission_bits_too_large,
    methods::idempotent_streams,
    owned_names::owned_name_collisions,
    offsets::offset_too_large,
    offsets::struct_too_large,
    offsets::overlapping_slots,
    json::json_options,
    enums::enum_representation,
    enums::empty_enums,
    enums::enum_value_names,
    enums::enum_value_numbers,
    evolution::ordinals_out_of_range,
    evolution::ordinal_conflicts,
    consts::const_values,
    consts::const_names,
];

/// Run every rule; an empty result means the file can be lowered.
pub fn check(cx: &Context<'_>) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for rule in RULES {
        rule(cx, &mut errors);
    }
    errors
}

/// Where a type expression is written, relative to its enclosing type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// The whole type of a field, alias or method parameter/result.
    Outermost,
    /// The `T` of `list<T>`.
    ListElement,
    /// The `T` of `ptr<T>`.
    PtrTarget,
}

/// Call `visit` on every type expression written in the file, nested ones included.
fn for_each_type<'a>(file: &'a SchemaFile, visit: &mut dyn FnMut(&'a TypeExpr, Position)) {
    let outermost = file
        .aliases()
        .map(|a| &a.target)
        .chain(file.structs().flat_map(|s| s.fields.iter().map(|f| &f.ty)))
        .chain(file.interfaces().flat_map(|i| {
            i.methods
                .iter()
                .flat_map(|m| m.params.iter().chain(&m.results).map(|p| &p.ty))
        }));
    for ty in outermost {
        walk(ty, Position::Outermost, visit);
    }
}

fn walk<'a>(ty: &'a TypeExpr, position: Position, visit: &mut dyn FnMut(&'a TypeExpr, Position)) {
    visit(ty, position);
    match &ty.kind {
        TypeKind::List(elem) => walk(elem, Position::ListElement, visit),
        TypeKind::Ptr(target) => walk(target, Position::PtrTarget, visit),
        TypeKind::Named(_) | TypeKind::BytesFixed(_) => {}
    }
}

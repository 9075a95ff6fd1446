//! Every named type is a built-in, a struct, an enum or an alias declared in the file.

use super::Context;
use crate::ast::{SchemaFile, TypeKind};
use crate::diag::Diagnostic;
use crate::ir::Scalar;
use crate::resolve::{BuiltinType, Symbol};

use super::{for_each_type, suggest};

/// A type name that is not declared (or names an interface, which is not a type).
pub(super) fn unknown_types(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let symbols = &cx.symbols;
    for_each_type(file, &mut |ty, _| {
        let TypeKind::Named(name) = &ty.kind else {
            return;
        };
        // `pkg.Type`: the imports rule's business.
        if BuiltinType::from_keyword(&name.text).is_some() || name.text.contains('.') {
            return;
        }
        let error = match symbols.get(&name.text) {
            Some(Symbol::Struct(_) | Symbol::Alias(_) | Symbol::Enum(_)) => return,
            Some(Symbol::Interface(_)) => Diagnostic::error(
                format!("`{}` is an interface, not a type", name.text),
                name.span.clone(),
                "an interface cannot be stored",
            )
            .with_hint("use a struct type here"),
            None => Diagnostic::error(
                format!("unknown type `{}`", name.text),
                name.span.clone(),
                "not a built-in type, struct or alias",
            )
            .with_hint(match imported_namesake(symbols, &name.text) {
                Some(qualified) => format!(
                    "did you mean `{qualified}`? a type of an imported file is named with its package"
                ),
                None => unknown_type_hint(&name.text, file),
            }),
        };
        errors.push(error);
    });
}

/// An imported type named `name` in its package (`common.Kind` for `Kind`).
fn imported_namesake<'a>(symbols: &crate::resolve::Symbols<'a>, name: &str) -> Option<&'a str> {
    let mut found: Vec<&str> = symbols
        .names()
        .filter(|n| n.split_once('.').is_some_and(|(_, local)| local == name))
        .collect();
    found.sort_unstable();
    found.first().copied()
}

/// The end of an unknown type's hint when no name is close.
const BUILT_IN_TYPES: &str =
    "Built-in types: bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 text bytes bytes_fixed[N] list<T>";

/// Suggest the closest known type name, or list the built-in types.
fn unknown_type_hint(name: &str, file: &SchemaFile) -> String {
    let builtins = Scalar::ALL
        .iter()
        .map(|s| s.keyword())
        .chain(["text", "bytes"]);
    let declared = file
        .structs()
        .map(|s| s.name.text.as_str())
        .chain(file.aliases().map(|a| a.name.text.as_str()))
        .chain(file.enums().map(|e| e.name.text.as_str()));
    match suggest::closest(name, builtins.chain(declared)) {
        Some(known) => format!("did you mean `{known}`?"),
        None if name.contains('.') => format!(
            "`{name}` is not declared in the imported file of its package. {BUILT_IN_TYPES}"
        ),
        None => format!(
            "`{name}` is declared neither in this file nor in a file it imports: declare it \
             here, or import the file that declares it (`import \"file.zap\"`, then \
             `pkg.{name}`); zapc does not take it from other files of the same package as \
             the Go zapgen does. {BUILT_IN_TYPES}"
        ),
    }
}

//! `pkg.Type` names a type of a file this one imports (`import "common.zap"`, whose
//! `package common` declares `Type`).

use super::{for_each_type, suggest, Context};
use crate::ast::TypeKind;
use crate::diag::Diagnostic;
use crate::resolve::Symbol;

/// A qualified type name whose package is not imported here, or whose package does not
/// declare the type (or declares it as an interface).
pub(super) fn qualified_type_names(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for_each_type(cx.file, &mut |ty, _| {
        let TypeKind::Named(name) = &ty.kind else {
            return;
        };
        let Some((package, local)) = name.text.split_once('.') else {
            return;
        };
        let span = name.span.clone();
        if !cx.imported_packages.iter().any(|p| p == package) {
            let hint = match cx.imported_packages.as_slice() {
                [] => format!(
                    "import the file that declares `package {package}` (`import \"{package}.zap\"`) to use its types"
                ),
                imported => format!(
                    "this file imports {}; import the file that declares `package {package}` to use its types",
                    imported
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            errors.push(
                Diagnostic::error(
                    format!("unknown package `{package}` in `{}`", name.text),
                    span.start..span.start + package.len(),
                    "no import of this file declares this package",
                )
                .with_hint(hint),
            );
            return;
        }
        match cx.symbols.get(&name.text) {
            Some(Symbol::Struct(_) | Symbol::Alias(_) | Symbol::Enum(_)) => {}
            Some(Symbol::Interface(_)) => errors.push(
                Diagnostic::error(
                    format!("`{}` is an interface, not a type", name.text),
                    span,
                    "an interface cannot be stored",
                )
                .with_hint("use a struct type here"),
            ),
            None => {
                let prefix = format!("{package}.");
                let mut candidates: Vec<&str> = cx
                    .symbols
                    .names()
                    .filter_map(|n| n.strip_prefix(prefix.as_str()))
                    .collect();
                candidates.sort_unstable();
                let hint = match suggest::closest(local, candidates.into_iter()) {
                    Some(known) => format!("did you mean `{package}.{known}`?"),
                    None => format!(
                        "only the structs, enums and aliases that package `{package}` declares can be named `{package}.Name`"
                    ),
                };
                errors.push(
                    Diagnostic::error(
                        format!("unknown type `{}`", name.text),
                        span,
                        format!("package `{package}` declares no struct, enum or alias `{local}`"),
                    )
                    .with_hint(hint),
                );
            }
        }
    });
}

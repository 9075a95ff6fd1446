//! Declared names must not hide the built-in type keywords.

use super::Context;
use crate::ast::Declaration;
use crate::diag::Diagnostic;
use crate::resolve::BuiltinType;

/// Type keywords that cannot be declared as names.
const TYPE_KEYWORDS: [&str; 3] = ["bytes_fixed", "list", "ptr"];

/// A struct, alias, interface or enum named like a built-in type (`u32`, `text`, `list`, ...).
pub(super) fn builtin_names_redeclared(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    let file = cx.file;
    let names = file.declarations.iter().filter_map(|d| match d {
        Declaration::Struct(s) => Some(&s.name),
        Declaration::Alias(a) => Some(&a.name),
        Declaration::Interface(i) => Some(&i.name),
        Declaration::Enum(e) => Some(&e.name),
        // A constant is a value, not a type: it hides no type name.
        Declaration::Package(_) | Declaration::Const(_) | Declaration::Import(_) => None,
    });
    for name in names {
        let text = name.text.as_str();
        if BuiltinType::from_keyword(text).is_some() || TYPE_KEYWORDS.contains(&text) {
            errors.push(
                Diagnostic::error(
                    format!("`{text}` is a built-in type name"),
                    name.span.clone(),
                    "reserved name",
                )
                .with_hint("choose another name: built-in type names cannot be declared again"),
            );
        }
    }
}

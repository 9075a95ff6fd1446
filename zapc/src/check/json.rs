//! `json(...)` options: which exist, where, and with which values.
//!
//! The same functions read the options for the checker (which reports every problem)
//! and for lowering (which builds the IR from options the checker accepted), so the two
//! cannot disagree about what an option means.

use std::collections::HashMap;

use super::suggest::closest;
use super::Context;
use crate::ast::{FieldDecl, Ident, JsonOption, JsonOptions, MethodDecl, OptionValue, StructDecl};
use crate::diag::Diagnostic;
use crate::ir::{self, FieldJson, MethodJson, Scalar};
use crate::resolve::{BuiltinType, Resolved};

/// The options a field takes.
const FIELD_OPTIONS: &[&str] = &["name", "quantity", "block_tags"];
/// The options a method takes.
const METHOD_OPTIONS: &[&str] = &["name", "params", "result", "subscription"];

/// Every problem with the `json(...)` of every field and method.
pub(super) fn json_options(cx: &Context<'_>, errors: &mut Vec<Diagnostic>) {
    for decl in cx.file.structs() {
        for field in &decl.fields {
            field_json(cx, field, errors);
        }
        duplicate_json_keys(decl, errors);
    }
    for interface in cx.file.interfaces() {
        let mut names: HashMap<String, &Ident> = HashMap::new();
        let mut subscriptions: HashMap<String, &Ident> = HashMap::new();
        for method in &interface.methods {
            let json = method_json(cx, method, errors);
            if let Some(name) = json.subscription {
                if let Some(first) = subscriptions.insert(name.clone(), &method.name) {
                    let what = format!("are subscription `{name}`");
                    errors.push(clash(&interface.name, &what, method, first, "subscription"));
                }
            }
            let rpc_name = json.name.unwrap_or_else(|| {
                ir::default_json_rpc_name(&interface.name.text, &method.name.text)
            });
            let Some(first) = names.get(&rpc_name) else {
                names.insert(rpc_name, &method.name);
                continue;
            };
            // Methods with the same schema name are reported as duplicate methods.
            if first.text != method.name.text {
                let what = format!("are called `{rpc_name}` in JSON-RPC");
                errors.push(clash(&interface.name, &what, method, first, "name"));
            }
        }
    }
}

/// Two methods of `interface` that take the same JSON-RPC name (`option`: `name` or
/// `subscription`).
fn clash(
    interface: &Ident,
    what: &str,
    method: &MethodDecl,
    first: &Ident,
    option: &str,
) -> Diagnostic {
    Diagnostic::error(
        format!("two methods of `{}` {what}", interface.text),
        method.name.span.clone(),
        format!(
            "this method's {}",
            if option == "name" {
                "JSON-RPC name"
            } else {
                option
            }
        ),
    )
    .with_secondary(first.span.clone(), "is also this method's")
    .with_hint(format!(
        "give one of them another `json({option} = \"...\")`"
    ))
}

/// Two fields of one struct with the same JSON key.
fn duplicate_json_keys(decl: &StructDecl, errors: &mut Vec<Diagnostic>) {
    let mut keys: HashMap<String, &FieldDecl> = HashMap::new();
    for field in &decl.fields {
        let key = match explicit_name(field.json.as_ref()) {
            Some(name) => name.to_owned(),
            None => ir::json_key(&field.name.text),
        };
        if let Some(first) = keys.get(&key) {
            // Fields with the same schema name are reported as duplicate fields.
            if first.name.text != field.name.text {
                errors.push(
                    Diagnostic::error(
                        format!(
                            "two fields of `{}` have the JSON key `{key}`",
                            decl.name.text
                        ),
                        field.name.span.clone(),
                        "this field's JSON key",
                    )
                    .with_secondary(first.name.span.clone(), "is also this field's")
                    .with_hint("give one of them another `json(name = \"...\")`"),
                );
            }
        } else {
            keys.insert(key, field);
        }
    }
}

fn explicit_name(options: Option<&JsonOptions>) -> Option<&str> {
    options?
        .options
        .iter()
        .find(|o| o.name.text == "name")
        .and_then(|o| match &o.value {
            Some(OptionValue::Text { text, .. }) => Some(text.as_str()),
            _ => None,
        })
}

/// The JSON options of `field`, with a diagnostic for each one that is unknown, repeated,
/// malformed or does not fit the field's type.
pub(crate) fn field_json(
    cx: &Context<'_>,
    field: &FieldDecl,
    errors: &mut Vec<Diagnostic>,
) -> FieldJson {
    let mut json = FieldJson::default();
    let Some(options) = &field.json else {
        return json;
    };
    let scalar = match cx.symbols.resolve(&field.ty) {
        Some(Resolved::Builtin(BuiltinType::Scalar(s))) => Some(s),
        _ => None,
    };
    for option in known_once(options, FIELD_OPTIONS, "a field", errors) {
        match option.name.text.as_str() {
            "name" => json.name = text_value(option, "a JSON key", "blockHash", errors),
            "quantity" if flag(option, errors) => {
                if scalar.is_some_and(is_unsigned) {
                    json.quantity = true;
                } else {
                    errors.push(wrong_type(
                        option,
                        field,
                        "an unsigned integer (`u8` to `u64`)",
                        "Ethereum quantities are unsigned integers",
                    ));
                }
            }
            "block_tags" if flag(option, errors) => {
                if scalar == Some(Scalar::U64) {
                    json.block_tags = true;
                } else {
                    errors.push(wrong_type(
                        option,
                        field,
                        "a `u64`",
                        "block tags map to reserved block numbers near u64::MAX",
                    ));
                }
            }
            _ => {}
        }
    }
    json
}

fn is_unsigned(s: Scalar) -> bool {
    matches!(s, Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64)
}

fn wrong_type(option: &JsonOption, field: &FieldDecl, needs: &str, why: &str) -> Diagnostic {
    Diagnostic::error(
        format!(
            "`{}` needs {needs}, but field `{}` is `{}`",
            option.name.text,
            field.name.text,
            field.ty.to_schema_syntax()
        ),
        option.span(),
        format!("the field is `{}`", field.ty.to_schema_syntax()),
    )
    .with_secondary(field.ty.span.clone(), "the field's type")
    .with_hint(why.to_owned())
}

/// The JSON options of `method`, checked against its request and response structs.
pub(crate) fn method_json(
    cx: &Context<'_>,
    method: &MethodDecl,
    errors: &mut Vec<Diagnostic>,
) -> MethodJson {
    let mut json = MethodJson::default();
    let Some(options) = &method.json else {
        return json;
    };
    let request = method
        .params
        .first()
        .and_then(|p| cx.symbols.resolve_struct(&p.ty));
    let response = method
        .results
        .first()
        .and_then(|p| cx.symbols.resolve_struct(&p.ty));
    for option in known_once(options, METHOD_OPTIONS, "a method", errors) {
        match option.name.text.as_str() {
            "name" => {
                json.name = text_value(option, "a JSON-RPC method name", "eth_getBalance", errors)
            }
            "params" => {
                let Some(names) = names_value(option, errors) else {
                    continue;
                };
                let Some(request) = request else {
                    if method.params.is_empty() {
                        errors.push(no_struct(option, method, "takes no parameter"));
                    }
                    continue;
                };
                let mut seen: HashMap<&str, &Ident> = HashMap::new();
                let mut ok = true;
                for name in names {
                    if let Some(first) = seen.insert(&name.text, name) {
                        ok = false;
                        errors.push(
                            Diagnostic::error(
                                format!("`{}` is listed twice in `params`", name.text),
                                name.span.clone(),
                                "listed again here",
                            )
                            .with_secondary(first.span.clone(), "first listed here")
                            .with_hint("each request field takes at most one position"),
                        );
                    }
                    ok &= field_of(request, name, "params", errors);
                }
                if ok {
                    json.positional = Some(names.iter().map(|n| n.text.clone()).collect());
                }
            }
            "result" => {
                let Some(OptionValue::Word(name)) = &option.value else {
                    errors.push(wrong_value(option, "a field name: `result = Balance`"));
                    continue;
                };
                let Some(response) = response else {
                    if method.results.is_empty() {
                        errors.push(no_struct(option, method, "returns nothing"));
                    }
                    continue;
                };
                if field_of(response, name, "result", errors) {
                    json.result_field = Some(name.text.clone());
                }
            }
            "subscription" => {
                let server_stream = method.results.first().is_some_and(|r| r.stream.is_some())
                    && method.params.iter().all(|p| p.stream.is_none());
                if !server_stream {
                    errors.push(
                        Diagnostic::error(
                            format!(
                                "`subscription` is set, but method `{}` is not a server stream",
                                method.name.text
                            ),
                            option.span(),
                            "only a server stream can be a subscription",
                        )
                        .with_hint(
                            "a subscription sends notifications to the client: declare the \
                             method `returns stream T`, with no `stream` parameter",
                        ),
                    );
                    continue;
                }
                json.subscription = text_value(option, "a subscription name", "newHeads", errors);
            }
            _ => {}
        }
    }
    json
}

fn no_struct(option: &JsonOption, method: &MethodDecl, what: &str) -> Diagnostic {
    Diagnostic::error(
        format!(
            "`{}` is set, but method `{}` {what}",
            option.name.text, method.name.text
        ),
        option.span(),
        "nothing to apply this to",
    )
    .with_hint(format!("remove `{}`", option.name.text))
}

/// True when `name` is a field of `decl`; else reports it, with a suggestion.
fn field_of(decl: &StructDecl, name: &Ident, option: &str, errors: &mut Vec<Diagnostic>) -> bool {
    // A reserved slot is not a field any more: it has no value to name.
    let live = || decl.fields.iter().filter(|f| !f.is_reserved());
    if live().any(|f| f.name.text == name.text) {
        return true;
    }
    let fields = live().map(|f| f.name.text.as_str());
    let hint = match closest(&name.text, fields.clone()) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!(
            "the fields of `{}` are: {}",
            decl.name.text,
            fields.collect::<Vec<_>>().join(", ")
        ),
    };
    errors.push(
        Diagnostic::error(
            format!(
                "`{option}` names `{}`, which is not a field of `{}`",
                name.text, decl.name.text
            ),
            name.span.clone(),
            "no such field",
        )
        .with_hint(hint),
    );
    false
}

/// The options of `options` that are known (from `known`), each the first of its name;
/// the others are reported.
fn known_once<'o>(
    options: &'o JsonOptions,
    known: &[&str],
    what: &str,
    errors: &mut Vec<Diagnostic>,
) -> Vec<&'o JsonOption> {
    let mut seen: HashMap<&str, &JsonOption> = HashMap::new();
    let mut accepted = Vec::new();
    for option in &options.options {
        let name = option.name.text.as_str();
        if !known.contains(&name) {
            let hint = match closest(name, known.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("the JSON options of {what} are: {}", known.join(", ")),
            };
            errors.push(
                Diagnostic::error(
                    format!("unknown JSON option `{name}` for {what}"),
                    option.name.span.clone(),
                    "not a JSON option here",
                )
                .with_hint(hint),
            );
        } else if let Some(first) = seen.get(name) {
            errors.push(
                Diagnostic::error(
                    format!("JSON option `{name}` is given twice"),
                    option.span(),
                    "given again here",
                )
                .with_secondary(first.span(), "first given here")
                .with_hint("keep one of them"),
            );
        } else {
            seen.insert(name, option);
            accepted.push(option);
        }
    }
    accepted
}

/// True for an option written without a value; else reports the value.
fn flag(option: &JsonOption, errors: &mut Vec<Diagnostic>) -> bool {
    match &option.value {
        None => true,
        Some(value) => {
            errors.push(
                Diagnostic::error(
                    format!("JSON option `{}` takes no value", option.name.text),
                    value.span(),
                    "remove this value",
                )
                .with_hint(format!("write just `{}`", option.name.text)),
            );
            false
        }
    }
}

/// The text of an `option = "..."` option (`name`, `subscription`), non-empty and
/// without spaces; `example` is a value of the kind it takes, for the hints.
fn text_value(
    option: &JsonOption,
    what: &str,
    example: &str,
    errors: &mut Vec<Diagnostic>,
) -> Option<String> {
    let Some(OptionValue::Text { text, span }) = &option.value else {
        let key = &option.name.text;
        // A bare name is most likely the value meant, unquoted.
        let value = match &option.value {
            Some(OptionValue::Word(word)) => word.text.as_str(),
            _ => example,
        };
        errors.push(
            wrong_value(option, &format!("{what} in quotes"))
                .with_hint(format!("write `{key} = \"{value}\"`")),
        );
        return None;
    };
    if text.is_empty() || text.contains(' ') {
        errors.push(
            Diagnostic::error(
                format!("{what} cannot be empty or contain spaces"),
                span.clone(),
                "not usable as a name",
            )
            .with_hint(format!("write {what} like `\"{example}\"`")),
        );
        return None;
    }
    Some(text.clone())
}

fn names_value<'o>(option: &'o JsonOption, errors: &mut Vec<Diagnostic>) -> Option<&'o [Ident]> {
    match &option.value {
        Some(OptionValue::Names { names, .. }) => Some(names),
        _ => {
            errors.push(wrong_value(
                option,
                "a list of request fields in order: `params = [Account, Block]`",
            ));
            None
        }
    }
}

fn wrong_value(option: &JsonOption, needs: &str) -> Diagnostic {
    let (span, found) = match &option.value {
        Some(value) => (value.span(), format!("found {}", value.kind())),
        None => (option.span(), "no value given".to_owned()),
    };
    Diagnostic::error(
        format!("JSON option `{}` needs {needs}", option.name.text),
        span,
        found,
    )
}

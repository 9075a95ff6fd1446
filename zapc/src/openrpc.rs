//! The OpenRPC 1.x document of a schema: what a JSON-RPC server built from it answers to
//! `rpc.discover`, and what `zapc openrpc` prints.
//!
//! One method per interface method, under its JSON-RPC name; its params as the JSON
//! mapping reads them (one per request field, by name or by position as the method's
//! JSON options say); its result as the mapping writes it (the response struct, or the
//! one field a method unwraps); and under `components.schemas` a JSON Schema (draft 7)
//! of every struct and enum (an enum: one of its names, or the number of a value the
//! schema does not declare). Doc comments become descriptions.
//!
//! The document is built as text by a small JSON writer of its own: the library is
//! a build dependency of every generated crate and of `zap-derive`, and stays free of
//! serde_json (see the `cli` feature in Cargo.toml).

use std::fmt::Write as _;

use crate::ir::{self, FieldJson, ListShape, Scalar, Type};

/// The OpenRPC version the document declares.
pub const OPENRPC_VERSION: &str = "1.2.6";

/// The pattern of an Ethereum quantity: `0x`, lower-case hex, no leading zeros.
pub const QUANTITY_PATTERN: &str = "^0x(0|[1-9a-f][0-9a-f]*)$";

/// The block tags a `block_tags` field accepts besides a quantity.
pub const BLOCK_TAGS: [&str; 5] = ["earliest", "finalized", "safe", "latest", "pending"];

/// The document, pretty-printed (two-space indent, a final newline), as `zapc openrpc`
/// writes it.
pub fn document(schema: &ir::Schema) -> String {
    let mut out = String::new();
    build(schema).write_pretty(&mut out, 0);
    out.push('\n');
    out
}

/// The document on one line, as a JSON-RPC server embeds it to answer `rpc.discover`.
pub fn document_json(schema: &ir::Schema) -> String {
    let mut out = String::new();
    build(schema).write_compact(&mut out);
    out
}

/// The name of the text constant that is the API's version (`const VERSION: text =
/// "1.2.0"`): the document's `info.version`.
pub const VERSION_CONST: &str = "VERSION";

/// `info.version`: the schema's `VERSION` text constant, else `0.0.0`.
fn api_version(schema: &ir::Schema) -> String {
    schema
        .consts
        .iter()
        .find_map(|c| match &c.value {
            ir::ConstValue::Text(v) if c.name == VERSION_CONST => Some(v.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "0.0.0".to_owned())
}

fn build(schema: &ir::Schema) -> Json {
    let title = schema.package.clone().unwrap_or_else(|| {
        let file = schema.source_name.rsplit(['/', '\\']).next().unwrap_or("");
        file.strip_suffix(".zap").unwrap_or(file).to_owned()
    });
    let mut info = Json::obj()
        .with("title", title)
        .with("version", api_version(schema));
    let docs: Vec<String> = schema
        .interfaces
        .iter()
        .filter(|i| !i.doc.is_empty())
        .map(|i| format!("{}: {}", i.name, description(&i.doc)))
        .collect();
    if !docs.is_empty() {
        info = info.with("description", docs.join("\n\n"));
    }
    let methods = schema
        .interfaces
        .iter()
        // Streams are not JSON-RPC calls: no method for them here.
        .flat_map(|i| {
            i.methods
                .iter()
                .filter(|m| m.streaming() == ir::Streaming::Unary)
                .map(move |m| method(schema, i, m))
        })
        .collect();
    // Server streams that JSON-RPC opens as subscriptions (`eth_subscribe`, or the
    // namespace's own): described
    // like methods, named by their subscription, under an extension key (OpenRPC has no
    // word for notifications).
    let subscriptions: Vec<Json> = schema
        .interfaces
        .iter()
        .flat_map(|i| {
            i.methods.iter().filter_map(move |m| {
                let name = m.json.subscription.clone()?;
                // Opened with `<namespace>_subscribe`, notified as `<namespace>_subscription`.
                let json_name = m.json_rpc_name(&i.name);
                let namespace = crate::ir::json_rpc_namespace(&json_name).to_owned();
                Some(method_named(schema, m, name).with("x-namespace", namespace))
            })
        })
        .collect();
    // Imported structs are named by their qualified names (`common.Kind`).
    let components = schema
        .all_structs()
        .map(|s| (s.name.clone(), struct_schema(s)))
        .chain(schema.all_enums().map(|e| (e.name.clone(), enum_schema(e))))
        .collect();
    let mut document = Json::obj()
        .with("openrpc", OPENRPC_VERSION)
        .with("info", info)
        .with("methods", Json::Arr(methods));
    if !subscriptions.is_empty() {
        document = document.with("x-subscriptions", Json::Arr(subscriptions));
    }
    document.with(
        "components",
        Json::obj().with("schemas", Json::Obj(components)),
    )
}

fn method(schema: &ir::Schema, interface: &ir::Interface, m: &ir::Method) -> Json {
    method_named(schema, m, m.json_rpc_name(&interface.name))
}

/// A method object for `m` under `name`: its params, result (for a stream, what each
/// message is) and flags.
fn method_named(schema: &ir::Schema, m: &ir::Method, name: String) -> Json {
    let mut out = Json::obj().with("name", name);
    if !m.doc.is_empty() {
        out = out.with("description", description(&m.doc));
    }
    let request = m.param.as_ref().and_then(|p| schema.struct_named(&p.ty));
    let (params, structure) = match (request, m.json.positional.as_deref()) {
        (None, _) => (Vec::new(), None),
        (Some(request), Some(order)) => {
            let fields = order
                .iter()
                .filter_map(|name| request.fields.iter().find(|f| &f.name == name));
            (fields.map(param).collect(), Some("by-position"))
        }
        (Some(request), None) => (request.fields.iter().map(param).collect(), Some("either")),
    };
    out = out.with("params", Json::Arr(params));
    if let Some(structure) = structure {
        out = out.with("paramStructure", structure);
    }
    let response = m.result.as_ref().and_then(|r| schema.struct_named(&r.ty));
    let result = match (response, m.result.as_ref()) {
        (Some(response), Some(declared)) => {
            match m
                .json
                .result_field
                .as_deref()
                .and_then(|name| response.fields.iter().find(|f| f.name == name))
            {
                Some(field) => content(field.json_key(), field_schema(field), &field.doc),
                None => {
                    let name = if declared.name.is_empty() {
                        declared.ty.clone()
                    } else {
                        declared.name.clone()
                    };
                    content(name, reference(&response.name), &response.doc)
                }
            }
        }
        _ => content("null".to_owned(), Json::obj().with("type", "null"), &[]),
    };
    let mut out = out.with("result", result);
    // A specification extension (OpenRPC has no word for it): clients may retry the call.
    match m.idempotency {
        crate::ir::Idempotency::Unknown => {}
        crate::ir::Idempotency::Idempotent => out = out.with("x-idempotent", json_true()),
        crate::ir::Idempotency::NoSideEffects => {
            out = out
                .with("x-idempotent", json_true())
                .with("x-no-side-effects", json_true());
        }
    }
    if m.deprecated {
        out.with("deprecated", json_true())
    } else {
        out
    }
}

/// A content descriptor for one request field.
fn param(field: &ir::Field) -> Json {
    content(field.json_key(), field_schema(field), &field.doc)
}

fn content(name: String, schema: Json, doc: &[String]) -> Json {
    let mut out = Json::obj().with("name", name);
    if !doc.is_empty() {
        out = out.with("description", description(doc));
    }
    out.with("schema", schema)
}

fn struct_schema(s: &ir::Struct) -> Json {
    let properties = s
        .fields
        .iter()
        .map(|f| {
            let mut schema = field_schema(f);
            if !f.doc.is_empty() {
                schema = schema.with("description", description(&f.doc));
            }
            if f.deprecated {
                schema = schema.with("deprecated", json_true());
            }
            (f.json_key(), schema)
        })
        .collect();
    let mut out = Json::obj().with("title", s.name.clone());
    if !s.doc.is_empty() {
        out = out.with("description", description(&s.doc));
    }
    if s.deprecated {
        out = out.with("deprecated", json_true());
    }
    out.with("type", "object")
        .with("properties", Json::Obj(properties))
}

/// `true`, for the `deprecated` annotations (OpenRPC's Method Object, JSON Schema's
/// meta-data keyword): a JSON literal, written as is.
fn json_true() -> Json {
    Json::Num("true".to_owned())
}

/// An enum: one of its names, or (for a value added by a newer schema, which the JSON
/// mapping writes as its number) an integer of its representation.
fn enum_schema(e: &ir::Enum) -> Json {
    let names = Json::obj().with("type", "string").with(
        "enum",
        Json::Arr(
            e.values
                .iter()
                .map(|v| Json::from(v.name.as_str()))
                .collect(),
        ),
    );
    let number = scalar_schema(e.repr).with(
        "description",
        "a value this version of the schema does not declare",
    );
    let mut out = Json::obj().with("title", e.name.clone());
    if !e.doc.is_empty() {
        out = out.with("description", description(&e.doc));
    }
    out.with("oneOf", Json::Arr(vec![names, number]))
}

fn field_schema(field: &ir::Field) -> Json {
    type_schema(&field.ty, &field.json)
}

fn type_schema(ty: &Type, options: &FieldJson) -> Json {
    match ty {
        Type::Scalar(scalar) => integer_options(*scalar, options),
        Type::Text => Json::obj().with("type", "string"),
        Type::Bytes => hex_string("^0x([0-9a-fA-F]{2})*$".to_owned(), "bytes as 0x-hex"),
        Type::BytesFixed(n) => hex_string(
            format!("^0x[0-9a-fA-F]{{{}}}$", 2 * u64::from(*n)),
            &format!("{n} bytes as 0x-hex"),
        ),
        Type::Struct(name) => nullable(reference(name)),
        Type::Enum { name, .. } => reference(name),
        Type::List(list) => {
            let items = match (&list.elem, list.shape) {
                (Type::Struct(name), ListShape::Pointer) => nullable(reference(name)),
                (Type::Struct(name), _) => reference(name),
                (elem, _) => type_schema(elem, options),
            };
            Json::obj().with("type", "array").with("items", items)
        }
    }
}

/// A scalar with the field's `quantity` and `block_tags` options applied.
fn integer_options(scalar: Scalar, options: &FieldJson) -> Json {
    let base = if options.quantity {
        Json::obj()
            .with("title", format!("{} quantity", scalar.keyword()))
            .with("type", "string")
            .with("pattern", QUANTITY_PATTERN)
    } else {
        scalar_schema(scalar)
    };
    if !options.block_tags {
        return base;
    }
    let tags = Json::obj()
        .with("title", "block tag")
        .with("type", "string")
        .with(
            "enum",
            Json::Arr(BLOCK_TAGS.iter().map(|t| Json::from(*t)).collect()),
        );
    Json::obj()
        .with("title", "block number or tag")
        .with("oneOf", Json::Arr(vec![base, tags]))
}

fn scalar_schema(scalar: Scalar) -> Json {
    let (min, max): (i128, i128) = match scalar {
        Scalar::Bool => return Json::obj().with("type", "boolean"),
        Scalar::F32 | Scalar::F64 => return Json::obj().with("type", "number"),
        Scalar::U8 => (0, u8::MAX.into()),
        Scalar::U16 => (0, u16::MAX.into()),
        Scalar::U32 => (0, u32::MAX.into()),
        Scalar::U64 => (0, u64::MAX.into()),
        Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
        Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
        Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
        Scalar::I64 => (i64::MIN.into(), i64::MAX.into()),
    };
    let number = Json::obj()
        .with("type", "integer")
        .with("minimum", Json::Num(min.to_string()))
        .with("maximum", Json::Num(max.to_string()));
    if scalar.width() < 8 {
        return number;
    }
    // 64-bit integers are written as numbers and also read from decimal or 0x strings,
    // for clients whose numbers are doubles.
    let decimal = if min < 0 { "^-?[0-9]+$" } else { "^[0-9]+$" };
    let strings = [
        Json::obj().with("type", "string").with("pattern", decimal),
        Json::obj()
            .with("type", "string")
            .with("pattern", "^0[xX][0-9a-fA-F]+$"),
    ];
    Json::obj().with("title", scalar.keyword()).with(
        "anyOf",
        Json::Arr(std::iter::once(number).chain(strings).collect()),
    )
}

fn hex_string(pattern: String, title: &str) -> Json {
    Json::obj()
        .with("title", title)
        .with("type", "string")
        .with("pattern", pattern)
}

fn reference(name: &str) -> Json {
    Json::obj().with("$ref", format!("#/components/schemas/{name}"))
}

fn nullable(schema: Json) -> Json {
    Json::obj().with(
        "oneOf",
        Json::Arr(vec![schema, Json::obj().with("type", "null")]),
    )
}

fn description(doc: &[String]) -> String {
    doc.iter()
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Just enough of a JSON value to write the document: objects keep their key order.
#[derive(Debug, Clone)]
enum Json {
    Str(String),
    /// A number, already in JSON syntax.
    Num(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_owned())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}

impl Json {
    fn obj() -> Json {
        Json::Obj(Vec::new())
    }

    /// This object with `key` added at the end.
    fn with(self, key: &str, value: impl Into<Json>) -> Json {
        match self {
            Json::Obj(mut entries) => {
                entries.push((key.to_owned(), value.into()));
                Json::Obj(entries)
            }
            other => unreachable!("`with` on a non-object: {other:?}"),
        }
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Json::Str(s) => write_str(out, s),
            Json::Num(n) => out.push_str(n),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_compact(out);
                }
                out.push(']');
            }
            Json::Obj(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, key);
                    out.push(':');
                    value.write_compact(out);
                }
                out.push('}');
            }
        }
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let newline = |out: &mut String, depth: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n("  ", depth));
        };
        match self {
            Json::Arr(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    newline(out, depth + 1);
                    item.write_pretty(out, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            Json::Obj(entries) if !entries.is_empty() => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    out.push_str(if i > 0 { "," } else { "" });
                    newline(out, depth + 1);
                    write_str(out, key);
                    out.push_str(": ");
                    value.write_pretty(out, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
            _ => self.write_compact(out),
        }
    }
}

/// `s` as a JSON string literal (RFC 8259 escapes).
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        let mut out = String::new();
        write_str(&mut out, "a\"b\\c\n\u{1}é");
        assert_eq!(out, r#""a\"b\\c\n\u0001é""#);
    }

    #[test]
    fn empty_containers_stay_on_one_line() {
        let mut out = String::new();
        Json::obj()
            .with("a", Json::Arr(vec![]))
            .with("b", Json::obj())
            .write_pretty(&mut out, 0);
        assert_eq!(out, "{\n  \"a\": [],\n  \"b\": {}\n}");
    }
}

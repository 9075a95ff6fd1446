//! JSON <-> wire for any struct of a schema, driven by the IR at run time (no generated
//! code): what `zapc encode` and `zapc decode` use. The JSON mapping is the spec's, the
//! same as the generated owned types', and so are the rules for hostile messages: the
//! runtime's [`DecodeBudget`] bounds the walk, and text that is not UTF-8 reads as `""`,
//! as generated readers (and so the JSON-RPC fallback) read it.

use serde_json::{Map, Number, Value};
use zap_runtime::json::{
    block_number, block_quantity, block_tag, from_hex, json_type as describe, quantity, to_hex,
    write_quantity,
};
use zap_runtime::{BuildError, Builder, DecodeBudget, ListRef, Message, Object, ObjectBuilder};

use zapc::ir::{Enum, Field, ListShape, Scalar, Schema, Struct, Type};

/// Why a JSON value does not fit the schema. `path` is a JSON path (`$.items[2].note`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct JsonError {
    pub path: String,
    pub message: String,
}

fn err(path: &str, message: impl Into<String>) -> JsonError {
    JsonError {
        path: path.to_string(),
        message: message.into(),
    }
}

/// Encode `json` (an object in the JSON mapping) as a complete message of struct `ty`.
pub fn encode(schema: &Schema, ty: &Struct, json: &Value) -> Result<Vec<u8>, JsonError> {
    let mut b = Builder::new();
    let mut obj = b.start_object(ty.size as usize);
    write_struct(schema, ty, json, &mut obj, "$")?;
    obj.finish_as_root();
    b.finish()
        .map_err(|e: BuildError| err("$", e.to_string()))?;
    Ok(b.take_bytes())
}

/// Decode a complete message of struct `ty` into its JSON mapping.
pub fn decode(schema: &Schema, ty: &Struct, wire: &[u8]) -> Result<Value, zap_runtime::ParseError> {
    let msg = Message::parse(wire)?;
    let mut budget = DecodeBudget::for_message(msg.size());
    Ok(read_struct(schema, ty, msg.root(), &mut budget))
}

fn lookup<'s>(schema: &'s Schema, name: &str, path: &str) -> Result<&'s Struct, JsonError> {
    schema
        .struct_named(name)
        .ok_or_else(|| err(path, format!("struct {name} is not in the schema")))
}

fn write_struct(
    schema: &Schema,
    ty: &Struct,
    json: &Value,
    obj: &mut ObjectBuilder<'_>,
    path: &str,
) -> Result<(), JsonError> {
    let Value::Object(map) = json else {
        return Err(err(
            path,
            format!(
                "expected an object for {}, found {}",
                ty.name,
                describe(json)
            ),
        ));
    };
    for key in map.keys() {
        if !ty.fields.iter().any(|f| f.json_key() == *key) {
            let known: Vec<String> = ty.fields.iter().map(Field::json_key).collect();
            return Err(err(
                path,
                format!(
                    "{} has no field {key:?} (fields: {})",
                    ty.name,
                    known.join(", ")
                ),
            ));
        }
    }
    for field in &ty.fields {
        let key = field.json_key();
        let Some(value) = map.get(&key) else {
            // Absent, a block is Ethereum's default block, as in generated code.
            if field.json.block_tags {
                obj.set_u64(field.offset as usize, block_tag::LATEST);
            }
            continue;
        };
        let path = format!("{path}.{key}");
        if field.json.quantity || field.json.block_tags {
            write_ethereum_number(field, value, obj, &path)?;
        } else {
            write_field(schema, &field.ty, field.offset as usize, value, obj, &path)?;
        }
    }
    Ok(())
}

/// A field with `json(quantity)` or `json(block_tags)`, read by the same rules as the
/// generated code's (the runtime's serde adapters).
fn write_ethereum_number(
    field: &Field,
    v: &Value,
    obj: &mut ObjectBuilder<'_>,
    path: &str,
) -> Result<(), JsonError> {
    let off = field.offset as usize;
    let bad = |e: serde_json::Error| err(path, e.to_string());
    let value: u64 = match (field.json.quantity, field.json.block_tags) {
        (true, true) => block_quantity::deserialize(v).map_err(bad)?,
        (false, true) => block_number::deserialize(v).map_err(bad)?,
        _ => match field.ty {
            Type::Scalar(Scalar::U8) => quantity::deserialize::<_, u8>(v).map_err(bad)?.into(),
            Type::Scalar(Scalar::U16) => quantity::deserialize::<_, u16>(v).map_err(bad)?.into(),
            Type::Scalar(Scalar::U32) => quantity::deserialize::<_, u32>(v).map_err(bad)?.into(),
            _ => quantity::deserialize::<_, u64>(v).map_err(bad)?,
        },
    };
    // The value was read at the field's width, so these narrowings keep it.
    match field.ty {
        Type::Scalar(Scalar::U8) => obj.set_u8(off, value as u8),
        Type::Scalar(Scalar::U16) => obj.set_u16(off, value as u16),
        Type::Scalar(Scalar::U32) => obj.set_u32(off, value as u32),
        _ => obj.set_u64(off, value),
    }
    Ok(())
}

/// The JSON of a field with `json(quantity)` or `json(block_tags)`.
fn read_ethereum_number(field: &Field, obj: Object<'_>) -> Value {
    let off = field.offset as usize;
    let value = match field.ty {
        Type::Scalar(Scalar::U8) => u64::from(obj.u8(off)),
        Type::Scalar(Scalar::U16) => u64::from(obj.u16(off)),
        Type::Scalar(Scalar::U32) => u64::from(obj.u32(off)),
        _ => obj.u64(off),
    };
    if field.json.block_tags {
        if let Some(tag) = block_tag::name(value) {
            return Value::String(tag.to_owned());
        }
    }
    if field.json.quantity {
        Value::String(write_quantity(value, &mut [0; 18]).to_owned())
    } else {
        value.into()
    }
}

fn write_field(
    schema: &Schema,
    ty: &Type,
    off: usize,
    v: &Value,
    obj: &mut ObjectBuilder<'_>,
    path: &str,
) -> Result<(), JsonError> {
    match ty {
        Type::Scalar(s) => write_scalar(*s, off, v, obj, path),
        Type::Enum { name, repr } => {
            let number = enum_number(schema, name, v, path)?;
            write_scalar(*repr, off, &number, obj, path)
        }
        Type::Text => {
            obj.set_text(off, as_str(v, path)?);
            Ok(())
        }
        Type::Bytes => {
            obj.set_bytes(off, &as_hex(v, None, path)?);
            Ok(())
        }
        Type::BytesFixed(n) => {
            obj.set_bytes_fixed(off, &as_hex(v, Some(*n as usize), path)?);
            Ok(())
        }
        Type::Struct(name) => {
            if v.is_null() {
                return Ok(());
            }
            let child_ty = lookup(schema, name, path)?;
            let mut child = obj.builder().start_object(child_ty.size as usize);
            write_struct(schema, child_ty, v, &mut child, path)?;
            let at = child.finish();
            obj.set_object(off, at);
            Ok(())
        }
        Type::List(list) => {
            let Value::Array(items) = v else {
                if v.is_null() {
                    return Ok(());
                }
                return Err(err(
                    path,
                    format!("expected an array, found {}", describe(v)),
                ));
            };
            if items.is_empty() {
                return Ok(());
            }
            let list = write_list(schema, &list.elem, list.shape, items, obj.builder(), path)?;
            obj.set_list(off, list);
            Ok(())
        }
    }
}

fn write_list(
    schema: &Schema,
    elem: &Type,
    shape: ListShape,
    items: &[Value],
    b: &mut Builder,
    path: &str,
) -> Result<ListRef, JsonError> {
    match (elem, shape) {
        (Type::Struct(name), ListShape::Pointer) => {
            let ty = lookup(schema, name, path)?;
            let count = u32::try_from(items.len())
                .map_err(|_| err(path, "a list holds at most 4294967295 elements"))?;
            let slots = b.start_pointer_list(count);
            for (i, item) in (0..count).zip(items) {
                if item.is_null() {
                    continue;
                }
                let mut obj = b.start_object(ty.size as usize);
                write_struct(schema, ty, item, &mut obj, &format!("{path}[{i}]"))?;
                let at = obj.finish();
                b.set_pointer(slots, i, at);
            }
            Ok(slots.list(b))
        }
        (Type::Struct(name), ListShape::Strided { .. }) => {
            let ty = lookup(schema, name, path)?;
            let mut list = b.start_list(ty.size as usize);
            for (i, item) in items.iter().enumerate() {
                let mut obj = list.push_struct();
                write_struct(schema, ty, item, &mut obj, &format!("{path}[{i}]"))?;
                // A strided element sits in the list: nothing points at it.
                let _ = obj.finish();
            }
            Ok(list.finish())
        }
        (Type::Struct(name), ListShape::Framed) => {
            let ty = lookup(schema, name, path)?;
            let mut list = b.start_list(0);
            for (i, item) in items.iter().enumerate() {
                list.push_message(|b| {
                    let mut obj = b.start_object(ty.size as usize);
                    let r = write_struct(schema, ty, item, &mut obj, &format!("{path}[{i}]"));
                    obj.finish_as_root();
                    r
                })?;
            }
            Ok(list.finish())
        }
        (Type::Text | Type::Bytes, _) => {
            let mut list = b.start_list(0);
            for (i, item) in items.iter().enumerate() {
                let path = format!("{path}[{i}]");
                match elem {
                    Type::Text => list.push_framed(as_str(item, &path)?.as_bytes()),
                    _ => list.push_framed(&as_hex(item, None, &path)?),
                }
            }
            Ok(list.finish())
        }
        (Type::BytesFixed(n), _) => {
            let mut list = b.start_list(*n as usize);
            for (i, item) in items.iter().enumerate() {
                list.push_raw(&as_hex(item, Some(*n as usize), &format!("{path}[{i}]"))?);
            }
            Ok(list.finish())
        }
        (Type::Scalar(s), _) => {
            // A scalar list is a run of fixed-width slots: write each through a strided
            // "struct" whose only field is the scalar at offset 0.
            let mut list = b.start_list(s.width() as usize);
            for (i, item) in items.iter().enumerate() {
                let mut slot = list.push_struct();
                write_scalar(*s, 0, item, &mut slot, &format!("{path}[{i}]"))?;
                let _ = slot.finish();
            }
            Ok(list.finish())
        }
        (Type::Enum { name, repr }, _) => {
            let mut list = b.start_list(repr.width() as usize);
            for (i, item) in items.iter().enumerate() {
                let path = format!("{path}[{i}]");
                let number = enum_number(schema, name, item, &path)?;
                let mut slot = list.push_struct();
                write_scalar(*repr, 0, &number, &mut slot, &path)?;
                let _ = slot.finish();
            }
            Ok(list.finish())
        }
        (Type::List(_), _) => Err(err(path, "lists of lists are not part of the format")),
    }
}

fn enum_named<'s>(schema: &'s Schema, name: &str, path: &str) -> Result<&'s Enum, JsonError> {
    schema
        .enum_named(name)
        .ok_or_else(|| err(path, format!("enum {name} is not in the schema")))
}

/// The number of an enum value written as its name, a number or a decimal string, as the
/// generated code reads it (`zap_runtime::json::enum_value`). Whether it fits the
/// representation is checked when it is written.
fn enum_number(schema: &Schema, name: &str, v: &Value, path: &str) -> Result<Value, JsonError> {
    let e = enum_named(schema, name, path)?;
    match v {
        Value::Number(_) => Ok(v.clone()),
        Value::String(s) => match e.value_named(s) {
            Some(n) => Ok(n.into()),
            None => match s.parse::<u64>() {
                Ok(n) => Ok(n.into()),
                Err(_) => Err(err(
                    path,
                    format!(
                        "unknown value {s:?} of enum {name}; expected {} or a number",
                        value_names(e)
                    ),
                )),
            },
        },
        _ => Err(err(
            path,
            format!(
                "expected a value of enum {name} ({} or a number), found {}",
                value_names(e),
                describe(v)
            ),
        )),
    }
}

fn value_names(e: &Enum) -> String {
    e.values
        .iter()
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An enum value as JSON: its name if declared, else its number.
fn enum_json(schema: &Schema, name: &str, number: Value) -> Value {
    let declared = number
        .as_u64()
        .and_then(|n| schema.enum_named(name)?.name_of(n));
    match declared {
        Some(value) => Value::String(value.to_owned()),
        None => number,
    }
}

fn as_str<'v>(v: &'v Value, path: &str) -> Result<&'v str, JsonError> {
    v.as_str()
        .ok_or_else(|| err(path, format!("expected a string, found {}", describe(v))))
}

fn as_hex(v: &Value, len: Option<usize>, path: &str) -> Result<Vec<u8>, JsonError> {
    let bytes = from_hex(as_str(v, path)?).map_err(|m| err(path, m))?;
    match len {
        Some(n) if bytes.len() != n => Err(err(
            path,
            format!("expected {n} bytes of hex, found {}", bytes.len()),
        )),
        _ => Ok(bytes),
    }
}

/// An integer from a JSON number, or a decimal or `0x` string.
fn as_int(v: &Value, path: &str) -> Result<i128, JsonError> {
    let parsed = match v {
        Value::Number(n) => n
            .as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from)),
        Value::String(s) => match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => i128::from_str_radix(hex, 16).ok(),
            None => s.parse::<i128>().ok(),
        },
        _ => None,
    };
    parsed.ok_or_else(|| err(path, format!("expected an integer, found {}", describe(v))))
}

fn write_scalar(
    s: Scalar,
    off: usize,
    v: &Value,
    obj: &mut ObjectBuilder<'_>,
    path: &str,
) -> Result<(), JsonError> {
    macro_rules! int {
        ($t:ty) => {{
            let n = as_int(v, path)?;
            let n = <$t>::try_from(n)
                .map_err(|_| err(path, format!("{n} does not fit {}", s.keyword())))?;
            obj.set(off, n);
        }};
    }
    match s {
        Scalar::Bool => obj.set_bool(
            off,
            v.as_bool()
                .ok_or_else(|| err(path, format!("expected a boolean, found {}", describe(v))))?,
        ),
        Scalar::U8 => int!(u8),
        Scalar::U16 => int!(u16),
        Scalar::U32 => int!(u32),
        Scalar::U64 => int!(u64),
        Scalar::I8 => int!(i8),
        Scalar::I16 => int!(i16),
        Scalar::I32 => int!(i32),
        Scalar::I64 => int!(i64),
        Scalar::F32 | Scalar::F64 => {
            let f = v
                .as_f64()
                .ok_or_else(|| err(path, format!("expected a number, found {}", describe(v))))?;
            if s == Scalar::F32 {
                obj.set_f32(off, f as f32);
            } else {
                obj.set_f64(off, f);
            }
        }
    }
    Ok(())
}

/// A nested struct as JSON: `null` for a null pointer, `None` once the budget is spent
/// (the same bounds as generated code's owned decoding).
fn child(
    schema: &Schema,
    ty: &Struct,
    obj: Object<'_>,
    budget: &mut DecodeBudget,
) -> Option<Value> {
    if obj.is_null() {
        return Some(Value::Null);
    }
    budget.enter(|budget| read_struct(schema, ty, obj, budget))
}

fn read_struct(schema: &Schema, ty: &Struct, obj: Object<'_>, budget: &mut DecodeBudget) -> Value {
    let mut map = Map::new();
    for field in &ty.fields {
        let value = if field.json.quantity || field.json.block_tags {
            read_ethereum_number(field, obj)
        } else {
            read_field(schema, &field.ty, field.offset as usize, obj, budget)
        };
        map.insert(field.json_key(), value);
    }
    Value::Object(map)
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn read_scalar(s: Scalar, off: usize, obj: Object<'_>) -> Value {
    match s {
        Scalar::Bool => Value::Bool(obj.bool(off)),
        Scalar::U8 => obj.u8(off).into(),
        Scalar::U16 => obj.u16(off).into(),
        Scalar::U32 => obj.u32(off).into(),
        Scalar::U64 => obj.u64(off).into(),
        Scalar::I8 => obj.i8(off).into(),
        Scalar::I16 => obj.i16(off).into(),
        Scalar::I32 => obj.i32(off).into(),
        Scalar::I64 => obj.i64(off).into(),
        Scalar::F32 => float(f64::from(obj.f32(off))),
        Scalar::F64 => float(obj.f64(off)),
    }
}

/// A `bytes_fixed[n]` as hex: n zero bytes when the slot lies past the end of the
/// message, as generated readers read it (absent is zero).
fn fixed_hex(obj: Object<'_>, off: usize, n: usize) -> Value {
    let bytes = obj.bytes_fixed_slice(off, n);
    if bytes.len() == n {
        Value::String(to_hex(bytes))
    } else {
        Value::String(to_hex(&vec![0; n]))
    }
}

fn read_field(
    schema: &Schema,
    ty: &Type,
    off: usize,
    obj: Object<'_>,
    budget: &mut DecodeBudget,
) -> Value {
    match ty {
        Type::Scalar(s) => read_scalar(*s, off, obj),
        Type::Enum { name, repr } => enum_json(schema, name, read_scalar(*repr, off, obj)),
        Type::Text => Value::String(obj.text(off).to_owned()),
        Type::Bytes => Value::String(to_hex(obj.bytes(off))),
        Type::BytesFixed(n) => fixed_hex(obj, off, *n as usize),
        Type::Struct(name) => {
            let child = obj.object(off);
            schema
                .struct_named(name)
                .and_then(|child_ty| self::child(schema, child_ty, child, budget))
                .unwrap_or(Value::Null)
        }
        Type::List(list) => read_list(schema, &list.elem, list.shape, obj.list(off), budget),
    }
}

fn read_list(
    schema: &Schema,
    elem: &Type,
    shape: ListShape,
    list: zap_runtime::List<'_>,
    budget: &mut DecodeBudget,
) -> Value {
    let items: Vec<Value> = match (elem, shape) {
        (Type::Struct(name), shape) => match schema.struct_named(name) {
            None => Vec::new(),
            Some(ty) => match shape {
                ListShape::Pointer => list
                    .pointers()
                    .map_while(|o| child(schema, ty, o, budget))
                    .collect(),
                ListShape::Strided { width } => list
                    .objects(width as usize)
                    .map_while(|o| child(schema, ty, o, budget))
                    .collect(),
                ListShape::Framed => list
                    .messages()
                    .map_while(|o| child(schema, ty, o, budget))
                    .collect(),
            },
        },
        (Type::Text, _) => list.texts().map(|t| Value::String(t.to_owned())).collect(),
        (Type::Bytes, _) => list.framed().map(|b| Value::String(to_hex(b))).collect(),
        (Type::BytesFixed(n), _) => {
            let n = *n as usize;
            list.objects(n).map(|o| fixed_hex(o, 0, n)).collect()
        }
        (Type::Scalar(s), _) => list
            .objects(s.width() as usize)
            .map(|o| read_scalar(*s, 0, o))
            .collect(),
        (Type::Enum { name, repr }, _) => list
            .objects(repr.width() as usize)
            .map(|o| enum_json(schema, name, read_scalar(*repr, 0, o)))
            .collect(),
        (Type::List(_), _) => Vec::new(),
    };
    Value::Array(items)
}

//! Checked syntax tree to [`ir::Schema`]: aliases resolved, method ordinals numbered,
//! and each struct built from the slots [`crate::layout`] placed for the checks.
//!
//! Lowering expects a file that passed [`crate::check`]; if it meets something the
//! checker should have refused, it returns an internal error instead of guessing.

use std::collections::HashMap;

use crate::ast::{ConstDecl, EnumDecl, InterfaceDecl, MethodDecl, ParamDecl, StructDecl, TypeExpr};
use crate::check::{const_type, field_json, method_json, method_ordinal, Context};
use crate::diag::Diagnostic;
use crate::ir;
use crate::layout::{enum_repr, object_size, struct_from_slots, FieldSpec, Slot};
use crate::resolve::{Resolved, Symbols};

/// Build the IR of a checked file.
pub fn lower(source_name: &str, cx: &Context<'_>) -> Result<ir::Schema, Diagnostic> {
    let file = cx.file;
    let shapes = StructShapes::compute(cx)?;
    let lowering = Lowering {
        cx,
        symbols: &cx.symbols,
        shapes: &shapes,
    };
    Ok(ir::Schema {
        source_name: source_name.to_owned(),
        package: file.packages().next().map(|p| p.name.text.clone()),
        structs: file
            .structs()
            .enumerate()
            .map(|(index, s)| lowering.structure(s, placed(cx, index, s)?))
            .collect::<Result<_, _>>()?,
        interfaces: file
            .interfaces()
            .map(|i| lowering.interface(i))
            .collect::<Result<_, _>>()?,
        enums: file.enums().map(enumeration).collect::<Result<_, _>>()?,
        consts: file
            .consts()
            .map(|c| lowering.constant(c))
            .collect::<Result<_, _>>()?,
        imports: Vec::new(),
    })
}

/// An enum the checks accepted: a known representation, values that fit it.
fn enumeration(decl: &EnumDecl) -> Result<ir::Enum, Diagnostic> {
    let repr = enum_repr(decl).ok_or_else(|| unchecked(&decl.repr.span, "enum representation"))?;
    let values = decl
        .values
        .iter()
        .map(|v| {
            Ok(ir::EnumValue {
                name: v.name.text.clone(),
                doc: v.doc.clone(),
                value: v
                    .value
                    .as_u32()
                    .ok_or_else(|| unchecked(&v.value.span, "enum value"))?,
            })
        })
        .collect::<Result<_, Diagnostic>>()?;
    Ok(ir::Enum {
        name: decl.name.text.clone(),
        doc: decl.doc.clone(),
        repr,
        values,
    })
}

/// Size and list shape of every struct, needed before any field type can be lowered
/// (a `list<Leaf>` field needs `Leaf`'s shape).
struct StructShapes {
    by_name: HashMap<String, (u32, ir::ListShape)>,
}

impl StructShapes {
    fn compute(cx: &Context<'_>) -> Result<Self, Diagnostic> {
        let mut by_name = HashMap::new();
        for (index, decl) in cx.file.structs().enumerate() {
            let size = u32::try_from(object_size(placed(cx, index, decl)?))
                .map_err(|_| unchecked(&decl.name.span, "struct size"))?;
            let all_inline = decl.fields.iter().all(|f| {
                matches!(
                    cx.symbols.resolve(&f.ty),
                    Some(Resolved::Builtin(crate::resolve::BuiltinType::Scalar(_)))
                        | Some(Resolved::BytesFixed(_))
                        | Some(Resolved::Enum(_))
                )
            });
            let shape = ir::ListShape::of_struct(all_inline, size);
            by_name
                .entry(decl.name.text.clone())
                .or_insert((size, shape));
        }
        for (name, size_and_shape) in &cx.imported_shapes {
            by_name.entry(name.clone()).or_insert(*size_and_shape);
        }
        Ok(StructShapes { by_name })
    }

    fn shape_of(&self, name: &str) -> Option<ir::ListShape> {
        self.by_name.get(name).map(|(_, shape)| *shape)
    }
}

/// The slots of the `index`-th struct, which the checks have accepted.
fn placed<'c>(
    cx: &'c Context<'_>,
    index: usize,
    decl: &StructDecl,
) -> Result<&'c [Slot], Diagnostic> {
    cx.slots
        .of(index)
        .ok_or_else(|| unchecked(&decl.name.span, "struct layout"))
}

/// An error the checker should have caught first.
fn unchecked(span: &std::ops::Range<usize>, what: &str) -> Diagnostic {
    Diagnostic::error(
        format!("internal error: {what} was not checked"),
        span.clone(),
        "here",
    )
    .with_hint("this is a bug in zapc; please report it with this schema")
}

struct Lowering<'s, 'a> {
    cx: &'s Context<'a>,
    symbols: &'s Symbols<'a>,
    shapes: &'s StructShapes,
}

impl<'a> Lowering<'_, 'a> {
    fn structure(&self, decl: &'a StructDecl, slots: &[Slot]) -> Result<ir::Struct, Diagnostic> {
        let mut fields = Vec::with_capacity(decl.fields.len());
        for field in &decl.fields {
            let offset = match &field.offset {
                Some(number) => Some(
                    number
                        .as_u32()
                        .ok_or_else(|| unchecked(&number.span, "field offset"))?,
                ),
                None => None,
            };
            fields.push(FieldSpec {
                name: field.name.text.clone(),
                doc: field.doc.clone(),
                ty: self.field_type(&field.ty)?,
                offset,
                json: self.checked(|errors| field_json(self.cx, field, errors))?,
            });
        }
        // Reserved slots are laid out with the fields (size and list shape count them),
        // then set apart: no back end reads or writes them.
        let mut laid_out =
            struct_from_slots(decl.name.text.clone(), decl.doc.clone(), fields, slots);
        laid_out.deprecated = decl.deprecated.is_some();
        let all = std::mem::take(&mut laid_out.fields);
        for (mut field, field_decl) in all.into_iter().zip(&decl.fields) {
            field.deprecated = field_decl.deprecated.is_some();
            if field_decl.is_reserved() {
                laid_out.reserved.push(field);
            } else {
                laid_out.fields.push(field);
            }
        }
        Ok(laid_out)
    }

    /// A checked constant.
    fn constant(&self, decl: &'a ConstDecl) -> Result<ir::Const, Diagnostic> {
        use crate::ast::ConstLiteral;
        let bad = || unchecked(&decl.value.span(), "constant value");
        let value = match (const_type(self.cx, decl), &decl.value) {
            (Some(ir::ConstType::Int(scalar)), literal @ ConstLiteral::Integer { .. }) => {
                ir::ConstValue::Int(scalar, literal.integer().ok_or_else(bad)?)
            }
            (Some(ir::ConstType::Bool), ConstLiteral::Bool { value, .. }) => {
                ir::ConstValue::Bool(*value)
            }
            (Some(ir::ConstType::Text), ConstLiteral::Text { text, .. }) => {
                ir::ConstValue::Text(text.clone())
            }
            _ => return Err(bad()),
        };
        Ok(ir::Const {
            name: decl.name.text.clone(),
            doc: decl.doc.clone(),
            value,
        })
    }

    /// The concrete type of a field (or list element).
    fn field_type(&self, ty: &'a TypeExpr) -> Result<ir::Type, Diagnostic> {
        let resolved = self
            .symbols
            .resolve(ty)
            .ok_or_else(|| unchecked(&ty.span, "type"))?;
        match resolved {
            Resolved::Builtin(builtin) => Ok(builtin.to_ir()),
            Resolved::Struct(decl) => Ok(ir::Type::Struct(decl.name.text.clone())),
            Resolved::Enum(decl) => Ok(ir::Type::Enum {
                name: decl.name.text.clone(),
                repr: enum_repr(decl).ok_or_else(|| unchecked(&ty.span, "enum representation"))?,
            }),
            Resolved::BytesFixed(n) => n
                .as_u32()
                .map(ir::Type::BytesFixed)
                .ok_or_else(|| unchecked(&n.span, "byte count")),
            Resolved::List(elem) => Ok(ir::Type::List(Box::new(self.list(elem)?))),
            Resolved::Ptr(_) => Err(unchecked(&ty.span, "pointer placement")),
        }
    }

    /// A list's element type and shape. Elements are never lists (checked), so this
    /// recurses at most once more, for the element type.
    fn list(&self, elem: &'a TypeExpr) -> Result<ir::List, Diagnostic> {
        if let Some(Resolved::Ptr(target)) = self.symbols.resolve(elem) {
            let decl = self
                .symbols
                .resolve_struct(target)
                .ok_or_else(|| unchecked(&target.span, "pointer target"))?;
            return Ok(ir::List {
                elem: ir::Type::Struct(decl.name.text.clone()),
                shape: ir::ListShape::Pointer,
            });
        }
        let elem_type = match self.symbols.resolve(elem) {
            Some(Resolved::List(_)) => return Err(unchecked(&elem.span, "list of lists")),
            _ => self.field_type(elem)?,
        };
        let shape = match &elem_type {
            ir::Type::Scalar(_) | ir::Type::Enum { .. } | ir::Type::BytesFixed(_) => {
                ir::ListShape::Strided {
                    width: elem_type.slot_width(),
                }
            }
            ir::Type::Text | ir::Type::Bytes | ir::Type::List(_) => ir::ListShape::Framed,
            ir::Type::Struct(name) => self
                .shapes
                .shape_of(name)
                .ok_or_else(|| unchecked(&elem.span, "element struct"))?,
        };
        Ok(ir::List {
            elem: elem_type,
            shape,
        })
    }

    fn interface(&self, decl: &'a InterfaceDecl) -> Result<ir::Interface, Diagnostic> {
        let methods = decl
            .methods
            .iter()
            .enumerate()
            .map(|(index, method)| self.method(index, method))
            .collect::<Result<_, _>>()?;
        let reserved = decl
            .reserved
            .iter()
            .map(|n| {
                n.as_u32()
                    .ok_or_else(|| unchecked(&n.span, "reserved ordinal"))
            })
            .collect::<Result<_, _>>()?;
        Ok(ir::Interface {
            name: decl.name.text.clone(),
            doc: decl.doc.clone(),
            methods,
            reserved,
        })
    }

    fn method(&self, index: usize, decl: &'a MethodDecl) -> Result<ir::Method, Diagnostic> {
        let ordinal = method_ordinal(index, decl)
            .ok_or_else(|| unchecked(&decl.name.span, "method ordinal"))?;
        Ok(ir::Method {
            name: decl.name.text.clone(),
            doc: decl.doc.clone(),
            ordinal,
            param: self.param(decl.params.iter().find(|p| p.stream.is_none()))?,
            stream_param: self.param(decl.params.iter().find(|p| p.stream.is_some()))?,
            result: self.param(decl.results.first())?,
            result_stream: decl.results.first().is_some_and(|r| r.stream.is_some()),
            permissions: match &decl.requires {
                Some(bits) => bits
                    .value()
                    .ok_or_else(|| unchecked(&bits.span, "permission bits"))?,
                None => 0,
            },
            json: self.checked(|errors| method_json(self.cx, decl, errors))?,
            deprecated: decl.deprecated.is_some(),
            idempotency: decl
                .idempotency
                .as_ref()
                .map_or(ir::Idempotency::Unknown, |(kind, _)| *kind),
        })
    }

    /// The JSON options read by `read`, which the checker has accepted.
    fn checked<T>(&self, read: impl FnOnce(&mut Vec<Diagnostic>) -> T) -> Result<T, Diagnostic> {
        let mut errors = Vec::new();
        let value = read(&mut errors);
        match errors.into_iter().next() {
            None => Ok(value),
            Some(first) => Err(unchecked(&first.primary.span, "a JSON option")),
        }
    }

    fn param(&self, decl: Option<&'a ParamDecl>) -> Result<Option<ir::Param>, Diagnostic> {
        let Some(decl) = decl else {
            return Ok(None);
        };
        let target = self
            .symbols
            .resolve_struct(&decl.ty)
            .ok_or_else(|| unchecked(&decl.ty.span, "parameter type"))?;
        Ok(Some(ir::Param {
            name: decl
                .name
                .as_ref()
                .map(|n| n.text.clone())
                .unwrap_or_default(),
            ty: target.name.text.clone(),
        }))
    }
}

//! Interop with the reference runtime: the real `zap-proto` 1.4.1 from PyPI, driven
//! through `tests/interop/peer.py` (one Python process per direction, every message
//! batched into one JSON document).
//!
//! * Python builds, Rust reads: random messages covering every field type and list
//!   shape, read back with [`Object`] getters and [`List`] accessors.
//! * Rust builds, Python reads: the same shapes built with [`Builder`].
//! * Flat messages (scalars, text, bytes, bytes_fixed, set in field order) built by both
//!   sides are byte-identical; so are RPC envelopes built from the same fields, and each
//!   side parses the other's envelopes to the same fields.
//!
//! Messages are described by a small schema (structs of `{name, type, offset}` fields,
//! laid out at random, unaligned offsets per message) plus values; `peer.py` documents
//! the JSON format. Values are random, from a printed seed: rerun a failure with
//! `ZAP_INTEROP_SEED=<seed> cargo test -p zap-runtime --test integration interop_python::`.

use crate::python;

use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::{Builder, List, ListRef, Message, Object, ObjectBuilder, Scalar};

/// Random messages of each kind per direction.
const NESTED_MESSAGES: usize = 60;
const FLAT_MESSAGES: usize = 60;
const RPC_ENVELOPES: usize = 40;

// ── Schema ──────────────────────────────────────────────────────────────────

/// A field type. `Struct` and `Ptr` name a struct by its index in [`Schema::structs`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ty {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Text,
    Bytes,
    Fixed(usize),
    /// A struct pointer field, or (inside a list) a struct element.
    Struct(usize),
    /// Only as a list element: `list<ptr<T>>`.
    Ptr(usize),
    List(Box<Ty>),
}

#[derive(Debug)]
struct Field {
    name: &'static str,
    ty: Ty,
    offset: usize,
}

#[derive(Debug)]
struct StructDef {
    name: &'static str,
    size: usize,
    fields: Vec<Field>,
}

#[derive(Debug)]
struct Schema {
    structs: Vec<StructDef>,
    root: usize,
}

/// How a list of `elem` is laid out (spec §2).
enum Shape {
    /// Elements `width` bytes apart.
    Strided(usize),
    /// `[len u32][payload]` back to back.
    Framed,
    /// 4-byte signed offsets to structs elsewhere.
    Pointers,
}

impl Ty {
    /// Bytes the field takes in its object's fixed section.
    fn slot_width(&self) -> usize {
        match self {
            Ty::Bool | Ty::U8 | Ty::I8 => 1,
            Ty::U16 | Ty::I16 => 2,
            Ty::U32 | Ty::I32 | Ty::F32 | Ty::Struct(_) | Ty::Ptr(_) => 4,
            Ty::U64 | Ty::I64 | Ty::F64 | Ty::Text | Ty::Bytes | Ty::List(_) => 8,
            Ty::Fixed(n) => *n,
        }
    }

    /// True for the types stored entirely in the fixed section.
    fn is_inline(&self) -> bool {
        !matches!(
            self,
            Ty::Text | Ty::Bytes | Ty::Struct(_) | Ty::Ptr(_) | Ty::List(_)
        )
    }

    fn name(&self, s: &Schema) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::U8 => "u8".into(),
            Ty::U16 => "u16".into(),
            Ty::U32 => "u32".into(),
            Ty::U64 => "u64".into(),
            Ty::I8 => "i8".into(),
            Ty::I16 => "i16".into(),
            Ty::I32 => "i32".into(),
            Ty::I64 => "i64".into(),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
            Ty::Text => "text".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Fixed(n) => format!("bytes_fixed[{n}]"),
            Ty::Struct(t) => s.structs[*t].name.into(),
            Ty::Ptr(t) => format!("ptr<{}>", s.structs[*t].name),
            Ty::List(e) => format!("list<{}>", e.name(s)),
        }
    }
}

impl Schema {
    /// A struct whose fields all live in its fixed section (strided in lists).
    fn is_inline(&self, t: usize) -> bool {
        self.structs[t].fields.iter().all(|f| f.ty.is_inline())
    }

    fn shape(&self, elem: &Ty) -> Shape {
        match elem {
            Ty::Text | Ty::Bytes => Shape::Framed,
            Ty::Ptr(_) => Shape::Pointers,
            Ty::Struct(t) if self.is_inline(*t) => Shape::Strided(self.structs[*t].size),
            Ty::Struct(_) => Shape::Framed,
            Ty::List(_) => panic!("lists of lists are not in the format"),
            scalar => Shape::Strided(scalar.slot_width()),
        }
    }

    fn to_json(&self) -> Value {
        let structs: Vec<Value> = self
            .structs
            .iter()
            .map(|d| {
                let fields: Vec<Value> = d
                    .fields
                    .iter()
                    .map(|f| json!({"name": f.name, "type": f.ty.name(self), "offset": f.offset}))
                    .collect();
                json!({"name": d.name, "size": d.size, "fields": fields})
            })
            .collect();
        json!({"root": self.structs[self.root].name, "structs": structs})
    }
}

/// Lay `fields` out in a fixed section: declaration order is setter order; placement
/// order is declaration order, or shuffled if `shuffle`; random gaps leave fields
/// unaligned, and the size may run a little past the last field.
fn layout(
    rng: &mut StdRng,
    name: &'static str,
    fields: Vec<(&'static str, Ty)>,
    shuffle: bool,
) -> StructDef {
    let mut order: Vec<usize> = (0..fields.len()).collect();
    if shuffle {
        order.shuffle(rng);
    }
    let mut offsets = vec![0; fields.len()];
    let mut at = 0;
    for i in order {
        if rng.gen_bool(0.5) {
            at += rng.gen_range(1..=3);
        }
        offsets[i] = at;
        at += fields[i].1.slot_width();
    }
    StructDef {
        name,
        size: at + rng.gen_range(0..=3),
        fields: fields
            .into_iter()
            .zip(offsets)
            .map(|((name, ty), offset)| Field { name, ty, offset })
            .collect(),
    }
}

/// Every scalar type, by name.
fn scalar_fields() -> Vec<(&'static str, Ty)> {
    vec![
        ("flag", Ty::Bool),
        ("a_u8", Ty::U8),
        ("a_u16", Ty::U16),
        ("a_u32", Ty::U32),
        ("a_u64", Ty::U64),
        ("a_i8", Ty::I8),
        ("a_i16", Ty::I16),
        ("a_i32", Ty::I32),
        ("a_i64", Ty::I64),
        ("a_f32", Ty::F32),
        ("a_f64", Ty::F64),
    ]
}

/// Scalars, text, bytes and bytes_fixed, in a random declaration order, placed in that
/// order (so setters run in field order).
fn flat_schema(rng: &mut StdRng) -> Schema {
    let mut fields = scalar_fields();
    fields.extend([
        ("name", Ty::Text),
        ("note", Ty::Text),
        ("blob", Ty::Bytes),
        ("sig", Ty::Bytes),
        ("one", Ty::Fixed(1)),
        ("addr", Ty::Fixed(20)),
        ("hash", Ty::Fixed(32)),
    ]);
    fields.shuffle(rng);
    Schema {
        structs: vec![layout(rng, "Flat", fields, false)],
        root: 0,
    }
}

const PT: usize = 0;
const LEAF: usize = 1;

/// `Pt` (all inline: strided in lists), `Leaf` (has pointers: framed in lists) and the
/// root `Kitchen` with every field type and list shape, placed at random.
fn nested_schema(rng: &mut StdRng) -> Schema {
    let pt = layout(
        rng,
        "Pt",
        vec![
            ("x", Ty::I32),
            ("y", Ty::U16),
            ("tag", Ty::Fixed(3)),
            ("ok", Ty::Bool),
            ("w", Ty::F64),
        ],
        true,
    );
    let leaf = layout(
        rng,
        "Leaf",
        vec![
            ("note", Ty::Text),
            ("n", Ty::U32),
            ("flag", Ty::Bool),
            ("nums", Ty::List(Box::new(Ty::U16))),
            ("at", Ty::Struct(PT)),
        ],
        true,
    );
    let list = |t: Ty| Ty::List(Box::new(t));
    let mut fields = scalar_fields();
    fields.extend([
        ("name", Ty::Text),
        ("blob", Ty::Bytes),
        ("one", Ty::Fixed(1)),
        ("addr", Ty::Fixed(20)),
        ("hash", Ty::Fixed(32)),
        ("child", Ty::Struct(LEAF)),
        ("origin", Ty::Struct(PT)),
        ("l_u8", list(Ty::U8)),
        ("l_u16", list(Ty::U16)),
        ("l_u32", list(Ty::U32)),
        ("l_u64", list(Ty::U64)),
        ("l_i8", list(Ty::I8)),
        ("l_i16", list(Ty::I16)),
        ("l_i32", list(Ty::I32)),
        ("l_i64", list(Ty::I64)),
        ("l_f32", list(Ty::F32)),
        ("l_f64", list(Ty::F64)),
        ("l_bool", list(Ty::Bool)),
        ("l_addr", list(Ty::Fixed(20))),
        ("l_b4", list(Ty::Fixed(4))),
        ("pts", list(Ty::Struct(PT))),
        ("leaves", list(Ty::Struct(LEAF))),
        ("names", list(Ty::Text)),
        ("blobs", list(Ty::Bytes)),
        ("refs", list(Ty::Ptr(LEAF))),
        ("pt_refs", list(Ty::Ptr(PT))),
    ]);
    let kitchen = layout(rng, "Kitchen", fields, true);
    Schema {
        structs: vec![pt, leaf, kitchen],
        root: 2,
    }
}

// ── Values ──────────────────────────────────────────────────────────────────

/// A field value. Floats are kept as their bits so NaN payloads and -0.0 compare
/// exactly; `bytes_fixed` uses `Bytes`; `Struct(None)` is a null pointer (or a null
/// pointer-list / framed element).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Val {
    Bool(bool),
    U(u64),
    I(i64),
    F32(u32),
    F64(u64),
    Text(String),
    Bytes(Vec<u8>),
    Struct(Option<Vec<Val>>),
    List(Vec<Val>),
}

fn gen_unsigned(rng: &mut StdRng, bits: u32) -> u64 {
    let max = u64::MAX >> (64 - bits);
    if rng.gen_bool(0.3) {
        *[0, 1, max, max - 1, 1 << (bits - 1)].choose(rng).unwrap()
    } else {
        rng.gen::<u64>() & max
    }
}

fn gen_signed(rng: &mut StdRng, bits: u32) -> i64 {
    let (min, max) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
    if rng.gen_bool(0.3) {
        *[0, 1, -1, min, max, min + 1].choose(rng).unwrap()
    } else {
        // Sign-extend random low bits.
        (rng.gen::<i64>() << (64 - bits)) >> (64 - bits)
    }
}

/// Random f32 bits: specials (±0, ±inf, NaNs, subnormals, extremes), ordinary values and
/// raw random patterns. NaNs are quiet: CPython (before 3.14) converts an f32 to a
/// double and back when packing/unpacking, which sets the quiet bit of a signaling NaN,
/// so Python cannot carry an f32 sNaN through `set_float32`/`float32` — a limit of
/// Python's floats, not of the wire format.
fn gen_f32(rng: &mut StdRng) -> u32 {
    const SPECIAL: [u32; 14] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7fc1_2345,
        0xffff_ffff,
        1,
        0x8000_0001,
        0x0080_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x3400_0000,
    ];
    let bits = match rng.gen_range(0..3) {
        0 => *SPECIAL.choose(rng).unwrap(),
        1 => ((rng.gen::<f32>() - 0.5) * 1e6).to_bits(),
        _ => rng.gen(),
    };
    if f32::from_bits(bits).is_nan() {
        bits | 0x0040_0000
    } else {
        bits
    }
}

/// Random f64 bits, signaling NaNs included (Python keeps doubles bit for bit).
fn gen_f64(rng: &mut StdRng) -> u64 {
    const SPECIAL: [u64; 14] = [
        0,
        0x8000_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0xfff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff8_dead_beef_0001,
        1,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0xffef_ffff_ffff_ffff,
        0x3cb0_0000_0000_0000,
        0xc00921fb54442d18,
    ];
    match rng.gen_range(0..3) {
        0 => *SPECIAL.choose(rng).unwrap(),
        1 => ((rng.gen::<f64>() - 0.5) * 1e12).to_bits(),
        _ => rng.gen(),
    }
}

/// Random text: empty a fifth of the time, else 1- to 4-byte UTF-8 characters mixed,
/// control characters and NUL included.
fn gen_text(rng: &mut StdRng) -> String {
    if rng.gen_bool(0.2) {
        return String::new();
    }
    let len = rng.gen_range(1..24);
    let mut s = String::new();
    while s.chars().count() < len {
        let c = match rng.gen_range(0..6) {
            0 => rng.gen_range(0..0x20),
            1 | 2 => rng.gen_range(0x20..0x7f),
            3 => rng.gen_range(0x80..0x800),
            4 => rng.gen_range(0x800..0x10000),
            _ => rng.gen_range(0x10000..0x110000),
        };
        // Surrogate code points are not characters: draw again.
        s.extend(char::from_u32(c));
    }
    s
}

fn gen_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    if rng.gen_bool(0.1) {
        return vec![0; len];
    }
    (0..len).map(|_| rng.gen()).collect()
}

fn gen_struct(rng: &mut StdRng, s: &Schema, t: usize) -> Vec<Val> {
    s.structs[t]
        .fields
        .iter()
        .map(|f| gen_val(rng, s, &f.ty))
        .collect()
}

fn gen_val(rng: &mut StdRng, s: &Schema, ty: &Ty) -> Val {
    match ty {
        Ty::Bool => Val::Bool(rng.gen()),
        Ty::U8 => Val::U(gen_unsigned(rng, 8)),
        Ty::U16 => Val::U(gen_unsigned(rng, 16)),
        Ty::U32 => Val::U(gen_unsigned(rng, 32)),
        Ty::U64 => Val::U(gen_unsigned(rng, 64)),
        Ty::I8 => Val::I(gen_signed(rng, 8)),
        Ty::I16 => Val::I(gen_signed(rng, 16)),
        Ty::I32 => Val::I(gen_signed(rng, 32)),
        Ty::I64 => Val::I(gen_signed(rng, 64)),
        Ty::F32 => Val::F32(gen_f32(rng)),
        Ty::F64 => Val::F64(gen_f64(rng)),
        Ty::Text => Val::Text(gen_text(rng)),
        Ty::Bytes => {
            let len = if rng.gen_bool(0.2) {
                0
            } else {
                rng.gen_range(1..48)
            };
            Val::Bytes(gen_bytes(rng, len))
        }
        Ty::Fixed(n) => Val::Bytes(gen_bytes(rng, *n)),
        Ty::Struct(t) | Ty::Ptr(t) => {
            Val::Struct((!rng.gen_bool(0.2)).then(|| gen_struct(rng, s, *t)))
        }
        Ty::List(elem) => {
            let len = if rng.gen_bool(0.2) {
                0
            } else {
                rng.gen_range(1..9)
            };
            Val::List(
                (0..len)
                    .map(|_| match (s.shape(elem), &**elem) {
                        // A strided struct element cannot be null.
                        (Shape::Strided(_), Ty::Struct(t)) => {
                            Val::Struct(Some(gen_struct(rng, s, *t)))
                        }
                        // A null framed struct element (empty payload) is rare.
                        (Shape::Framed, Ty::Struct(t)) => {
                            Val::Struct((!rng.gen_bool(0.1)).then(|| gen_struct(rng, s, *t)))
                        }
                        _ => gen_val(rng, s, elem),
                    })
                    .collect(),
            )
        }
    }
}

// ── Values as JSON (the format peer.py documents) ───────────────────────────

fn to_json(s: &Schema, ty: &Ty, v: &Val) -> Value {
    match (ty, v) {
        (_, Val::Bool(b)) => json!(b),
        (_, Val::U(x)) => json!(x),
        (_, Val::I(x)) => json!(x),
        (_, Val::F32(bits)) => json!(bits),
        (_, Val::F64(bits)) => json!(bits),
        (_, Val::Text(t)) => json!(t),
        (_, Val::Bytes(b)) => json!(hex::encode(b)),
        (_, Val::Struct(None)) => Value::Null,
        (Ty::Struct(t) | Ty::Ptr(t), Val::Struct(Some(vals))) => {
            let fields = &s.structs[*t].fields;
            Value::Object(
                fields
                    .iter()
                    .zip(vals)
                    .map(|(f, v)| (f.name.to_string(), to_json(s, &f.ty, v)))
                    .collect::<Map<_, _>>(),
            )
        }
        (Ty::List(elem), Val::List(items)) => {
            Value::Array(items.iter().map(|v| to_json(s, elem, v)).collect())
        }
        _ => panic!("value {v:?} does not fit type {}", ty.name(s)),
    }
}

fn from_json(s: &Schema, ty: &Ty, j: &Value) -> Val {
    let bad = || -> ! { panic!("JSON {j} does not fit type {}", ty.name(s)) };
    match ty {
        Ty::Bool => Val::Bool(j.as_bool().unwrap_or_else(|| bad())),
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 => Val::U(j.as_u64().unwrap_or_else(|| bad())),
        Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 => Val::I(j.as_i64().unwrap_or_else(|| bad())),
        Ty::F32 => Val::F32(
            j.as_u64()
                .and_then(|b| b.try_into().ok())
                .unwrap_or_else(|| bad()),
        ),
        Ty::F64 => Val::F64(j.as_u64().unwrap_or_else(|| bad())),
        Ty::Text => Val::Text(j.as_str().unwrap_or_else(|| bad()).to_string()),
        Ty::Bytes | Ty::Fixed(_) => {
            Val::Bytes(hex::decode(j.as_str().unwrap_or_else(|| bad())).unwrap_or_else(|_| bad()))
        }
        Ty::Struct(t) | Ty::Ptr(t) => Val::Struct((!j.is_null()).then(|| {
            s.structs[*t]
                .fields
                .iter()
                .map(|f| from_json(s, &f.ty, &j[f.name]))
                .collect()
        })),
        Ty::List(elem) => Val::List(
            j.as_array()
                .unwrap_or_else(|| bad())
                .iter()
                .map(|e| from_json(s, elem, e))
                .collect(),
        ),
    }
}

/// The first place `got` and `want` differ, as `path: got …, want …`.
fn diff(s: &Schema, ty: &Ty, path: &str, got: &Val, want: &Val) -> Option<String> {
    match (ty, got, want) {
        (Ty::Struct(t) | Ty::Ptr(t), Val::Struct(Some(g)), Val::Struct(Some(w))) => s.structs[*t]
            .fields
            .iter()
            .zip(g.iter().zip(w))
            .find_map(|(f, (g, w))| diff(s, &f.ty, &format!("{path}.{}", f.name), g, w)),
        (Ty::List(elem), Val::List(g), Val::List(w)) if g.len() == w.len() => g
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (g, w))| diff(s, elem, &format!("{path}[{i}]"), g, w)),
        _ if got == want => None,
        _ => Some(format!("{path}: got {got:?}, want {want:?}")),
    }
}

// ── Building with zap_runtime ───────────────────────────────────────────────

/// A built child object or list, waiting to be linked from its parent.
enum Dep {
    Object(u32),
    List(ListRef),
}

/// Build a message of `s` holding `root` (the root struct's field values). With
/// `children_first`, child objects and lists (and pointer-list targets) are built before
/// the object pointing at them; otherwise while it is open.
fn build(s: &Schema, root: &Val, children_first: bool) -> Vec<u8> {
    let Val::Struct(Some(fields)) = root else {
        panic!("the root is a non-null struct")
    };
    let mut b = Builder::new();
    build_struct(&mut b, s, s.root, fields, children_first, true);
    b.finish().unwrap().to_vec()
}

fn build_struct(
    b: &mut Builder,
    s: &Schema,
    t: usize,
    vals: &[Val],
    children_first: bool,
    as_root: bool,
) -> u32 {
    let def = &s.structs[t];
    let mut deps: Vec<Option<Dep>> = if children_first {
        def.fields
            .iter()
            .zip(vals)
            .map(|(f, v)| build_dep(b, s, &f.ty, v, children_first))
            .collect()
    } else {
        def.fields.iter().map(|_| None).collect()
    };
    let mut ob = b.start_object(def.size);
    for ((f, v), dep) in def.fields.iter().zip(vals).zip(&mut deps) {
        if set_inline(&mut ob, &f.ty, f.offset, v) {
            continue;
        }
        let dep = dep
            .take()
            .or_else(|| build_dep(ob.builder(), s, &f.ty, v, children_first));
        match dep {
            Some(Dep::Object(at)) => ob.set_object(f.offset, at),
            Some(Dep::List(list)) => ob.set_list(f.offset, list),
            None => unreachable!("{} is out of line", f.name),
        }
    }
    if as_root {
        ob.finish_as_root()
    } else {
        ob.finish()
    }
}

/// Set a scalar, text, bytes or bytes_fixed field; false for a pointer field.
fn set_inline(ob: &mut ObjectBuilder<'_>, ty: &Ty, off: usize, v: &Val) -> bool {
    match (ty, v) {
        (Ty::Bool, Val::Bool(x)) => ob.set_bool(off, *x),
        (Ty::U8, Val::U(x)) => ob.set_u8(off, *x as u8),
        (Ty::U16, Val::U(x)) => ob.set_u16(off, *x as u16),
        (Ty::U32, Val::U(x)) => ob.set_u32(off, *x as u32),
        (Ty::U64, Val::U(x)) => ob.set_u64(off, *x),
        (Ty::I8, Val::I(x)) => ob.set_i8(off, *x as i8),
        (Ty::I16, Val::I(x)) => ob.set_i16(off, *x as i16),
        (Ty::I32, Val::I(x)) => ob.set_i32(off, *x as i32),
        (Ty::I64, Val::I(x)) => ob.set_i64(off, *x),
        (Ty::F32, Val::F32(bits)) => ob.set_f32(off, f32::from_bits(*bits)),
        (Ty::F64, Val::F64(bits)) => ob.set_f64(off, f64::from_bits(*bits)),
        (Ty::Text, Val::Text(x)) => ob.set_text(off, x),
        (Ty::Bytes, Val::Bytes(x)) => ob.set_bytes(off, x),
        (Ty::Fixed(n), Val::Bytes(x)) => {
            assert_eq!(x.len(), *n);
            ob.set_bytes_fixed(off, x)
        }
        _ => return false,
    }
    true
}

/// Build a child object or a list; `None` for an inline type.
fn build_dep(b: &mut Builder, s: &Schema, ty: &Ty, v: &Val, children_first: bool) -> Option<Dep> {
    Some(match (ty, v) {
        (Ty::Struct(_), Val::Struct(None)) => Dep::Object(0),
        (Ty::Struct(t), Val::Struct(Some(vals))) => {
            Dep::Object(build_struct(b, s, *t, vals, children_first, false))
        }
        (Ty::List(elem), Val::List(items)) => {
            Dep::List(build_list(b, s, elem, items, children_first))
        }
        _ => return None,
    })
}

fn build_list(b: &mut Builder, s: &Schema, elem: &Ty, items: &[Val], cf: bool) -> ListRef {
    let width = match s.shape(elem) {
        Shape::Pointers => return build_pointer_list(b, s, elem, items, cf),
        Shape::Strided(width) => width,
        Shape::Framed => 0,
    };
    let mut lb = b.start_list(width);
    for v in items {
        match (elem, v) {
            (Ty::Bool, Val::Bool(x)) => lb.push(*x),
            (Ty::U8, Val::U(x)) => lb.push(*x as u8),
            (Ty::U16, Val::U(x)) => lb.push(*x as u16),
            (Ty::U32, Val::U(x)) => lb.push(*x as u32),
            (Ty::U64, Val::U(x)) => lb.push(*x),
            (Ty::I8, Val::I(x)) => lb.push(*x as i8),
            (Ty::I16, Val::I(x)) => lb.push(*x as i16),
            (Ty::I32, Val::I(x)) => lb.push(*x as i32),
            (Ty::I64, Val::I(x)) => lb.push(*x),
            (Ty::F32, Val::F32(bits)) => lb.push(f32::from_bits(*bits)),
            (Ty::F64, Val::F64(bits)) => lb.push(f64::from_bits(*bits)),
            (Ty::Fixed(_), Val::Bytes(x)) => lb.push_raw(x),
            (Ty::Text, Val::Text(x)) => lb.push_framed(x.as_bytes()),
            (Ty::Bytes, Val::Bytes(x)) => lb.push_framed(x),
            (Ty::Struct(t), Val::Struct(Some(vals))) if width > 0 => {
                let mut e = lb.push_struct();
                for (f, v) in s.structs[*t].fields.iter().zip(vals) {
                    assert!(set_inline(&mut e, &f.ty, f.offset, v));
                }
                let _ = e.finish();
            }
            (Ty::Struct(t), Val::Struct(Some(vals))) => {
                lb.push_message(|b| build_struct(b, s, *t, vals, cf, true));
            }
            (Ty::Struct(_), Val::Struct(None)) => lb.push_framed(&[]),
            _ => panic!("list element {v:?} does not fit {}", elem.name(s)),
        }
    }
    lb.finish()
}

/// `list<ptr<T>>`: reserve the slots, build the targets (before the slots with
/// `children_first`, else after), point each slot at its target.
fn build_pointer_list(b: &mut Builder, s: &Schema, elem: &Ty, items: &[Val], cf: bool) -> ListRef {
    let Ty::Ptr(t) = elem else { unreachable!() };
    let targets = |b: &mut Builder| -> Vec<u32> {
        items
            .iter()
            .map(|v| match v {
                Val::Struct(None) => 0,
                Val::Struct(Some(vals)) => build_struct(b, s, *t, vals, cf, false),
                _ => panic!("pointer list element {v:?}"),
            })
            .collect()
    };
    let before = cf.then(|| targets(b));
    let list = b.start_pointer_list(items.len() as u32);
    let targets = before.unwrap_or_else(|| targets(b));
    for (i, at) in targets.into_iter().enumerate() {
        b.set_pointer(list, i as u32, at);
    }
    list.list(b)
}

// ── Reading with zap_runtime ────────────────────────────────────────────────

fn read(s: &Schema, wire: &[u8]) -> Val {
    let msg = Message::parse(wire).unwrap_or_else(|e| panic!("parse: {e}"));
    read_struct(s, s.root, msg.root())
}

fn read_struct(s: &Schema, t: usize, obj: Object<'_>) -> Val {
    Val::Struct((!obj.is_null()).then(|| {
        s.structs[t]
            .fields
            .iter()
            .map(|f| read_field(s, obj, &f.ty, f.offset))
            .collect()
    }))
}

fn read_field(s: &Schema, obj: Object<'_>, ty: &Ty, off: usize) -> Val {
    match ty {
        Ty::Bool => Val::Bool(obj.bool(off)),
        Ty::U8 => Val::U(obj.u8(off).into()),
        Ty::U16 => Val::U(obj.u16(off).into()),
        Ty::U32 => Val::U(obj.u32(off).into()),
        Ty::U64 => Val::U(obj.u64(off)),
        Ty::I8 => Val::I(obj.i8(off).into()),
        Ty::I16 => Val::I(obj.i16(off).into()),
        Ty::I32 => Val::I(obj.i32(off).into()),
        Ty::I64 => Val::I(obj.i64(off)),
        Ty::F32 => Val::F32(obj.f32(off).to_bits()),
        Ty::F64 => Val::F64(obj.f64(off).to_bits()),
        Ty::Text => {
            let text = obj.try_text(off).expect("text is UTF-8");
            Val::Text(text.to_string())
        }
        Ty::Bytes => Val::Bytes(obj.bytes(off).to_vec()),
        Ty::Fixed(n) => {
            let v = match n {
                1 => obj.bytes_fixed::<1>(off).to_vec(),
                3 => obj.bytes_fixed::<3>(off).to_vec(),
                20 => obj.bytes_fixed::<20>(off).to_vec(),
                32 => obj.bytes_fixed::<32>(off).to_vec(),
                _ => panic!("add bytes_fixed[{n}] to read_field"),
            };
            assert_eq!(v, obj.bytes_fixed_slice(off, *n), "bytes_fixed_slice");
            Val::Bytes(v)
        }
        Ty::Struct(t) | Ty::Ptr(t) => read_struct(s, *t, obj.object(off)),
        Ty::List(elem) => {
            let list = obj.list(off);
            let items = read_list(s, list, elem);
            assert_eq!(items.len(), list.len(), "every element of {}", ty.name(s));
            Val::List(items)
        }
    }
}

/// A strided scalar list through [`List::scalars`], checked against [`List::get`].
fn scalars<T: Scalar>(list: List<'_>, val: impl Fn(T) -> Val) -> Vec<Val> {
    let items: Vec<Val> = list.scalars::<T>().map(&val).collect();
    for (i, v) in items.iter().enumerate() {
        assert_eq!(&val(list.get::<T>(i)), v, "get({i}) agrees with scalars()");
    }
    items
}

fn fixed_list<const N: usize>(list: List<'_>) -> Vec<Val> {
    (0..list.len())
        .map(|i| Val::Bytes(list.bytes_fixed::<N>(i).to_vec()))
        .collect()
}

fn read_list(s: &Schema, list: List<'_>, elem: &Ty) -> Vec<Val> {
    match elem {
        Ty::Bool => scalars(list, Val::Bool),
        Ty::U8 => scalars(list, |x: u8| Val::U(x.into())),
        Ty::U16 => scalars(list, |x: u16| Val::U(x.into())),
        Ty::U32 => scalars(list, |x: u32| Val::U(x.into())),
        Ty::U64 => scalars(list, Val::U),
        Ty::I8 => scalars(list, |x: i8| Val::I(x.into())),
        Ty::I16 => scalars(list, |x: i16| Val::I(x.into())),
        Ty::I32 => scalars(list, |x: i32| Val::I(x.into())),
        Ty::I64 => scalars(list, Val::I),
        Ty::F32 => scalars(list, |x: f32| Val::F32(x.to_bits())),
        Ty::F64 => scalars(list, |x: f64| Val::F64(x.to_bits())),
        Ty::Fixed(4) => fixed_list::<4>(list),
        Ty::Fixed(20) => fixed_list::<20>(list),
        Ty::Fixed(n) => panic!("add bytes_fixed[{n}] to read_list"),
        Ty::Text => list.texts().map(|t| Val::Text(t.to_string())).collect(),
        Ty::Bytes => list.framed().map(|b| Val::Bytes(b.to_vec())).collect(),
        Ty::Ptr(t) => list.pointers().map(|o| read_struct(s, *t, o)).collect(),
        Ty::Struct(t) => match s.shape(elem) {
            Shape::Strided(width) => {
                let items: Vec<Val> = list.objects(width).map(|o| read_struct(s, *t, o)).collect();
                for (i, v) in items.iter().enumerate() {
                    assert_eq!(&read_struct(s, *t, list.object(i, width)), v, "object({i})");
                }
                items
            }
            _ => list.messages().map(|o| read_struct(s, *t, o)).collect(),
        },
        Ty::List(_) => panic!("lists of lists are not in the format"),
    }
}

// ── RPC envelopes ───────────────────────────────────────────────────────────

/// An RPC envelope's fields, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Envelope {
    Request {
        method: u32,
        promise_id: u32,
        target: u32,
        cap: Vec<u8>,
        payload: Vec<u8>,
    },
    Response {
        status: u32,
        promise_id: u32,
        body: Vec<u8>,
    },
}

impl Envelope {
    fn random(rng: &mut StdRng, payloads: &[Vec<u8>]) -> Envelope {
        let blob = |rng: &mut StdRng| match rng.gen_range(0..4) {
            0 => Vec::new(),
            1 => payloads.choose(rng).cloned().unwrap_or_default(),
            2 => gen_text(rng).into_bytes(),
            _ => {
                let len = rng.gen_range(1..64);
                gen_bytes(rng, len)
            }
        };
        if rng.gen() {
            Envelope::Request {
                method: gen_unsigned(rng, 32) as u32,
                promise_id: gen_unsigned(rng, 32) as u32,
                target: if rng.gen() {
                    0
                } else {
                    gen_unsigned(rng, 32) as u32
                },
                cap: if rng.gen() { Vec::new() } else { blob(rng) },
                payload: blob(rng),
            }
        } else {
            Envelope::Response {
                status: *[200, 400, 401, 403, 404, 500, 0, u32::MAX]
                    .choose(rng)
                    .unwrap(),
                promise_id: gen_unsigned(rng, 32) as u32,
                body: blob(rng),
            }
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Envelope::Request { .. } => "request",
            Envelope::Response { .. } => "response",
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Envelope::Request {
                method,
                promise_id,
                target,
                cap,
                payload,
            } => json!({"kind": "request", "method": method, "promise_id": promise_id,
                        "target": target, "cap": hex::encode(cap), "payload": hex::encode(payload)}),
            Envelope::Response {
                status,
                promise_id,
                body,
            } => json!({"kind": "response", "status": status, "promise_id": promise_id,
                        "body": hex::encode(body)}),
        }
    }

    fn from_json(j: &Value) -> Envelope {
        let num = |k: &str| j[k].as_u64().and_then(|n| u32::try_from(n).ok()).unwrap();
        let blob = |k: &str| hex::decode(j[k].as_str().unwrap()).unwrap();
        match j["kind"].as_str() {
            Some("request") => Envelope::Request {
                method: num("method"),
                promise_id: num("promise_id"),
                target: num("target"),
                cap: blob("cap"),
                payload: blob("payload"),
            },
            Some("response") => Envelope::Response {
                status: num("status"),
                promise_id: num("promise_id"),
                body: blob("body"),
            },
            other => panic!("envelope kind {other:?}"),
        }
    }

    fn encode(&self, b: &mut Builder) -> Vec<u8> {
        match self {
            Envelope::Request {
                method,
                promise_id,
                target,
                cap,
                payload,
            } => Request {
                method: *method,
                promise_id: *promise_id,
                target: *target,
                cap,
                payload,
            }
            .encode(b)
            .unwrap()
            .to_vec(),
            Envelope::Response {
                status,
                promise_id,
                body,
            } => Response {
                status: Status(*status),
                promise_id: *promise_id,
                body,
            }
            .encode(b)
            .unwrap()
            .to_vec(),
        }
    }

    /// Parse `wire` as the same kind of envelope as `self`.
    fn parse_like(&self, wire: &[u8]) -> Envelope {
        match self {
            Envelope::Request { .. } => {
                let r = Request::parse(wire).unwrap_or_else(|e| panic!("Request::parse: {e}"));
                Envelope::Request {
                    method: r.method,
                    promise_id: r.promise_id,
                    target: r.target,
                    cap: r.cap.to_vec(),
                    payload: r.payload.to_vec(),
                }
            }
            Envelope::Response { .. } => {
                let r = Response::parse(wire).unwrap_or_else(|e| panic!("Response::parse: {e}"));
                Envelope::Response {
                    status: r.status.0,
                    promise_id: r.promise_id,
                    body: r.body.to_vec(),
                }
            }
        }
    }
}

// ── The cases and the Python peer ───────────────────────────────────────────

/// One random message: its schema, the root's value, and the build order to use.
struct Case {
    schema: Schema,
    value: Val,
    children_first: bool,
    flat: bool,
}

impl Case {
    fn name(&self, i: usize) -> String {
        let kind = if self.flat { "flat" } else { "nested" };
        let order = if self.children_first {
            "children first"
        } else {
            "children inside"
        };
        format!("message {i} ({kind}, {order})")
    }

    fn root_ty(&self) -> Ty {
        Ty::Struct(self.schema.root)
    }
}

/// The seed: `$ZAP_INTEROP_SEED`, or fresh from the clock. Printed (shown on failure).
fn seed(test: &str) -> u64 {
    let seed = match std::env::var("ZAP_INTEROP_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("ZAP_INTEROP_SEED={s:?} is not a u64")),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    };
    println!("{test}: seed {seed} (rerun with ZAP_INTEROP_SEED={seed})");
    seed
}

/// Random flat and nested messages, interleaved, and random envelopes whose payloads
/// are sometimes those messages.
fn cases(rng: &mut StdRng) -> (Vec<Case>, Vec<Envelope>) {
    let mut cases = Vec::new();
    for i in 0..NESTED_MESSAGES.max(FLAT_MESSAGES) {
        for flat in [true, false] {
            if i >= if flat { FLAT_MESSAGES } else { NESTED_MESSAGES } {
                continue;
            }
            let schema = if flat {
                flat_schema(rng)
            } else {
                nested_schema(rng)
            };
            let value = Val::Struct(Some(gen_struct(rng, &schema, schema.root)));
            let children_first = rng.gen();
            cases.push(Case {
                schema,
                value,
                children_first,
                flat,
            });
        }
    }
    let payloads: Vec<Vec<u8>> = cases
        .iter()
        .take(8)
        .map(|c| build(&c.schema, &c.value, c.children_first))
        .collect();
    let envelopes = (0..RPC_ENVELOPES)
        .map(|_| Envelope::random(rng, &payloads))
        .collect();
    (cases, envelopes)
}

/// Run the peer on one request document; its answer.
fn peer(request: &Value) -> Value {
    let script: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "interop", "peer.py"]
        .iter()
        .collect();
    let out = python::zap_proto().run(&script, request.to_string().as_bytes());
    let answer: Value = serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("peer.py answered non-JSON ({e}): {out:?}"));
    assert_eq!(
        answer["zap_version"],
        python::VERSION,
        "the peer's zap package"
    );
    answer
}

fn unhex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("hex")
}

#[test]
fn python_builds_rust_reads() {
    let seed = seed("python_builds_rust_reads");
    let mut rng = StdRng::seed_from_u64(seed);
    let (cases, envelopes) = cases(&mut rng);

    let request = json!({
        "mode": "build",
        "messages": cases.iter().map(|c| json!({
            "schema": c.schema.to_json(),
            "children_first": c.children_first,
            "value": to_json(&c.schema, &c.root_ty(), &c.value),
        })).collect::<Vec<_>>(),
        "rpc": envelopes.iter().map(Envelope::to_json).collect::<Vec<_>>(),
    });
    let answer = peer(&request);
    let built = answer["messages"].as_array().unwrap();
    assert_eq!(built.len(), cases.len());

    let (mut flat_identical, mut nested_identical) = (0, 0);
    for (i, (case, hex)) in cases.iter().zip(built).enumerate() {
        let name = case.name(i);
        let wire = unhex(hex);
        let msg = Message::parse(&wire).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((msg.version(), msg.flags()), (1, 0), "{name}: header");
        let got = read(&case.schema, &wire);
        if let Some(d) = diff(&case.schema, &case.root_ty(), "root", &got, &case.value) {
            panic!("seed {seed}, {name}, built by Python, read by Rust: {d}");
        }
        // The same calls on zap_runtime's builder.
        let ours = build(&case.schema, &case.value, case.children_first);
        if case.flat {
            assert_eq!(
                hex::encode(&ours),
                hex::encode(&wire),
                "seed {seed}, {name}: flat messages built by Rust and Python must be \
                 byte-identical\nschema: {}",
                case.schema.to_json()
            );
            flat_identical += 1;
        } else if ours == wire {
            nested_identical += 1;
        }
    }
    println!(
        "{} messages built by Python read back by Rust; {flat_identical}/{FLAT_MESSAGES} flat \
         byte-identical, {nested_identical}/{NESTED_MESSAGES} nested byte-identical too \
         (not required)",
        cases.len()
    );

    let built = answer["rpc"].as_array().unwrap();
    assert_eq!(built.len(), envelopes.len());
    let mut b = Builder::new();
    for (i, (env, hex)) in envelopes.iter().zip(built).enumerate() {
        let wire = unhex(hex);
        let msg = Message::parse(&wire).unwrap_or_else(|e| panic!("envelope {i}: {e}"));
        assert_eq!(
            (msg.version(), msg.flags()),
            (2, 0xC800),
            "envelope {i}: header"
        );
        assert_eq!(
            &env.parse_like(&wire),
            env,
            "seed {seed}, envelope {i} ({}) built by Python, parsed by Rust",
            env.kind()
        );
        assert_eq!(
            hex::encode(env.encode(&mut b)),
            hex::encode(&wire),
            "seed {seed}, envelope {i} ({}): Rust and Python must build the same bytes",
            env.kind()
        );
    }
}

#[test]
fn rust_builds_python_reads() {
    let seed = seed("rust_builds_python_reads");
    // A different stream from the other direction's, from the same printed seed.
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5a41_5000_5a41_5000);
    let (cases, envelopes) = cases(&mut rng);
    let wires: Vec<Vec<u8>> = cases
        .iter()
        .map(|c| build(&c.schema, &c.value, c.children_first))
        .collect();
    let mut b = Builder::new();
    let mut env_wires: Vec<Vec<u8>> = envelopes.iter().map(|e| e.encode(&mut b)).collect();
    // Each request again, followed in its frame by a call context extension (a
    // deadline and metadata, `zap_runtime::context`): Python reads the envelope up to
    // its declared size, so it reads the same call.
    let mut envelopes = envelopes;
    let mut metadata = zap_runtime::context::Metadata::new();
    metadata.insert("request-id", vec![0u8, 1, 2, 255]).unwrap();
    // Each answer again with the metadata an answer carries back (no budget).
    for i in 0..envelopes.len() {
        let budget = match envelopes[i].kind() {
            "request" => Some(std::time::Duration::from_millis(2500)),
            _ => None,
        };
        let mut wire = env_wires[i].clone();
        zap_runtime::context::write_extension(&mut wire, budget, &metadata);
        envelopes.push(envelopes[i].clone());
        env_wires.push(wire);
    }

    let request = json!({
        "mode": "read",
        "messages": cases.iter().zip(&wires).map(|(c, w)| json!({
            "schema": c.schema.to_json(),
            "hex": hex::encode(w),
        })).collect::<Vec<_>>(),
        "rpc": envelopes.iter().zip(&env_wires).map(|(e, w)| json!({
            "kind": e.kind(),
            "hex": hex::encode(w),
        })).collect::<Vec<_>>(),
    });
    let answer = peer(&request);

    let values = answer["messages"].as_array().unwrap();
    assert_eq!(values.len(), cases.len());
    for (i, ((case, wire), r)) in cases.iter().zip(&wires).zip(values).enumerate() {
        let name = case.name(i);
        assert_eq!(
            (&r["version"], &r["flags"], &r["size"]),
            (&json!(1), &json!(0), &json!(wire.len())),
            "{name}: header as Python reads it"
        );
        let got = from_json(&case.schema, &case.root_ty(), &r["value"]);
        if let Some(d) = diff(&case.schema, &case.root_ty(), "root", &got, &case.value) {
            panic!(
                "seed {seed}, {name}, built by Rust, read by Python: {d}\nwire: {}",
                hex::encode(wire)
            );
        }
    }

    let values = answer["rpc"].as_array().unwrap();
    assert_eq!(values.len(), envelopes.len());
    for (i, (env, r)) in envelopes.iter().zip(values).enumerate() {
        assert_eq!(
            (&r["version"], &r["flags"]),
            (&json!(2), &json!(0xC800)),
            "envelope {i}: header as Python reads it"
        );
        assert_eq!(
            &Envelope::from_json(r),
            env,
            "seed {seed}, envelope {i} ({}) built by Rust, parsed by Python",
            env.kind()
        );
    }
    println!(
        "{} messages and {} envelopes built by Rust read back by Python",
        cases.len(),
        envelopes.len()
    );
}

/// Two hostile inputs on which zap-runtime and zap-proto 1.4.1 read **different**
/// values (valid messages never do). Pinned so that a change on either side shows up
/// here; spec §3 asks for identical behaviour, so each needs a decision:
///
/// 1. A root offset inside the header (here 4): Python's `Message.root()` does no bounds
///    check, so the root object reads header bytes (`u32 @0` = version 1 | flags 0 = 1);
///    zap-runtime applies the struct-pointer rule (`16 <= abs < size`) and reads null.
/// 2. A strided list whose `count * width` runs past the message while `count <= size`:
///    spec §3 says such a list is empty, and zap-runtime reads it so (`scalars()` yields
///    nothing, `get(i)` is 0), but Python checks each element on its own and returns the
///    elements that fit (`[11, 22, 33, 0, 0]`).
#[test]
fn known_divergences_on_hostile_input() {
    let schema = |ty: Ty| Schema {
        structs: vec![StructDef {
            name: "R",
            size: 8,
            fields: vec![Field {
                name: "v",
                ty,
                offset: 0,
            }],
        }],
        root: 0,
    };
    let (scalar, list) = (schema(Ty::U32), schema(Ty::List(Box::new(Ty::U32))));

    // 1. The root offset patched to 4.
    let mut b = Builder::new();
    let mut obj = b.start_object(8);
    obj.set_u32(0, 7);
    obj.finish_as_root();
    let mut root_in_header = b.finish().unwrap().to_vec();
    root_in_header[8..12].copy_from_slice(&4u32.to_le_bytes());

    // 2. Three u32 elements, the count patched to 5 (5 * 4 > the 12 bytes left).
    let mut b = Builder::new();
    let mut obj = b.start_object(8);
    let mut lb = obj.builder().start_list(4);
    for x in [11u32, 22, 33] {
        lb.push(x);
    }
    let elems = lb.finish();
    obj.set_list(0, elems);
    obj.finish_as_root();
    let mut long_count = b.finish().unwrap().to_vec();
    let count_at = Message::parse(&long_count).unwrap().root_offset() as usize + 4;
    long_count[count_at..count_at + 4].copy_from_slice(&5u32.to_le_bytes());
    assert!(5 * 4 > long_count.len() - elems.offset as usize && 5 <= long_count.len());

    let answer = peer(&json!({
        "mode": "read",
        "messages": [
            {"schema": scalar.to_json(), "hex": hex::encode(&root_in_header)},
            {"schema": list.to_json(), "hex": hex::encode(&long_count)},
        ],
    }));
    let python = |i: usize| &answer["messages"][i]["value"]["v"];

    let root = Message::parse(&root_in_header).unwrap().root();
    assert!(root.is_null() && root.u32(0) == 0, "zap-runtime: null root");
    assert_eq!(python(0), &json!(1), "zap-proto: the root reads the header");

    let l = Message::parse(&long_count).unwrap().root().list(0);
    assert_eq!(l.len(), 5);
    assert_eq!(l.scalars::<u32>().count(), 0, "zap-runtime: no element");
    assert_eq!((l.get::<u32>(0), l.get::<u32>(2)), (0, 0));
    assert_eq!(
        python(1),
        &json!([11, 22, 33, 0, 0]),
        "zap-proto: the elements that fit"
    );
}

"""The Python side of zap-runtime's interop test (tests/interop_python.rs).

Reads one JSON document on stdin and writes one JSON document on stdout. Everything
on the wire goes through the real ``zap-proto`` package (``zap.wire``, ``zap.pipeline``);
the only hand-written wire code is what the package has no helper for: pointer lists
(4-byte signed offsets, each relative to its own slot) and strided struct lists (the
raw fixed sections of elements built with ``zap.wire.Builder``, appended with
``ListBuilder.add_bytes``).

Schema (shared by both modes)::

    {"root": "Kitchen",
     "structs": [{"name": "Kitchen", "size": 96,
                  "fields": [{"name": "a", "type": "u32", "offset": 0}, ...]}, ...]}

Types: bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 text bytes bytes_fixed[N], a struct
name (a struct pointer), list<T> where T is a scalar, bytes_fixed[N], text, bytes, a
struct name or ptr<Struct>. A list of structs is strided when every field of the
struct is a scalar or bytes_fixed, framed (each element a complete message) otherwise.

Values (JSON, by type): bool -> true/false; integers -> numbers; f32/f64 -> their IEEE
bit pattern as an unsigned integer (so NaN payloads and -0.0 compare exactly); text ->
string; bytes and bytes_fixed -> lowercase hex; struct -> {"field": value, ...} or null;
list -> array of element values (null for a null ptr<T> or framed struct element).

Modes::

    {"mode": "build", "messages": [{"schema": S, "children_first": bool, "value": V}],
     "rpc": [{"kind": "request", "method": n, "promise_id": n, "target": n,
              "cap": hex, "payload": hex} | {"kind": "response", "status": n,
              "promise_id": n, "body": hex}]}
      -> {"messages": [hex, ...], "rpc": [hex, ...]}

    {"mode": "read", "messages": [{"schema": S, "hex": hex}], "rpc": [{"kind": k, "hex": hex}]}
      -> {"messages": [{"version": n, "flags": n, "size": n, "value": V}, ...],
          "rpc": [{"version": n, "flags": n, <the envelope's fields as in build>}, ...]}

``children_first``: build a struct's child objects and lists (and a pointer list's
targets) before the object that points at them (negative relative offsets), instead of
while it is open (positive offsets, landing before its text/bytes tails).
"""

from __future__ import annotations

import json
import re
import struct
import sys

import zap
from zap import pipeline, wire

SCALARS = {
    # type: (width, struct format, Object getter, ObjectBuilder setter)
    "bool": (1, None, "bool", "set_bool"),
    "u8": (1, "<B", "uint8", "set_uint8"),
    "u16": (2, "<H", "uint16", "set_uint16"),
    "u32": (4, "<I", "uint32", "set_uint32"),
    "u64": (8, "<Q", "uint64", "set_uint64"),
    "i8": (1, "<b", "int8", "set_int8"),
    "i16": (2, "<h", "int16", "set_int16"),
    "i32": (4, "<i", "int32", "set_int32"),
    "i64": (8, "<q", "int64", "set_int64"),
    "f32": (4, "<f", "float32", "set_float32"),
    "f64": (8, "<d", "float64", "set_float64"),
}
FIXED = re.compile(r"^bytes_fixed\[(\d+)\]$")
LIST = re.compile(r"^list<(.+)>$")
PTR = re.compile(r"^ptr<(.+)>$")


class Schema:
    def __init__(self, doc):
        self.root = doc["root"]
        self.structs = {s["name"]: s for s in doc["structs"]}

    def is_inline(self, name):
        """True if every field of the struct lives in its fixed section."""
        return all(
            f["type"] in SCALARS or FIXED.match(f["type"])
            for f in self.structs[name]["fields"]
        )


def fixed_len(ty):
    m = FIXED.match(ty)
    return int(m.group(1)) if m else None


# ── float values travel as bit patterns ─────────────────────────────────────


def f32_from_bits(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f64_from_bits(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def f64_bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def scalar_to_py(ty, v):
    """JSON value -> the Python value a zap setter takes."""
    if ty == "f32":
        return f32_from_bits(v)
    if ty == "f64":
        return f64_from_bits(v)
    return v


def scalar_to_json(ty, v):
    """The Python value a zap getter returns -> JSON value."""
    if ty == "f32":
        return f32_bits(v)
    if ty == "f64":
        return f64_bits(v)
    if ty == "bool":
        return bool(v)
    return int(v)


# ── build ───────────────────────────────────────────────────────────────────


def build_struct(b, schema, name, val, children_first, as_root=False):
    """Build struct ``name`` with values ``val`` on builder ``b``; return its offset."""
    fields = schema.structs[name]["fields"]
    deps = {}
    if children_first:
        for f in fields:
            if is_out_of_line(schema, f["type"]):
                deps[f["name"]] = build_dep(b, schema, f["type"], val[f["name"]], children_first)
    ob = b.start_object(schema.structs[name]["size"])
    for f in fields:
        ty, off, v = f["type"], f["offset"], val[f["name"]]
        if ty in SCALARS:
            getattr(ob, SCALARS[ty][3])(off, scalar_to_py(ty, v))
        elif ty == "text":
            ob.set_text(off, v)
        elif ty == "bytes":
            ob.set_bytes(off, bytes.fromhex(v))
        elif fixed_len(ty) is not None:
            ob.set_bytes_fixed(off, bytes.fromhex(v))
        else:
            dep = deps[f["name"]] if children_first else build_dep(b, schema, ty, v, children_first)
            if ty in schema.structs:
                ob.set_object(off, dep)
            else:
                ob.set_list(off, dep[0], dep[1])
    return ob.finish_as_root() if as_root else ob.finish()


def is_out_of_line(schema, ty):
    return ty in schema.structs or LIST.match(ty) is not None


def build_dep(b, schema, ty, val, children_first):
    """Build a child object (-> offset, 0 for null) or a list (-> (offset, count))."""
    if ty in schema.structs:
        return 0 if val is None else build_struct(b, schema, ty, val, children_first)
    elem = LIST.match(ty).group(1)
    ptr = PTR.match(elem)
    if ptr:
        return build_pointer_list(b, schema, ptr.group(1), val, children_first)
    lb = b.start_list(elem_width(schema, elem))
    for v in val:
        if elem == "u8":
            lb.add_uint8(v)
        elif elem == "u32":
            lb.add_uint32(v)
        elif elem == "u64":
            lb.add_uint64(v)
        elif elem == "bool":
            lb.add_uint8(1 if v else 0)
        elif elem in SCALARS:
            # No typed adder for this width: its little-endian bytes, raw.
            lb.add_bytes(struct.pack(SCALARS[elem][1], scalar_to_py(elem, v)))
        elif fixed_len(elem) is not None:
            lb.add_bytes(bytes.fromhex(v))
        elif elem in ("text", "bytes"):
            lb.add_object_bytes(v.encode("utf-8") if elem == "text" else bytes.fromhex(v))
        elif elem in schema.structs and schema.is_inline(elem):
            # Strided struct element: the fixed section of an object built by zap.
            size = schema.structs[elem]["size"]
            eb = wire.Builder()
            at = build_struct(eb, schema, elem, v, children_first, as_root=True)
            lb.add_bytes(eb.finish()[at : at + size])
        elif elem in schema.structs:
            # Framed struct element: a complete message of its own (null: empty payload).
            if v is None:
                lb.add_object_bytes(b"")
            else:
                eb = wire.Builder()
                build_struct(eb, schema, elem, v, children_first, as_root=True)
                lb.add_object_bytes(eb.finish())
        else:
            raise ValueError(f"unknown list element type {elem}")
    # add_bytes counts bytes, not elements: the count is the number of values.
    return lb.finish_offset(), len(val)


def elem_width(schema, elem):
    if elem in SCALARS:
        return SCALARS[elem][0]
    if fixed_len(elem) is not None:
        return fixed_len(elem)
    if elem in schema.structs and schema.is_inline(elem):
        return schema.structs[elem]["size"]
    return 0  # framed


def build_pointer_list(b, schema, target, val, children_first):
    """``list<ptr<T>>`` by hand: reserve 4-byte slots, then point each at its target."""

    def targets():
        return [
            0 if v is None else build_struct(b, schema, target, v, children_first) for v in val
        ]

    before = targets() if children_first else None
    lb = b.start_list(4)
    if val:
        lb.add_bytes(bytes(4 * len(val)))
    start = lb.finish_offset()
    offsets = before if children_first else targets()
    for i, at in enumerate(offsets):
        slot = start + 4 * i
        struct.pack_into("<i", b._buf, slot, 0 if at == 0 else at - slot)  # noqa: SLF001
    return start, len(val)


def build_message(m):
    schema = Schema(m["schema"])
    b = wire.Builder()
    build_struct(b, schema, schema.root, m["value"], m["children_first"], as_root=True)
    return b.finish().hex()


def build_rpc(r):
    if r["kind"] == "request":
        call = pipeline.Call(
            method=r["method"],
            promise_id=r["promise_id"],
            target=r["target"],
            cap=bytes.fromhex(r["cap"]),
            payload=bytes.fromhex(r["payload"]),
        )
        return pipeline.build_request(call).hex()
    return pipeline.build_response(r["status"], r["promise_id"], bytes.fromhex(r["body"])).hex()


# ── read ────────────────────────────────────────────────────────────────────


def read_struct(schema, name, obj):
    if obj.is_null():
        return None
    return {
        f["name"]: read_field(schema, obj, f["type"], f["offset"])
        for f in schema.structs[name]["fields"]
    }


def read_field(schema, obj, ty, off):
    if ty in SCALARS:
        return scalar_to_json(ty, getattr(obj, SCALARS[ty][2])(off))
    if ty == "text":
        return obj.text(off)
    if ty == "bytes":
        return obj.bytes(off).hex()
    if fixed_len(ty) is not None:
        return obj.bytes_fixed(off, fixed_len(ty)).hex()
    if ty in schema.structs:
        return read_struct(schema, ty, obj.object(off))
    return read_list(schema, obj.list(off), LIST.match(ty).group(1))


def read_list(schema, lst, elem):
    n = len(lst)
    if elem == "u8":
        return [lst.uint8(i) for i in range(n)]
    if elem == "u32":
        return [lst.uint32(i) for i in range(n)]
    if elem == "u64":
        return [lst.uint64(i) for i in range(n)]
    if elem in SCALARS:
        # No typed list getter for this width: element i as a one-field object.
        width, _, getter, _ = SCALARS[elem]
        return [scalar_to_json(elem, getattr(lst.object(i, width), getter)(0)) for i in range(n)]
    if fixed_len(elem) is not None:
        k = fixed_len(elem)
        return [lst.object(i, k).bytes_fixed(0, k).hex() for i in range(n)]
    if elem in ("text", "bytes"):
        out = []
        lst.each_bytes(lambda _i, p: out.append(p.decode("utf-8") if elem == "text" else p.hex()) or True)
        return out
    ptr = PTR.match(elem)
    if ptr:
        # Slot i as a one-field object whose field 0 is a signed struct pointer.
        return [read_struct(schema, ptr.group(1), lst.object(i, 4).object(0)) for i in range(n)]
    if elem in schema.structs and schema.is_inline(elem):
        size = schema.structs[elem]["size"]
        return [read_struct(schema, elem, lst.object(i, size)) for i in range(n)]
    if elem in schema.structs:
        out = []
        lst.each(lambda _i, o: out.append(read_struct(schema, elem, o)) or True)
        # Random access must agree with the single pass.
        for i, v in enumerate(out):
            assert read_struct(schema, elem, lst.object_at(i)) == v, f"object_at({i})"
        return out
    raise ValueError(f"unknown list element type {elem}")


def header(msg):
    return {"version": msg.version, "flags": msg.flags, "size": msg.size}


def read_message(m):
    schema = Schema(m["schema"])
    msg = wire.parse(bytes.fromhex(m["hex"]))
    return {**header(msg), "value": read_struct(schema, schema.root, msg.root())}


def read_rpc(r):
    data = bytes.fromhex(r["hex"])
    out = {"kind": r["kind"], **header(wire.parse(data))}
    if r["kind"] == "request":
        c = pipeline.parse_request(data)
        out.update(
            method=c.method,
            promise_id=c.promise_id,
            target=c.target,
            cap=c.cap.hex(),
            payload=c.payload.hex(),
        )
    else:
        resp = pipeline.parse_response(data)
        out.update(status=resp.status, promise_id=resp.promise_id, body=resp.body.hex())
    return out


def main():
    req = json.load(sys.stdin)
    if req["mode"] == "build":
        out = {
            "messages": [build_message(m) for m in req["messages"]],
            "rpc": [build_rpc(r) for r in req.get("rpc", [])],
        }
    elif req["mode"] == "read":
        out = {
            "messages": [read_message(m) for m in req["messages"]],
            "rpc": [read_rpc(r) for r in req.get("rpc", [])],
        }
    else:
        raise ValueError(f"unknown mode {req['mode']!r}")
    out["zap_version"] = getattr(zap, "__version__", None)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

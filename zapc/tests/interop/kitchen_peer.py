"""Python peer for zapc's CLI interop test, using the real zap-proto runtime.

stdin: {"mode": "build" | "read", "layout": {...}, "messages": [...]}
  layout: {"root": "Kitchen", "structs": {"Kitchen": {"size": N, "fields":
           [{"key": "a8", "type": "u8", "offset": 1}, ...]}, ...}}
  build:  messages are JSON values in the schema's JSON mapping; prints their wire hex.
  read:   messages are wire hex; prints each read back into the JSON mapping.
Types: bool u8..u64 i8..i64 f32 f64 text bytes bytes_fixed[N], a struct name (pointer),
list<u8>, list<u32>, list<u64> (strided), list<Struct> (framed: each element a complete
message) and strided<Struct> (a list of an all-inline struct: elements back to back,
`size` bytes each). An enum is given as its representation (u8, u16, u32): zap-proto has
no enums. Struct names may be qualified by the package of an imported schema
(`common.Location`).
"""

import json
import struct
import sys

from zap import wire

# The scalar lists zap-proto's list builder and reader support: element width, suffix.
SCALAR_LISTS = {"list<u8>": (1, "uint8"), "list<u32>": (4, "uint32"), "list<u64>": (8, "uint64")}

SCALARS = {
    "bool": ("bool", "set_bool"), "u8": ("uint8", "set_uint8"), "u16": ("uint16", "set_uint16"),
    "u32": ("uint32", "set_uint32"), "u64": ("uint64", "set_uint64"), "i8": ("int8", "set_int8"),
    "i16": ("int16", "set_int16"), "i32": ("int32", "set_int32"), "i64": ("int64", "set_int64"),
    "f32": ("float32", "set_float32"), "f64": ("float64", "set_float64"),
}


PACK = {
    "bool": "?", "u8": "B", "u16": "H", "u32": "I", "u64": "Q",
    "i8": "b", "i16": "h", "i32": "i", "i64": "q", "f32": "f", "f64": "d",
}


def inline_bytes(layout, name, value):
    """The fixed section of an all-inline struct, as a strided list element."""
    st = layout["structs"][name]
    out = bytearray(st["size"])
    for f in st["fields"]:
        t, off, v = f["type"], f["offset"], value.get(f["key"])
        if v is None:
            continue
        if t in PACK:
            struct.pack_into("<" + PACK[t], out, off, v)
        else:  # bytes_fixed[N]
            raw = unhex(v)
            out[off : off + len(raw)] = raw
    return bytes(out)


def unhex(s):
    return bytes.fromhex(s[2:] if s.startswith("0x") else s)


def build_struct(b, layout, name, value):
    st = layout["structs"][name]
    ob = b.start_object(st["size"])
    for f in st["fields"]:
        t, off, v = f["type"], f["offset"], value.get(f["key"])
        if v is None:
            continue
        if t in SCALARS:
            getattr(ob, SCALARS[t][1])(off, v)
        elif t == "text":
            ob.set_text(off, v)
        elif t == "bytes":
            ob.set_bytes(off, unhex(v))
        elif t.startswith("bytes_fixed["):
            ob.set_bytes_fixed(off, unhex(v))
        elif t in SCALAR_LISTS:
            if v:
                width, suffix = SCALAR_LISTS[t]
                lb = b.start_list(width)
                for x in v:
                    getattr(lb, "add_" + suffix)(x)
                start, count = lb.finish()
                ob.set_list(off, start, count)
        elif t.startswith("strided<"):
            elem = t[8:-1]
            if v:
                lb = b.start_list(layout["structs"][elem]["size"])
                for item in v:
                    lb.add_bytes(inline_bytes(layout, elem, item))
                start, _ = lb.finish()
                ob.set_list(off, start, len(v))
        elif t.startswith("list<"):
            elem = t[5:-1]
            if v:
                lb = b.start_list(0)
                for item in v:
                    eb = wire.Builder()
                    build_struct(eb, layout, elem, item).finish_as_root()
                    lb.add_object_bytes(eb.finish())
                start, count = lb.finish()
                ob.set_list(off, start, count)
        else:  # a struct pointer
            child = build_struct(b, layout, t, v).finish()
            ob.set_object(off, child)
    return ob


def read_struct(layout, name, obj):
    st = layout["structs"][name]
    out = {}
    for f in st["fields"]:
        t, off, key = f["type"], f["offset"], f["key"]
        if t in SCALARS:
            out[key] = getattr(obj, SCALARS[t][0])(off)
        elif t == "text":
            out[key] = obj.text(off)
        elif t == "bytes":
            out[key] = "0x" + obj.bytes(off).hex()
        elif t.startswith("bytes_fixed["):
            out[key] = "0x" + obj.bytes_fixed(off, int(t[12:-1])).hex()
        elif t in SCALAR_LISTS:
            lst, suffix = obj.list(off), SCALAR_LISTS[t][1]
            out[key] = [getattr(lst, suffix)(i) for i in range(len(lst))]
        elif t.startswith("strided<"):
            elem = t[8:-1]
            size, lst = layout["structs"][elem]["size"], obj.list(off)
            out[key] = [read_struct(layout, elem, lst.object(i, size)) for i in range(len(lst))]
        elif t.startswith("list<"):
            elem, items = t[5:-1], []
            obj.list(off).each(lambda i, o: items.append(read_struct(layout, elem, o)) or True)
            out[key] = items
        else:
            child = obj.object(off)
            out[key] = None if child.is_null() else read_struct(layout, t, child)
    return out


def main():
    req = json.load(sys.stdin)
    layout, root = req["layout"], req["layout"]["root"]
    if req["mode"] == "build":
        out = []
        for value in req["messages"]:
            b = wire.Builder()
            build_struct(b, layout, root, value).finish_as_root()
            out.append(b.finish().hex())
    else:
        out = [read_struct(layout, root, wire.parse(unhex(h)).root()) for h in req["messages"]]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

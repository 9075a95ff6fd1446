#!/usr/bin/env sh
# Write the seed corpus for every fuzz target into fuzz/corpus/<target>/ (gitignored),
# from the shared test vectors in ../tests/data/*.json. Nothing binary is committed.
#
#   ./seed.sh            # from zap-runtime/fuzz (or from anywhere: paths are relative to this script)
#
# Needs python3 (standard library only).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec python3 - "$here" <<'PY'
import json, os, struct, sys, hashlib

here = sys.argv[1]
data = os.path.join(here, "..", "tests", "data")
corpus = os.path.join(here, "corpus")

def load(name):
    with open(os.path.join(data, name)) as f:
        return json.load(f)

# A message with the shapes the vectors lack (a pointer list @16, a strided struct list
# @24, a framed text list with a non-UTF-8 element @32, a framed list of embedded messages
# @40, a child pointer @48), as built by zap-runtime's Builder (see tests/hostile.rs,
# built_message()).
BUILT = (
    "5a4150000100000010000000f200000007000000da000000040000000000000028000000030000004800"
    "000003000000580000000300000068000000020000002000000000000000100000000000000010000000"
    "000000002a000000000000000900000008000000040000006c65616600000000ffff000001000000ffff"
    "000002000000ffff0000030000006f6e6502000000fffe0000000000000000000000230000005a415000"
    "010000001000000023000000000000000000000008000000030000006d7367230000005a415000010000"
    "001000000023000000010000000000000008000000030000006d7367726f6f74"
)

messages = []    # (name, bytes) every message-shaped vector, good or hostile
requests = []    # request envelopes
responses = []   # response envelopes
for name in ("flat.json", "rpc.json", "hostile.json"):
    for v in load(name)["vectors"]:
        raw = bytes.fromhex(v["hex"])
        messages.append((v["name"], raw))
        if v.get("kind") == "request":
            requests.append(raw)
            if v.get("payload"):
                messages.append((v["name"] + "_payload", bytes.fromhex(v["payload"])))
        elif v.get("kind") == "response":
            responses.append(raw)
            if v.get("body"):
                messages.append((v["name"] + "_body", bytes.fromhex(v["body"])))
messages.append(("nested", bytes.fromhex(load("nested.json")["hex"])))
messages.append(("built", bytes.fromhex(BUILT)))

def write(target, blob):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    # content-addressed names, like libFuzzer's own, so re-running is idempotent
    with open(os.path.join(d, hashlib.sha1(blob).hexdigest()), "wb") as f:
        f.write(blob)

def frame(direction, envelope):
    return struct.pack("<IB", len(envelope) + 1, direction) + envelope

counts = {}
def add(target, blob):
    write(target, blob)
    counts[target] = counts.get(target, 0) + 1

for _, m in messages:
    add("reader", m)
    # the bytes after the message seed the walk: one variant with a trailer
    add("reader", m + b"\x01\x02\x03\x04")
for m in requests + responses + [m for _, m in messages]:
    add("envelope", m)

stream = b"".join(frame(1, r) for r in requests) + b"".join(frame(2, r) for r in responses)
small = frame(3, b"") + frame(4, b"x") + frame(5, b"")
for control in (0, 1, 2, 3, 4, 5, 6, 7, 0x20 | 5, 0xA0 | 1, 0xE0):
    add("frame_decoder", bytes([control]) + stream)
    add("frame_decoder", bytes([control]) + small + stream[:37])
add("frame_decoder", bytes([1]) + struct.pack("<I", 0))                  # length 0
add("frame_decoder", bytes([1]) + struct.pack("<IB", 5, 9) + b"abcd")    # unknown direction
add("frame_decoder", bytes([0]) + struct.pack("<I", 0xFFFFFFFF))         # oversized


# Generated readers: every message-shaped vector (nested.json has the kitchen layout).
for _, m in messages:
    add("kitchen_reader", m)

# Structured round trip: the input is raw material for `arbitrary`; a few shapes.
for blob in (b"", bytes(range(256)), b"\xff" * 512, b"\x00" * 512, b"zap kitchen" * 40):
    add("roundtrip", blob)

# A stream of calls to the `Store` interface of schemas/service.zap, built per spec §4/§5.
def message(obj, tails, version=2, flags=0xC800):
    """A flat message: the root object at 16 with `obj` as its fixed section, then the
    deferred (slot, payload) tails in order; returns the bytes."""
    body = bytearray(obj)
    at = 16 + len(body)
    out_tails = b""
    for slot, payload in tails:
        if payload:
            rel = at + len(out_tails) - (16 + slot)
            struct.pack_into("<II", body, slot, rel, len(payload))
            out_tails += payload
    size = 16 + len(body) + len(out_tails)
    return b"ZAP\0" + struct.pack("<HHII", version, flags, 16, size) + bytes(body) + out_tails

def query(id_):
    return message(struct.pack("<Q", id_), [], version=1, flags=0)

def request(method, promise, payload=b"", target=0, cap=b""):
    obj = struct.pack("<III", method, promise, target) + bytes(16)
    return message(obj, [(12, cap), (20, payload)])

calls = [
    request(1, 1, query(7)),
    request(2, 2, query(8)),
    request(3, 3),
    request(4, 4, query(9)),       # odd id: the handler fails, 500
    request(4, 5, query(10)),
    request(5, 6),
    request(9, 7),                 # unknown method, 404
    request(1, 8, b"garbage"),     # bad payload, 400
    request(1, 0, query(1)),       # PromiseID 0, 400
    request(1, 9, target=3),       # pipelined on `latest`'s Answer
    request(2, 10, target=77),     # unknown target
]
calls_stream = b"".join(frame(1, c) for c in calls)
for control in (0x00, 0x01, 0x03, 0x07, 0x42, 0x85, 0xC4):
    add("stream_dispatch", bytes([control]) + calls_stream)
add("stream_dispatch", bytes([0x07]) + calls_stream + frame(2, calls[0]) + calls_stream)
add("stream_dispatch", bytes([0x02]) + calls_stream[:50])
for c in calls:
    add("stream_dispatch", bytes([0x07]) + frame(1, c))
for _, m in messages:
    add("stream_dispatch", bytes([0x07]) + frame(1, m))

# JSON-RPC bodies (first byte: max_batch selector; 3 = 16).
def rpc(method, params=None, id_=1):
    call = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        call["params"] = params
    if id_ is not None:
        call["id"] = id_
    return call

bodies = [
    rpc("store_get", {"id": 5}),
    rpc("store_put", [6], id_="six"),
    rpc("store_latest", id_=None),
    rpc("store_forget", {"id": 3}, id_=None),
    rpc("store_forget", {"id": 3}),
    rpc("store_ping", id_=None),
    rpc("store_nope"),
    rpc("store_get", {"id": "x"}),
    rpc("store_get", {"id": 18446744073709551615}),
    [rpc("store_get", {"id": 1}), rpc("store_ping", id_=None), 5, {"jsonrpc": "1.0"}],
    [],
    [rpc("store_latest", id_=i) for i in range(20)],
    {"jsonrpc": "2.0", "method": 7, "id": [1]},
]
for b in bodies:
    add("jsonrpc", b"\x03" + json.dumps(b).encode())
for raw in (b"", b"{", b"[1,2", b"nul", b"[" * 200 + b"]" * 200, b"\x0c[]", b'{"jsonrpc":"2.0","id":1e400}'):
    add("jsonrpc", b"\x03" + raw)

for t in sorted(counts):
    print(f"{t}: {counts[t]} seeds in {os.path.join(corpus, t)}")
PY

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

for t in sorted(counts):
    print(f"{t}: {counts[t]} seeds in {os.path.join(corpus, t)}")
PY

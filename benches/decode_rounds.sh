#!/usr/bin/env bash
# Decode against the fastest checked zero-copy reader (rkyv with bytecheck) and the
# hand-written floor, in paired rounds. Raw files: benches/results/raw/decode-*.
#
# 1. Time: ROUNDS runs of the codec benches filtered to the decode rows (native build,
#    pinned, 0.5 s warm-up and SECONDS of measurement each): the eth request and
#    response (generated `zap_fixed`, `floor`, `rkyv_checked`; for the request also
#    serde_json with hex kept as strings, the fastest JSON there), the 100-log getLogs
#    answer read whole and its 50th log's transaction hash (`zap`, `rkyv_checked`,
#    `planus`). Per round, the ratio of each peer's criterion median to ZAP's (above 1:
#    ZAP is faster); the median and range of those per-round ratios.
# 2. Instructions per operation under callgrind (default release build), which do not
#    move between runs.
#
#   bash benches/decode_rounds.sh [ROUNDS=7] [SECONDS=1]
#
# Needs: cargo, python3, valgrind (for part 2).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_BENCH=${2:-1}
ROOT=$(pwd)
RAW=benches/results/raw
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
NATIVE_DIR="$TARGET_DIR/native"
mkdir -p "$RAW"
rm -rf "$RAW"/decode-criterion "$RAW"/decode-instructions.txt
PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then PIN=(taskset -c 1); fi
# group:codec pairs; the first codec of each group is ZAP's.
ROWS="decode_request:zap_fixed decode_request:floor decode_request:rkyv_checked decode_request:serde_json_str
decode_response:zap_fixed decode_response:floor decode_response:rkyv_checked
logs_decode:zap logs_decode:rkyv_checked logs_decode:planus
logs_field:zap logs_field:rkyv_checked logs_field:planus"

for round in $(seq "$ROUNDS"); do
    for row in $ROWS; do rm -rf "$NATIVE_DIR/criterion/${row%%:*}/${row#*:}"; done
    "${PIN[@]}" env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_DIR" \
        cargo bench -p zap-benches --bench codecs -- \
        '^((decode_request|decode_response)/(zap_fixed|floor|rkyv_checked)|decode_request/serde_json_str|(logs_decode|logs_field)/(zap|rkyv_checked|planus))$' \
        --warm-up-time 0.5 --measurement-time "$SECONDS_PER_BENCH" --noplot 2>&1 |
        grep -E '^[a-z_]+/|time:' || true
    for row in $ROWS; do
        group=${row%%:*} codec=${row#*:}
        mkdir -p "$RAW/decode-criterion/r$round/$group/$codec"
        cp "$NATIVE_DIR/criterion/$group/$codec/new/estimates.json" \
            "$RAW/decode-criterion/r$round/$group/$codec/estimates.json"
    done
done

if command -v valgrind >/dev/null 2>&1; then
    env CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p zap-benches --bin allocs
    instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TARGET_DIR/release/allocs" \
            --only "$1" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    base=$(instructions none/none)
    for row in $ROWS; do
        group=${row%%:*} codec=${row#*:}
        case $group in logs_*) sel="logs:$codec/$group" ;; *) sel="$codec/$group" ;; esac
        echo "$group $codec $(($(instructions "$sel") - base))"
    done >"$RAW/decode-instructions.txt"
fi

python3 - "$RAW" "$ROUNDS" "$ROWS" <<'PY' | tee "$RAW/decode-rounds.txt"
import json, os, statistics, sys
raw, rounds, rows = sys.argv[1], int(sys.argv[2]), [r.split(":") for r in sys.argv[3].split()]
groups = {}
for group, codec in rows:
    groups.setdefault(group, []).append(codec)
def median_ns(r, group, codec):
    est = json.load(open(f"{raw}/decode-criterion/r{r}/{group}/{codec}/estimates.json"))
    return est["median"]["point_estimate"]
counts = {}
path = f"{raw}/decode-instructions.txt"
if os.path.exists(path):
    for line in open(path):
        group, codec, n = line.split()
        # allocs --only runs 10,000 operations and 1,000 of warm-up; none/none is taken off.
        counts[(group, codec)] = round(int(n) / 11000)
summary = {}
print("op               codec          median time  peer time / ZAP time (median of rounds, min-max)  instructions per op")
for group, codecs in groups.items():
    zap = codecs[0]
    times = {c: [median_ns(r, group, c) for r in range(1, rounds + 1)] for c in codecs}
    summary[group] = {}
    for c in codecs:
        ratios = [p / z for p, z in zip(times[c], times[zap])]
        entry = {"median_ns": statistics.median(times[c]), "instructions": counts.get((group, c))}
        text = ""
        if c != zap:
            entry.update(ratio=statistics.median(ratios), min=min(ratios), max=max(ratios))
            text = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
        summary[group][c] = entry
        ins = counts.get((group, c))
        print(f"{group:16} {c:14} {statistics.median(times[c]):9.2f} ns  {text:48} {ins if ins is not None else '-'}")
json.dump(summary, open(f"{raw}/decode-summary.json", "w"), indent=1)
PY

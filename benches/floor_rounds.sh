#!/usr/bin/env bash
# Distance to the floor: the generated code (`zap_fixed`) against the eth request and
# response read and written by hand at constant offsets (`floor`,
# benches/src/codecs/floor.rs), on the same bytes. Raw files: benches/results/raw/floor-*.
#
# 1. Time: ROUNDS runs of the codec benches filtered to the two (native build, pinned,
#    0.5 s warm-up and SECONDS of measurement each), the ratio of criterion's medians
#    taken per round; the median and range of the per-round ratios.
# 2. Instructions per operation under callgrind (default build), which do not move
#    between runs.
#
#   bash benches/floor_rounds.sh [ROUNDS=5] [SECONDS=1]
#
# Needs: cargo, python3, valgrind (for part 2).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECONDS_PER_BENCH=${2:-1}
ROOT=$(pwd)
RAW=benches/results/raw
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
NATIVE_DIR="$TARGET_DIR/native"
mkdir -p "$RAW"
rm -rf "$RAW"/floor-criterion "$RAW"/floor-instructions.txt
PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then PIN=(taskset -c 1); fi
OPS="decode_request decode_response encode_request encode_response handler"

for round in $(seq "$ROUNDS"); do
    for op in $OPS; do rm -rf "$NATIVE_DIR/criterion/$op"; done
    "${PIN[@]}" env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_DIR" \
        cargo bench -p zap-benches --bench codecs -- \
        '^(decode_request|decode_response|encode_request|encode_response|handler)/(zap_fixed|floor)$' \
        --warm-up-time 0.5 --measurement-time "$SECONDS_PER_BENCH" --noplot 2>&1 |
        grep -E '^[a-z_]+/|time:' || true
    for op in $OPS; do
        for codec in zap_fixed floor; do
            mkdir -p "$RAW/floor-criterion/r$round/$op/$codec"
            cp "$NATIVE_DIR/criterion/$op/$codec/new/estimates.json" \
                "$RAW/floor-criterion/r$round/$op/$codec/estimates.json"
        done
    done
done

if command -v valgrind >/dev/null 2>&1; then
    env CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p zap-benches --bin allocs
    instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TARGET_DIR/release/allocs" \
            --only "$1" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    base=$(instructions none/none)
    for codec in zap_fixed floor; do
        for op in $OPS; do
            echo "$codec $op $(($(instructions "$codec/$op") - base))"
        done
    done >"$RAW/floor-instructions.txt"
fi

python3 - "$RAW" "$ROUNDS" "$OPS" <<'PY' | tee "$RAW/floor-rounds.txt"
import json, os, statistics, sys
raw, rounds, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def median_ns(r, op, codec):
    est = json.load(open(f"{raw}/floor-criterion/r{r}/{op}/{codec}/estimates.json"))
    return est["median"]["point_estimate"]
counts = {}
path = f"{raw}/floor-instructions.txt"
if os.path.exists(path):
    for line in open(path):
        codec, op, n = line.split()
        # allocs --only runs 10,000 operations and 1,000 of warm-up; none/none is taken off.
        counts[(codec, op)] = round(int(n) / 11000)
summary = {}
print("op               zap_fixed   floor  generated/floor (median of rounds, min-max)  instructions per op")
for op in ops:
    gen = [median_ns(r, op, "zap_fixed") for r in range(1, rounds + 1)]
    floor = [median_ns(r, op, "floor") for r in range(1, rounds + 1)]
    ratios = [g / f for g, f in zip(gen, floor)]
    ins = (counts.get(("zap_fixed", op)), counts.get(("floor", op)))
    summary[op] = {"zap_fixed_ns": statistics.median(gen), "floor_ns": statistics.median(floor),
                   "ratio": statistics.median(ratios), "instructions": ins}
    ins_text = f"{ins[0]} vs {ins[1]}" if None not in ins else "-"
    print(f"{op:16} {statistics.median(gen):7.2f} ns {statistics.median(floor):6.2f} ns  "
          f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
          f"                  {ins_text}")
json.dump(summary, open(f"{raw}/floor-summary.json", "w"), indent=1)
PY

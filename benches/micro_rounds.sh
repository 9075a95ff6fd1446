#!/usr/bin/env bash
# What the server adds around a handler, in nanoseconds: recording a call in the
# metrics (`cargo bench --bench metrics`: the same call directly and through `Metered`)
# and a cached capability check (`--bench caps`, the cached checks of the three
# schemes). ROUNDS runs of each (native build, pinned to one core); for the metrics, the
# difference metered - direct of criterion's medians taken per round, then the median
# and range of those. Raw files: benches/results/raw/micro-*.
#
#   bash benches/micro_rounds.sh [ROUNDS=5] [SECONDS=2]
#
# Needs: cargo, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECONDS_PER_BENCH=${2:-2}
ROOT=$(pwd)
RAW=benches/results/raw
NATIVE_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/native"
mkdir -p "$RAW"
rm -rf "$RAW"/micro-criterion "$RAW"/micro-rounds.txt "$RAW"/micro-summary.json
PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then PIN=(taskset -c 1); fi

bench() {
    "${PIN[@]}" env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_DIR" \
        cargo bench -p zap-benches --bench "$1" -- "$2" \
        --warm-up-time 0.5 --measurement-time "$SECONDS_PER_BENCH" --noplot 2>&1 |
        grep -E '^[a-z_/0-9]+|time:' || true
}
keep() {
    local round=$1 group=$2
    (cd "$NATIVE_DIR/criterion" && find "$group" -path '*/new/estimates.json') | while read -r est; do
        mkdir -p "$RAW/micro-criterion/r$round/$(dirname "$(dirname "$est")")"
        cp "$NATIVE_DIR/criterion/$est" "$RAW/micro-criterion/r$round/$(dirname "$(dirname "$est")")/estimates.json"
    done
}
for round in $(seq "$ROUNDS"); do
    rm -rf "$NATIVE_DIR/criterion/metrics_ping" "$NATIVE_DIR/criterion/metrics_eth_getBalance" \
        "$NATIVE_DIR/criterion/cap_check"
    bench metrics ''
    bench caps 'cached'
    keep "$round" metrics_ping
    keep "$round" metrics_eth_getBalance
    keep "$round" cap_check
done

python3 - "$RAW" "$ROUNDS" <<'PY' | tee "$RAW/micro-rounds.txt"
import json, statistics, sys
raw, rounds = sys.argv[1], int(sys.argv[2])
def median(r, path):
    return json.load(open(f"{raw}/micro-criterion/r{r}/{path}/estimates.json"))["median"]["point_estimate"]
summary = {}
for name, group in (("empty handler", "metrics_ping"), ("eth_getBalance", "metrics_eth_getBalance")):
    added = [median(r, f"{group}/metered") - median(r, f"{group}/direct") for r in range(1, rounds + 1)]
    direct = statistics.median(median(r, f"{group}/direct") for r in range(1, rounds + 1))
    summary[group] = {"added_ns": statistics.median(added), "min": min(added), "max": max(added), "direct_ns": direct}
    print(f"metrics, {name}: {statistics.median(added):.1f} ns added per call (median of {rounds} rounds, "
          f"{min(added):.1f}-{max(added):.1f}); the call itself {direct:.1f} ns")
for scheme in ("ed25519", "secp256k1", "mldsa65"):
    ns = [median(r, f"cap_check/{scheme}_cached") for r in range(1, rounds + 1)]
    summary[f"cap_{scheme}_cached"] = {"ns": statistics.median(ns), "min": min(ns), "max": max(ns)}
    print(f"cached capability check, {scheme}: {statistics.median(ns):.1f} ns (median of {rounds} rounds, "
          f"{min(ns):.1f}-{max(ns):.1f})")
json.dump(summary, open(f"{raw}/micro-summary.json", "w"), indent=1)
PY

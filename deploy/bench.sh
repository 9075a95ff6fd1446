#!/usr/bin/env bash
# Requests per second through HAProxy (deploy/haproxy.cfg) against straight to an
# eth-rpc instance, with 1 and with 3 instances behind HAProxy, over ZAP/TCP and
# JSON-RPC/HTTP; writes deploy/results/haproxy.md (the README's "Deploying" table).
#
# Paired rounds: in every round each transport is measured straight to instance 1 and
# through HAProxy, one right after the other (the order alternating between rounds);
# the table gives the median of each side and the median of the per-round ratios.
# The instances and HAProxy share core 0, the load generator has core 1 (taskset,
# when there are 2 cores): on a 2-core machine this shows HAProxy's overhead, not
# scaling.
#
# Needs: cargo, haproxy (apt-get install haproxy), curl, python3.
# Knobs (environment): ROUNDS (default 5), SECONDS_EACH (default 3), CONNECTIONS
# (default 64), CARGO_TARGET_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
ROUNDS="${ROUNDS:-5}"
SECONDS_EACH="${SECONDS_EACH:-3}"
CONNECTIONS="${CONNECTIONS:-64}"
OUT="$ROOT/deploy/results"
mkdir -p "$OUT"
for tool in cargo haproxy curl python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench.sh: $tool not found" >&2; exit 1; }
done

cargo build --locked --release -p eth-rpc -p zap-benches --bin eth-rpc --bin loadgen
BIN="$TARGET_DIR/release"

SERVER_PIN=()
CLIENT_PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
fi

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
trap cleanup EXIT

export ZAP_FRONTEND=127.0.0.1:37999 HTTP_FRONTEND=127.0.0.1:37545 STATS_FRONTEND=127.0.0.1:37404
for n in 1 2 3; do
    export "ETH${n}_ZAP=127.0.0.1:3710$n" "ETH${n}_HTTP=127.0.0.1:3760$n" "ETH${n}_HTTP_PORT=3760$n"
done

# Start `count` instances and HAProxy; wait until HAProxy has exactly them UP.
start() {
    local count=$1 n
    for n in $(seq 1 "$count"); do
        local zap="ETH${n}_ZAP" http="ETH${n}_HTTP"
        "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr "${!zap}" --http-addr "${!http}" \
            2>/dev/null &
        PIDS+=($!)
    done
    "${SERVER_PIN[@]}" haproxy -db -f deploy/haproxy.cfg 2>/dev/null &
    PIDS+=($!)
    local tries=0
    until [ "$(curl -s "http://$STATS_FRONTEND/stats;csv" | grep -c '^eth_[a-z]*,eth[0-9],.*,UP,')" = $((2 * count)) ] \
        && [ "$(curl -s "http://$STATS_FRONTEND/stats;csv" | grep -c ',DOWN,')" = $((2 * (3 - count))) ]; do
        tries=$((tries + 1))
        [ "$tries" -lt 500 ] || { echo "bench.sh: HAProxy did not see the instances" >&2; exit 1; }
        sleep 0.02
    done
}

# One measurement: req/s of `target` (zap, http) at `addr`.
measure() {
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$1" --addr "$2" -c "$CONNECTIONS" \
        --seconds "$SECONDS_EACH" --warmup 1 | sed -nE 's/.* ([0-9]+) req\/s.*/\1/p'
}

RAW="$OUT/haproxy-raw.csv"
echo "instances,transport,round,direct,haproxy" > "$RAW"
for count in 1 3; do
    start "$count"
    for round in $(seq 1 "$ROUNDS"); do
        for target in zap http; do
            if [ "$target" = zap ]; then direct=$ETH1_ZAP via=$ZAP_FRONTEND; else direct=$ETH1_HTTP via=$HTTP_FRONTEND; fi
            if [ $((round % 2)) = 1 ]; then
                d=$(measure "$target" "$direct"); h=$(measure "$target" "$via")
            else
                h=$(measure "$target" "$via"); d=$(measure "$target" "$direct")
            fi
            echo "$count,$target,$round,$d,$h" | tee -a "$RAW"
        done
    done
    cleanup
done

python3 - "$RAW" "$OUT/haproxy.md" "$ROUNDS" "$SECONDS_EACH" "$CONNECTIONS" <<'PY'
import csv, statistics, sys
raw, out, rounds, seconds, conns = sys.argv[1:]
rows = list(csv.DictReader(open(raw)))
lines = [
    f"| instances behind HAProxy | transport | straight to one instance (req/s) | through HAProxy (req/s) | HAProxy / straight (median of {rounds} paired rounds) |",
    "| --- | --- | ---: | ---: | ---: |",
]
for count in ("1", "3"):
    for target, name in (("zap", "ZAP/TCP"), ("http", "JSON-RPC/HTTP")):
        mine = [r for r in rows if r["instances"] == count and r["transport"] == target]
        direct = statistics.median(int(r["direct"]) for r in mine)
        via = statistics.median(int(r["haproxy"]) for r in mine)
        ratio = statistics.median(int(r["haproxy"]) / int(r["direct"]) for r in mine)
        lines.append(f"| {count} | {name} | {direct:,.0f} | {via:,.0f} | {ratio:.2f}x |")
lines.append("")
lines.append(f"{conns} connections, no pipelining, {seconds} s per measurement; deploy/bench.sh.")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

#!/usr/bin/env bash
# Reproduce benches/results/README-tables.md and benches/results/chart.svg on a
# 2-core machine in a few minutes:
#   1. build release (benches, load generator, baselines, the eth-rpc example);
#   2. criterion: every codec, decode / encode / roundtrip / handler (short times);
#   3. allocations per operation and wire sizes (benches/src/bin/allocs.rs), and
#      instructions per operation under callgrind (noise-free ratios);
#   4. end to end on loopback: eth-rpc (ZAP/TCP and JSON-RPC/HTTP), the echo baseline
#      and the hyper baseline, at 64 connections without pipelining and at depth 16;
#      servers pinned to core 0, the load generator to core 1;
#   5. a short perf profile of the servers under load (if perf works here);
#   6. benches/results/report.py writes the tables and the chart.
#
# Needs: cargo, python3 (stdlib only), taskset (util-linux: apt-get install util-linux),
# lscpu (util-linux); optional: perf (apt-get install linux-perf) for the profiles,
# valgrind (apt-get install valgrind) for instruction counts.
# Knobs (environment): CRITERION_SECONDS (default 1), E2E_SECONDS (default 5),
# E2E_WARMUP (default 1), E2E_ROUNDS (default 3: every end-to-end run is repeated, the
# servers taking turns, and the report keeps each one's median round), PROFILE=0 to
# skip perf, CARGO_TARGET_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
RESULTS="$ROOT/benches/results"
RAW="$RESULTS/raw"
CRITERION_SECONDS="${CRITERION_SECONDS:-1}"
E2E_SECONDS="${E2E_SECONDS:-5}"
E2E_WARMUP="${E2E_WARMUP:-1}"
E2E_ROUNDS="${E2E_ROUNDS:-3}"
PROFILE="${PROFILE:-1}"
ZAP_ADDR=127.0.0.1:19999
HTTP_ADDR=127.0.0.1:18545
ECHO_ADDR=127.0.0.1:19998
FIXED_ADDR=127.0.0.1:18544

need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "run.sh: '$1' not found: $2" >&2
        exit 1
    }
}
need cargo "install Rust"
need python3 "apt-get install python3"
need timeout "apt-get install coreutils"
need lscpu "apt-get install util-linux"

SERVER_PIN=()
CLIENT_PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
else
    echo "run.sh: taskset missing (apt-get install util-linux) or one core: not pinning" >&2
fi
if [ "$PROFILE" = 1 ] && ! command -v perf >/dev/null 2>&1; then
    echo "run.sh: perf not found (apt-get install linux-perf): skipping profiles" >&2
    PROFILE=0
fi

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT INT TERM

mkdir -p "$RAW"
rm -f "$RAW"/*.json "$RAW"/*.txt
STARTED=$(date +%s)

# Machine facts, and how busy it is (other builds may run beside us).
{
    echo "model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
    echo "nproc=$(nproc)"
    echo "rustc=$(rustc --version)"
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "pinned=$([ ${#SERVER_PIN[@]} -gt 0 ] && echo yes || echo no)"
    echo "criterion_seconds=$CRITERION_SECONDS"
    echo "e2e_seconds=$E2E_SECONDS"
    echo "e2e_warmup=$E2E_WARMUP"
    echo "e2e_rounds=$E2E_ROUNDS"
} >"$RAW/machine.txt"

echo "== build (release)"
cargo build --release -p zap-benches --bins -p eth-rpc --bin eth-rpc
BIN="$TARGET_DIR/release"

echo "== criterion: codecs (${CRITERION_SECONDS}s per benchmark)"
for group in decode_request decode_response encode_request encode_response roundtrip handler; do
    rm -rf "$TARGET_DIR/criterion/$group"
done
"${CLIENT_PIN[@]}" cargo bench -p zap-benches --bench codecs -- \
    --warm-up-time 0.5 --measurement-time "$CRITERION_SECONDS" --noplot 2>&1 |
    grep -E '^[a-z_]+/|time:' || true

echo "== allocations per operation, wire sizes"
"${CLIENT_PIN[@]}" "$BIN/allocs" --json "$RAW/allocs.json"

# Instructions per operation, counted by callgrind: unlike time, the same whatever else
# the machine is doing, so these ratios survive a busy machine.
if command -v valgrind >/dev/null 2>&1; then
    echo "== instructions per operation (callgrind)"
    instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN/allocs" --only "$1" 2>&1 |
            sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    base=$(instructions none/none)
    for codec in zap_fixed zap_tails prost sonic_rs_str sonic_rs_bytes serde_json_str serde_json_bytes; do
        for op in decode_request decode_response encode_request encode_response handler; do
            echo "$codec $op $(($(instructions "$codec/$op") - base))"
        done
    done >"$RAW/instructions.txt"
    for sel in zap_fixed_pooled/encode_response zap_fixed_direct/encode_response; do
        echo "${sel%/*} ${sel#*/} $(($(instructions "$sel") - base))"
    done >>"$RAW/instructions.txt"
else
    echo "run.sh: valgrind not found (apt-get install valgrind): no instruction counts" >&2
fi

# Start a server pinned to core 0; wait until it accepts connections.
start() {
    local name=$1 addr=$2
    shift 2
    RUST_LOG=warn "${SERVER_PIN[@]}" "$@" >"$RAW/$name.log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 100); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "run.sh: $name exited; its log:" >&2
            cat "$RAW/$name.log" >&2
            exit 1
        fi
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then
            eval "${name//-/_}_PID=$pid"
            return
        fi
        sleep 0.1
    done
    echo "run.sh: $name did not listen on $addr" >&2
    exit 1
}

echo "== end to end (servers on core 0, load generator on core 1)"
start eth-rpc "$ZAP_ADDR" "$BIN/eth-rpc" --zap-addr "$ZAP_ADDR" --http-addr "$HTTP_ADDR"
start echo "$ECHO_ADDR" "$BIN/baseline_echo" --addr "$ECHO_ADDR"
start fixed "$FIXED_ADDR" "$BIN/baseline_http" --addr "$FIXED_ADDR"

load() {
    local target=$1 addr=$2 depth=$3 round=$4
    timeout $((E2E_SECONDS * 4 + 30)) "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" \
        --addr "$addr" -c 64 -d "$depth" --seconds "$E2E_SECONDS" --warmup "$E2E_WARMUP" \
        --json "$RAW/e2e-$target-d$depth-r$round.json"
}
for round in $(seq "$E2E_ROUNDS"); do
    echo "-- round $round of $E2E_ROUNDS"
    for depth in 1 16; do
        load zap "$ZAP_ADDR" "$depth" "$round"
        load zap-node "$ZAP_ADDR" "$depth" "$round"
        load http "$HTTP_ADDR" "$depth" "$round"
        load zap-echo "$ECHO_ADDR" "$depth" "$round"
        load http-fixed "$FIXED_ADDR" "$depth" "$round"
    done
done

# Where the server's time goes under load: a flat cpu-clock profile (hardware counters
# are often missing on VMs), sampled while the load generator runs.
profile() {
    local name=$1 pid=$2 target=$3 addr=$4 depth=$5
    local data="$RAW/perf-$name.data"
    perf record -e cpu-clock -F 1999 -g -p "$pid" -o "$data" -- sleep "$E2E_SECONDS" \
        >/dev/null 2>&1 &
    local perf_pid=$!
    timeout $((E2E_SECONDS * 4 + 30)) "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" \
        --addr "$addr" -c 64 -d "$depth" --seconds "$E2E_SECONDS" --warmup 0.2 >/dev/null
    wait "$perf_pid" || true
    perf report -i "$data" --stdio --no-children --sort symbol --percent-limit 1.5 \
        2>/dev/null | grep -E '^ +[0-9.]+%' | head -25 >"$RAW/profile-$name.txt" || true
    perf report -i "$data" --stdio --children --sort symbol --percent-limit 3 -g none \
        2>/dev/null | grep -E '^ +[0-9.]+%' | head -40 >"$RAW/profile-$name-children.txt" || true
    rm -f "$data" "$data.old"
}
if [ "$PROFILE" = 1 ]; then
    echo "== profiles (perf, cpu-clock)"
    profile zap-d16 "$eth_rpc_PID" zap "$ZAP_ADDR" 16
    profile zap-d1 "$eth_rpc_PID" zap "$ZAP_ADDR" 1
    profile http-d1 "$eth_rpc_PID" http "$HTTP_ADDR" 1
    profile echo-d16 "$echo_PID" zap-echo "$ECHO_ADDR" 16
fi
cleanup
PIDS=()

cut -d' ' -f1-3 /proc/loadavg | sed 's/^/load_end=/' >>"$RAW/machine.txt"
echo "elapsed_seconds=$(($(date +%s) - STARTED))" >>"$RAW/machine.txt"

echo "== report"
python3 "$ROOT/benches/results/report.py" --criterion "$TARGET_DIR/criterion" --raw "$RAW" \
    --out "$RESULTS"
echo "run.sh: results in $RESULTS/README-tables.md and $RESULTS/chart.svg (raw data in $RAW)"

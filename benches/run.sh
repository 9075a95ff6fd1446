#!/usr/bin/env bash
# Reproduce benches/results/README-tables.md and benches/results/chart.svg on a
# 2-core machine in about half an hour:
#   1. build release with `-C target-cpu=native` (into target/native, so that nothing
#      else in the workspace is built for this CPU): benches, load generator, baselines,
#      the eth-rpc example; and the codec benches once more in a default build;
#   2. criterion: every codec, both records (eth_getBalance: decode / encode / roundtrip /
#      handler; eth_getLogs: encode, full read, one field of the 50th log), short times,
#      in the native build and then in the default build; criterion's estimates.json
#      files are kept in benches/results/raw/criterion-{native,default}/;
#   3. allocations per operation and wire sizes (benches/src/bin/allocs.rs), and
#      instructions per operation under callgrind (default build: valgrind does not
#      decode AVX-512) for the eth_getBalance record;
#   4. end to end on loopback: eth-rpc (ZAP/TCP and JSON-RPC/HTTP), the echo baseline
#      and the hyper baseline, at 64 connections without pipelining and at depth 16;
#      servers pinned to core 0, the load generator to core 1 (paired rounds for the
#      ratios: benches/paired_rounds.sh);
#   5. a short perf profile of the servers under load (if perf works here);
#   6. benches/results/report.py writes the tables and the chart.
#
# Needs: cargo, capnp (apt-get install capnproto: the Cap'n Proto peer's schema
# compiler), python3 (stdlib only), taskset and lscpu (apt-get install util-linux);
# optional: perf (apt-get install linux-perf) for the profiles, valgrind (apt-get
# install valgrind) for instruction counts.
# Knobs (environment): CRITERION_SECONDS (default 1), DEFAULT_BUILD=0 to skip the
# default build's criterion run (its estimates of the last such run are then kept), E2E=0 to skip the end-to-end runs and profiles (the
# raw reports of the last such run are then kept), E2E_SECONDS (default 5), E2E_WARMUP
# (default 1), E2E_ROUNDS (default 3), PROFILE=0 to skip perf, CARGO_TARGET_DIR.
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
E2E="${E2E:-1}"
DEFAULT_BUILD="${DEFAULT_BUILD:-1}"
# The native build: its own target dir and RUSTFLAGS, for these benches only.
NATIVE_DIR="$TARGET_DIR/native"
native() { env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_DIR" "$@"; }
BENCH_GROUPS="decode_request decode_response encode_request encode_response roundtrip handler
logs_encode logs_decode logs_field"
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
need capnp "apt-get install capnproto"

SERVER_PIN=()
CLIENT_PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
else
    echo "run.sh: taskset missing (apt-get install util-linux) or one core: not pinning" >&2
fi
if [ "$E2E" = 1 ] && [ "$PROFILE" = 1 ] && ! command -v perf >/dev/null 2>&1; then
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
rm -rf "$RAW"/criterion-native "$RAW/allocs.json" "$RAW/instructions.txt" "$RAW/machine.txt"
if [ "$DEFAULT_BUILD" = 1 ]; then
    rm -rf "$RAW"/criterion-default
fi
if [ "$E2E" = 1 ]; then
    rm -f "$RAW"/e2e-*.json "$RAW"/profile-*.txt
fi
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
    echo "native_flags=-C target-cpu=native"
    echo "e2e_this_run=$E2E"
    echo "e2e_seconds=$E2E_SECONDS"
    echo "e2e_warmup=$E2E_WARMUP"
    echo "e2e_rounds=$E2E_ROUNDS"
} >"$RAW/machine.txt"

echo "== build (release, -C target-cpu=native)"
native cargo build --release -p zap-benches --bins -p eth-rpc --bin eth-rpc
BIN="$NATIVE_DIR/release"

# Criterion's estimates of one build, copied into the raw folder (criterion keeps them
# under target/, which is not committed).
keep_criterion() {
    local from=$1 to=$RAW/$2
    for group in $BENCH_GROUPS; do
        for est in "$from/$group"/*/new/estimates.json; do
            [ -e "$est" ] || continue
            local codec
            codec=$(basename "$(dirname "$(dirname "$est")")")
            mkdir -p "$to/$group/$codec"
            cp "$est" "$to/$group/$codec/estimates.json"
        done
    done
}
criterion_run() {
    local dir=$1
    for group in $BENCH_GROUPS; do
        rm -rf "$dir/criterion/$group"
    done
    "${CLIENT_PIN[@]}" "${@:2}" cargo bench -p zap-benches --bench codecs -- \
        --warm-up-time 0.5 --measurement-time "$CRITERION_SECONDS" --noplot 2>&1 |
        grep -E '^[a-z_]+/|time:' || true
}

echo "== criterion: codecs, native build (${CRITERION_SECONDS}s per benchmark)"
criterion_run "$NATIVE_DIR" env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$NATIVE_DIR"
keep_criterion "$NATIVE_DIR/criterion" criterion-native

if [ "$DEFAULT_BUILD" = 1 ]; then
    echo "== criterion: codecs, default build (${CRITERION_SECONDS}s per benchmark)"
    criterion_run "$TARGET_DIR" env CARGO_TARGET_DIR="$TARGET_DIR"
    keep_criterion "$TARGET_DIR/criterion" criterion-default
fi

echo "== allocations per operation, wire sizes"
"${CLIENT_PIN[@]}" "$BIN/allocs" --json "$RAW/allocs.json"

# Instructions per operation, counted by callgrind: unlike time, the same whatever else
# the machine is doing, so these ratios survive a busy machine. The default build:
# valgrind cannot run AVX-512 code, which a native build may contain.
if command -v valgrind >/dev/null 2>&1; then
    echo "== instructions per operation (callgrind, default build)"
    env CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release -p zap-benches --bin allocs
    instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TARGET_DIR/release/allocs" \
            --only "$1" 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    base=$(instructions none/none)
    codecs=$(python3 -c 'import json,sys; print(" ".join(s["codec"] for s in json.load(open(sys.argv[1]))["sizes"] if ":" not in s["codec"]))' "$RAW/allocs.json")
    for codec in $codecs; do
        for op in decode_request decode_response encode_request encode_response handler; do
            echo "$codec $op $(($(instructions "$codec/$op") - base))"
        done
    done >"$RAW/instructions.txt"
    for sel in zap_fixed_pooled/encode_response zap_fixed_direct/encode_response; do
        echo "${sel%/*} ${sel#*/} $(($(instructions "$sel") - base))"
    done >>"$RAW/instructions.txt"
    # The logs record: 1,100 operations per count (a JSON read of it takes ~0.1 ms, and
    # callgrind runs code ~50 times slower); the fourth column says so.
    logs=$(python3 -c 'import json,sys; print(" ".join(s["codec"] for s in json.load(open(sys.argv[1]))["sizes"] if s["codec"].startswith("logs:")))' "$RAW/allocs.json")
    for codec in $logs; do
        for op in logs_encode logs_decode logs_field; do
            n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
                "$TARGET_DIR/release/allocs" --only "$codec/$op" --iterations 1000 2>&1 |
                sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
            echo "$codec $op $((n - base)) 1100"
        done
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

if [ "$E2E" = 1 ]; then
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
fi

cut -d' ' -f1-3 /proc/loadavg | sed 's/^/load_end=/' >>"$RAW/machine.txt"
echo "elapsed_seconds=$(($(date +%s) - STARTED))" >>"$RAW/machine.txt"

echo "== report"
python3 "$ROOT/benches/results/report.py" --raw "$RAW" --out "$RESULTS"
echo "run.sh: results in $RESULTS/README-tables.md and $RESULTS/chart.svg (raw data in $RAW)"

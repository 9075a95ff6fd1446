#!/usr/bin/env bash
# JSON-RPC over WebSocket, measured two ways, with benches/results/raw/ws-* as raw files:
#
# 1. Calls: eth_getBalance over WebSocket against HTTP/1.1 keep-alive on the same
#    eth-rpc server and port, 64 connections, depth 1 and 16, in paired rounds (the first
#    side alternating), with the server's CPU time per request (from /proc/<pid>/stat).
# 2. Fan-out: 1,000 WebSocket subscribers to newHeads (eth-rpc --block-time 0.25), the
#    time from a head's first delivery to its last (median and p99 over 20 heads per
#    round), against a Node `ws` server doing the same fan-out (benches/node/
#    ws_fanout.mjs, npm ws installed into target/node/ws-bench), in alternating rounds;
#    then one more eth-rpc fan-out under perf: raw/profile-ws-fanout.txt.
#
#   bash benches/ws_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Needs: cargo, python3, node and npm, Linux /proc; taskset pins servers to core 0 and
# clients to core 1 when there are two or more.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/ws-*.json "$RAW"/ws-cpu.txt
. benches/rounds_lib.sh
ulimit -n 8192

cargo build --release -p zap-benches --bin loadgen --bin fanout -p eth-rpc --bin eth-rpc
BIN=target/release
NODE_DIR=target/node/ws-bench
if [ ! -f "$NODE_DIR/node_modules/ws/package.json" ]; then
    mkdir -p "$NODE_DIR"
    npm install --prefix "$NODE_DIR" --no-audit --no-fund ws@8.18.3 >/dev/null
fi
# Beside its node_modules, so that `import "ws"` finds it.
cp benches/node/ws_fanout.mjs "$NODE_DIR/"

wait_for() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "ws_rounds.sh: no server on $1" >&2
    exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# 1. Calls over WebSocket and over HTTP, same server.
RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:39998 \
    --http-addr 127.0.0.1:38547 >/dev/null 2>&1 &
PIDS+=($!)
SERVER=$!
wait_for 127.0.0.1:38547
load() {
    local target=$1 depth=$2 round=$3 before after
    before=$(ticks "$SERVER")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr 127.0.0.1:38547 -c 64 \
        -d "$depth" --seconds "$SECONDS_PER_RUN" --warmup 1 \
        --json "$RAW/ws-$target-d$depth-r$round.json" >/dev/null
    after=$(ticks "$SERVER")
    echo "$target $depth $round $((after - before))" >>"$RAW/ws-cpu.txt"
}
for depth in 1 16; do
    for round in $(seq "$ROUNDS"); do
        if [ $((round % 2)) -eq 1 ]; then
            load ws "$depth" "$round"; load http "$depth" "$round"
        else
            load http "$depth" "$round"; load ws "$depth" "$round"
        fi
    done
done
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true

# 2. Fan-out to 1,000 subscribers: eth-rpc against Node ws, alternating.
fan() {
    local name=$1 round=$2 pid before after
    if [ "$name" = eth-rpc ]; then
        RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:39997 \
            --http-addr 127.0.0.1:38548 --block-time 0.25 --http-max-connections 2048 \
            >/dev/null 2>&1 &
    else
        "${SERVER_PIN[@]}" node "$NODE_DIR/ws_fanout.mjs" 38548 250 \
            >/dev/null 2>&1 &
    fi
    pid=$!
    PIDS+=("$pid")
    wait_for 127.0.0.1:38548
    before=$(ticks "$pid")
    "${CLIENT_PIN[@]}" "$BIN/fanout" --addr 127.0.0.1:38548 --subscribers 1000 --heads 20 \
        --json "$RAW/ws-fanout-$name-r$round.json" >/dev/null
    after=$(ticks "$pid")
    echo "fanout-$name 0 $round $((after - before))" >>"$RAW/ws-cpu.txt"
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then fan eth-rpc "$round"; fan node "$round"
    else fan node "$round"; fan eth-rpc "$round"; fi
done

# 3. Where eth-rpc's fan-out time goes: one more fan-out under perf (when perf is there
#    and allowed), the server's own profile.
if command -v perf >/dev/null 2>&1; then
    RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:39997 \
        --http-addr 127.0.0.1:38548 --block-time 0.25 --http-max-connections 2048 \
        >/dev/null 2>&1 &
    pid=$!
    PIDS+=("$pid")
    wait_for 127.0.0.1:38548
    perf record -g -o "$RAW/ws-fanout.perf" -p "$pid" 2>/dev/null &
    PERF=$!
    "${CLIENT_PIN[@]}" "$BIN/fanout" --addr 127.0.0.1:38548 --subscribers 1000 --heads 20 >/dev/null
    kill -INT "$PERF"; wait "$PERF" 2>/dev/null || true
    perf report -i "$RAW/ws-fanout.perf" --no-children --percent-limit 1.5 --stdio \
        2>/dev/null | grep -v '^$' | head -120 >"$RAW/profile-ws-fanout.txt" || true
    rm -f "$RAW/ws-fanout.perf"
    kill "$pid"; wait "$pid" 2>/dev/null || true
fi

python3 - "$RAW" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY' | tee "$RAW/ws-rounds.txt"
import json, statistics, sys
raw, rounds, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpu = {}
for line in open(f"{raw}/ws-cpu.txt"):
    name, depth, r, t = line.split()
    cpu[(name, int(depth), int(r))] = int(t)
summary = {}
for depth in (1, 16):
    ratios, per_req = [], {"ws": [], "http": []}
    for r in range(1, rounds + 1):
        rep = {t: json.load(open(f"{raw}/ws-{t}-d{depth}-r{r}.json")) for t in per_req}
        for t in per_req:
            requests = rep[t]["req_per_s"] * (rep[t]["seconds"] + 1.0)
            per_req[t].append(cpu[(t, depth, r)] / hz / requests * 1e6)
        ratios.append(rep["ws"]["req_per_s"] / rep["http"]["req_per_s"])
        print(f"depth {depth} round {r}: ws {rep['ws']['req_per_s']:9.0f} req/s, "
              f"http {rep['http']['req_per_s']:9.0f} req/s, ws/http {ratios[-1]:.3f}")
    cpu_ratio = [h / w for w, h in zip(per_req["ws"], per_req["http"])]
    summary[f"calls_d{depth}"] = {
        "ws_over_http_median": statistics.median(ratios), "minimum": min(ratios),
        "server_cpu_us_per_request": {t: statistics.median(v) for t, v in per_req.items()},
        "http_cpu_over_ws_cpu_median": statistics.median(cpu_ratio),
    }
    print(f"depth {depth}: ws/http throughput median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}); server CPU per request ws "
          f"{statistics.median(per_req['ws']):.1f} us, http {statistics.median(per_req['http']):.1f} us")
for name in ("eth-rpc", "node"):
    reports = [json.load(open(f"{raw}/ws-fanout-{name}-r{r}.json")) for r in range(1, rounds + 1)]
    spreads = [rep["spread_us"] for rep in reports]
    missed = sum(rep["missed"] for rep in reports)
    med = statistics.median(s["median"] for s in spreads)
    p99 = statistics.median(s["p99"] for s in spreads)
    ticks = statistics.median(cpu[(f"fanout-{name}", 0, r)] for r in range(1, rounds + 1))
    summary[f"fanout_{name}"] = {"median_us": med, "p99_us": p99, "cpu_ticks_per_run": ticks,
                                 "missed_deliveries": missed}
    print(f"fan-out to 1000, {name}: first-to-last delivery median {med:.0f} us, p99 {p99:.0f} us "
          f"(medians over {rounds} rounds); server CPU {ticks / hz:.2f} s per run; "
          f"{missed} of {rounds * 20000} deliveries skipped")
json.dump(summary, open(f"{raw}/ws-summary.json", "w"), indent=1)
PY

#!/usr/bin/env bash
# JSON-RPC over HTTP in paired rounds, 64 connections, depth 1: the example server's
# JSON-RPC port (eth-rpc) against a bare hyper server returning a fixed body of the same
# size (baseline_http: the ceiling for any JSON-RPC server on hyper) and against
# jsonrpsee serving eth_getBalance over the same ledger (jsonrpsee_eth). Every round runs
# the three back to back with the same requests (Ethereum's shape: [address, block]).
# Prints each round's ratios, their median and minimum, and each server's CPU time per
# request (user + system, from /proc/<pid>/stat over the run), so a ratio is not an
# artefact of the load generator. Raw reports: benches/results/raw/json-*.json; perf
# profiles of the three servers under the same load: raw/profile-*-http.txt.
#
#   bash benches/json_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# ETH_RPC=path runs another eth-rpc binary (to measure a candidate change against the
# same baselines).
#
# Needs: cargo, python3, Linux /proc; taskset (util-linux) pins server and load
# generator to different cores when there are two or more.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/json-*.json "$RAW"/json-cpu.txt
. benches/rounds_lib.sh

cargo build --release -p zap-benches --bin loadgen --bin baseline_http --bin jsonrpsee_eth \
    -p eth-rpc --bin eth-rpc
BIN=target/release
ETH_RPC=${ETH_RPC:-$BIN/eth-rpc}

declare -A PID_OF
start() {
    local name=$1 addr=$2
    shift 2
    RUST_LOG=warn "${SERVER_PIN[@]}" "$@" >/dev/null 2>&1 &
    PIDS+=($!)
    PID_OF[$name]=$!
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "json_rounds.sh: no server on $addr" >&2
    exit 1
}
start zap 127.0.0.1:38545 "$ETH_RPC" --zap-addr 127.0.0.1:39999 --http-addr 127.0.0.1:38545
start hyper 127.0.0.1:38544 "$BIN/baseline_http" --addr 127.0.0.1:38544
start jsonrpsee 127.0.0.1:38546 "$BIN/jsonrpsee_eth" --addr 127.0.0.1:38546

# user + system clock ticks a process has used.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

load() {
    local name=$1 target=$2 addr=$3 round=$4
    local pid=${PID_OF[$name]} before after
    before=$(ticks "$pid")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr "$addr" -c 64 -d 1 \
        --seconds "$SECONDS_PER_RUN" --warmup 1 --json "$RAW/json-$name-r$round.json" >/dev/null
    after=$(ticks "$pid")
    echo "$name $round $((after - before))" >>"$RAW/json-cpu.txt"
}
for round in $(seq "$ROUNDS"); do
    load zap http 127.0.0.1:38545 "$round"
    load hyper http-fixed 127.0.0.1:38544 "$round"
    load jsonrpsee http 127.0.0.1:38546 "$round"
done

# Where each server's time goes under the same load: benches/results/raw/
# profile-jsonrpc-http.txt (eth-rpc), profile-hyper-http.txt, profile-jsonrpsee-http.txt.
. benches/profile.sh
for target in "zap http 127.0.0.1:38545 jsonrpc-http" "hyper http-fixed 127.0.0.1:38544 hyper-http" \
    "jsonrpsee http 127.0.0.1:38546 jsonrpsee-http"; do
    set -- $target
    profile_server "$4" "${PID_OF[$1]}" "$SECONDS_PER_RUN" "${CLIENT_PIN[@]}" "$BIN/loadgen" \
        --target "$2" --addr "$3" -c 64 -d 1 --seconds "$((SECONDS_PER_RUN + 1))" --warmup 0.5
done

python3 - "$RAW" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
raw, rounds, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def report(name, r):
    return json.load(open(f"{raw}/json-{name}-r{r}.json"))
cpu = {}
for line in open(f"{raw}/json-cpu.txt"):
    name, r, t = line.split()
    cpu[(name, int(r))] = int(t)
ratios = {"hyper": [], "jsonrpsee": []}
cpu_per_req = {"zap": [], "hyper": [], "jsonrpsee": []}
for r in range(1, rounds + 1):
    rps = {n: report(n, r)["req_per_s"] for n in cpu_per_req}
    for n in cpu_per_req:
        # The CPU ticks include the load generator's 1 s warm-up: count its requests at
        # the measured rate so the figure stays per request.
        requests = rps[n] * (report(n, r)["seconds"] + 1.0)
        if requests:
            cpu_per_req[n].append(cpu[(n, r)] / hz / requests * 1e6)
    line = f"round {r}: eth-rpc {rps['zap']:9.0f} req/s"
    for other in ratios:
        ratios[other].append(rps["zap"] / rps[other])
        line += f"  {other} {rps[other]:9.0f} (eth-rpc/{other} {rps['zap'] / rps[other]:.3f})"
    print(line)
for other, rs in ratios.items():
    print(f"eth-rpc/{other}: median {statistics.median(rs):.3f}, minimum {min(rs):.3f} over {rounds} rounds")
for n, values in cpu_per_req.items():
    if values:
        print(f"{n}: server CPU {statistics.median(values):.1f} us per request (median over rounds, warm-up included)")
# The aim's measure: in each round, the other server's CPU per request over eth-rpc's
# (paired, as the throughput ratios are; medians of each server's own figures drift
# with the machine between rounds and are not a ratio).
if all(len(v) == rounds for v in cpu_per_req.values()):
    for other in ratios:
        by_cpu = [o / z for o, z in zip(cpu_per_req[other], cpu_per_req["zap"])]
        print(f"eth-rpc/{other} by server CPU per request: median {statistics.median(by_cpu):.3f}, "
              f"minimum {min(by_cpu):.3f} over {rounds} rounds")
PY

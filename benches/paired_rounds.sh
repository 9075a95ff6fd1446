#!/usr/bin/env bash
# Three comparisons in paired rounds, 64 connections, depth 1 and 16:
# - the example server against the bare echo baseline (benches/src/bin/baseline_echo.rs:
#   the depth-16 aim, ZAP server >= 0.9x the echo);
# - ZAP/TCP over TLS against plain ZAP/TCP (two eth-rpc servers, one with TLS:
#   X25519MLKEM768 by default, the certificate from a throwaway CA made here with openssl);
# - the node framing against the RPC framing (the plain server, which speaks both on one
#   port).
# In every round the load generator drives plain, node, TLS and echo back to back, and
# each server's CPU time (user + system, from /proc/<pid>/stat) is read before and after
# each run, so a ratio can be checked against the server's own cost per request (CPU
# time over the whole run, warm-up included, divided by every answer the generator
# checked). Prints each round's ratios and their median and minimum per depth, and
# writes them to benches/results/raw/paired-summary.json (read by report.py); the raw
# reports go to benches/results/raw/paired-*.json; perf profiles of the example server and
# the echo at depth 16 to raw/profile-paired-zap-d16.txt and profile-paired-echo-d16.txt.
#
#   bash benches/paired_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Builds with -C target-cpu=native into target/native, as benches/run.sh does.
# ETH_RPC=path runs another eth-rpc binary as the plain and TLS server (to measure a
# candidate change against the same echo).
# Needs: cargo, openssl, python3, taskset (util-linux) for pinning on 2+ cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/tls-*.json "$RAW"/paired-*.json "$RAW"/paired-*.cpu
PKI=$(mktemp -d)
cleanup_extra() {
    rm -rf "$PKI"
}
. benches/rounds_lib.sh

# A CA and a server certificate for localhost.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=tls-rounds-ca -keyout "$PKI/ca.key" -out "$PKI/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -keyout "$PKI/server.key" -out "$PKI/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
    >"$PKI/ext.cnf"
openssl x509 -req -in "$PKI/server.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 2 -extfile "$PKI/ext.cnf" -out "$PKI/server.pem" 2>/dev/null

env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
    cargo build --release -p zap-benches --bin loadgen --bin baseline_echo -p eth-rpc --bin eth-rpc
BIN=target/native/release
ETH_RPC=${ETH_RPC:-$BIN/eth-rpc}

start() {
    local addr=$1
    shift
    RUST_LOG=warn "${SERVER_PIN[@]}" "$@" >/dev/null 2>&1 &
    PIDS+=($!)
    LAST_PID=$!
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "paired_rounds.sh: no server on $addr" >&2
    exit 1
}
start 127.0.0.1:19999 "$ETH_RPC" --zap-addr 127.0.0.1:19999 --http-addr 127.0.0.1:18545
PLAIN_PID=$LAST_PID
start 127.0.0.1:29999 "$ETH_RPC" --zap-addr 127.0.0.1:29999 --http-addr 127.0.0.1:28545 \
    --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key"
TLS_PID=$LAST_PID
start 127.0.0.1:19998 "$BIN/baseline_echo" --addr 127.0.0.1:19998
ECHO_PID=$LAST_PID

# utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat; the
# command name in field 2 has no spaces here).

load() {
    local name=$1 target=$2 addr=$3 depth=$4 round=$5 pid=$6
    shift 6
    local before after
    before=$(cpu_ticks "$pid")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr "$addr" -c 64 -d "$depth" \
        --seconds "$SECONDS_PER_RUN" --warmup 1 \
        --json "$RAW/paired-$name-d$depth-r$round.json" "$@" >/dev/null
    after=$(cpu_ticks "$pid")
    echo "$((after - before))" >"$RAW/paired-$name-d$depth-r$round.cpu"
}
for round in $(seq "$ROUNDS"); do
    for depth in 1 16; do
        load plain zap 127.0.0.1:19999 "$depth" "$round" "$PLAIN_PID"
        load node zap-node 127.0.0.1:19999 "$depth" "$round" "$PLAIN_PID"
        load tls zap 127.0.0.1:29999 "$depth" "$round" "$TLS_PID" --tls-ca "$PKI/ca.pem" \
            --server-name localhost
        load echo zap-echo 127.0.0.1:19998 "$depth" "$round" "$ECHO_PID"
    done
done

# Where the example server's time goes against the echo's, under the same load (depth
# 16, the aim's row): benches/results/raw/profile-paired-zap-d16.txt and
# profile-paired-echo-d16.txt.
. benches/profile.sh
for target in "zap 127.0.0.1:19999 $PLAIN_PID paired-zap-d16" \
    "zap-echo 127.0.0.1:19998 $ECHO_PID paired-echo-d16"; do
    set -- $target
    profile_server "$4" "$3" "$SECONDS_PER_RUN" "${CLIENT_PIN[@]}" "$BIN/loadgen" \
        --target "$1" --addr "$2" -c 64 -d 16 --seconds "$((SECONDS_PER_RUN + 1))" --warmup 0.5
done

python3 - "$RAW" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY'
import json, statistics, sys
raw, rounds, tck = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def report(name, depth, r):
    return json.load(open(f"{raw}/paired-{name}-d{depth}-r{r}.json"))
def cpu_us(name, depth, r):
    ticks = int(open(f"{raw}/paired-{name}-d{depth}-r{r}.cpu").read())
    return ticks / tck * 1e6 / report(name, depth, r)["checked"]
# (name in the summary, numerator run, denominator run)
PAIRS = [("zap/echo", "plain", "echo"), ("node/plain", "node", "plain"),
         ("tls/plain", "tls", "plain")]
summary = {}
for depth in (1, 16):
    for key, num, den in PAIRS:
        ratios = []
        for r in range(1, rounds + 1):
            a, b = report(num, depth, r)["req_per_s"], report(den, depth, r)["req_per_s"]
            ratios.append(a / b)
            print(f"depth {depth:2} round {r}: {key} {a:10.0f} / {b:10.0f} = {a / b:.3f}")
        cpu = {n: statistics.median(cpu_us(n, depth, r) for r in range(1, rounds + 1))
               for n in (num, den)}
        # The aims' measure: in each round, the denominator's CPU per request over the
        # numerator's (paired, like the throughput ratios).
        by_cpu = [cpu_us(den, depth, r) / cpu_us(num, depth, r) for r in range(1, rounds + 1)]
        entry = {
            "rounds": rounds,
            "median": statistics.median(ratios),
            "min": min(ratios),
            "ratios": [round(x, 4) for x in ratios],
            "cpu_us": ", ".join(f"{n} {v:.2f}" for n, v in cpu.items()),
            "cpu_ratio_median": statistics.median(by_cpu),
            "cpu_ratios": [round(x, 4) for x in by_cpu],
        }
        summary[f"{key} d{depth}"] = entry
        print(f"depth {depth:2}: {key} median {entry['median']:.3f}, minimum {entry['min']:.3f}; "
              f"by server CPU per request {entry['cpu_ratio_median']:.3f} (paired median); "
              f"server CPU per request (µs, medians): {entry['cpu_us']}")
with open(f"{raw}/paired-summary.json", "w") as f:
    json.dump(summary, f, indent=1)
PY

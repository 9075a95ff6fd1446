#!/usr/bin/env bash
# Two comparisons in paired rounds, 64 connections, depth 1 and 16, against the example
# server: ZAP/TCP over TLS against plain ZAP/TCP (two eth-rpc servers, one with TLS:
# X25519MLKEM768 by default, the certificate from a throwaway CA made here with openssl),
# and the node framing against the RPC framing (the plain server, which speaks both on one
# port). In every round the load generator drives plain, node and TLS back to back. Prints
# each round's node/plain and TLS/plain ratios and their median and minimum per depth; the
# raw reports go to benches/results/raw/paired-*.json.
#
#   bash benches/paired_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Needs: cargo, openssl, python3, taskset (util-linux) for pinning on 2+ cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/tls-*.json "$RAW"/paired-*.json
PKI=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$PKI"
}
trap cleanup EXIT

if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
else
    SERVER_PIN=()
    CLIENT_PIN=()
fi

# A CA and a server certificate for localhost.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=tls-rounds-ca -keyout "$PKI/ca.key" -out "$PKI/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -keyout "$PKI/server.key" -out "$PKI/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
    >"$PKI/ext.cnf"
openssl x509 -req -in "$PKI/server.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 2 -extfile "$PKI/ext.cnf" -out "$PKI/server.pem" 2>/dev/null

cargo build --release -p zap-benches --bin loadgen -p eth-rpc --bin eth-rpc
BIN=target/release

start() {
    local addr=$1
    shift
    RUST_LOG=warn "${SERVER_PIN[@]}" "$@" >/dev/null 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "paired_rounds.sh: no server on $addr" >&2
    exit 1
}
start 127.0.0.1:19999 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19999 --http-addr 127.0.0.1:18545
start 127.0.0.1:29999 "$BIN/eth-rpc" --zap-addr 127.0.0.1:29999 --http-addr 127.0.0.1:28545 \
    --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key"

load() {
    local name=$1 target=$2 addr=$3 depth=$4 round=$5
    shift 5
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr "$addr" -c 64 -d "$depth" \
        --seconds "$SECONDS_PER_RUN" --warmup 1 \
        --json "$RAW/paired-$name-d$depth-r$round.json" "$@" >/dev/null
}
for round in $(seq "$ROUNDS"); do
    for depth in 1 16; do
        load plain zap 127.0.0.1:19999 "$depth" "$round"
        load node zap-node 127.0.0.1:19999 "$depth" "$round"
        load tls zap 127.0.0.1:29999 "$depth" "$round" --tls-ca "$PKI/ca.pem" \
            --server-name localhost
    done
done

python3 - "$RAW" "$ROUNDS" <<'PY'
import json, statistics, sys
raw, rounds = sys.argv[1], int(sys.argv[2])
def rps(name, depth, r):
    return json.load(open(f"{raw}/paired-{name}-d{depth}-r{r}.json"))["req_per_s"]
for depth in (1, 16):
    ratios = {"node": [], "tls": []}
    for r in range(1, rounds + 1):
        plain = rps("plain", depth, r)
        line = f"depth {depth:2} round {r}: plain {plain:10.0f}"
        for other in ratios:
            value = rps(other, depth, r)
            ratios[other].append(value / plain)
            line += f"  {other} {value:10.0f} ({value / plain:.3f})"
        print(line)
    for other, rs in ratios.items():
        print(f"depth {depth:2}: {other}/plain median {statistics.median(rs):.3f}, minimum {min(rs):.3f}")
PY

#!/usr/bin/env bash
# ZAP over QUIC, measured against TCP+TLS and plain TCP (raw files: benches/results/raw/
# quic-*):
#
# 1. Steady state: eth_getBalance, 64 connections, depth 1 and 16, in paired rounds (the
#    order rotating): eth-rpc over QUIC and over TCP+TLS (one process serving both, the
#    same certificate, X25519MLKEM768) and over plain TCP (a second process), with each
#    server's CPU time per request from /proc/<pid>/stat.
# 2. Head-of-line blocking: one connection with 16 independent calls in flight, inside a
#    network namespace this script makes (only its loopback), with 1% and then 5% of
#    packets dropped at random (nftables `numgen random`: the kernel here has no netem),
#    over QUIC and over TCP+TLS: the calls' p50 and p99 latency. A lost TCP segment holds
#    back every call behind it; a lost QUIC packet only the call whose stream it carried.
#
#   bash benches/quic_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Needs: cargo, openssl, python3, and for part 2 root, ip (iproute2) and nft (nftables).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/quic-*.json "$RAW"/quic-cpu.txt
PKI=$(mktemp -d)
NS=zapc-quic-$$
cleanup_extra() {
    ip netns del "$NS" 2>/dev/null || true
    rm -rf "$PKI"
}
. benches/rounds_lib.sh

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=quic-rounds-ca -keyout "$PKI/ca.key" -out "$PKI/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -keyout "$PKI/server.key" -out "$PKI/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
    >"$PKI/ext.cnf"
openssl x509 -req -in "$PKI/server.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 2 -extfile "$PKI/ext.cnf" -out "$PKI/server.pem" 2>/dev/null

cargo build --release -p zap-benches --bin loadgen -p eth-rpc --bin eth-rpc
BIN=target/release
TLS_ARGS=(--tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key")
CA_ARGS=(--tls-ca "$PKI/ca.pem" --server-name localhost)

wait_for() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "quic_rounds.sh: no server on $1" >&2
    exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# 1. Steady state.
RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:29997 \
    --http-addr 127.0.0.1:28547 --quic-addr 127.0.0.1:29996 "${TLS_ARGS[@]}" >/dev/null 2>&1 &
PIDS+=($!)
SECURE=$!
RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:19997 \
    --http-addr 127.0.0.1:18547 >/dev/null 2>&1 &
PIDS+=($!)
PLAIN=$!
wait_for 127.0.0.1:29997
wait_for 127.0.0.1:19997
load() {
    local name=$1 depth=$2 round=$3 pid=$4 before after
    shift 4
    before=$(ticks "$pid")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" "$@" -c 64 -d "$depth" --seconds "$SECONDS_PER_RUN" \
        --warmup 1 --json "$RAW/quic-$name-d$depth-r$round.json" >/dev/null
    after=$(ticks "$pid")
    echo "$name $depth $round $((after - before))" >>"$RAW/quic-cpu.txt"
}
run_one() {
    case $1 in
        quic) load quic "$2" "$3" "$SECURE" --target quic --addr 127.0.0.1:29996 "${CA_ARGS[@]}" ;;
        tls) load tls "$2" "$3" "$SECURE" --target zap --addr 127.0.0.1:29997 "${CA_ARGS[@]}" ;;
        plain) load plain "$2" "$3" "$PLAIN" --target zap --addr 127.0.0.1:19997 ;;
    esac
}
for depth in 1 16; do
    for round in $(seq "$ROUNDS"); do
        case $((round % 3)) in
            1) order=(quic tls plain) ;;
            2) order=(tls plain quic) ;;
            0) order=(plain quic tls) ;;
        esac
        for name in "${order[@]}"; do run_one "$name" "$depth" "$round"; done
    done
done
kill "$SECURE" "$PLAIN"; wait "$SECURE" "$PLAIN" 2>/dev/null || true

# 2. Head-of-line blocking under loss, in a namespace of our own.
ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" nft add table inet loss
ip netns exec "$NS" nft add chain inet loss in '{ type filter hook input priority 0; }'
ip netns exec "$NS" env RUST_LOG=warn "$BIN/eth-rpc" --zap-addr 127.0.0.1:29997 \
    --http-addr 127.0.0.1:28547 --quic-addr 127.0.0.1:29996 "${TLS_ARGS[@]}" >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
    if ip netns exec "$NS" bash -c 'exec 3<>/dev/tcp/127.0.0.1/29997' 2>/dev/null; then break; fi
    sleep 0.1
done
for loss in 1 5; do
    ip netns exec "$NS" nft flush chain inet loss in
    ip netns exec "$NS" nft add rule inet loss in numgen random mod 100 '<' "$loss" drop
    for round in $(seq "$ROUNDS"); do
        for name in quic tls; do
            if [ "$name" = quic ]; then
                target=(--target quic --addr 127.0.0.1:29996)
            else
                target=(--target zap --addr 127.0.0.1:29997)
            fi
            ip netns exec "$NS" "$BIN/loadgen" "${target[@]}" "${CA_ARGS[@]}" -c 1 -d 16 \
                --seconds "$SECONDS_PER_RUN" --warmup 1 --stall-timeout 30 \
                --json "$RAW/quic-loss$loss-$name-r$round.json" >/dev/null
        done
    done
done

python3 - "$RAW" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY' | tee "$RAW/quic-rounds.txt"
import json, statistics, sys
raw, rounds, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpu = {}
for line in open(f"{raw}/quic-cpu.txt"):
    name, depth, r, t = line.split()
    cpu[(name, int(depth), int(r))] = int(t)
summary = {}
for depth in (1, 16):
    rps, per_req = {}, {}
    for name in ("quic", "tls", "plain"):
        reps = [json.load(open(f"{raw}/quic-{name}-d{depth}-r{r}.json")) for r in range(1, rounds + 1)]
        rps[name] = [rep["req_per_s"] for rep in reps]
        per_req[name] = [cpu[(name, depth, r)] / hz / (rep["req_per_s"] * (rep["seconds"] + 1.0)) * 1e6
                         for r, rep in zip(range(1, rounds + 1), reps)]
    for other in ("tls", "plain"):
        ratios = [q / o for q, o in zip(rps["quic"], rps[other])]
        summary[f"d{depth}_quic_over_{other}"] = statistics.median(ratios)
        print(f"depth {depth}: QUIC/{other} throughput median {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f})")
    for name in per_req:
        summary[f"d{depth}_{name}_cpu_us"] = statistics.median(per_req[name])
        print(f"depth {depth}: {name} {statistics.median(rps[name]):9.0f} req/s, server CPU "
              f"{statistics.median(per_req[name]):.1f} us per request (medians; warm-up included)")
for loss in (1, 5):
    for name in ("quic", "tls"):
        reps = [json.load(open(f"{raw}/quic-loss{loss}-{name}-r{r}.json")) for r in range(1, rounds + 1)]
        p50 = statistics.median(rep["p50_us"] for rep in reps)
        p99 = statistics.median(rep["p99_us"] for rep in reps)
        summary[f"loss{loss}_{name}"] = {"p50_us": p50, "p99_us": p99}
        print(f"{loss}% loss, one connection, 16 in flight: {name} p50 {p50:.0f} us, p99 {p99:.0f} us "
              f"(medians over {rounds} rounds)")
json.dump(summary, open(f"{raw}/quic-summary.json", "w"), indent=1)
PY

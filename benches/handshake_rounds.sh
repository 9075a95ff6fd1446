#!/usr/bin/env bash
# What a connection costs, and where a QUIC call's CPU goes (raw files: benches/results/
# raw/handshake-*, raw/profile-quic-*):
#
# 1. Handshakes: connect, one call (chainId), close, from 8 tasks at once for SECONDS,
#    in paired rounds (the order rotating): over QUIC and over TCP+TLS (one eth-rpc
#    process serving both with the same certificate), the client offering only
#    X25519MLKEM768 or only X25519. Handshakes per second, and the server's CPU time per
#    handshake from /proc/<pid>/stat, so the ML-KEM share and the QUIC share are visible.
# 2. Steady state profiles: perf record of that server while 64 connections make
#    eth_getBalance calls at depth 16, over QUIC and over TCP+TLS (a flat profile each).
#
#   bash benches/handshake_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Needs: cargo, openssl, python3, and for part 2 perf.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
mkdir -p "$RAW"
rm -f "$RAW"/handshake-*.json "$RAW"/handshake-cpu.txt
PKI=$(mktemp -d)
cleanup_extra() {
    rm -rf "$PKI"
}
. benches/rounds_lib.sh

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=handshake-rounds-ca -keyout "$PKI/ca.key" -out "$PKI/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -keyout "$PKI/server.key" -out "$PKI/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
    >"$PKI/ext.cnf"
openssl x509 -req -in "$PKI/server.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 2 -extfile "$PKI/ext.cnf" -out "$PKI/server.pem" 2>/dev/null

cargo build --release -p zap-benches --bin handshakes --bin loadgen -p eth-rpc --bin eth-rpc
BIN=target/release
CA_ARGS=(--tls-ca "$PKI/ca.pem" --server-name localhost)

wait_for() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "handshake_rounds.sh: no server on $1" >&2
    exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

RUST_LOG=warn "${SERVER_PIN[@]}" "$BIN/eth-rpc" --zap-addr 127.0.0.1:29987 \
    --http-addr 127.0.0.1:28537 --quic-addr 127.0.0.1:29986 \
    --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key" >/dev/null 2>&1 &
PIDS+=($!)
SERVER=$!
wait_for 127.0.0.1:29987

# 1. Handshakes.
one() {
    local transport=$1 group=$2 round=$3 addr before after
    case $transport in quic) addr=127.0.0.1:29986 ;; tls) addr=127.0.0.1:29987 ;; esac
    before=$(ticks "$SERVER")
    "${CLIENT_PIN[@]}" "$BIN/handshakes" --transport "$transport" --group "$group" \
        --addr "$addr" "${CA_ARGS[@]}" -c 8 --seconds "$SECONDS_PER_RUN" --warmup 1 \
        --json "$RAW/handshake-$transport-$group-r$round.json" >/dev/null
    after=$(ticks "$SERVER")
    echo "$transport $group $round $((after - before))" >>"$RAW/handshake-cpu.txt"
}
KINDS=("quic pq" "tls pq" "quic x25519" "tls x25519")
for round in $(seq "$ROUNDS"); do
    for i in 0 1 2 3; do
        # shellcheck disable=SC2086
        one ${KINDS[$(((i + round) % 4))]} "$round"
    done
done

# 2. Profiles of the server: steady state at depth 16 over QUIC and TCP+TLS, and QUIC
#    handshakes with X25519MLKEM768.
profile() {
    local name=$1
    shift
    perf record -F 999 -g -o "$PKI/perf.data" -p "$SERVER" -- sleep "$((SECONDS_PER_RUN + 1))" \
        >/dev/null 2>&1 &
    local perf=$!
    "${CLIENT_PIN[@]}" "$@" "${CA_ARGS[@]}" --seconds "$SECONDS_PER_RUN" --warmup 1 \
        >"$RAW/profile-$name.load"
    wait "$perf"
    perf report -i "$PKI/perf.data" --no-children --sort dso,symbol --percent-limit 0.7 \
        --stdio -g none 2>/dev/null | grep -v '^$' >"$RAW/profile-$name.txt"
}
if command -v perf >/dev/null 2>&1; then
    profile quic-steady "$BIN/loadgen" --target quic --addr 127.0.0.1:29986 -c 64 -d 16
    profile tls-steady "$BIN/loadgen" --target zap --addr 127.0.0.1:29987 -c 64 -d 16
    profile quic-handshakes "$BIN/handshakes" --transport quic --group pq --addr 127.0.0.1:29986
fi
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true

python3 - "$RAW" "$ROUNDS" "$(getconf CLK_TCK)" <<'PY' | tee "$RAW/handshake-rounds.txt"
import json, statistics, sys
raw, rounds, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpu = {}
for line in open(f"{raw}/handshake-cpu.txt"):
    transport, group, r, t = line.split()
    cpu[(transport, group, int(r))] = int(t)
kinds = [(t, g) for t in ("quic", "tls") for g in ("pq", "x25519")]
rate, per = {}, {}
for kind in kinds:
    reps = [json.load(open(f"{raw}/handshake-{kind[0]}-{kind[1]}-r{r}.json")) for r in range(1, rounds + 1)]
    rate[kind] = [rep["per_s"] for rep in reps]
    # Server CPU over the whole run (warm-up included) per handshake made in it.
    per[kind] = [cpu[(*kind, r)] / hz * 1e6 / (rep["per_s"] * (rep["seconds"] + 1.0))
                 for r, rep in zip(range(1, rounds + 1), reps)]
summary = {}
for kind in kinds:
    name = f"{kind[0]}_{kind[1]}"
    summary[name] = {"per_s": statistics.median(rate[kind]), "cpu_us": statistics.median(per[kind])}
    print(f"{kind[0]:4} {kind[1]:6}: {statistics.median(rate[kind]):7.0f} handshakes/s, server CPU "
          f"{statistics.median(per[kind]):6.0f} us per handshake (medians of {rounds} rounds)")
def ratio(a, b, values):
    rs = [x / y for x, y in zip(values[a], values[b])]
    return statistics.median(rs), min(rs), max(rs)
for group in ("pq", "x25519"):
    m, lo, hi = ratio(("quic", group), ("tls", group), rate)
    c = ratio(("quic", group), ("tls", group), per)[0]
    summary[f"quic_over_tls_{group}"] = {"rate": m, "cpu": c}
    print(f"{group}: QUIC/TCP+TLS handshakes per second {m:.3f} (min {lo:.3f}, max {hi:.3f}); "
          f"server CPU per handshake {c:.3f}x")
for transport in ("quic", "tls"):
    m, lo, hi = ratio((transport, "pq"), (transport, "x25519"), rate)
    c = ratio((transport, "pq"), (transport, "x25519"), per)[0]
    summary[f"pq_over_x25519_{transport}"] = {"rate": m, "cpu": c}
    print(f"{transport}: X25519MLKEM768/X25519 handshakes per second {m:.3f} (min {lo:.3f}, "
          f"max {hi:.3f}); server CPU per handshake {c:.3f}x")
json.dump(summary, open(f"{raw}/handshake-summary.json", "w"), indent=1)
PY

#!/usr/bin/env bash
# The soak with faults, run by hand (not by CI): three eth-rpc instances behind HAProxy
# (deploy/haproxy.cfg, as deploy/run-local.sh runs them) and a fourth serving ZAP over
# QUIC, all inside a network namespace this script makes, with packets dropped at random
# on its loopback (nftables `numgen random`; the kernel of the machines this runs on has
# no netem, so there is loss but no added delay). The checked load of
# benches/src/bin/soak.rs runs for MINUTES: ZAP/TCP pipelined through HAProxy (a
# reconnecting client, getBalance idempotent), JSON-RPC over HTTP keep-alive through
# HAProxy, WebSocket `newHeads` subscribers through HAProxy, ZAP over QUIC to the fourth.
# Meanwhile every FAULT_EVERY seconds one instance gets SIGTERM (it drains: /health and
# the health methods turn first) and is started again on its ports, and once, half way,
# one gets SIGKILL. Each instance's RSS and open files are sampled every 30 s.
#
#   sudo bash deploy/soak.sh [MINUTES=60] [LOSS_PER_MILLE=5] [FAULT_EVERY=300]
#
# Writes benches/results/raw/soak-<UTC date>/: progress.txt (the load's counts every
# 10 s), soak.json (its totals), samples.csv (RSS and open files), faults.txt (what was
# done when), summary.txt (all of it, short), and the instances' and HAProxy's logs.
# Any wrong answer stops the load with status 1.
#
# Needs: root (the namespace), ip (iproute2), nft (nftables), haproxy, openssl,
# python3, cargo; .ci/run installs haproxy and nftables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MINUTES=${1:-60}
LOSS=${2:-5}
FAULT_EVERY=${3:-300}
for tool in ip nft haproxy openssl python3 cargo; do
    command -v "$tool" >/dev/null 2>&1 || { echo "soak.sh: needs $tool" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "soak.sh: needs root (it makes a network namespace)" >&2; exit 1; }

cargo build --locked --release -q -p eth-rpc --bin eth-rpc -p zap-benches --bin soak
BIN="${CARGO_TARGET_DIR:-target}/release"
OUT="benches/results/raw/soak-$(date -u +%Y%m%d-%H%M)"
mkdir -p "$OUT"
WORK=$(mktemp -d)
NS="zapsoak$$"
declare -A PIDS=()
HAPROXY=
LOAD=
cleanup() {
    for pid in "${PIDS[@]}" $HAPROXY $LOAD; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
in_ns() { ip netns exec "$NS" "$@"; }

ip netns add "$NS"
in_ns ip link set lo up
in_ns nft add table inet soak
in_ns nft add chain inet soak in '{ type filter hook input priority 0; }'
in_ns nft add rule inet soak in numgen random mod 1000 '<' "$LOSS" drop

# An end-entity certificate (CA:FALSE: webpki refuses a CA certificate as a server's),
# trusted as it is by the load's QUIC client.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost \
    -addext basicConstraints=critical,CA:FALSE \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null

# Instance N (1..3 behind HAProxy; 4 serves QUIC with TLS on every port).
start() {
    local n=$1
    local args=(--zap-addr "127.0.0.1:910$n" --http-addr "127.0.0.1:860$n" --block-time 1
        --readiness-grace 2)
    if [ "$n" = 4 ]; then
        args+=(--quic-addr "127.0.0.1:9304" --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem")
    fi
    # Not through in_ns: a function put in the background runs in a subshell, and $!
    # would be the subshell's pid, not the server's (ip and env exec into it).
    ip netns exec "$NS" env RUST_LOG=warn "$BIN/eth-rpc" "${args[@]}" >>"$OUT/eth$n.log" 2>&1 &
    PIDS[$n]=$!
    for _ in $(seq 300); do
        if in_ns bash -c "exec 3<>/dev/tcp/127.0.0.1/910$n" 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "soak.sh: instance $n did not start" >&2
    exit 1
}
fault() { # N SIGNAL
    echo "$(date -u +%H:%M:%S) SIG$2 instance $1 (pid ${PIDS[$1]})" | tee -a "$OUT/faults.txt"
    kill -"$2" "${PIDS[$1]}"
    wait "${PIDS[$1]}" 2>/dev/null || true
    start "$1"
    echo "$(date -u +%H:%M:%S) instance $1 serving again (pid ${PIDS[$1]})" >>"$OUT/faults.txt"
}

for n in 1 2 3 4; do start "$n"; done
export ZAP_FRONTEND=127.0.0.1:9999 HTTP_FRONTEND=127.0.0.1:8545 STATS_FRONTEND=127.0.0.1:8404
for n in 1 2 3; do
    export "ETH${n}_ZAP=127.0.0.1:910$n" "ETH${n}_HTTP=127.0.0.1:860$n" "ETH${n}_HTTP_PORT=860$n"
done
ip netns exec "$NS" haproxy -db -f deploy/haproxy.cfg >"$OUT/haproxy.log" 2>&1 &
HAPROXY=$!
for _ in $(seq 100); do
    if in_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/8545' 2>/dev/null; then break; fi
    sleep 0.1
done

echo "time,instance,pid,rss_kib,open_files" >"$OUT/samples.csv"
sample() {
    for n in "${!PIDS[@]}"; do
        local pid=${PIDS[$n]}
        local rss fds
        rss=$(ps -o rss= -p "$pid" 2>/dev/null | tr -d ' ') || rss=
        fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l) || fds=
        echo "$(date -u +%s),$n,$pid,${rss:-},${fds:-}" >>"$OUT/samples.csv"
    done
}

ip netns exec "$NS" "$BIN/soak" --zap 127.0.0.1:9999 --http 127.0.0.1:8545 --quic 127.0.0.1:9304 \
    --ca "$WORK/cert.pem" --minutes "$MINUTES" --report "$OUT/soak.json" \
    >"$OUT/progress.txt" 2>&1 &
LOAD=$!
started=$(date +%s)
end=$((started + MINUTES * 60))
next_fault=$((started + FAULT_EVERY))
killed=
victim=1
sample
while kill -0 "$LOAD" 2>/dev/null; do
    sleep 30
    sample
    now=$(date +%s)
    if [ -z "$killed" ] && [ $((now - started)) -ge $((MINUTES * 30)) ]; then
        fault 2 KILL
        killed=1
    elif [ "$now" -ge "$next_fault" ] && [ "$now" -lt $((end - 60)) ]; then
        fault "$victim" TERM
        victim=$((victim % 4 + 1))
        next_fault=$((now + FAULT_EVERY))
    fi
done
status=0
wait "$LOAD" || status=$?
sample

python3 - "$OUT" "$MINUTES" "$LOSS" "$FAULT_EVERY" "$status" <<'PY' | tee "$OUT/summary.txt"
import csv, json, sys, collections
out, minutes, loss, every, status = sys.argv[1:6]
print(f"soak: {minutes} min, {int(loss) / 10:.1f}% of packets dropped, SIGTERM every {every} s, one SIGKILL; load exit status {status}")
try:
    totals = json.load(open(f"{out}/soak.json"))["totals"]
    print("answered and checked:", json.dumps(totals["answered_and_checked"]))
    print("failed, by kind:", json.dumps(totals["failed"], indent=1))
except FileNotFoundError:
    print("no totals: the load did not finish (a wrong answer?) -- see progress.txt")
print("faults:")
print(open(f"{out}/faults.txt").read().rstrip() if __import__("os").path.exists(f"{out}/faults.txt") else "  none")
runs = collections.defaultdict(list)
for row in csv.DictReader(open(f"{out}/samples.csv")):
    if row["rss_kib"]:
        runs[(row["instance"], row["pid"])].append((int(row["time"]), int(row["rss_kib"]), int(row["open_files"] or 0)))
print("per process (instance, pid): samples, RSS MiB first / max / last, open files first / max / last")
for (n, pid), s in sorted(runs.items(), key=lambda kv: kv[1][0][0]):
    rss = [r for _, r, _ in s]; fds = [f for _, _, f in s]
    print(f"  eth{n} {pid}: {len(s):3} samples, RSS {rss[0]/1024:.1f} / {max(rss)/1024:.1f} / {rss[-1]/1024:.1f}, files {fds[0]} / {max(fds)} / {fds[-1]}")
PY
exit "$status"

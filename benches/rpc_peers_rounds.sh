#!/usr/bin/env bash
# The served call against what a team would pick instead, in paired rounds, 64
# connections, depth 1 and 16: the example server's ZAP/TCP `eth_getBalance` against the
# same call over the same ledger served by
# - tonic (gRPC over HTTP/2, prost),                    pair "tonic";
# - tarpc (serde transport, bincode),                   pair "tarpc";
# - Cap'n Proto RPC (capnp-rpc, two-party),             pair "capnp";
# - the typed floor (frames, envelope, generated reader and builder, no framework),
#                                                       pair "floor";
# and our echo service against the Go runtime's echo server (`zapgo-peer serve`, method
# 1 answers its payload), the same frames to both,     pair "go-echo".
# The servers are benches/src/bin/peer_server.rs (feature rpc-peers), the example server
# and zapgo-peer; one load generator drives all (loadgen: raw ZAP frames for the ZAP
# servers, each framework's own client for the others), and checks every answer.
#
# In every round both sides of each pair run back to back, and each server's CPU time
# (user + system, /proc/<pid>/stat) is read around its run: a ratio is ours over theirs
# for throughput, theirs over ours for server CPU per call (so > 1 means we are ahead),
# paired per round, and the median of the rounds is reported. Then a fixed-rate run
# (RATE calls/s in all, 64 connections, depth 1, latency counted from when each call was
# due) of each framework's client: zapc's `Client` on the example server, and the
# three others, for p50/p99 without coordinated omission.
#
# Writes benches/results/raw/rpc-peers.json (pairs.<peer>.d<depth>.{cpu,throughput}
# .{median,rounds}, each side's CPU per call, and fixed_rate.<client>.{p50_us,p99_us}),
# the raw reports as raw/rpc-peers/*.json, and perf profiles of the example server and
# the floor at depth 1 and 16 (raw/profile-rpc-*.txt).
#
#   bash benches/rpc_peers_rounds.sh [ROUNDS=7] [SECONDS=3] [RATE=20000]
#
# Builds with -C target-cpu=native into target/native, as the other round scripts do,
# every server with the same release profile, tokio runtime and allocator. Needs cargo,
# python3, taskset, and the Go peer (built here by ../shared/peers/zap-go/build.sh when
# target/zapgo/zapgo-peer is missing: python3 with pip is all it needs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RATE=${3:-20000}
RAW=benches/results/raw
OUT=$RAW/rpc-peers
rm -rf "$OUT"
mkdir -p "$OUT"
. benches/rounds_lib.sh

ZAPGO=${ZAPGO_PEER:-target/zapgo/zapgo-peer}
if [ ! -x "$ZAPGO" ]; then
    bash ../shared/peers/zap-go/build.sh target/zapgo
    ZAPGO=target/zapgo/zapgo-peer
fi

env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
    cargo build --release --locked -p zap-benches --features rpc-peers \
    --bin loadgen --bin peer_server -p eth-rpc --bin eth-rpc
BIN=target/native/release

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
    echo "rpc_peers_rounds.sh: no server on $addr" >&2
    exit 1
}
declare -A PID ADDR
serve() {
    local name=$1 addr=$2
    shift 2
    start "$addr" "$@"
    PID[$name]=$LAST_PID
    ADDR[$name]=$addr
}
serve zap 127.0.0.1:19999 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19999 --http-addr 127.0.0.1:18545
serve grpc 127.0.0.1:19051 "$BIN/peer_server" grpc --addr 127.0.0.1:19051
serve tarpc 127.0.0.1:19052 "$BIN/peer_server" tarpc --addr 127.0.0.1:19052
serve capnp 127.0.0.1:19053 "$BIN/peer_server" capnp --addr 127.0.0.1:19053
serve floor 127.0.0.1:19997 "$BIN/peer_server" floor --addr 127.0.0.1:19997
serve echo 127.0.0.1:19996 "$BIN/peer_server" echo --addr 127.0.0.1:19996
serve go-echo 127.0.0.1:19995 "$ZAPGO" serve --tcp 127.0.0.1:19995


# load SERVER TARGET DEPTH FILE [LOADGEN ARGS...]: one run, its report and CPU ticks.
load() {
    local server=$1 target=$2 depth=$3 file=$4
    shift 4
    local before after
    before=$(cpu_ticks "${PID[$server]}")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr "${ADDR[$server]}" -c 64 \
        -d "$depth" --seconds "$SECONDS_PER_RUN" --warmup 1 --json "$OUT/$file.json" "$@" \
        >/dev/null
    after=$(cpu_ticks "${PID[$server]}")
    echo "$((after - before))" >"$OUT/$file.cpu"
}

# name: server and target of each side of each pair, ours first.
PAIRS="tonic:zap:zap:grpc:grpc tarpc:zap:zap:tarpc:tarpc capnp:zap:zap:capnp:capnp
floor:zap:zap:floor:zap go-echo:echo:zap-rpc-echo:go-echo:zap-rpc-echo"
for round in $(seq "$ROUNDS"); do
    for depth in 1 16; do
        for pair in $PAIRS; do
            IFS=: read -r name ours ours_target theirs theirs_target <<<"$pair"
            load "$ours" "$ours_target" "$depth" "$name-ours-d$depth-r$round"
            load "$theirs" "$theirs_target" "$depth" "$name-theirs-d$depth-r$round"
        done
    done
    for client in zap:zap-client grpc:grpc tarpc:tarpc capnp:capnp; do
        IFS=: read -r server target <<<"$client"
        load "$server" "$target" 1 "rate-$target-r$round" --rate "$RATE"
    done
    echo "round $round of $ROUNDS done"
done

# Where the example server's time goes against the floor's, under the same load.
. benches/profile.sh
for depth in 1 16; do
    for side in zap floor; do
        profile_server "rpc-$side-d$depth" "${PID[$side]}" "$SECONDS_PER_RUN" \
            "${CLIENT_PIN[@]}" "$BIN/loadgen" --target zap --addr "${ADDR[$side]}" -c 64 \
            -d "$depth" --seconds "$((SECONDS_PER_RUN + 1))" --warmup 0.5
    done
done

python3 - "$OUT" "$RAW/rpc-peers.json" "$ROUNDS" "$(getconf CLK_TCK)" "$RATE" "$PAIRS" \
    "$SECONDS_PER_RUN" "$(git rev-parse --short HEAD)" <<'PY'
import json, statistics, sys
out, summary_path, rounds, tck, rate, pairs, seconds, commit = sys.argv[1:9]
rounds, tck = int(rounds), int(tck)
def report(file):
    return json.load(open(f"{out}/{file}.json"))
def cpu_us(file):
    ticks = int(open(f"{out}/{file}.cpu").read())
    return ticks / tck * 1e6 / report(file)["checked"]
def med(xs):
    return round(statistics.median(xs), 4)
summary = {"commit": commit, "rounds": rounds, "connections": 64,
           "seconds_per_run": float(seconds), "pairs": {},
           "fixed_rate": {"calls_per_s": float(rate), "connections": 64, "depth": 1}}
for pair in pairs.split():
    name = pair.split(":")[0]
    summary["pairs"][name] = {}
    for depth in (1, 16):
        ours = [f"{name}-ours-d{depth}-r{r}" for r in range(1, rounds + 1)]
        theirs = [f"{name}-theirs-d{depth}-r{r}" for r in range(1, rounds + 1)]
        thr = [report(o)["req_per_s"] / report(t)["req_per_s"] for o, t in zip(ours, theirs)]
        cpu = [cpu_us(t) / cpu_us(o) for o, t in zip(ours, theirs)]
        entry = {
            "throughput": {"median": med(thr), "rounds": [round(x, 4) for x in thr]},
            "cpu": {"median": med(cpu), "rounds": [round(x, 4) for x in cpu]},
            "ours": {"req_per_s": med([report(o)["req_per_s"] for o in ours]),
                     "cpu_us_per_call": med([cpu_us(o) for o in ours])},
            "theirs": {"req_per_s": med([report(t)["req_per_s"] for t in theirs]),
                       "cpu_us_per_call": med([cpu_us(t) for t in theirs])},
        }
        summary["pairs"][name][f"d{depth}"] = entry
        print(f"{name:8} d{depth:<2}: by server CPU per call {entry['cpu']['median']:.3f}x "
              f"(ours {entry['ours']['cpu_us_per_call']:.2f} us, theirs "
              f"{entry['theirs']['cpu_us_per_call']:.2f} us); throughput "
              f"{entry['throughput']['median']:.3f}x ({entry['ours']['req_per_s']:.0f} vs "
              f"{entry['theirs']['req_per_s']:.0f} calls/s)")
for target in ("zap-client", "grpc", "tarpc", "capnp"):
    files = [f"rate-{target}-r{r}" for r in range(1, rounds + 1)]
    entry = {k: med([report(f)[k] for f in files])
             for k in ("req_per_s", "p50_us", "p99_us", "p999_us")}
    entry["cpu_us_per_call"] = med([cpu_us(f) for f in files])
    summary["fixed_rate"][target] = entry
    print(f"rate {rate}/s {target:10}: p50 {entry['p50_us']:.0f} us, p99 {entry['p99_us']:.0f} us, "
          f"p99.9 {entry['p999_us']:.0f} us, server CPU {entry['cpu_us_per_call']:.2f} us/call")
with open(summary_path, "w") as f:
    json.dump(summary, f, indent=1)
PY

#!/usr/bin/env bash
# HTTP over ZAP frames (zaphttp) in paired rounds, 64 connections, keep-alive, one
# exchange at a time per connection (zaphttp has no pipelining; HTTP/1.1 is driven the
# same way), `POST /echo` with a JSON body that must come back unchanged:
# - pair "http1": the same axum Router served over zaphttp (zap_runtime::zaphttp) and
#   over HTTP/1.1 (hyper's http1 connection): what moving an HTTP service onto zaphttp
#   costs or saves;
# - pair "go":    our zaphttp server (that Router) against the Go implementation's
#   (`zaphttp-peer serve`, zap-proto/http on fasthttp), the same /echo route (body,
#   X-Method, X-Uri, Content-Type), the same frames from the same load generator.
# The servers are benches/src/bin/zaphttp_server.rs and zaphttp-peer; loadgen drives all
# three (targets zaphttp and http-echo) and checks every answer.
#
# In every round both sides of each pair run back to back (which goes first alternates
# by round), and each server's CPU time (user + system, /proc/<pid>/stat) is read around
# its run: a ratio is ours over theirs for throughput, theirs over ours for server CPU
# per request (so > 1 means zaphttp, or our zaphttp, is ahead), paired per round, and
# the median of the rounds is reported. The server is pinned to core 0, the load
# generator to core 1.
#
# Writes benches/results/raw/zaphttp.json (pairs.<pair>.{cpu,throughput}.{median,rounds},
# each side's requests/s, CPU per request and p50/p99), the raw reports as
# raw/zaphttp/*.json, and perf profiles of our zaphttp server and of the Go one
# (raw/profile-zaphttp-zaphttp.txt, raw/profile-zaphttp-go.txt).
#
#   bash benches/zaphttp_rounds.sh [ROUNDS=7] [SECONDS=3]
#
# Builds with -C target-cpu=native into target/native, as the other round scripts do;
# the Go peer is built by ../shared/peers/zap-http/build.sh (Go from PyPI; python3 with
# pip is all it needs) when target/zaphttp/zaphttp-peer is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
SECONDS_PER_RUN=${2:-3}
RAW=benches/results/raw
OUT=$RAW/zaphttp
rm -rf "$OUT"
mkdir -p "$OUT"
. benches/rounds_lib.sh

PEER=${ZAPHTTP_PEER:-target/zaphttp/zaphttp-peer}
if [ ! -x "$PEER" ]; then
    bash ../shared/peers/zap-http/build.sh target/zaphttp
    PEER=target/zaphttp/zaphttp-peer
fi

env RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=target/native \
    cargo build --release --locked -p zap-benches --bin loadgen --bin zaphttp_server
BIN=target/native/release

declare -A PID ADDR
serve() {
    local name=$1 addr=$2
    shift 2
    RUST_LOG=warn "${SERVER_PIN[@]}" "$@" >/dev/null 2>&1 &
    PIDS+=($!)
    PID[$name]=$!
    ADDR[$name]=$addr
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then return; fi
        sleep 0.1
    done
    echo "zaphttp_rounds.sh: no server on $addr" >&2
    exit 1
}
serve zaphttp 127.0.0.1:19661 "$BIN/zaphttp_server" zaphttp --addr 127.0.0.1:19661
serve http1 127.0.0.1:19662 "$BIN/zaphttp_server" http1 --addr 127.0.0.1:19662
serve go 127.0.0.1:19663 "$PEER" serve --addr 127.0.0.1:19663


# load SERVER TARGET FILE: one run, its report and the server's CPU ticks.
load() {
    local server=$1 target=$2 file=$3
    local before after
    before=$(cpu_ticks "${PID[$server]}")
    "${CLIENT_PIN[@]}" "$BIN/loadgen" --target "$target" --addr "${ADDR[$server]}" -c 64 \
        -d 1 --seconds "$SECONDS_PER_RUN" --warmup 1 --json "$OUT/$file.json" >/dev/null
    after=$(cpu_ticks "${PID[$server]}")
    echo "$((after - before))" >"$OUT/$file.cpu"
}

# name: server and target of each side, zaphttp (ours) first.
PAIRS="http1:zaphttp:zaphttp:http1:http-echo go:zaphttp:zaphttp:go:zaphttp"
for round in $(seq "$ROUNDS"); do
    for pair in $PAIRS; do
        IFS=: read -r name ours ours_target theirs theirs_target <<<"$pair"
        if [ $((round % 2)) = 1 ]; then
            load "$ours" "$ours_target" "$name-ours-r$round"
            load "$theirs" "$theirs_target" "$name-theirs-r$round"
        else
            load "$theirs" "$theirs_target" "$name-theirs-r$round"
            load "$ours" "$ours_target" "$name-ours-r$round"
        fi
    done
    echo "round $round of $ROUNDS done"
done

# Where our server's time goes against the Go server's, under the same load.
. benches/profile.sh
for side in zaphttp go; do
    profile_server "zaphttp-$side" "${PID[$side]}" "$SECONDS_PER_RUN" \
        "${CLIENT_PIN[@]}" "$BIN/loadgen" --target zaphttp --addr "${ADDR[$side]}" -c 64 \
        -d 1 --seconds "$((SECONDS_PER_RUN + 1))" --warmup 0.5
done

python3 - "$OUT" "$RAW/zaphttp.json" "$ROUNDS" "$(getconf CLK_TCK)" "$PAIRS" \
    "$SECONDS_PER_RUN" "$(git rev-parse --short HEAD)" <<'PY'
import json, statistics, sys
out, summary_path, rounds, tck, pairs, seconds, commit = sys.argv[1:8]
rounds, tck = int(rounds), int(tck)
def report(file):
    return json.load(open(f"{out}/{file}.json"))
def cpu_us(file):
    ticks = int(open(f"{out}/{file}.cpu").read())
    return ticks / tck * 1e6 / report(file)["checked"]
def med(xs):
    return round(statistics.median(xs), 4)
summary = {"commit": commit, "rounds": rounds, "connections": 64, "depth": 1,
           "seconds_per_run": float(seconds), "pairs": {}}
for pair in pairs.split():
    name = pair.split(":")[0]
    ours = [f"{name}-ours-r{r}" for r in range(1, rounds + 1)]
    theirs = [f"{name}-theirs-r{r}" for r in range(1, rounds + 1)]
    thr = [report(o)["req_per_s"] / report(t)["req_per_s"] for o, t in zip(ours, theirs)]
    cpu = [cpu_us(t) / cpu_us(o) for o, t in zip(ours, theirs)]
    side = lambda files: {"req_per_s": med([report(f)["req_per_s"] for f in files]),
                          "cpu_us_per_request": med([cpu_us(f) for f in files]),
                          "p50_us": med([report(f)["p50_us"] for f in files]),
                          "p99_us": med([report(f)["p99_us"] for f in files])}
    entry = {"throughput": {"median": med(thr), "rounds": [round(x, 4) for x in thr]},
             "cpu": {"median": med(cpu), "rounds": [round(x, 4) for x in cpu]},
             "ours": side(ours), "theirs": side(theirs)}
    summary["pairs"][name] = entry
    print(f"{name:6}: by server CPU per request {entry['cpu']['median']:.3f}x "
          f"(ours {entry['ours']['cpu_us_per_request']:.2f} us, theirs "
          f"{entry['theirs']['cpu_us_per_request']:.2f} us); throughput "
          f"{entry['throughput']['median']:.3f}x ({entry['ours']['req_per_s']:.0f} vs "
          f"{entry['theirs']['req_per_s']:.0f} req/s); p99 {entry['ours']['p99_us']:.0f} vs "
          f"{entry['theirs']['p99_us']:.0f} us")
with open(summary_path, "w") as f:
    json.dump(summary, f, indent=1)
PY

#!/usr/bin/env bash
# The servers' user-space instructions per call, counted by callgrind: the example
# server (ZAP/TCP, eth_getBalance) as it ships, the same server with promise pipelining
# off (--zap-pipeline-results 0: no answer is copied aside for a later Target), the same
# server with every call carrying a deadline and three metadata pairs (zap-ctx), and the
# bare echo (benches/src/bin/baseline_echo.rs), under the same load, 64 connections at
# depth 1 and 16; and the example's JSON-RPC over HTTP (eth_getBalance) against a bare
# hyper server answering a fixed body of the same size (benches/src/bin/baseline_http.rs),
# 64 connections at depth 1, with a quarter of the calls. Time on a shared 2-core machine
# moves by a third between rounds; an instruction count does not, so this shows what a
# change to the call path does to it where paired_rounds.sh cannot. It counts only user
# space: the kernel's share (the sockets, the wake-ups) is paired_rounds.sh's to measure.
#
# Each server runs under callgrind. For each depth, loadgen sends SMALL and then LARGE
# requests over fresh connections, the server's counters zeroed before and dumped after
# each run (callgrind_control); the instructions per call are the difference of the two
# dumps over the difference of the calls answered, so connecting, framing detection and
# closing cancel out. Writes benches/results/raw/server-instructions.txt (the figures)
# and raw/server-instructions-<server>-d<depth>.txt (the functions that ran the LARGE
# run, by instructions per call, from callgrind_annotate).
#
#   bash benches/server_instructions.sh [SMALL=20000] [LARGE=120000]
#
# Default release build (valgrind cannot run every instruction a native build may use).
# Needs: cargo, valgrind (callgrind_control, callgrind_annotate), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
SMALL=${1:-20000}
LARGE=${2:-120000}
RAW=benches/results/raw
mkdir -p "$RAW"
WORK=$(mktemp -d)
PID=
cleanup() {
    if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for tool in valgrind callgrind_control callgrind_annotate python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "server_instructions.sh: needs $tool (apt-get install valgrind python3)" >&2
        exit 1
    }
done
cargo build --release -p zap-benches --bin loadgen --bin baseline_echo --bin baseline_http \
    -p eth-rpc --bin eth-rpc
BIN=target/release
COMMIT=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- zap-runtime examples/eth-rpc benches/src || COMMIT="$COMMIT + local changes"

# Run one server under callgrind; for each depth of $DEPTHS, the two counted runs of
# $RUNS calls.
DEPTHS="1 16"
RUNS="$SMALL $LARGE"
measure() {
    local name=$1 target=$2 addr=$3
    shift 3
    RUST_LOG=warn valgrind --tool=callgrind --callgrind-out-file="$WORK/$name.%p" \
        --dump-instr=no "$@" >/dev/null 2>"$WORK/$name.log" &
    PID=$!
    local up=
    for _ in $(seq 600); do
        if (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then up=1; break; fi
        sleep 0.1
    done
    if [ -z "$up" ]; then
        echo "server_instructions.sh: no $name server on $addr; its log:" >&2
        cat "$WORK/$name.log" >&2
        exit 1
    fi
    for depth in $DEPTHS; do
        for calls in $RUNS; do
            callgrind_control -z "$PID" >/dev/null 2>&1
            "$BIN/loadgen" --target "$target" --addr "$addr" -c 64 -d "$depth" \
                --requests "$calls" --stall-timeout 120 \
                --json "$WORK/$name-d$depth-$calls.json" >/dev/null
            # The dump goes to $name.<pid>.<n>; its name is the last one made.
            callgrind_control -d "$PID" >/dev/null 2>&1
            local dump
            dump=$(ls -t "$WORK/$name.$PID".* | head -n 1)
            mv "$dump" "$WORK/$name-d$depth-$calls.out"
        done
        for calls in $RUNS; do
            callgrind_annotate --threshold=100 "$WORK/$name-d$depth-$calls.out" \
                >"$WORK/$name-d$depth-$calls.annotate" 2>/dev/null
        done
    done
    kill -TERM "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
}
measure zap zap 127.0.0.1:19999 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19999 \
    --http-addr 127.0.0.1:18545
measure zap-nopipe zap 127.0.0.1:19997 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19997 \
    --http-addr 127.0.0.1:18547 --zap-pipeline-results 0
measure echo zap-echo 127.0.0.1:19998 "$BIN/baseline_echo" --addr 127.0.0.1:19998
# The example server again, every call carrying a call context: a deadline and three
# metadata pairs (loadgen --target zap-context).
measure zap-ctx zap-context 127.0.0.1:19995 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19995 \
    --http-addr 127.0.0.1:18549
DEPTHS=1
RUNS="$((SMALL / 4)) $((LARGE / 4))"
measure jsonrpc http 127.0.0.1:18546 "$BIN/eth-rpc" --zap-addr 127.0.0.1:19996 \
    --http-addr 127.0.0.1:18546
measure hyper http-fixed 127.0.0.1:18548 "$BIN/baseline_http" --addr 127.0.0.1:18548

python3 - "$WORK" "$RAW" "$SMALL" "$LARGE" "$COMMIT" "$PWD" <<'PY'
import json, re, sys
work, raw, small, large, commit, root = sys.argv[1:7]
def totals(name, depth, calls):
    """Instructions in the dump of one run, and the calls loadgen checked in it."""
    text = open(f"{work}/{name}-d{depth}-{calls}.out").read()
    found = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
    if not found:
        sys.exit(f"no totals in the dump of {name} d{depth} {calls}")
    checked = json.load(open(f"{work}/{name}-d{depth}-{calls}.json"))["checked"]
    return int(found.group(1)), checked
lines = [f"# server_instructions.sh {small} {large}, made at {commit}",
         "# user-space instructions per call: (dump of LARGE - dump of SMALL) / (calls LARGE - calls SMALL)",
         f"# ZAP/TCP: SMALL {small}, LARGE {large}; JSON-RPC over HTTP: SMALL {int(small) // 4}, "
         f"LARGE {int(large) // 4}",
         ""]
# (server, depth) -> the two runs' call counts.
RUNS = {(name, depth): (small, large)
        for depth in (1, 16) for name in ("zap", "zap-nopipe", "echo", "zap-ctx")}
RUNS.update({(name, 1): (str(int(small) // 4), str(int(large) // 4))
             for name in ("jsonrpc", "hyper")})
per_call = {}
dumps = []
for (name, depth), (few, many) in RUNS.items():
    (i1, c1), (i2, c2) = totals(name, depth, few), totals(name, depth, many)
    per_call[(name, depth)] = (i2 - i1) / (c2 - c1)
    dumps.append(f"{name:10} depth {depth:2}: {i1} instructions over {c1} calls, {i2} over {c2}")
for depth in (1, 16):
    for name in ("zap", "zap-nopipe", "echo"):
        lines.append(f"{name:10} depth {depth:2}: {per_call[(name, depth)]:9.0f} instructions per call")
    zap, echo = per_call[("zap", depth)], per_call[("echo", depth)]
    lines.append(f"depth {depth:2}: the example server runs {zap - echo:.0f} instructions per call "
                 f"more than the echo ({zap / echo:.2f}x)")
    nopipe = per_call[("zap-nopipe", depth)]
    lines.append(f"depth {depth:2}: promise pipelining's record of each answer: {zap - nopipe:.0f} "
                 f"instructions per call (the server without it: {nopipe:.0f}, "
                 f"{nopipe / echo:.2f}x the echo)")
    ctx = per_call[("zap-ctx", depth)]
    lines.append(f"depth {depth:2}: a call carrying a deadline and three metadata pairs: {ctx:.0f} "
                 f"instructions per call, {ctx - zap:.0f} more than one carrying none")
    lines.append("")
jsonrpc, hyper = per_call[("jsonrpc", 1)], per_call[("hyper", 1)]
lines.append(f"{'jsonrpc':10} depth  1: {jsonrpc:9.0f} instructions per request")
lines.append(f"{'hyper':10} depth  1: {hyper:9.0f} instructions per request")
lines.append(f"HTTP: JSON-RPC runs {jsonrpc - hyper:.0f} instructions per request more than the "
             f"bare hyper server ({jsonrpc / hyper:.2f}x)")
lines.append("")
lines += ["# the dumps"] + dumps + [""]
open(f"{raw}/server-instructions.txt", "w").write("\n".join(lines))
print("\n".join(lines))
# Where each server's instructions per call go: callgrind_annotate's self cost of
# every function (by source file and function, so inlined code shows under the file it
# comes from), LARGE minus SMALL over the calls between them, the 40 largest. The rows
# that span a whole thread (thread start, the runtime's worker loop, main: see THREAD)
# are left out.
def short(where):
    """A source path without the machine's directories: crates.io sources as
    crate-version/..., the standard library as library/..., generated code by its crate."""
    where = where.replace(root + "/", "")
    where = re.sub(r"\S*/registry/src/[^/]+/", "", where)
    where = re.sub(r"/rustc/[0-9a-f]+/", "", where)
    return re.sub(r"target/release/build/(\S+?)-[0-9a-f]{16}/out/", r"\1 (generated) ", where)
# The frames every thread or the main thread starts from, which callgrind_annotate
# lists with what ran under them when the counters were zeroed while they were active.
# Anchored, so that no function of the call path whose name contains one of these
# words (a `clone`, say) is left out.
THREAD = re.compile(r"(lang_start|__rust_begin_short_backtrace|::block_on$|::enter_runtime$"
                    r"|libc_start|\(below main\)|^\?\?\?:|::main$|::thread_start$"
                    r"|:start_thread$|clone\.S:clone$)")
def functions(name, depth, calls):
    costs = {}
    # The table of functions only: from its "file:function" header to the next rule (what
    # follows is source annotation, with call lines of inclusive costs).
    text = open(f"{work}/{name}-d{depth}-{calls}.annotate").read()
    table = text.split("file:function", 1)[1].split("\n-----", 2)[1]
    for line in table.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[[^\]]*\])?$", line)
        if m and "PROGRAM TOTALS" not in line:
            costs[short(m.group(2))] = costs.get(short(m.group(2)), 0) + int(m.group(1).replace(",", ""))
    return costs
for (name, depth), (few, many) in RUNS.items():
    (_, c1), (_, c2) = totals(name, depth, few), totals(name, depth, many)
    total = per_call[(name, depth)]
    f1, f2 = functions(name, depth, few), functions(name, depth, many)
    rows = sorted(((f2.get(f, 0) - f1.get(f, 0)) / (c2 - c1), f) for f in f2)
    rows = [(ir, f) for ir, f in reversed(rows) if ir < total / 2 and not THREAD.search(f)][:40]
    out = [f"# {name} at depth {depth}: self instructions per call by function, "
           f"({c2} calls) - ({c1} calls), made at {commit}; {total:.0f} per call in all",
           ""]
    out += [f"{ir:8.1f}  {f[:200]}" for ir, f in rows]
    open(f"{raw}/server-instructions-{name}-d{depth}.txt", "w").write("\n".join(out) + "\n")
PY

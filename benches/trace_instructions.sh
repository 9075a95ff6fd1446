#!/usr/bin/env bash
# What distributed tracing costs the example server, in user-space instructions per
# call under callgrind (ZAP/TCP eth_getBalance, 64 connections, depth 1 and 16), three
# sides in every round:
#
#   plain      eth-rpc as it ships, calls without a call context (loadgen --target zap)
#   carried    the same server, every call carrying a W3C traceparent in its metadata
#              (loadgen --target zap-traced): no span is opened, the pair is only read
#   exported   eth-rpc --otlp-endpoint (a local OTLP/HTTP sink that answers 200), the
#              same calls: a span per call, child of the traceparent, batched and
#              posted by the export thread, which callgrind counts with the server
#
# The count is server_instructions.sh's: loadgen sends SMALL and then LARGE calls, the
# server's counters zeroed before and dumped after each run; the instructions per call
# are the difference of the two dumps over the difference of the calls answered. The
# report gives each round's figures, the per-round differences to `plain`, their
# medians, and the spans the exporting server says it exported and dropped.
#
#   bash benches/trace_instructions.sh [ROUNDS=3] [SMALL=10000] [LARGE=60000]
#
# Writes benches/results/raw/trace-instructions.txt, and where the span's instructions go
# (by function, from the last round) in raw/trace-instructions-profile.txt. Needs: cargo, valgrind
# (callgrind_control), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SMALL=${2:-10000}
LARGE=${3:-60000}
RAW=benches/results/raw
mkdir -p "$RAW"
WORK=$(mktemp -d)
PID=
SINK=
cleanup() {
    for pid in $PID $SINK; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for tool in valgrind callgrind_control callgrind_annotate python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "trace_instructions.sh: needs $tool" >&2
        exit 1
    }
done
COMMIT=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- zap-runtime/src examples/eth-rpc/src benches/src || COMMIT="$COMMIT + local changes"
cargo build --release -q -p zap-benches --bin loadgen -p eth-rpc --bin eth-rpc
BIN=target/release

# The OTLP/HTTP sink: answers every POST 200 with an empty export response.
python3 - 127.0.0.1:14318 <<'PY' &
import http.server, sys
host, port = sys.argv[1].split(":")
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer((host, int(port)), Sink).serve_forever()
PY
SINK=$!

# callgrind_side: one side of a round; the last round's dumps of the traced sides are
# kept for the profile below.
source benches/callgrind_lib.sh
before_stop() { # SIDE ROUND HTTP: what the exporting server counted, before its flush
    if [ "$1" = exported ]; then
        python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
            "http://$3/metrics" | grep -E '^zap_otel_spans_(exported|dropped)_total ' \
            | sed "s/^/round $2: /" >>"$WORK/spans.txt" || true
    fi
}
side() { # SIDE TARGET ROUND [eth-rpc arguments...]
    local side=$1 target=$2 round=$3
    shift 3
    if [ "$round" = "$ROUNDS" ] && [ "$side" != plain ]; then KEEP_DUMPS=1; else KEEP_DUMPS=; fi
    callgrind_side "$side" "$round" "$BIN" "$target" "$@"
}
: >"$WORK/spans.txt"
for round in $(seq "$ROUNDS"); do
    side plain zap "$round"
    side carried zap-traced "$round"
    side exported zap-traced "$round" --otlp-endpoint http://127.0.0.1:14318
done

python3 - "$WORK/runs.txt" "$WORK/spans.txt" "$RAW/trace-instructions.txt" "$COMMIT" \
    "$ROUNDS" "$SMALL" "$LARGE" <<'PY'
import statistics, sys
runs, spans, out, commit, rounds, small, large = sys.argv[1:8]
sys.path.insert(0, "benches")
from callgrind_runs import per_call_of
per_call = per_call_of(runs)
rounds = int(rounds)
lines = [f"# trace_instructions.sh {rounds} {small} {large}, made at {commit}",
         "# user-space instructions per call of eth-rpc (ZAP/TCP eth_getBalance, 64 connections),",
         "# (dump of LARGE - dump of SMALL) / (calls LARGE - calls SMALL); each round runs the three sides",
         ""]
for depth in (1, 16):
    for rnd in range(1, rounds + 1):
        p, c, e = (per_call(s, rnd, depth) for s in ("plain", "carried", "exported"))
        lines.append(f"depth {depth:2} round {rnd}: plain {p:7.0f}  carried {c:7.0f} (+{c - p:.0f})  "
                     f"exported {e:7.0f} (+{e - p:.0f})")
    med = {s: statistics.median(per_call(s, r, depth) for r in range(1, rounds + 1))
           for s in ("plain", "carried", "exported")}
    carried = statistics.median(per_call("carried", r, depth) - per_call("plain", r, depth)
                                for r in range(1, rounds + 1))
    exported = statistics.median(per_call("exported", r, depth) - per_call("carried", r, depth)
                                 for r in range(1, rounds + 1))
    lines.append(f"depth {depth:2}: medians plain {med['plain']:.0f}, carried {med['carried']:.0f}, "
                 f"exported {med['exported']:.0f}; a traceparent carried costs {carried:.0f} "
                 f"instructions per call, a span per call exported {exported:.0f} more "
                 f"({med['exported'] / med['plain']:.2f}x plain)")
    lines.append("")
lines += ["# spans the exporting server counted (before its flush at shutdown)"]
lines += [l.rstrip() for l in open(spans)]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

# Where the span's instructions go, from the last round: each function's self cost per
# call, exported minus carried (what the span adds), LARGE minus SMALL over the calls
# between, the 40 largest, after the export thread's inclusive cost (what the span costs
# off the calls' threads).
for depth in 1 16; do
    for side in carried exported; do
        for calls in $SMALL $LARGE; do
            callgrind_annotate --threshold=100 "$WORK/$side-d$depth-$calls.out" \
                >"$WORK/$side-d$depth-$calls.annotate" 2>/dev/null
        done
    done
done
python3 - "$WORK" "$RAW" "$SMALL" "$LARGE" "$COMMIT" <<'PY'
import re, sys
work, raw, small, large, commit = sys.argv[1:6]
def costs(side, depth, calls):
    text = open(f"{work}/{side}-d{depth}-{calls}.annotate").read()
    table = text.split("file:function", 1)[1].split("\n-----", 2)[1]
    out = {}
    for line in table.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[[^\]]*\])?$", line)
        if m and "PROGRAM TOTALS" not in line:
            where = re.sub(r"\S*/registry/src/[^/]+/", "", m.group(2))
            where = re.sub(r"/rustc/[0-9a-f]+/", "", where)
            out[where] = out.get(where, 0) + int(m.group(1).replace(",", ""))
    return out
lines = [f"# trace_instructions.sh: what a span per call adds (exported - carried), instructions per call, made at {commit}", ""]
for depth in (1, 16):
    per = {}
    for side in ("carried", "exported"):
        a, b = costs(side, depth, small), costs(side, depth, large)
        per[side] = {f: (b.get(f, 0) - a.get(f, 0)) / (int(large) - int(small)) for f in b}
    diff = sorted(((per["exported"][f] - per["carried"].get(f, 0), f) for f in per["exported"]),
                  reverse=True)
    export = next((v for f, v in per["exported"].items() if "trace/otel.rs" in f and "__rust_begin_short_backtrace" in f), 0)
    lines.append(f"## depth {depth}: the export thread (inclusive): {export:.0f} per call")
    THREAD = re.compile(r"(lang_start|__rust_begin_short_backtrace|::block_on$|libc_start|below main|::main$|thread_start|start_thread|clone\.S|FnOnce::call_once\{\{vtable|task::raw::poll|Inner::run)")
    rows = [(d, f) for d, f in diff if not THREAD.search(f)][:40]
    lines += [f"{d:8.1f}  {f[:180]}" for d, f in rows] + [""]
open(f"{raw}/trace-instructions-profile.txt", "w").write("\n".join(lines) + "\n")
PY

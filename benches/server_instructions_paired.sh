#!/usr/bin/env bash
# The example server's user-space instructions per call (ZAP/TCP, eth_getBalance, 64
# connections, depth 1 and 16), at HEAD and at an older commit, paired: each round runs
# both servers under callgrind, one after the other, and the report gives each round's
# figures, their ratio, and the median of the per-round ratios. At depth 16 a single
# run moves by a few percent with how frames batch per read (timing), more on a busy
# machine; pairing the two sides round by round keeps that out of the comparison.
#
# The count is server_instructions.sh's: loadgen sends SMALL and then LARGE calls, the
# server's counters zeroed before and dumped after each run; the instructions per call
# are the difference of the two dumps over the difference of the calls answered.
#
#   bash benches/server_instructions_paired.sh BASE [ROUNDS=5] [SMALL=10000] [LARGE=60000] [NAME]
#
# BASE is built in a worktree (target/paired/<commit>, its own target directory), and
# its own loadgen drives it. Writes benches/results/raw/NAME.txt (default
# server-instructions-paired.txt).
# Needs: cargo, git, valgrind (callgrind_control), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: server_instructions_paired.sh BASE [ROUNDS] [SMALL] [LARGE]}
ROUNDS=${2:-5}
SMALL=${3:-10000}
LARGE=${4:-60000}
NAME=${5:-server-instructions-paired}
ROOT=$PWD
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
for tool in valgrind callgrind_control python3 git; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "server_instructions_paired.sh: needs $tool" >&2
        exit 1
    }
done
HEAD_COMMIT=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- zap-runtime/src examples/eth-rpc/src benches/src || HEAD_COMMIT="$HEAD_COMMIT + local changes"
BASE_COMMIT=$(git rev-parse --short "$BASE")
BASE_DIR=$ROOT/target/paired/$BASE_COMMIT
if [ ! -d "$BASE_DIR/src" ]; then
    rm -rf "$BASE_DIR/src"
    git worktree add --force --detach "$BASE_DIR/src" "$BASE" >/dev/null
fi
build() { # DIR TARGET_DIR
    (cd "$1" && CARGO_TARGET_DIR=$2 cargo build --release -q -p zap-benches --bin loadgen \
        -p eth-rpc --bin eth-rpc)
}
build "$ROOT" "$ROOT/target"
build "$BASE_DIR/src" "$BASE_DIR/target"

# callgrind_side: one side of a round.
source benches/callgrind_lib.sh
for round in $(seq "$ROUNDS"); do
    callgrind_side head "$round" "$ROOT/target/release" zap
    callgrind_side base "$round" "$BASE_DIR/target/release" zap
done

python3 - "$WORK/runs.txt" "$RAW/$NAME.txt" "$HEAD_COMMIT" "$BASE_COMMIT" \
    "$ROUNDS" "$SMALL" "$LARGE" <<'PY'
import statistics, sys
runs, out, head, base, rounds, small, large = sys.argv[1:8]
sys.path.insert(0, "benches")
from callgrind_runs import per_call_of
per_call = per_call_of(runs)
lines = [f"# server_instructions_paired.sh {base} {rounds} {small} {large}: made at {head}, against {base}",
         "# user-space instructions per call of eth-rpc (ZAP/TCP eth_getBalance, 64 connections),",
         "# (dump of LARGE - dump of SMALL) / (calls LARGE - calls SMALL); each round runs both sides",
         ""]
for depth in (1, 16):
    ratios = []
    for rnd in range(1, int(rounds) + 1):
        h, b = per_call("head", rnd, depth), per_call("base", rnd, depth)
        ratios.append(h / b)
        lines.append(f"depth {depth:2} round {rnd}: {head} {h:7.0f}  {base} {b:7.0f}  ratio {h / b:.3f}")
    hs = [per_call("head", r, depth) for r in range(1, int(rounds) + 1)]
    bs = [per_call("base", r, depth) for r in range(1, int(rounds) + 1)]
    lines.append(f"depth {depth:2}: median {statistics.median(hs):.0f} against {statistics.median(bs):.0f}; "
                 f"median of per-round ratios {statistics.median(ratios):.3f} "
                 f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    lines.append("")
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
PY

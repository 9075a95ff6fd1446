# Sourced by the callgrind scripts (server_instructions_paired.sh, trace_instructions.sh),
# from the repository root: one side of a paired instruction count. Their reports read
# what it records with benches/callgrind_runs.py.
#
# callgrind_side SIDE ROUND BIN TARGET [eth-rpc arguments...]
#   Runs BIN/eth-rpc under callgrind on 127.0.0.1:19993 (HTTP on 18593) with the
#   arguments given, and for depth 1 and 16 sends SMALL then LARGE calls with
#   BIN/loadgen --target TARGET (64 connections), the server's counters zeroed before
#   and dumped after each run. Appends "SIDE ROUND DEPTH CALLS INSTRUCTIONS" to
#   $WORK/runs.txt. When KEEP_DUMPS is set, each dump is kept as
#   $WORK/SIDE-dDEPTH-CALLS.out; otherwise it is removed. Then stops the server (SIGTERM);
#   a script that wants to read the server first defines before_stop SIDE ROUND HTTP.
# Uses: WORK, SMALL, LARGE, and PID (the server, for the script's cleanup).
CALLGRIND_ADDR=127.0.0.1:19993
CALLGRIND_HTTP=127.0.0.1:18593
callgrind_side() {
    local side=$1 round=$2 bin=$3 target=$4
    shift 4
    RUST_LOG=warn valgrind --tool=callgrind --callgrind-out-file="$WORK/$side.%p" \
        --dump-instr=no "$bin/eth-rpc" --zap-addr "$CALLGRIND_ADDR" \
        --http-addr "$CALLGRIND_HTTP" "$@" >/dev/null 2>"$WORK/$side.log" &
    PID=$!
    local up=
    for _ in $(seq 600); do
        if (exec 3<>"/dev/tcp/${CALLGRIND_ADDR%:*}/${CALLGRIND_ADDR#*:}") 2>/dev/null; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ -n "$up" ] || { cat "$WORK/$side.log" >&2; exit 1; }
    local depth calls dump total checked
    for depth in 1 16; do
        for calls in $SMALL $LARGE; do
            callgrind_control -z "$PID" >/dev/null 2>&1
            "$bin/loadgen" --target "$target" --addr "$CALLGRIND_ADDR" -c 64 -d "$depth" \
                --requests "$calls" --stall-timeout 120 --json "$WORK/run.json" >/dev/null
            callgrind_control -d "$PID" >/dev/null 2>&1
            dump=$(ls -t "$WORK/$side.$PID".* | head -n 1)
            total=$(grep -E '^(totals|summary):' "$dump" | head -n 1 | awk '{print $2}')
            checked=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checked"])' "$WORK/run.json")
            echo "$side $round $depth $checked $total" >>"$WORK/runs.txt"
            if [ -n "${KEEP_DUMPS:-}" ]; then
                mv "$dump" "$WORK/$side-d$depth-$calls.out"
            else
                rm -f "$dump"
            fi
        done
    done
    if declare -F before_stop >/dev/null; then before_stop "$side" "$round" "$CALLGRIND_HTTP"; fi
    kill -TERM "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
}

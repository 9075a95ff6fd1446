# Sourced by the round scripts: a perf profile of one server under the same load as its
# rounds, so a ratio comes with where each side's time goes.
#
#   profile_server NAME PID SECONDS LOADGEN [LOADGEN ARGS...]
#
# Samples PID (cpu-clock: hardware counters are often missing on VMs) while the load
# generator command runs for SECONDS, and writes benches/results/raw/profile-NAME.txt:
# the share of kernel and user space (by object), then the symbols by their own time.
# Does nothing (and says so) where perf is missing or not allowed.
profile_server() {
    local name=$1 pid=$2 seconds=$3
    shift 3
    local raw=benches/results/raw
    if ! command -v perf >/dev/null 2>&1; then
        echo "profile $name: perf not found (apt-get install linux-perf): skipped" >&2
        return 0
    fi
    local data
    data=$(mktemp)
    perf record -e cpu-clock -F 1999 -g -p "$pid" -o "$data" -- sleep "$seconds" \
        >/dev/null 2>&1 &
    local perf_pid=$!
    "$@" >/dev/null
    if ! wait "$perf_pid"; then
        echo "profile $name: perf record failed (perf_event_paranoid?): skipped" >&2
        rm -f "$data" "$data.old"
        return 0
    fi
    {
        echo "# perf record -e cpu-clock -F 1999 -g, ${seconds} s of $name under: $*"
        echo "# by object"
        perf report -i "$data" --stdio --no-children --sort dso 2>/dev/null |
            grep -E '^ +[0-9.]+%' | head -6
        echo "# by symbol (own time, at least 0.4%)"
        perf report -i "$data" --stdio --no-children --sort symbol --percent-limit 0.4 \
            2>/dev/null | grep -E '^ +[0-9.]+%' | sed -E 's/ +- +- *$//' | head -60
    } >"$raw/profile-$name.txt"
    rm -f "$data" "$data.old"
}

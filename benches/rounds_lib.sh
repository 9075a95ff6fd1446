# Sourced by the paired-round scripts (from the repository root, after their `cd`): what
# each sets up before its rounds.
#
# - PIDS: the servers a script starts (it appends each `$!`); at exit they are killed
#   and waited for, then the script's `cleanup_extra` runs if it defines one (a
#   throw-away PKI, a network namespace).
# - SERVER_PIN, CLIENT_PIN: command prefixes that pin the servers to core 0 and the load
#   generator to core 1 (`taskset`), so the two never share a core; empty on one core
#   or without taskset.
# - cpu_ticks PID: the user + system time of a process in clock ticks (fields 14 and 15
#   of /proc/PID/stat; the command names here have no spaces), read around a run for
#   the server's CPU per request.
PIDS=()
rounds_cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if declare -F cleanup_extra >/dev/null; then cleanup_extra; fi
}
trap rounds_cleanup EXIT

if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
else
    SERVER_PIN=()
    CLIENT_PIN=()
fi

cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat"
}

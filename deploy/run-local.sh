#!/usr/bin/env bash
# Three eth-rpc instances on 127.0.0.1 behind HAProxy (deploy/haproxy.cfg), in the
# foreground until Ctrl-C:
#   ZAP/TCP        127.0.0.1:9999  (round robin per connection over 9101..9103)
#   JSON-RPC/HTTP  127.0.0.1:8545  (per request over 8601..8603)
#   HAProxy stats  http://127.0.0.1:8404/stats
# Each instance drains on SIGTERM with a 1 s readiness grace (GET /health answers 503
# first, so HAProxy stops sending it work before its listeners close): try
#   kill -TERM <pid of one instance>
# while a load runs. Needs: cargo, haproxy (apt-get install haproxy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v haproxy >/dev/null 2>&1 || { echo "run-local.sh: apt-get install haproxy" >&2; exit 1; }
cargo build --locked --release -p eth-rpc
BIN="${CARGO_TARGET_DIR:-target}/release/eth-rpc"

export ZAP_FRONTEND=127.0.0.1:9999 HTTP_FRONTEND=127.0.0.1:8545 STATS_FRONTEND=127.0.0.1:8404
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
for n in 1 2 3; do
    export "ETH${n}_ZAP=127.0.0.1:910$n" "ETH${n}_HTTP=127.0.0.1:860$n" "ETH${n}_HTTP_PORT=860$n"
    "$BIN" --zap-addr "127.0.0.1:910$n" --http-addr "127.0.0.1:860$n" --readiness-grace 1 &
    pids+=($!)
    echo "eth$n: pid $!, ZAP 127.0.0.1:910$n, HTTP 127.0.0.1:860$n"
done
haproxy -db -f deploy/haproxy.cfg &
pids+=($!)
wait

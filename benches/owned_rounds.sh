#!/usr/bin/env bash
# The figures of README "When to borrow and when to own" (issue 17), in paired rounds:
# - owned_rounds: a client's answer as an owned struct vs an owned message (median of
#   21 per-round ratios, with and without the UTF-8 check on the message side), and
#   client allocations per call over TCP for both stubs;
# - echo_rounds: echoing a bytes field at 16 connections with large answers written
#   vectored vs copied into the write buffer, 1 MiB (7 rounds of 1 s a side) and the
#   sizes around the default threshold, 4, 16, 64, 128 and 256 KiB (5 rounds of 0.5 s
#   a side); calls/s, the runtime's copied bytes per call (zap_runtime::copies) and
#   every round's ratio.
# Writes benches/results/raw/owned-rounds.json and echo-SIZE.json.
#
#   bash benches/owned_rounds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RAW=benches/results/raw
mkdir -p "$RAW"
cargo build --release -p zap-benches --bin owned_rounds --bin echo_rounds
BIN=${CARGO_TARGET_DIR:-target}/release
"$BIN/owned_rounds" --no-utf8 --json "$RAW/owned-rounds.json"
"$BIN/echo_rounds" --size 1048576 --rounds 7 --seconds 1 --json "$RAW/echo-1048576.json"
for size in 4096 16384 65536 131072 262144; do
    "$BIN/echo_rounds" --size "$size" --rounds 5 --seconds 0.5 --json "$RAW/echo-$size.json"
done

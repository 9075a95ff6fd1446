#!/usr/bin/env sh
# Short bounded fuzz run of every target (manual use; not run in CI).
#
#   ./smoke.sh          # 20 s per target
#   ./smoke.sh 60       # 60 s per target
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and a nightly toolchain
# (`rustup toolchain install nightly`). Seeds the corpus first (./seed.sh). Exits non-zero
# on the first target that finds a crash; the input is left in fuzz/artifacts/<target>/.
set -eu
cd "$(dirname "$0")"
secs=${1:-20}
./seed.sh
cargo +nightly fuzz build -O
for target in reader frame_decoder envelope kitchen_reader stream_dispatch jsonrpc roundtrip; do
    echo "== $target (${secs}s)"
    cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
        -max_total_time="$secs" -print_final_stats=1 2>&1 \
        | grep -E 'DONE|stat::number_of_executed_units|ERROR|SUMMARY|panicked|Test unit written' \
        || true
    # grep hides libFuzzer's exit code; a crash leaves an artifact behind
    if ls "artifacts/$target"/crash-* "artifacts/$target"/leak-* "artifacts/$target"/timeout-* \
        "artifacts/$target"/oom-* >/dev/null 2>&1; then
        echo "$target: found a failing input, see artifacts/$target/" >&2
        exit 1
    fi
done
echo "smoke: all targets ran ${secs}s without a finding"

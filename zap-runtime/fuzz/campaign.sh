#!/usr/bin/env sh
# A fuzzing campaign: each target for SECONDS under libFuzzer, one after another, from the
# seed corpus plus the committed minimized corpus (corpora/<target>/); afterwards the
# target's corpus is minimized (`cargo fuzz cmin`) back into corpora/<target>/ and
# replayed once (-runs=0) for the coverage it reaches, and the run's summary (libFuzzer's
# final stats, its last coverage line, the corpus size and the replayed coverage) is
# appended to campaigns/<DATE>.txt, the raw file behind the README's results table.
#
#   ./campaign.sh 3600                  # every target for an hour
#   ./campaign.sh 600 jsonrpc cap_verify
#
# Needs cargo-fuzz and a nightly toolchain (see the README). Stops at the first target
# that finds a failing input (left in artifacts/<target>/).
set -eu
cd "$(dirname "$0")"
secs=${1:?usage: campaign.sh SECONDS [TARGET...]}
shift
targets=${*:-$(cargo +nightly fuzz list)}
day=$(date -u +%Y-%m-%d)
# The commit the targets are built from (a long campaign outlives later commits).
built=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- .. || built="$built + local changes"
mkdir -p campaigns corpora
out="campaigns/$day.txt"
./seed.sh
cargo +nightly fuzz build -O
for target in $targets; do
    mkdir -p "corpus/$target" "corpora/$target"
    cp corpora/"$target"/* "corpus/$target"/ 2>/dev/null || true
    # A target's dictionary, if it has one: <target>.dict.
    dict=
    [ -f "$target.dict" ] && dict="-dict=$target.dict"
    log=$(mktemp)
    started=$(date -u +%H:%M:%S)
    status=0
    cargo +nightly fuzz run -O "$target" "corpus/$target" -- \
        -max_total_time="$secs" -print_final_stats=1 $dict >"$log" 2>&1 || status=$?
    {
        echo "== $target: ${secs}s from $started UTC at $built, exit $status"
        grep -E '^#[0-9]+[[:space:]]+(pulse|DONE|REDUCE|NEW)' "$log" | tail -n 1
        grep -E '^stat::|ERROR|SUMMARY|panicked' "$log" || true
    } >>"$out"
    if [ "$status" -ne 0 ]; then
        tail -n 40 "$log"
        echo "$target: failing input in artifacts/$target/" >&2
        exit 1
    fi
    rm -f "$log"
    # Minimize seeds, the committed corpus and the new units into corpora/<target>.
    tmp=$(mktemp -d)
    cargo +nightly fuzz cmin -O "$target" "corpus/$target" >/dev/null 2>&1
    cp corpus/"$target"/* "$tmp"/ 2>/dev/null || true
    # Findings keep their names: the regression tests replay them by name.
    cp corpora/"$target"/finding-* "$tmp"/ 2>/dev/null || true
    rm -rf "corpora/$target"
    mv "$tmp" "corpora/$target"
    echo "   corpus after cmin: $(ls "corpora/$target" | wc -l) files" >>"$out"
    # The coverage the minimized corpus reaches, replayed without mutations.
    cover=$(cargo +nightly fuzz run -O "$target" "corpora/$target" -- -runs=0 2>&1 |
        grep -E '^#[0-9]+[[:space:]]+INITED' | tail -n 1)
    echo "   replayed: $cover" >>"$out"
done

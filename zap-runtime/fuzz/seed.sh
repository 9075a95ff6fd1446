#!/usr/bin/env sh
# Write the seed corpus for every fuzz target into corpus/<target>/ (gitignored), from the
# shared test vectors in ../tests/data/*.json. Nothing binary is committed. The seeds are
# made by `zap_fuzz::seeds` (src/seeds.rs), the same code `tests/corpus.rs` runs them from.
#
#   ./seed.sh            # from zap-runtime/fuzz (or from anywhere: paths are relative to this script)
set -eu
cd "$(dirname "$0")"
exec cargo run --locked --quiet --example seed -- corpus

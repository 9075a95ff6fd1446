#!/usr/bin/env sh
# Write the seed corpus of the `load` target into corpus/load/ (gitignored): every schema
# of ../../schemas/ (valid) and of ../tests/invalid/ (each with an error the checker must
# report), as listed by src/seeds.rs, the code tests/corpus.rs runs them from.
# Content-addressed names, so re-running is idempotent.
set -eu
cd "$(dirname "$0")"
exec cargo run --locked --quiet --example seed -- corpus

#!/usr/bin/env sh
# Write the seed corpus of the `load` target into corpus/load/ (gitignored): every schema
# of ../../schemas/ (valid) and of ../tests/invalid/ (each with an error the checker must
# report). Content-addressed names, so re-running is idempotent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/corpus/load"
n=0
for f in "$here"/../../schemas/*.zap "$here"/../tests/invalid/*.zap; do
    cp "$f" "$here/corpus/load/$(sha1sum "$f" | cut -c1-40)"
    n=$((n + 1))
done
echo "load: $n seeds in $here/corpus/load"

#!/usr/bin/env bash
# Regenerate benches/schemas/bench_fbs.rs, the planus (FlatBuffers) code of bench.fbs.
# The generated code is committed so that building the benches needs no FlatBuffers
# compiler; run this after changing bench.fbs. It installs planus-cli (the version of
# the planus runtime in Cargo.lock) into target/tools on first use.
#
#   bash benches/schemas/planus.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=$(sed -n '/^name = "planus"$/{n;s/^version = "\(.*\)"$/\1/p}' Cargo.lock)
TOOLS=target/tools
if ! "$TOOLS/bin/planus" --version 2>/dev/null | grep -q "$VERSION"; then
    cargo install --locked --root "$TOOLS" planus-cli --version "$VERSION"
fi
"$TOOLS/bin/planus" rust -o benches/schemas/bench_fbs.rs benches/schemas/bench.fbs
echo "planus.sh: wrote benches/schemas/bench_fbs.rs with planus $VERSION"

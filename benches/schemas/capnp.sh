#!/usr/bin/env bash
# Regenerate benches/schemas/bench_capnp.rs, the Cap'n Proto code of bench.capnp, with the
# capnpc crate of Cargo.lock and the `capnp` program (Debian: apt-get install capnproto).
# The generated code is committed so that building the benches needs no Cap'n Proto
# compiler; run this after changing bench.capnp. CI checks that the committed file is
# current (benches/tests/capnp_generated.rs, an ignored test that needs capnp).
#
#   bash benches/schemas/capnp.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v capnp >/dev/null || { echo "capnp.sh: needs the capnp program (Debian: apt-get install capnproto)" >&2; exit 1; }
ZAP_BLESS=1 cargo test --locked -q -p zap-benches --test capnp_generated -- --ignored
echo "capnp.sh: wrote benches/schemas/bench_capnp.rs with $(capnp --version)"

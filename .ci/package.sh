#!/usr/bin/env bash
# Package the published crates exactly as `cargo publish` would upload them, and verify
# that each .crate builds on its own: from its unpacked tarball, with its dependencies
# from crates.io and its sibling crates from the tarballs packaged beside it (cargo
# resolves zapc -> zap-runtime and zap-derive -> zapc through a local overlay registry
# of the crates packaged in this run, so nothing has to be on crates.io yet).
#
# This catches what the workspace build cannot: a file the crate needs at build time but
# does not ship (zapc's grammar.pest, a README, the license texts), a path dependency
# without a version, metadata crates.io would refuse. The .crate files land in
# $CARGO_TARGET_DIR/package/ (target/package/ by default).
#
# Usage: .ci/package.sh [extra cargo package flags, e.g. --allow-dirty]
set -euo pipefail
cd "$(dirname "$0")/.."

# The crates meant for crates.io, in dependency order. Every other workspace member
# (benches, examples, test crates) says `publish = false` and is not packaged.
published=(zap-runtime zapc zap-derive)

flags=()
for crate in "${published[@]}"; do
  flags+=(-p "$crate")
done

# Cargo unpacks a registry crate once into $CARGO_HOME/registry/src/<registry>/ and never
# again for the same name and version: an unpacking of these crates left by an earlier
# verification on this machine (same version, older sources) would be built instead of
# the tarballs packaged now. Remove them; cargo unpacks the new ones. (A target
# directory that verified older sources of the same version reuses those builds too:
# verify in a fresh one, as a clean clone has.)
version=$(cargo pkgid --locked -p zap-runtime | sed 's/.*[#@]//')
for crate in "${published[@]}"; do
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$version"
done

# --locked: the verification build uses Cargo.lock as it is committed (no silent
# re-resolution). Verification is on (no --no-verify): each crate is built from its
# tarball, default features, in a target directory of its own.
cargo package --locked "${flags[@]}" "$@"

# The license texts must be in every package (symlinks in the crate folders, followed
# by cargo); say so plainly if one went missing instead of shipping without it.
for crate in "${published[@]}"; do
  list=$(cargo package --locked --list -p "$crate" "$@")
  for file in LICENSE-MIT LICENSE-APACHE README.md; do
    if ! grep -qx "$file" <<<"$list"; then
      echo "error: the $crate package does not contain $file" >&2
      exit 1
    fi
  done
done
echo "packaged and verified: ${published[*]}"

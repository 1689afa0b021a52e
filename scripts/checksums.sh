#!/usr/bin/env bash
# Regenerates results/checksums.txt: the XXH3-64 payload checksum of every level file of the
# databases that tools/tests/checksums.rs builds (6 pits, levels 0..=12, standard and empty
# capture, other switches default). A change to these values is a change of behaviour.
#
# Usage: scripts/checksums.sh > results/checksums.txt
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tools >&2
K=./target/release/kalah
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# Level checksums (XXH3-64 of the payload, as in each file's header)."
echo "# Command: scripts/checksums.sh > results/checksums.txt"
echo "# commit: $(git rev-parse --short HEAD)"
for capture in standard empty; do
  $K db build --pits 6 --max-seeds 12 --capture "$capture" --out "$tmp/$capture" --no-timings >/dev/null 2>&1
  for f in "$tmp/$capture"/*.kdb; do
    echo "$(basename "$f") $($K db info "$f" | awk '/^checksum:/ {print $2}')"
  done
done

#!/usr/bin/env bash
# Bytes an entry of compact level files (format version 2) for the levels LO..HI of a
# database, one level at a time: each level file of SRC is written as a compact file into
# SCRATCH (the writer's two passes timed), verified (checksum, every block, every entry
# against the source), and deleted: the "sizes" figures of results/db.md, "Compact files
# (format version 2)". SCRATCH needs room for the largest level's compact file (about
# 0.53 byte an entry: 2.3 GB for level 31 of 6 pits).
#
# Usage: scripts/compact-sizes.sh SRC SCRATCH LO HI [BLOCK_SHIFT SLOT_SHIFT]
# (the example is built with cargo build --release -p db-format --example compact_level).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$1
scratch=$2
lo=$3
hi=$4
shift 4
cargo build --release -p db-format --example compact_level >&2
bin=${CARGO_TARGET_DIR:-target}/release/examples/compact_level
mkdir -p "$scratch"
echo "# commit $(git rev-parse --short HEAD), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# scripts/compact-sizes.sh $src $scratch $lo $hi $*"
total_in=0
total_out=0
entries=0
for ((k = lo; k <= hi; k++)); do
  f=$(ls "$src"/*-k"$(printf %03d "$k")".kdb)
  out="$scratch/$(basename "$f")"
  "$bin" "$f" "$out" "$@"
  # entry_count: header bytes 24..32, little-endian.
  entries=$((entries + $(od -An -t u8 -j 24 -N 8 "$f" | tr -d ' ')))
  total_in=$((total_in + $(stat -L -c %s "$f")))
  total_out=$((total_out + $(stat -c %s "$out")))
  rm -f "$out"
done
echo "levels $lo..=$hi: $entries entries, $total_in bytes in format 1, $total_out in format 2: $(awk -v a="$total_out" -v n="$entries" 'BEGIN {printf "%.4f", a / n}') byte/entry"

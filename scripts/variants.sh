#!/usr/bin/env bash
# Regenerates the table of results/variants.md: Kalah(m,n) start values under clockwise
# sowing (other switches default), solved in memory by solver::cyclic, with wall time and
# peak memory (GNU time). Usage: scripts/variants.sh [MxN ...]   (default: the table's sizes)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1x1 1x2 1x3 1x4 1x5 1x6 2x1 2x2 2x3 2x4 2x5 2x6 3x1 3x2 3x3 3x4 3x5 3x6 4x1 4x2 4x3 4x4 5x1 5x2 5x3 6x1 6x2)
cargo build --release --example variants -p solver >&2
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- solver || echo ' (+ uncommitted solver changes)'), $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| board | value (South − North) | positions (all levels) | same-level moves (top level) | sweeps (top level) | time | peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for s in "${sizes[@]}"; do
  log=$(mktemp)
  row=$(/usr/bin/time -v ./target/release/examples/variants "$s" 2>"$log" | tail -1)
  rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); printf "%.1f MiB", $2/1024}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
  # The example prints "| board | value | positions | moves | sweeps | time |"; swap in
  # GNU time's wall clock (process total) and add the peak resident set size.
  echo "$row" | awk -F'|' -v w="$wall" -v r="$rss" '{printf "|%s|%s|%s|%s|%s| %s | %s |\n", $2, $3, $4, $5, $6, w, r}'
  rm -f "$log"
done

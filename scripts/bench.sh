#!/usr/bin/env bash
# Runs `kalah bench` (a fixed list of positions, each value checked) and prints a Markdown
# report: command, commit, machine, then per position value, nodes, time and nodes/s.
# The node counts are the search's behaviour signature: compare them across commits.
# Usage: scripts/bench.sh [extra `kalah bench` options, e.g. --tt-mb 64]
#   scripts/bench.sh > results/bench.md
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tools >&2
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- solver tools || commit="$commit (+ uncommitted changes)"
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
log=$(mktemp)
trap 'rm -f "$log" "$log.out"' EXIT
/usr/bin/time -f '%e %M' -o "$log" ./target/release/kalah bench --quiet "$@" >"$log.out"
read -r wall rss <"$log"
echo "# kalah bench"
echo
echo "Solves a fixed list of positions (\`tools/src/cmd/bench.rs\`, \`POSITIONS\`) with a fresh"
echo "transposition table each, checks every value against the stored expected value, and"
echo "counts nodes. The node counts are a behaviour signature of the search: with the same"
echo "table size they change only when the search changes, and only on purpose."
echo
echo "- command: \`scripts/bench.sh${*:+ $*}\` (runs \`kalah bench --quiet${*:+ $*}\`; table 256 MiB unless --tt-mb is given)"
echo "- commit: $commit"
echo "- machine: $(nproc) threads ($cpu), $mem memory; single-threaded search"
echo "- whole run: ${wall} s wall clock, peak memory $((rss / 1024)) MiB"
echo
echo "| position | value | expected | nodes | time (s) | nodes/s |"
echo "|---|---:|---:|---:|---:|---:|"
awk 'NR > 1 { if ($1 == "total") printf "| **total** | | | %s | %s | %s |\n", $2, $3, $4;
             else printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$log.out"

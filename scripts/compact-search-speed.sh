#!/usr/bin/env bash
# Search speed over a database of one byte an entry against the same levels as compact
# files (format version 2): `kalah solve --pits 6 --seeds S --db DIR --threads 1 --quiet
# --json` over each directory in turn, ROUNDS times (alternating, so that both meet the
# same machine), printing each run's nodes/s and the medians and their ratio: the
# "search" figures of results/db.md, "Compact files (format version 2)". The ratio of a
# round (compact / byte, the two runs side by side) is the figure to read: other load on
# the machine moves both runs of a round alike, and the median of the rounds' ratios is
# printed last.
#
# Usage: scripts/compact-search-speed.sh BYTE_DIR COMPACT_DIR [ROUNDS [SEEDS]]
#   BYTE_DIR and COMPACT_DIR hold the same levels 0..K (e.g. `kalah db convert BYTE_DIR
#   COMPACT_DIR --max-seeds K`, and BYTE_DIR symbolic links to a byte database's files).
# KALAH=path/to/kalah uses that binary (default target/release/kalah).
set -euo pipefail
cd "$(dirname "$0")/.."
byte=$1
compact=$2
rounds=${3:-5}
seeds=${4:-4}
K=${KALAH:-target/release/kalah}
echo "# commit $(git rev-parse --short HEAD), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# kalah solve --pits 6 --seeds $seeds --db DIR --threads 1 --quiet --json, $rounds rounds"
run() {
  "$K" solve --pits 6 --seeds "$seeds" --db "$1" --threads 1 --quiet --json |
    python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["nodes"], j["db_probes"], round(j["nodes_per_second"]))'
}
b=()
c=()
r=()
for ((i = 1; i <= rounds; i++)); do
  read -r nb pb sb < <(run "$byte")
  read -r nc pc sc < <(run "$compact")
  if [ "$nb" != "$nc" ] || [ "$pb" != "$pc" ]; then
    echo "the two databases gave different searches: nodes $nb/$nc, probes $pb/$pc" >&2
    exit 1
  fi
  ratio=$(awk -v a="$sc" -v b="$sb" 'BEGIN {printf "%.3f", a / b}')
  echo "round $i: nodes $nb, database reads $pb: byte $sb nodes/s, compact $sc nodes/s, ratio $ratio"
  b+=("$sb")
  c+=("$sc")
  r+=("$ratio")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
mb=$(median "${b[@]}")
mc=$(median "${c[@]}")
echo "median: byte $mb nodes/s, compact $mc nodes/s; median of the rounds' ratios $(median "${r[@]}")"

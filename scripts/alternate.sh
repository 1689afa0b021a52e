#!/usr/bin/env bash
# Two option sets of one build compared in alternation: each round runs one whole
# `kalah solve` (Kalah(6,4) from the start, all threads) with options A, then one with
# options B, so both meet the machine of the same minute (this project's virtual machines
# swing by tens of percent within the hour). Where `scripts/paired.sh` compares two
# commits side by side on one search thread each, this compares settings whole: the
# endgame table's build, the table's faulting in and the search on two threads together.
# Prints one Markdown row per run and, at the end, the rounds B won and both medians.
#
# Usage: scripts/alternate.sh "OPTIONS A" "OPTIONS B" [ROUNDS]
#   for example: scripts/alternate.sh "--tt-mb 256" "--tt-mb 128" 5
#   default: 5 rounds; add `--capture empty` to both option sets for empty capture.
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1
b=$2
rounds=${3:-5}
# shellcheck source=scripts/timing-common.sh
source scripts/timing-common.sh
echo "- commit: $commit; machine: $(nproc) threads"
echo
echo "| round | options | value | nodes | before the search (s) | search (s) | wall (s) |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for round in $(seq "$rounds"); do
  for side in A B; do
    if [ "$side" = A ]; then opts=$a; else opts=$b; fi
    # shellcheck disable=SC2086 # the options are words on purpose
    /usr/bin/time -f '%e' -o "$out.t" "$kalah" solve --pits 6 --seeds 4 --quiet --json $opts >"$out"
    python3 - "$out" "$out.t" "$round" "$side" "$opts" "$out.walls" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
wall = open(sys.argv[2]).read().split()[-1]
rnd, side, opts, walls = sys.argv[3:7]
print(f"| {rnd} | {side}: `{opts}` | {d['value']:+d} | {d['nodes']:,} "
      f"| {d['setup_seconds']:.2f} | {d['seconds']:.2f} | {wall} |")
open(walls, "a").write(f"{side} {wall}\n")
EOF
  done
done
python3 - "$out.walls" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
a = [float(w) for s, w in rows if s == "A"]
b = [float(w) for s, w in rows if s == "B"]
wins = sum(1 for x, y in zip(a, b) if y < x)
print()
print(f"- B took less wall time than A in {wins} of {len(a)} rounds")
print(f"- median wall: A {statistics.median(a):.2f} s, B {statistics.median(b):.2f} s")
EOF

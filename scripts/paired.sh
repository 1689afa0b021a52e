#!/usr/bin/env bash
# Two commits of the solver compared side by side: each round starts one `kalah solve` of
# each build at the same moment, one search thread each, so both meet the same machine
# (this project's virtual machines vary by tens of percent from one minute to the next,
# more than most changes this compares). Prints one Markdown row per run; a change is
# worth keeping when it wins round after round, not on one run's time.
#
# Usage: scripts/paired.sh COMMIT_A COMMIT_B [ROUNDS] [standard|empty] [SOLVE OPTIONS...]
#   default: 3 rounds, standard capture; the position is Kalah(6,4)'s start. Options after
#   the capture rule go to both solves (for example `--tt-mb 256 --endgame 18`, so that
#   two commits with different defaults search the same way).
# The endgame table is built on all cores by both at once, so "before the search" is
# shared by the two runs and only comparable between them.
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1
b=$2
rounds=${3:-3}
capture=${4:-standard}
shift $(( $# < 4 ? $# : 4 ))
extra=("$@")
work=$(mktemp -d)
trap 'git worktree remove --force "$work/a" >/dev/null 2>&1 || true; git worktree remove --force "$work/b" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
for side in a b; do
  commit=${!side}
  git worktree add --detach "$work/$side" "$commit" >/dev/null 2>&1
  (cd "$work/$side" && CARGO_TARGET_DIR="$work/target-$side" cargo build --release -p tools >&2)
done
echo "| round | commit | value | nodes | before the search (s) | search (s) |"
echo "|---:|---|---:|---:|---:|---:|"
one() {
  "$work/target-$1/release/kalah" solve --pits 6 --seeds 4 --capture "$capture" --threads 1 \
    "${extra[@]}" --quiet --json >"$work/$1.json"
}
for r in $(seq "$rounds"); do
  one a &
  one b
  wait
  for side in a b; do
    python3 - "$work/$side.json" "$r" "$(git rev-parse --short "${!side}")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {d['value']:+d} | {d['nodes']:,} | {d['setup_seconds']:.2f} | {d['seconds']:.2f} |")
PY
  done
done

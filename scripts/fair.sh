#!/usr/bin/env bash
# The lists of fair starts in results/raw/fair/ (see results/fair.md): for each board and
# capture rule given, `kalah fair` on one thread (THREADS) at nice 15, its results file (every start's
# verdict, resumable: a killed run rerun goes on where it stopped) in NAME.all.txt, the
# list of fair starts in NAME.txt and its GNU time figures on stderr.
#
#   scripts/fair.sh 6x3 4x4          # both capture rules, two moved seeds
#   MOVED=1 scripts/fair.sh 6x4      # one moved seed
#   DB_STANDARD=/db/std31 DB_EMPTY=/db/empty31 scripts/fair.sh 6x4
#                                    # probing a database of each capture rule
#                                    # (`kalah db build --pits 6 --capture RULE ...`)
#   CAPTURES=empty scripts/fair.sh 6x5   # one capture rule only
#   TT_MB=4096 scripts/fair.sh 6x5       # a larger transposition table (shared by all starts)
#   THREADS=2 scripts/fair.sh 6x5        # two starts settled at once (default one)
set -euo pipefail
cd "$(dirname "$0")/.."
kalah=${KALAH_BIN:-target/release/kalah}
moved=${MOVED:-2}
out=results/raw/fair
mkdir -p "$out"
captures=${CAPTURES:-standard empty}
for size in "$@"; do
  pits=${size%x*}
  seeds=${size#*x}
  for capture in $captures; do
    name="kalah$pits$seeds-$capture-moved$moved"
    db=()
    if [[ $capture == standard && -n ${DB_STANDARD:-} ]]; then db=(--db "$DB_STANDARD"); fi
    if [[ $capture == empty && -n ${DB_EMPTY:-} ]]; then db=(--db "$DB_EMPTY"); fi
    tt=()
    if [[ -n ${TT_MB:-} ]]; then tt=(--tt-mb "$TT_MB"); fi
    echo "$name:" >&2
    /usr/bin/time -f "$name: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
      nice -n 15 "$kalah" fair --pits "$pits" --seeds "$seeds" --capture "$capture" \
      --moved "$moved" --threads "${THREADS:-1}" --quiet "${db[@]}" "${tt[@]}" --results "$out/$name.all.txt" --list \
      > "$out/$name.txt"
  done
done

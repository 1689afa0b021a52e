#!/usr/bin/env bash
# A second answer for a list of fair starts (results/raw/fair/*.txt): every N-th start of
# the list solved again by `kalah solve` from scratch, without the database the list was
# made with (its own endgame table instead), one thread. Prints one line a start and
# exits 1 if any value is not 0.
#
#   scripts/fair-check.sh results/raw/fair/kalah64-empty-moved2.txt 10   # every 10th start
#   SKIP=6 scripts/fair-check.sh LIST 10 >> CHECK   # a stopped check resumed: the first 6
#                                                   # of the starts it would solve left out
#   DB=/work/db/std31 scripts/fair-check.sh LIST 10 # each start solved over that database
#
# With DB the second answer is the exact solve (every MTD(f) test up to the value), not
# the list's zero-window tests, over a database whose checksums match the committed ones
# (results/checksums-31*.txt): another search of each start, though not one apart from
# the database. For Kalah(6,5) it cost 66 and 161 CPU s on two starts, where a solve from
# scratch costs 1,000 to 1,800 (results/fair.md).
set -euo pipefail
cd "$(dirname "$0")/.."
list=${1:?usage: scripts/fair-check.sh LIST [EVERY]}
every=${2:-1}
kalah=${KALAH_BIN:-target/release/kalah}
rules=$(sed -n 's/^# rules: Kalah(\([0-9]*\),\([0-9]*\)) capture=\([a-z]*\).*/--pits \1 --seeds \2 --capture \3/p' "$list")
[ -n "$rules" ] || { echo "$list: no '# rules:' line" >&2; exit 2; }
skip=${SKIP:-0}
db=()
if [[ -n ${DB:-} ]]; then db=(--db "$DB"); fi
bad=0
checked=0
i=0
chosen=0
while read -r moved position value; do
  i=$((i + 1))
  (( (i - 1) % every == 0 )) || continue
  chosen=$((chosen + 1))
  ((chosen > skip)) || continue
  # shellcheck disable=SC2086
  got=$(nice -n 15 "$kalah" solve $rules --position "$position" --threads 1 --quiet --json "${db[@]}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["value"])')
  checked=$((checked + 1))
  echo "$moved $position listed $value, solved $got"
  [ "$got" = 0 ] || bad=$((bad + 1))
done < <(grep -v '^#' "$list")
echo "$list: $checked starts solved again (after $skip skipped), $bad not 0"
[ "$bad" = 0 ]

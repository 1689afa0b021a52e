#!/usr/bin/env bash
# One session of the opening and fair-start campaigns under one capture rule
# (results/kalah66-opening.md, "Budget"; results/fair.md, "Not done yet"): the rule's
# 31-level one-byte database rebuilt where it is missing and checked against the committed
# checksums, then on the two cores, for at most SECONDS of wall time, the Kalah(6,6)
# proofs PROOFS (scripts/kalah66-continue.sh, records committed every 900 s and at the
# end) and the rule's Kalah(6,5) two-moved fair run (scripts/fair.sh, resumed from its
# results file), whose CPU seconds are logged every 300 s beside its results file; at
# the end the fair run is stopped and its results file and log committed.
#
#   PROOFS="6x6-standard-A3" SECOND=1 scripts/campaign.sh standard 8600
#   PROOFS="6x6-empty-A4" scripts/campaign.sh empty 8600
#
# Either part may be left out: PROOFS="" runs the fair list alone, FAIR=0 the proofs
# alone. DB: where the database is built (default /work/db/std31 or /work/db/empty31),
# linked from DBX/<rule> (default /work/dbx), the DB_DIR the continue script reads, as
# results/kalah66-opening.md names them. KALAH: the binary
# (default target/release/kalah, built if missing). SECOND, THREADS, TT_MB (default 2048;
# 3072 with SECOND) and UNIT_SECONDS (default 1800) go to the continue script; FAIR_TT_MB
# (default 1024) is the fair run's table.
set -euo pipefail
cd "$(dirname "$0")/.."
rule=${1:?usage: scripts/campaign.sh standard|empty SECONDS}
limit=${2:?usage: scripts/campaign.sh standard|empty SECONDS}
case $rule in
  standard) sums=results/checksums-31.txt name=std31 ;;
  empty) sums=results/checksums-31-empty.txt name=empty31 ;;
  *) echo "campaign.sh: unknown capture rule '$rule' (standard or empty)" >&2; exit 2 ;;
esac
KALAH=${KALAH:-target/release/kalah}
if [[ ! -x $KALAH ]]; then
  cargo build --release --locked -p tools
fi
KALAH=$(realpath "$KALAH")
db=${DB:-/work/db/$name}
dbx=${DBX:-/work/dbx}
mkdir -p "$dbx"
ln -sfn "$db" "$dbx/$rule"
start=$(date +%s)

# The database: built where missing (levels present and intact are kept), then its level
# checksums compared with the committed list, so that no damaged file answers.
nice -n 5 "$KALAH" db build --pits 6 --capture "$rule" --max-seeds 31 --format byte \
  --threads 2 --memory-gb 18 --out "$db" >&2
if ! diff <(KALAH=$KALAH scripts/checksums.sh --dir "$db" | grep -v '^#') <(grep -v '^#' "$sums") >&2; then
  echo "campaign.sh: $db differs from $sums: not used" >&2
  exit 1
fi
left=$((limit - ($(date +%s) - start)))
if ((left < 600)); then
  echo "campaign.sh: $left s left after the build, too little to start" >&2
  exit 1
fi

pids=()
if [[ -n ${PROOFS:-} ]]; then
  second=${SECOND:-}
  PROOFS=$PROOFS SECOND=$second THREADS=${THREADS:-1} KALAH=$KALAH DB_SEEDS=31 DB_READY=1 \
    DB_DIR=$dbx TT_MB=${TT_MB:-$([[ -n $second ]] && echo 3072 || echo 2048)} \
    UNIT_SECONDS=${UNIT_SECONDS:-1800} COMMIT_EVERY=900 \
    scripts/kalah66-continue.sh "$left" &
  pids+=($!)
fi

results=results/raw/fair/kalah65-$rule-moved2.all.txt
cpulog=results/raw/fair/kalah65-$rule-moved2.cpu.log
verdicts() { grep -vc '^#' "$results" || true; }
if [[ ${FAIR:-1} != 0 && -e $results ]] && (($(verdicts) < 6397)); then
  rule_db=DB_STANDARD
  [[ $rule == empty ]] && rule_db=DB_EMPTY
  env "$rule_db=$db" KALAH_BIN="$KALAH" CAPTURES="$rule" TT_MB="${FAIR_TT_MB:-1024}" \
    scripts/fair.sh 6x5 > "/tmp/campaign-fair-$rule.out" 2>&1 &
  pids+=($!)
  fair_started=1
  # The kalah fair process itself (not GNU time above it, whose arguments name it too).
  fair_pid() { pgrep -f "^$KALAH fair --pits 6 --seeds 5 --capture $rule " | head -1; }
  # Stopped with the proofs' workers, less two minutes for the last commit.
  (
    sleep "$((left - 120))"
    pid=$(fair_pid)
    [[ -z $pid ]] || kill -KILL "$pid"
  ) &
  # The CPU log, from the process's start.
  (
    sleep 30
    pid=$(fair_pid)
    [[ -n $pid ]] || exit 0
    echo "# piece started $(date -u +%Y-%m-%dT%H:%MZ) with $(verdicts) verdicts:" \
      "kalah fair process $pid (scripts/campaign.sh $rule, commit $(git rev-parse --short HEAD))" >> "$cpulog"
    while kill -0 "$pid" 2>/dev/null; do
      sleep 300
      t=$(ps -o times= -p "$pid") || break
      printf '%s %s %8s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(verdicts)" "$t" >> "$cpulog"
    done
  ) &
fi

for p in "${pids[@]}"; do
  wait "$p" || true
done
# The piece's last line: the CPU of the whole run, as GNU time counted it.
if [[ -n ${fair_started:-} ]]; then
  sed -n "s/^kalah65-$rule-moved2: \(.* s wall.*\)/$(date -u +%Y-%m-%dT%H:%M:%SZ) $(verdicts) (stopped: GNU time \1)/p" \
    "/tmp/campaign-fair-$rule.out" >> "$cpulog"
fi
if [[ -e $results ]]; then
  n=$(verdicts)
  # A killed run may leave a half-written last line: committed only when whole.
  if [[ $(tail -c1 "$results" | od -An -c | tr -d ' ') == '\n' ]]; then
    paths=("$results" "$cpulog")
    what="$n of 6,397 settled so far"
    # The list is written when the run has settled every start.
    if ((n == 6397)) && [[ -s ${results%.all.txt}.txt ]]; then
      paths+=("${results%.all.txt}.txt")
      what="all 6,397 settled, the list"
    fi
    git add -- "${paths[@]}"
    git diff --cached --quiet -- "${paths[@]}" ||
      git commit -q -m "results/raw/fair: Kalah(6,5) $rule two moved seeds, $what" -- "${paths[@]}"
  else
    echo "campaign.sh: $results ends in a partial line; commit it by hand" >&2
  fi
fi

#!/usr/bin/env bash
# Regenerates results/variant-tables.md and .csv: the value of the start position of
# Kalah(m,n) with one rule switch changed from the defaults (standard capture, single
# counter-clockwise sowing, opponent's store skipped, end when either row is empty, each
# player keeps their own side's seeds), one table per switch:
#   relay      --sowing relay (capture none, the relay default)
#   oppstore   --opp-store sow
#   emptier    --remaining emptier
#   discard    --remaining discard
#   cw         --direction cw (the cyclic retrograde solver; sizes as far as results/variants.md)
# Each case is one `kalah solve --pits M --seeds N SWITCH --tt-mb MB --threads T --json --quiet`
# under `timeout` (the per-case limit) and GNU time; its command, JSON output and time are
# kept in results/raw/variants/. Boards are run smallest first; once a board of a switch
# is stopped at the limit, the larger boards of that switch (more pits and seeds) are
# listed as not run.
#
# Usage: scripts/variant-tables.sh [--max-seconds N] [--tt-mb MB] [--threads T] [--nice N]
#                                  [--reuse] [--switches "relay oppstore ..."] [--boards "MxN ..."]
#   --reuse  keep a stored run that finished and whose .cmd is exactly this run's command
set -euo pipefail
cd "$(dirname "$0")/.."
max=600
tt=1024
threads=2
nice=0
reuse=0
switches="relay oppstore emptier discard cw"
boards="1x1 1x2 1x3 1x4 1x5 1x6 2x1 2x2 2x3 2x4 2x5 2x6 3x1 3x2 3x3 3x4 3x5 3x6 4x1 4x2 4x3 4x4 4x5 4x6 5x1 5x2 5x3 5x4 5x5 5x6 6x1 6x2 6x3 6x4 6x5"
# Clockwise: the sizes of results/variants.md (the cyclic solver holds every level in memory).
cw_boards="1x1 1x2 1x3 1x4 1x5 1x6 2x1 2x2 2x3 2x4 2x5 2x6 3x1 3x2 3x3 3x4 3x5 3x6 4x1 4x2 4x3 4x4 5x1 5x2 6x1"
user_boards=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-seconds) max=$2; shift 2 ;;
    --tt-mb) tt=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    --reuse) reuse=1; shift ;;
    --switches) switches=$2; shift 2 ;;
    --boards) user_boards=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
cargo build --release -p tools >&2
K=./target/release/kalah
raw=results/raw/variants
mkdir -p "$raw"
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- solver tools || commit="$commit (+ uncommitted changes)"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)

flags() { # switch -> the kalah options
  case "$1" in
    relay) echo "--sowing relay" ;;
    oppstore) echo "--opp-store sow" ;;
    emptier) echo "--remaining emptier" ;;
    discard) echo "--remaining discard" ;;
    cw) echo "--direction cw" ;;
    *) echo "unknown switch $1" >&2; exit 2 ;;
  esac
}
title() {
  case "$1" in
    relay) echo "Relay sowing (\`--sowing relay\`; no captures, the relay default)" ;;
    oppstore) echo "Sowing into the opponent's store (\`--opp-store sow\`)" ;;
    emptier) echo "Remaining seeds to the player whose row is empty (\`--remaining emptier\`)" ;;
    discard) echo "Remaining seeds count for nobody (\`--remaining discard\`)" ;;
    cw) echo "Clockwise sowing (\`--direction cw\`)" ;;
  esac
}
json_field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
signed() { if [ "$1" -gt 0 ]; then echo "+$1"; else echo "$1"; fi; }

csv=results/variant-tables.csv
echo "switch,pits,seeds,value,status,seconds,wall_seconds,peak_mib" >"$csv"
md=$(mktemp)
trap 'rm -f "$md"' EXIT
for sw in $switches; do
  list=$boards; [ "$sw" = cw ] && list=$cw_boards
  [ -n "$user_boards" ] && list=$user_boards
  stopped=""
  {
    echo "## $(title "$sw")"
    echo
    echo "| board | value | time (s) | peak memory (MiB) |"
    echo "|---|---:|---:|---:|"
  } >>"$md"
  for b in $list; do
    m=${b%x*}; n=${b#*x}
    f="$raw/$sw-$m-$n"
    args="solve --pits $m --seeds $n $(flags "$sw") --tt-mb $tt --threads $threads --json --quiet"
    # Larger than a board already stopped at the limit (at least as many pits and seeds).
    skip=""
    for s in $stopped; do
      if [ "$m" -ge "${s%x*}" ] && [ "$n" -ge "${s#*x}" ]; then skip=$s; fi
    done
    if [ -n "$skip" ]; then
      echo "$sw,$m,$n,,not run (Kalah(${skip%x*},${skip#*x}) reached the limit),,," >>"$csv"
      echo "| Kalah($m,$n) | not run (Kalah(${skip%x*},${skip#*x}) reached the $max s limit) | | |" >>"$md"
      continue
    fi
    if ! { [ "$reuse" = 1 ] && [ "$(cat "$f.cmd" 2>/dev/null)" = "kalah $args" ] && grep -q '^ok' "$f.time" 2>/dev/null; }; then
      echo "$sw Kalah($m,$n)" >&2
      echo "kalah $args" >"$f.cmd"
      rc=0
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %M' -o "$f.t" timeout "$max" nice -n "$nice" $K $args >"$f.json" 2>"$f.err" || rc=$?
      st=ok; if [ $rc = 124 ] || [ $rc = 137 ]; then st=timeout; elif [ $rc != 0 ]; then st=failed; fi
      echo "$st $(tail -1 "$f.t") $max" >"$f.time"; rm -f "$f.t"
    fi
    read -r st wall kib lim <"$f.time"
    mib=$((kib / 1024))
    if [ "$st" = ok ] && [ "$(json_field proved <"$f.json")" = true ]; then
      v=$(json_field value <"$f.json")
      secs=$(awk -v a="$(json_field seconds <"$f.json")" -v b="$(json_field setup_seconds <"$f.json")" 'BEGIN { printf "%.1f", a + b }')
      echo "$sw,$m,$n,$v,exact,$secs,$wall,$mib" >>"$csv"
      echo "| Kalah($m,$n) | $(signed "$v") | $wall | $mib |" >>"$md"
    elif [ "$st" = timeout ]; then
      stopped="$stopped $b"
      echo "$sw,$m,$n,,not solved (limit $lim s),,$wall,$mib" >>"$csv"
      echo "| Kalah($m,$n) | not solved (limit $lim s) | | |" >>"$md"
    else
      why=$(tail -1 "$f.err" | tr '|' '/')
      echo "$sw,$m,$n,,failed,,$wall,$mib" >>"$csv"
      echo "| Kalah($m,$n) | failed: $why | | |" >>"$md"
    fi
  done
  echo >>"$md"
done
{
  echo "# Kalah(m,n) under one changed rule switch"
  echo
  echo "The value of the start position (the final margin, South, the first player, minus"
  echo "North, with perfect play) with one switch changed from the defaults of"
  echo "\`results/values.md\` (standard capture, single counter-clockwise sowing, the opponent's"
  echo "store skipped, the game ends when either row is empty, each player keeps the seeds on"
  echo "their own side). Every value shown is exact (the solver's \`proved\` is true); a board"
  echo "stopped at the limit says so, and the larger boards of its switch were not run."
  echo
  echo "- command: \`scripts/variant-tables.sh --max-seconds $max --tt-mb $tt --threads $threads$([ "$reuse" = 1 ] && echo " --reuse")\`,"
  echo "  one \`kalah solve --pits M --seeds N SWITCH --tt-mb $tt --threads $threads --json --quiet\` per case"
  echo "  under \`timeout $max\` (the per-case limit) and \`/usr/bin/time -f '%e %M'\`; each case's exact"
  echo "  command, JSON output and time in \`results/raw/variants/SWITCH-M-N.*\`"
  echo "- commit: $commit; machine: $(nproc) threads ($cpu), $mem memory, shared with other jobs"
  echo "- time: wall clock of the whole process; peak memory: maximum resident set size"
  echo "- clockwise sowing can cycle; \`kalah solve --direction cw\` solves it with the cyclic"
  echo "  retrograde solver (\`results/variants.md\`), so its sizes stop where that table's do"
  echo
  cat "$md"
} >results/variant-tables.md

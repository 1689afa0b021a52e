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
#   --reuse  keep a stored run whose .cmd is exactly this run's command and that finished
#            (or was stopped at a limit at least --max-seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tables-common.sh
table_defaults 600 1024
switches="relay oppstore emptier discard cw"
boards="1x1 1x2 1x3 1x4 1x5 1x6 2x1 2x2 2x3 2x4 2x5 2x6 3x1 3x2 3x3 3x4 3x5 3x6 4x1 4x2 4x3 4x4 4x5 4x6 5x1 5x2 5x3 5x4 5x5 5x6 6x1 6x2 6x3 6x4 6x5"
# Clockwise: the sizes of results/variants.md (the cyclic solver holds every level in memory).
cw_boards="1x1 1x2 1x3 1x4 1x5 1x6 2x1 2x2 2x3 2x4 2x5 2x6 3x1 3x2 3x3 3x4 3x5 3x6 4x1 4x2 4x3 4x4 5x1 5x2 6x1"
user_boards=""
table_options "--switches switches --boards user_boards" "$@"
tables_setup
raw=results/raw/variants
mkdir -p "$raw"

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

csv=results/variant-tables.csv
echo "switch,pits,seeds,value,status,seconds,wall_seconds,peak_mib" >"$csv"
other_limits=""
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
    # Reused: a stored run of this command that finished, or that was stopped at a limit at
    # least this run's (it would be stopped again).
    stored=0
    if [ "$reuse" = 1 ] && [ "$(cat "$f.cmd" 2>/dev/null)" = "kalah $args" ] && [ -f "$f.time" ]; then
      read -r st _ _ lim <"$f.time"
      if [ "$st" = ok ] || { [ "$st" = timeout ] && [ "${lim:-0}" -ge "$max" ]; }; then stored=1; fi
    fi
    if [ "$stored" = 0 ]; then
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
    if [ "$lim" != "$max" ]; then other_limits="$other_limits${other_limits:+, }$sw Kalah($m,$n): $lim s"; fi
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
  [ -n "$other_limits" ] && echo "- stored runs made under another per-case limit: $other_limits"
  [ "$reuse" = 1 ] && echo "- \`--reuse\`: stored runs read from \`results/raw/variants/\` where their command matches (each case's \`.time\` holds status, wall seconds, peak KiB and its limit)"
  echo "- commit: $commit; machine: $(nproc) threads ($cpu), $mem memory, shared with other jobs"
  echo "- time: wall clock of the whole process; peak memory: maximum resident set size"
  echo "- clockwise sowing can cycle; \`kalah solve --direction cw\` solves it with the cyclic"
  echo "  retrograde solver (\`results/variants.md\`), so its sizes stop where that table's do"
  if grep -q '^cw,' "$csv"; then
    # Clockwise values against results/variants.md (the cyclic solver's own example program).
    same=0 diff=0 list=""
    while IFS=, read -r _ m n v _; do
      [ -n "$v" ] || continue
      w=$(awk -F'|' -v b="Kalah($m,$n)" 'index($2, b) > 0 { gsub(/[ +]/, "", $3); print $3; exit }' results/variants.md)
      [ -n "$w" ] || continue
      if [ "$w" = "$v" ]; then same=$((same + 1)); else diff=$((diff + 1)); list="$list Kalah($m,$n)"; fi
    done < <(grep '^cw,' "$csv")
    echo "- clockwise check: $same values equal those of \`results/variants.md\` (\`scripts/variants.sh\`, the"
    echo "  cyclic solver's example program)$([ "$diff" -gt 0 ] && echo "; DIFFERENT:$list")"
  fi
  echo
  cat "$md"
} >results/variant-tables.md

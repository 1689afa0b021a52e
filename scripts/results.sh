#!/usr/bin/env bash
# Regenerates results/: values.csv and values.md (every Kalah(m,n), m,n = 1..6, both capture
# rules, both end rules), strategy.md (first moves, whole first turns and the pie rule of
# Kalah(6,4) and Kalah(6,5)) and bench.md (scripts/bench.sh).
#
# Usage: scripts/results.sh [--max-seconds N] [--tt-mb MB] [--only values|strategy|bench]
#   --max-seconds N  stop each case after N seconds (GNU timeout); a stopped case is
#                    listed as "not solved (limit N s)" / "not yet run (limit N s)".
#                    Default 60. The strategy runs need hours for Kalah(6,5): give a
#                    large limit (e.g. --max-seconds 86400 --only strategy) to produce them.
#   --tt-mb MB       transposition table per solve (default 1024)
#   --only PART      regenerate one file group only
set -euo pipefail
cd "$(dirname "$0")/.."
max=60
tt=1024
only=all
while [ $# -gt 0 ]; do
  case "$1" in
    --max-seconds) max=$2; shift 2 ;;
    --tt-mb) tt=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
cargo build --release -p tools >&2
K=./target/release/kalah
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- solver tools || commit="$commit (+ uncommitted changes)"
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
machine="$(nproc) threads ($cpu), $mem memory; every solve single-threaded"

# run OUT -- CMD...: run CMD under `timeout $max` and GNU time; stdout to OUT, and
# "status seconds peak_kib" to OUT.time (status: ok, timeout or failed).
run() {
  local out=$1; shift 2
  local rc=0
  /usr/bin/time -f '%e %M' -o "$out.t" timeout "$max" "$@" >"$out" 2>"$out.err" || rc=$?
  local status=ok
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=timeout; elif [ "$rc" != 0 ]; then status=failed; fi
  # GNU time prints "Command exited with non-zero status" first when rc != 0.
  echo "$status $(tail -1 "$out.t")" >"$out.time"
}

# json_field KEY < json: a number or string field of a one-line JSON object.
json_field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }

published() { # pits seeds capture -> published value or empty (default end rule only)
  awk -v m="$1" -v n="$2" -v c="$3" '!/^#/ && NF == 5 && $1 == m && $2 == n && $3 == c {v=$4; sub(/^\+/, "", v); print v}' tools/data/published.txt
}

signed() { if [ "$1" -gt 0 ]; then echo "+$1"; else echo "$1"; fi; }

values() {
  local start=$SECONDS csv=results/values.csv
  echo "pits,seeds,capture,end,value,status,seconds,nodes,peak_mib" >"$csv"
  local rows=()
  for capture in standard empty; do
    for end in either mover; do
      for m in 1 2 3 4 5 6; do
        for n in 1 2 3 4 5 6; do
          local f="$tmp/v-$m-$n-$capture-$end"
          echo "Kalah($m,$n) capture=$capture end=$end" >&2
          run "$f" -- $K solve --pits "$m" --seeds "$n" --capture "$capture" --end "$end" --tt-mb "$tt" --json --quiet
          read -r st wall kib <"$f.time"
          local mib=$((kib / 1024))
          if [ "$st" = ok ]; then
            local v nodes secs pub status
            v=$(json_field value <"$f"); nodes=$(json_field nodes <"$f")
            # The search's time plus the time before it (the endgame table's build).
            secs=$(awk -v a="$(json_field seconds <"$f")" -v b="$(json_field setup_seconds <"$f")" 'BEGIN { printf "%.3f", a + b }')
            pub=""; [ "$end" = either ] && pub=$(published "$m" "$n" "$capture")
            if [ -z "$pub" ]; then status=new
            elif [ "$pub" = "$v" ]; then status=confirmed
            else status="DISAGREES (published $(signed "$pub"))"; fi
            echo "$m,$n,$capture,$end,$v,$status,$secs,$nodes,$mib" >>"$csv"
            rows+=("| Kalah($m,$n) | $capture | $end | $(signed "$v") | $status | $secs | $nodes | $mib |")
          else
            local why="not solved (limit $max s)"; [ "$st" = failed ] && why="failed: $(tail -1 "$f.err")"
            echo "$m,$n,$capture,$end,,$why,,," >>"$csv"
            rows+=("| Kalah($m,$n) | $capture | $end | | $why | | | |")
          fi
        done
      done
    done
  done
  {
    echo "# Values of Kalah(m,n)"
    echo
    echo "The value of the start position of every Kalah(m,n), m, n = 1..6, under standard and"
    echo "empty capture and both end rules: the final margin, South's (the first player's)"
    echo "store minus North's at the end of perfect play. Other switches: single"
    echo "counter-clockwise sowing, the opponent's store skipped, each player keeps the seeds on"
    echo "their own side at the end. End rules: \`either\` (the default: the game ends as soon as"
    echo "either row is empty) and \`mover\` (only when the player to move has an empty row)."
    echo
    echo "Status: **confirmed** equals the published value (\`tools/data/published.txt\`: Irving,"
    echo "Donkers & Uiterwijk 2000 for empty capture; Rawlings 2015 for standard capture, both"
    echo "with end rule \`either\`); **new** has no published value to compare with; **not solved**"
    echo "was stopped at the time limit, and its value is not given."
    echo
    echo "- command: \`scripts/results.sh --max-seconds $max --tt-mb $tt\` (one"
    echo "  \`kalah solve --pits M --seeds N --capture C --end E --tt-mb $tt --json --quiet\` per case,"
    echo "  under \`timeout $max\` and \`/usr/bin/time -f '%e %M'\`)"
    echo "- commit: $commit"
    echo "- machine: $machine"
    echo "- whole table: $((SECONDS - start)) s wall clock; peak memory per case in the last column"
    echo "- time (s) is the solve's own time, the endgame table's build included; peak memory (MiB) is the process's maximum resident set"
    echo "  size (the transposition table is touched only where used). Same data: \`results/values.csv\`"
    echo
    echo "| board | capture | end | value | status | time (s) | nodes | peak memory (MiB) |"
    echo "|---|---|---|---:|---|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
  } >results/values.md
}

strategy() {
  local start=$SECONDS
  {
    echo "# First moves, first turns and the pie rule of Kalah(6,4) and Kalah(6,5)"
    echo
    echo "Every value is a final margin, South (the opener) minus North, with perfect play"
    echo "after the move or turn shown. A whole first turn includes the free moves (a last seed"
    echo "in the own store moves again). Pie rule: after the opener's first turn North may swap"
    echo "sides; North swaps when the opener's margin is positive, so the opener chooses the"
    echo "turn of smallest |margin|, and the pie value is the opener's margin under the pie rule."
    echo
    echo "- command: \`scripts/results.sh --max-seconds $max --tt-mb $tt --only strategy\`, which runs"
    echo "  \`kalah moves --pits 6 --seeds N --capture C\` and"
    echo "  \`kalah solve --pits 6 --seeds N --capture C --pie --json\` for each game, each under"
    echo "  \`timeout $max\` and \`/usr/bin/time\`. A run stopped at the limit is marked \"not yet run\"."
    if [ -n "${STRATEGY_DB:-}" ]; then
      echo "- databases: \`STRATEGY_DB=$STRATEGY_DB\`; each run probes \`--db $STRATEGY_DB/<capture>\` where"
      echo "  present: $(for c in standard empty; do [ -d "$STRATEGY_DB/$c" ] && echo "$c: levels 0..=$(ls "$STRATEGY_DB/$c" | grep -c kdb | awk '{print $1-1}')"; done | paste -sd ';' -)"
    fi
    local envs
    envs=$(env | grep '^STRATEGY_' | sort | paste -sd ' ' - || true)
    [ -n "$envs" ] && echo "- environment: \`$envs\`"
    echo "- threads: \`--threads ${STRATEGY_THREADS:-(all cores)}\`: each search splits its larger nodes between the threads, sharing one table"
    echo "- commit: $commit"
    echo "- machine: ${machine%%;*}"
    echo
  } >"$tmp/strategy.md"
  # STRATEGY_GAMES (e.g. "4x3") replaces the two games, to try the script quickly.
  # STRATEGY_DB=DIR: probe the databases DIR/<capture> (from `kalah db build`) where present.
  # STRATEGY_PIE=0: first moves only (the pie rule needs a solve per whole first turn).
  # STRATEGY_THREADS=N: search threads (default: all cores).
  # STRATEGY_OUT=FILE: write FILE instead of results/strategy.md.
  # STRATEGY_CAPTURES (e.g. "empty") replaces the two capture rules.
  for game in ${STRATEGY_GAMES:-6x4 6x5}; do
    local p=${game%x*} n=${game#*x}
    for capture in ${STRATEGY_CAPTURES:-standard empty}; do
      local f="$tmp/m-$n-$capture" g="$tmp/p-$n-$capture" db=()
      if [ -n "${STRATEGY_DB:-}" ] && [ -d "$STRATEGY_DB/$capture" ]; then
        db=(--db "$STRATEGY_DB/$capture")
      fi
      echo "Kalah($p,$n) capture=$capture: moves" >&2
      run "$f" -- $K moves --pits "$p" --seeds "$n" --capture "$capture" --tt-mb "$tt" "${db[@]}" \
        ${STRATEGY_THREADS:+--threads "$STRATEGY_THREADS"} --json --quiet
      if [ "${STRATEGY_PIE:-1}" = 1 ]; then
        echo "Kalah($p,$n) capture=$capture: pie" >&2
        run "$g" -- $K solve --pits "$p" --seeds "$n" --capture "$capture" --tt-mb "$tt" "${db[@]}" --pie \
          ${STRATEGY_THREADS:+--threads "$STRATEGY_THREADS"} --json --quiet
      else
        echo "skipped 0 0" >"$g.time"
      fi
      {
        echo "## Kalah($p,$n), $capture capture"
        echo
        read -r st wall kib <"$f.time"
        if [ "$st" = ok ]; then
          echo "First moves (\`kalah moves\`: $wall s, peak memory $((kib / 1024)) MiB):"
          echo
          echo "| move | final margin |"
          echo "|---|---:|"
          while read -r line; do
            echo "| $(json_field move <<<"$line") | $(signed "$(json_field value <<<"$line")") |"
          done <"$f"
        else
          echo "First moves: not yet run (limit $max s)."
        fi
        echo
        read -r st wall kib <"$g.time"
        if [ "$st" = ok ]; then
          # The turns hold "value" keys too: read the game's own after removing them.
          echo "Value of the game: $(signed "$(sed 's/"turns":\[[^]]*\]//' "$g" | json_field value)"); under the pie rule:"
          echo "$(signed "$(json_field pie_value <"$g")") for the opener (\`kalah solve --pie\`: $wall s, peak memory $((kib / 1024)) MiB)."
          echo
          echo "| whole first turn | final margin | North |"
          echo "|---|---:|---|"
          grep -o '"turns":\[.*\]' "$g" | sed 's/^"turns":\[//; s/\]$//; s/},{/}\n{/g' | while read -r t; do
            local sw=keeps; [ "$(json_field swap <<<"$t")" = true ] && sw=swaps
            echo "| $(json_field turn <<<"$t") | $(signed "$(json_field value <<<"$t")") | $sw |"
          done
        elif [ "$st" = skipped ]; then
          echo "Whole first turns and pie rule: not run (\`STRATEGY_PIE=0\`)."
        else
          echo "Whole first turns and pie rule: not yet run (limit $max s)."
        fi
        echo
      } >>"$tmp/strategy.md"
    done
  done
  echo "Whole file: $((SECONDS - start)) s wall clock." >>"$tmp/strategy.md"
  cp "$tmp/strategy.md" "${STRATEGY_OUT:-results/strategy.md}"
}

case "$only" in
  values) values ;;
  strategy) strategy ;;
  bench) scripts/bench.sh >results/bench.md ;;
  all) values; strategy; scripts/bench.sh >results/bench.md ;;
  *) echo "--only: values, strategy or bench" >&2; exit 2 ;;
esac

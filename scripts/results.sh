#!/usr/bin/env bash
# Regenerates results/: values.csv, values.md and values.svg (every Kalah(m,n), m,n = 1..6
# but (6,6), both capture rules, both end rules, with a database cross-check of the small
# boards), strategy.md (first moves, whole first turns and the pie rule of Kalah(6,3),
# (6,4) and (6,5)) and bench.md (scripts/bench.sh). The variant tables have their own
# script, scripts/variant-tables.sh.
#
# Usage: scripts/results.sh [--max-seconds N] [--tt-mb MB] [--threads T] [--nice N] [--reuse]
#                           [--only values|strategy|bench]
#   --max-seconds N  stop each case after N seconds (GNU timeout), the per-case limit; a
#                    stopped case is listed as "not solved (limit N s)" / "not yet run
#                    (limit N s)". Default 2400, which every values case below Kalah(6,6)
#                    meets on 2 cores (Kalah(6,5) standard, the longest, takes minutes).
#                    The strategy runs need hours for Kalah(6,5): give a large limit
#                    (e.g. --max-seconds 86400 --only strategy) to produce them.
#   --tt-mb MB       transposition table per solve (default 2048)
#   --threads T      search threads per solve (default 2)
#   --nice N         run each solve under `nice -n N` (default 0)
#   --reuse          values: keep a case's stored run in results/raw/values/ when it finished
#                    and its .cmd is exactly the command this run would give; run the others
#   --boards "MxN ..."  values: run only these boards; the others come from their stored
#                    runs (as --reuse) or are listed as "not run"
#   --only PART      regenerate one file group only
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tables-common.sh
table_defaults 2400 2048
boards=""
only=all
table_options "--boards boards --only only" "$@"
reuse_flag=""
[ "$reuse" = 0 ] || reuse_flag=" --reuse"
tables_setup
mkdir -p results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

machine="$(nproc) threads ($cpu), $mem memory; every solve single-threaded"
[ "$only" = values ] && machine="$(nproc) threads ($cpu), $mem memory"

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

published() { # pits seeds capture -> published value or empty (default end rule only)
  awk -v m="$1" -v n="$2" -v c="$3" '!/^#/ && NF == 5 && $1 == m && $2 == n && $3 == c {v=$4; sub(/^\+/, "", v); print v}' tools/data/published.txt
}

# The command of one values case, without the program name: the exact arguments that
# results/raw/values/<case>.cmd records for a stored run.
values_args() { # m n capture end
  echo "solve --pits $1 --seeds $2 --capture $3 --end $4 --tt-mb $tt --threads $threads --json --quiet"
}

# published66 capture end: the published value or bound of Kalah(6,6), from the rules text of
# the seeds (Rawlings 2015), or empty. What is proved here is proved66's.
published66() {
  if [ "$2" != either ]; then return; fi
  case "$1" in
    standard) echo "published: at least +4 (Rawlings 2015)" ;;
    empty) echo "published: +2 (Rawlings 2015)" ;;
  esac
}

# proved66 capture end: "LO HI" (each signed), the bounds on Kalah(6,6)'s margin that the
# proof in results/proofs/6x6-<capture> has proved so far (`kalah prove DIR --status
# --json`; LO = HI once the value is proved), or empty where there is no such proof (the
# end rule `mover` has none).
proved66() {
  local d=results/proofs/6x6-$1
  if [ "$2" != either ] || [ ! -f "$d/proof.txt" ]; then return; fi
  local b
  b=$($K prove "$d" --status --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["margin_at_least"], d["margin_at_most"])')
  set -- $b
  echo "$(signed "$1") $(signed "$2")"
}

values() {
  local csv=results/values.csv raw=results/raw/values total_wall=0 reused=0 ran=0 other_limits=""
  mkdir -p "$raw"
  echo "pits,seeds,capture,end,value,status,seconds,wall_seconds,nodes,peak_mib,db_check" >"$csv"
  local rows=()
  for capture in standard empty; do
    for end in either mover; do
      for m in 1 2 3 4 5 6; do
        for n in 1 2 3 4 5 6; do
          if [ "$m$n" = 66 ]; then
            local pub b lo hi dir="results/proofs/6x6-$capture" value="" status=open
            pub=$(published66 "$capture" "$end")
            b=$(proved66 "$capture" "$end")
            if [ -n "$b" ]; then
              lo=${b% *} hi=${b#* }
              if [ "$lo" = "$hi" ]; then
                value=$lo status="proved here ($dir)"
              else
                status="open: proved here $lo <= margin <= $hi (bounds; $dir)"
              fi
            fi
            status="$status${pub:+; $pub}"
            echo "6,6,$capture,$end,${value#+},$status,,,,," >>"$csv"
            rows+=("| Kalah(6,6) | $capture | $end | $value | $status | | | | | |")
            continue
          fi
          local f="$raw/$m-$n-$capture-$end" args
          args=$(values_args "$m" "$n" "$capture" "$end")
          # A stored run is reused (--reuse) only if it ran exactly this command and finished.
          local stored=0
          [ -f "$f.time" ] && [ "$(cat "$f.cmd" 2>/dev/null)" = "kalah $args" ] && grep -q '^ok' "$f.time" && stored=1
          if { [ "$reuse" = 1 ] || [ -n "$boards" ]; } && [ "$stored" = 1 ]; then
            reused=$((reused + 1))
          elif [ -n "$boards" ] && ! [[ " $boards " == *" ${m}x$n "* ]]; then
            echo "$m,$n,$capture,$end,,not run,,,,," >>"$csv"
            rows+=("| Kalah($m,$n) | $capture | $end | | not run | | | | | |")
            continue
          else
            echo "Kalah($m,$n) capture=$capture end=$end" >&2
            echo "kalah $args" >"$f.cmd"
            # shellcheck disable=SC2086
            run "$f.out" -- nice -n "$nice" $K $args
            mv "$f.out" "$f.json"; mv "$f.out.time" "$f.time"; mv "$f.out.err" "$f.err"; rm -f "$f.out.t"
            ran=$((ran + 1))
          fi
          local lim
          read -r st wall kib lim <"$f.time"
          # A stored run records its own limit (4th field) when it ran under another one.
          if [ -n "$lim" ] && [ "$lim" != "$max" ]; then
            other_limits="$other_limits${other_limits:+, }Kalah($m,$n) $capture $end: $lim s"
          fi
          local mib=$((kib / 1024)) check=""
          [ -f "$tmp/db-$m-$n-$capture-$end" ] && check=$(cat "$tmp/db-$m-$n-$capture-$end")
          total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN { printf "%.1f", a + b }')
          if [ "$st" = ok ]; then
            local v nodes secs pub status
            v=$(json_field value <"$f.json"); nodes=$(json_field nodes <"$f.json")
            # The search's time plus the time before it (the endgame table's build).
            secs=$(awk -v a="$(json_field seconds <"$f.json")" -v b="$(json_field setup_seconds <"$f.json")" 'BEGIN { printf "%.2f", a + b }')
            pub=""; [ "$end" = either ] && pub=$(published "$m" "$n" "$capture")
            if [ -z "$pub" ]; then status=new
            elif [ "$pub" = "$v" ]; then status=confirmed
            else status="DISAGREES (published $(signed "$pub"))"; fi
            if [ -n "$check" ] && [ "$check" != "$v" ]; then check="DISAGREES: database $(signed "$check")"
            elif [ -n "$check" ]; then check="agrees"; fi
            echo "$m,$n,$capture,$end,$v,$status,$secs,$wall,$nodes,$mib,$check" >>"$csv"
            rows+=("| Kalah($m,$n) | $capture | $end | $(signed "$v") | $status | $secs | $wall | $nodes | $mib | $check |")
          else
            local why="not solved (limit $max s)"; [ "$st" = failed ] && why="failed: $(tail -1 "$f.err")"
            echo "$m,$n,$capture,$end,,$why,,$wall,,$mib,$check" >>"$csv"
            rows+=("| Kalah($m,$n) | $capture | $end | | $why | | $wall | | $mib | $check |")
          fi
        done
      done
    done
  done
  python3 scripts/plot-values.py results/values.csv results/values.svg >&2 || echo "plot failed" >&2
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
    echo "with end rule \`either\`); **new** has no published value to compare with (no table of"
    echo "standard-capture values below Kalah(6,4), and none for the \`mover\` end rule, has been"
    echo "published); **not solved** was stopped at the time limit, and its value is not given."
    echo "Kalah(6,6) is not run by \`kalah solve\` here: its \`either\` rows carry what the proofs in"
    echo "\`results/proofs/\` have proved (the value once their bounds meet, the bounds before;"
    echo "\`kalah prove DIR --status\`; \`results/kalah66.md\`) beside the published figures,"
    echo "labelled as such (the rules text of the seeds: standard capture at least +4, empty"
    echo "capture +2, Rawlings 2015); its \`mover\` rows are **open** (no proof has been run)."
    echo
    echo "![Value of Kalah(m,n) against n](values.svg)"
    echo
    echo "(\`scripts/plot-values.py results/values.csv results/values.svg\`: one panel per capture"
    echo "and end rule, one line per pit count m; Kalah(6,6) is drawn where a proof gives its value,"
    echo "its open cases are gaps.)"
    echo
    echo "- command: \`scripts/results.sh --only values --max-seconds $max --tt-mb $tt --threads $threads${reuse_flag}${boards:+ --boards \"$boards\"}\`:"
    echo "  one \`kalah $(values_args M N C E)\` per case"
    echo "  (the exact command of each case in \`results/raw/values/M-N-C-E.cmd\`, its JSON output"
    echo "  in \`.json\`), under \`timeout $max\` (the per-case limit) and \`/usr/bin/time -f '%e %M'\`,"
    echo "  at \`nice -n $nice\` (the runs made before the table, Kalah(5,5), (5,6), (6,4) and (6,5):"
    echo "  \`nice -n 10\`), one case at a time"
    [ -n "$other_limits" ] && echo "- stored runs made under another per-case limit: $other_limits"
    [ "$reused" -gt 0 ] && echo "- $reused cases were read from the stored runs in \`results/raw/values/\` (each made by exactly the command in its \`.cmd\`), $ran were run now"
    echo "- commit: $commit"
    if [ "$ran" = 0 ]; then
      # Every figure is a stored run's: this machine measured none of them.
      echo "- machine: the stored runs' (\`git log results/raw/values/\` names the commits that made"
      echo "  them, and the values.md of those commits their machine), shared with other jobs (so"
      echo "  times are upper bounds); this regeneration, on ${machine%%;*}, ran no case"
    else
      echo "- machine: ${machine%%;*}, shared with other jobs (so times are upper bounds)"
    fi
    echo "- time (s): the solve's own time, the endgame table's build included; wall (s): the whole"
    echo "  process (GNU time), $total_wall s over all cases; peak memory (MiB): the process's"
    echo "  maximum resident set size. Same data: \`results/values.csv\`"
    echo "- database check: where every level up to the board's 2mn seeds fits in a few seconds'"
    echo "  build (m = 1, 2, 3: all boards; m = 4: n <= 3; m = 5: n <= 2; m = 6: n = 1), the start"
    echo "  position's value was read from a database (\`kalah db build --pits M --max-seeds 2mn"
    echo "  --capture C --end E\`, then \`kalah db probe --position <start>\`): retrograde analysis of"
    echo "  every level up to the start position's, where the search reaches the value by MTD(f)"
    echo "  from the start (its in-memory endgame table, built by the same retrograde code, covers"
    echo "  only the levels up to half the seeds less 6). \"agrees\": the two values are equal. Both end rules were solved (and database-checked) separately. Their"
    echo "  start values need not agree: play reaches positions where only the player not to move"
    echo "  has an empty row, which end the game under \`either\` and not under \`mover\` (they agree"
    echo "  in $(awk -F, 'NR > 1 && $5 != "" { v[$1","$2","$3","$4] = $5 } END { for (k in v) { split(k, a, ","); if (a[4] == "either") { o = a[1]","a[2]","a[3]",mover"; if (o in v) { t++; if (v[o] == v[k]) s++ } } } print s + 0 " of " t + 0 }' "$csv") board and capture pairs)."
    echo
    echo "| board | capture | end | value | status | time (s) | wall (s) | nodes | peak memory (MiB) | database check |"
    echo "|---|---|---|---:|---|---:|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
  } >results/values.md
}

# Database cross-check of the start position: writes $tmp/db-M-N-C-E holding the value.
dbcheck() {
  local limits="1:12 2:24 3:36 4:24 5:20 6:12"
  for capture in standard empty; do
    for end in either mover; do
      for ml in $limits; do
        local m=${ml%:*} k=${ml#*:} d="$tmp/db/m$ml-$capture-$end"
        echo "database m=$m k<=$k capture=$capture end=$end" >&2
        nice -n "$nice" $K db build --pits "$m" --max-seeds "$k" --capture "$capture" --end "$end" --out "$d" --no-timings >/dev/null
        for n in 1 2 3 4 5 6; do
          [ $((2 * m * n)) -le "$k" ] || continue
          local row; row=$(printf "$n,%.0s" $(seq "$m") | sed 's/,$//')
          $K db probe --db "$d" --pits "$m" --position "$row/0/$row/0/A" --capture "$capture" --end "$end" |
            awk '/^value:/ { v = $2; sub(/^\+/, "", v); print v }' >"$tmp/db-$m-$n-$capture-$end"
        done
        rm -rf "$d"
      done
    done
  done
}

strategy() {
  local start=$SECONDS
  {
    echo "# First moves, first turns and the pie rule of Kalah(6,3), Kalah(6,4) and Kalah(6,5)"
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
  # STRATEGY_GAMES (e.g. "4x3") replaces the three games, to try the script quickly.
  # STRATEGY_DB=DIR: probe the databases DIR/<capture> (from `kalah db build`) where present.
  # STRATEGY_PIE=0: first moves only (the pie rule needs a solve per whole first turn).
  # STRATEGY_THREADS=N: search threads (default: all cores).
  # STRATEGY_OUT=FILE: write FILE instead of results/strategy.md.
  # STRATEGY_CAPTURES (e.g. "empty") replaces the two capture rules.
  for game in ${STRATEGY_GAMES:-6x3 6x4 6x5}; do
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

# One compound command, read whole before it runs, then exit: editing this file while it
# runs cannot change what it does.
{
  case "$only" in
    values) dbcheck; values ;;
    strategy) strategy ;;
    bench) scripts/bench.sh >results/bench.md ;;
    all) dbcheck; values; strategy; scripts/bench.sh >results/bench.md ;;
    *) echo "--only: values, strategy or bench" >&2; exit 2 ;;
  esac
  exit
}

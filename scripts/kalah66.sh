#!/usr/bin/env bash
# The measurements of results/kalah66.md: kalah prove against kalah solve on the boards
# that finish, and the first units of a Kalah(6,6) proof. One search thread, nice -n 10.
#
#   scripts/kalah66.sh [OUT_DIR]      (default /tmp/kalah66; the proofs are written there)
#   ONLY=splits scripts/kalah66.sh    only the split measurement (Kalah(6,4) standard at
#                                     depth 2 with --unit-seconds 0, 4 and 1)
#   ONLY=levels scripts/kalah66.sh    only what each endgame level buys on Kalah(6,5)
#                                     empty capture (LEVELS, default "20 22 24 25")
#   ONLY=dblevels DB=DIR scripts/kalah66.sh
#                                     what each database level above 25 buys: for each
#                                     top level in DB_LEVELS (default "30 31"), a folder
#                                     of links to levels 0..=top of the empty-capture
#                                     database DIR (built first with `kalah db build
#                                     --pits 6 --capture empty --max-seeds 31 --out DIR`),
#                                     then the fixed set of Kalah(6,6) units replayed and
#                                     Kalah(6,5) solved with the database beside the
#                                     25-seed endgame table and alone (--endgame none);
#                                     each replay's JSON is kept in OUT_DIR
#
# Prints, for each run, the command's wall and user seconds and peak memory
# (/usr/bin/time), then its figures. The Kalah(6,6) and Kalah(6,5) runs are capped
# (SIX_SIX_CAP, SIX_FIVE_CAP seconds of wall time) and resume where they stopped when
# run again.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/kalah66}
K=${KALAH:-target/release/kalah}
SIX_SIX_CAP=${SIX_SIX_CAP:-600}
SIX_FIVE_CAP=${SIX_FIVE_CAP:-300}
mkdir -p "$OUT"
T=(/usr/bin/time -f "%e s wall, %U s user, %M KB peak")
solve_sum='import json,sys; d=json.load(sys.stdin); print("value", d["value"], "nodes", d["nodes"], "endgame", d["endgame_seeds"], "endgame_reads", d["endgame_reads"], "setup_s", round(d["setup_seconds"], 2), "search_s", round(d["seconds"], 2), "db_probes", d.get("db_probes"))'
prove_sum='import json,sys; d=json.load(sys.stdin); print("value", d["value"], "proved", d["proved"], "bounds", d["margin_at_least"], d["margin_at_most"], "nodes", d["nodes"], "leaves", d["leaves"], "units", d["units"]["done"], "splits", d["splits"], "unit_cpu_s", d["cpu_seconds"], "split_cpu_s", d["split_cpu_seconds"], "unit_wall_s", d["seconds"])'

solve() { # seeds capture
    echo "== kalah solve --pits 6 --seeds $1 --capture $2 --threads 1"
    "${T[@]}" nice -n 10 "$K" solve --pits 6 --seeds "$1" --capture "$2" --threads 1 --quiet --json |
        python3 -c "$solve_sum"
}
prove() { # seeds capture depth [more options]; CAP=SECS stops it (0: no limit)
    local s=$1 c=$2 d=$3
    shift 3
    local dir="$OUT/p-$s-$c-$d${TAG:-}"
    echo "== kalah prove $dir --pits 6 --seeds $s --capture $c --depth $d --threads 1 $*"
    "${T[@]}" timeout "${CAP:-0}" nice -n 10 "$K" prove "$dir" --pits 6 --seeds "$s" \
        --capture "$c" --depth "$d" --threads 1 --quiet "$@" >/dev/null ||
        echo "(stopped after ${CAP:-0} s; the proof resumes when run again)"
    "$K" prove "$dir" --status --json | python3 -c "$prove_sum"
}

# Splits: units stopped at a CPU budget, their boards split (the proof's overhead).
splits() {
    solve 4 standard
    for us in 0 4 1; do TAG=-u$us prove 4 standard 2 --unit-seconds "$us"; done
}
# What each endgame level buys: Kalah(6,5) empty capture solved with tables of LEVELS seeds.
levels() {
    for k in ${LEVELS:-20 22 24 25}; do
        echo "== kalah solve --pits 6 --seeds 5 --capture empty --threads 1 --endgame $k --tt-mb 2048"
        "${T[@]}" nice -n 10 "$K" solve --pits 6 --seeds 5 --capture empty --threads 1 \
            --endgame "$k" --tt-mb 2048 --quiet --json | python3 -c "$solve_sum"
    done
}
# What each database level buys: the fixed set of Kalah(6,6) units and Kalah(6,5), with
# the database's levels 0..=top beside the 25-seed endgame table or alone.
dblevels() {
    local db=${DB:?DB: the empty-capture database directory}
    local fixed_sum='import json,sys; d=json.load(open(sys.argv[1])); s=d["samples"]; print("units", len(s), "unit_nodes", sum(x["nodes"] for x in s), "unit_cpu_s", round(sum(x["cpu_seconds"] for x in s), 2), "largest_unit_s", max(x["cpu_seconds"] for x in s), "answers", "".join(x["answer"][0] for x in s))'
    for top in ${DB_LEVELS:-30 31}; do
        local dir="$OUT/db-to-$top"
        mkdir -p "$dir"
        for ((k = 0; k <= top; k++)); do
            local f
            f=$(printf 'm6-empty-single-ccw-skip-either-owner-k%03d.kdb' "$k")
            [[ -f $db/$f ]] || { echo "$db/$f is missing" >&2; exit 1; }
            ln -sf "$(realpath "$db/$f")" "$dir/$f"
        done
        for e in 25 none; do
            local json="$OUT/66-fixed-set-db$top-e$e.json"
            echo "== kalah estimate --pits 6 --seeds 6 --capture empty --replay results/raw/estimate/66-fixed-set.json --unit-seconds 0 --db $dir --endgame $e --tt-mb 2048 --threads 1 --json"
            "${T[@]}" -o "$json.time" nice -n 5 "$K" estimate --pits 6 --seeds 6 --capture empty \
                --replay results/raw/estimate/66-fixed-set.json --unit-seconds 0 --db "$dir" \
                --endgame "$e" --tt-mb 2048 --threads 1 --json 2>/dev/null >"$json"
            cat "$json.time"
            python3 -c "$fixed_sum" "$json"
            echo "== kalah solve --pits 6 --seeds 5 --capture empty --db $dir --endgame $e --tt-mb 2048 --threads 1"
            "${T[@]}" nice -n 5 "$K" solve --pits 6 --seeds 5 --capture empty --db "$dir" \
                --endgame "$e" --tt-mb 2048 --threads 1 --quiet --json |
                python3 -c "$solve_sum"
        done
    done
}
case ${ONLY:-} in
    splits) splits; exit 0 ;;
    levels) levels; exit 0 ;;
    dblevels) dblevels; exit 0 ;;
esac

for c in standard empty; do
    solve 3 "$c"
    prove 3 "$c" 4
    prove 3 "$c" 8
    solve 4 "$c"
    prove 4 "$c" 4
    prove 4 "$c" 6
    prove 4 "$c" 8
done
splits
# Units of Kalah(6,5) and Kalah(6,6) at depth 8, capped.
CAP=$SIX_FIVE_CAP prove 5 empty 8 --endgame 20 --tt-mb 1024
CAP=$SIX_SIX_CAP prove 6 empty 8 --endgame 20 --tt-mb 1024

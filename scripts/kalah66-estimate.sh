#!/usr/bin/env bash
# The Kalah(6,6) projection of results/kalah66.md ("The proof trees, estimated"):
# `kalah estimate` (Knuth's estimator down one root question's proof tree) checked
# against `kalah prove` on Kalah(6,4), then walked on Kalah(6,5) and Kalah(6,6).
#
#   ONLY=validate scripts/kalah66-estimate.sh OUT   # Kalah(6,4): estimate and proof, depths 4, 6, 8
#   ONLY=65 scripts/kalah66-estimate.sh OUT         # Kalah(6,5) empty capture, depth 8
#   ONLY=66 scripts/kalah66-estimate.sh OUT         # Kalah(6,6): the trees of the runs' questions
#   ONLY=floor scripts/kalah66-estimate.sh DIR      # the empty-capture floor from DIR's files
#                                                   # (66-empty-d10-*.json and their
#                                                   # *-stopped-300.json replays)
#   ONLY=opening scripts/kalah66-estimate.sh OUT    # Kalah(6,6): whole first turns' questions
#                                                   # (results/kalah66-opening.md)
#   ONLY=67 scripts/kalah66-estimate.sh OUT         # Kalah(6,7): "margin >= MARGIN?"
#                                                   # (results/kalah67.md)
#
# Each run writes OUT/<name>.json (every walk, and the estimate) and OUT/<name>.err. One
# search thread a run, `nice -n 5`. KALAH: the binary (default target/release/kalah).
# SAMPLES_66, DEPTH_66, BUDGET_66: the Kalah(6,6) walks (default 80, 10 and 120 CPU
# seconds a leaf). ONLY=opening: CAPTURE (standard or empty), TURNS (whole first turns,
# such as "A3 A1+A4"), MARGIN (each turn's questions: at least and at most MARGIN, default
# 0), SAMPLES, DEPTH, BUDGET (default 10 walks, depth 10, 30 CPU seconds a leaf), DB (the
# capture rule's on-disk database, probed instead of a table), JOBS (runs at once,
# default 2). ONLY=67: CAPTURE (default standard), MARGIN (default 0), SAMPLES, DEPTH,
# BUDGET (default 16 walks, depth 12, 60 CPU seconds a leaf) and DB as for ONLY=opening.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: ONLY=validate|65|66 scripts/kalah66-estimate.sh OUT_DIR}
KALAH=${KALAH:-target/release/kalah}
ONLY=${ONLY:?set ONLY to validate, 65, 66, floor, opening or 67}
mkdir -p "$OUT"
if [[ ! -x $KALAH ]]; then
    cargo build --release --locked -p tools
fi
est() { # name, then kalah estimate's arguments
    local name=$1
    shift
    nice -n 5 "$KALAH" estimate --threads 1 --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"
    python3 - "$OUT/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["estimate"]
lb = "at least " if e["lower_bound"] else ""
print(f'{sys.argv[1]}: "{d["question"]}" depth {d["depth"]}, {len(d["samples"])} walks: '
      f'leaves {e["leaves"]["mean"]:.4g} +- {e["leaves"]["std_error"]:.2g}, '
      f'nodes {lb}{e["nodes"]["mean"]:.4g} +- {e["nodes"]["std_error"]:.2g}, '
      f'CPU s {lb}{e["cpu_seconds"]["mean"]:.4g} +- {e["cpu_seconds"]["std_error"]:.2g}, '
      f'{e["stopped"]} stopped, {e["not_as_expected"]} not as expected')
PY
}
case $ONLY in
validate)
    for cap in standard empty; do
        v=8
        [[ $cap == empty ]] && v=10
        for d in 4 6 8; do
            est "64-$cap-d$d-atleast$v" --pits 6 --seeds 4 --capture $cap --at-least $v \
                --depth $d --samples 400 --seed 11 --unit-seconds 0 --quiet
            est "64-$cap-d$d-atmost$v" --pits 6 --seeds 4 --capture $cap --at-most $v \
                --depth $d --samples 400 --seed 11 --unit-seconds 0 --quiet
            dir=$(mktemp -d)
            /usr/bin/time -f "%U user s" nice -n 5 "$KALAH" prove "$dir/p" --pits 6 --seeds 4 \
                --capture $cap --depth $d --guess $v --threads 1 --unit-seconds 0 --quiet \
                --json >"$OUT/64-$cap-d$d-prove.json" 2>"$OUT/64-$cap-d$d-prove.err"
            python3 -c "import json; d=json.load(open('$OUT/64-$cap-d$d-prove.json')); \
print('prove $cap depth $d: value', d['value'], 'units', d['units']['done'], 'nodes', d['nodes'])"
            rm -rf "$dir"
        done
    done
    ;;
65)
    for q in "--at-least 12" "--at-most 12"; do
        name="65-empty-d8-${q//[- ]/}"
        est "$name" --pits 6 --seeds 5 --capture empty $q --depth 8 --samples 200 --seed 21 \
            --unit-seconds 0 --endgame 24 --tt-mb 2048 --quiet
    done
    ;;
66)
    n=${SAMPLES_66:-80}
    d=${DEPTH_66:-10}
    b=${BUDGET_66:-120}
    est "66-empty-d$d-atmost2" --pits 6 --seeds 6 --capture empty --at-most 2 --depth "$d" \
        --samples "$n" --seed 101 --unit-seconds "$b" --endgame 25 --tt-mb 2048
    est "66-empty-d$d-atleast2" --pits 6 --seeds 6 --capture empty --at-least 2 --depth "$d" \
        --samples "$n" --seed 103 --unit-seconds "$b" --endgame 25 --tt-mb 2048
    est "66-standard-d$d-atleast4" --pits 6 --seeds 6 --at-least 4 --depth "$d" \
        --samples "$n" --seed 103 --unit-seconds "$b" --endgame 25 --tt-mb 2048
    ;;
floor)
    # Each tree's mean of weight x CPU seconds, with a stopped leaf's replay (a longer
    # budget) in place of its first figure, and the two trees' sum.
    python3 - "$OUT" <<'PY'
import json, math, sys
d = sys.argv[1]
total = var = 0.0
for q in ("atmost2", "atleast2"):
    walks = json.load(open(f"{d}/66-empty-d10-{q}.json"))["samples"]
    again = json.load(open(f"{d}/66-empty-d10-{q}-stopped-300.json"))["samples"]
    cpu = {(s["leaf"], s["beta"]): s["cpu_seconds"] for s in again}
    xs = [s["weight"] * cpu.get((s["leaf"], s["beta"]), s["cpu_seconds"]) for s in walks]
    n = len(xs)
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / (n - 1) / n
    print(f"{q}: at least {m:,.0f} +- {math.sqrt(v):,.0f} CPU s")
    total += m
    var += v
print(f"both: at least {total:,.0f} +- {math.sqrt(var):,.0f} CPU s ({total / 86400:.2f} CPU-days)")
PY
    ;;
opening)
    cap=${CAPTURE:?set CAPTURE}
    db=${DB:?set DB to the database directory of CAPTURE}
    m=${MARGIN:-0}
    d=${DEPTH:-10}
    for t in ${TURNS:?set TURNS}; do
        pos=$("$KALAH" play --pits 6 --seeds 6 --capture "$cap" ${t//+/+ } |
            sed -n 's/^position: //p')
        for q in at-least at-most; do
            while (($(jobs -rp | wc -l) >= ${JOBS:-2})); do
                wait -n || true
            done
            est "66-$cap-${t//+/}-d$d-${q//-/}$m" --capture "$cap" --position "$pos" \
                --"$q" "$m" --depth "$d" --samples "${SAMPLES:-10}" --seed 107 \
                --unit-seconds "${BUDGET:-30}" --db "$db" --endgame none --tt-mb 2048 \
                --quiet &
        done
    done
    wait
    ;;
67)
    cap=${CAPTURE:-standard}
    m=${MARGIN:-0}
    d=${DEPTH:-12}
    est "67-$cap-d$d-atleast$m" --pits 6 --seeds 7 --capture "$cap" --at-least "$m" \
        --depth "$d" --samples "${SAMPLES:-16}" --seed 109 --unit-seconds "${BUDGET:-60}" \
        --db "${DB:?set DB to the database directory of CAPTURE}" --endgame none \
        --tt-mb 2048 --quiet
    ;;
*)
    echo "ONLY must be validate, 65, 66, floor, opening or 67" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# The paired speed measurement: a reference commit against the working tree, alternated
# round after round on this machine, so that both meet the same minute of a virtual
# machine whose speed swings by tens of percent within the hour. Each round runs every
# case once with each binary, the order flipping every round (ref, new; then new, ref).
#
# Cases (each a separate process):
#   64s    Kalah(6,4) standard capture, one thread, no files: wall seconds
#   64e    Kalah(6,4) empty capture, one thread, no files: wall seconds
#   65s    Kalah(6,5) standard capture, two threads, --tt-mb 2048, no files: wall seconds
#   bench  `kalah bench`'s fixed list of positions (256 MiB table each, no files): the sum
#          of its search seconds
#   fixed  the 78 Kalah(6,6) units of results/raw/estimate/66-fixed-set.json, replayed over
#          the database DIR (empty capture, at least 31 levels), one thread, --tt-mb 2048,
#          --endgame none: the units' CPU seconds (what `kalah estimate` reports per unit)
# For each run it records the value (or the fixed set's 78 answers), nodes, wall, user and
# system seconds and peak resident memory (`/usr/bin/time`); a value or answer that differs
# between the binaries stops the script with status 1. At the end: each case's medians,
# the ratio new / reference, and the rounds the new binary won.
#
# Usage: scripts/speed.sh REF [--rounds N] [--cases LIST] [--db DIR] [--out FILE]
#   REF      the reference commit (built once into target/speed/REF, kept for later runs)
#   --rounds rounds (default 3)
#   --cases  comma-separated cases (default 64s,64e,65s, plus fixed with --db)
#   --db     the empty-capture database for the fixed set
#   --out    also write every run as a JSON line to FILE (for results/raw/speed/)
# Pause any long computation on the machine first (kill -STOP), resume it after (-CONT).
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:?usage: scripts/speed.sh REF [--rounds N] [--cases LIST] [--db DIR] [--out FILE]}
shift
rounds=3
cases=""
db=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --cases) cases=$2; shift ;;
    --db) db=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$cases" ]; then
  cases="64s,64e,65s"
  [ -n "$db" ] && cases="$cases,fixed"
fi
if [[ ",$cases," == *",fixed,"* ]] && [ -z "$db" ]; then
  echo "the fixed set needs --db DIR (an empty-capture database of at least 31 levels)" >&2
  exit 2
fi

ref_sha=$(git rev-parse --short "$ref")
speed=target/speed
mkdir -p "$speed"
ref_bin="$speed/kalah-$ref_sha"
if [ ! -x "$ref_bin" ]; then
  tree="$speed/tree-$ref_sha"
  rm -rf "$tree"
  git worktree prune
  git worktree add --detach "$tree" "$ref_sha" >/dev/null
  (cd "$tree" && CARGO_TARGET_DIR="$PWD/../target-$ref_sha" cargo build --locked --release -p tools >&2)
  cp "$speed/target-$ref_sha/release/kalah" "$ref_bin"
  git worktree remove --force "$tree"
fi
cargo build --locked --release -p tools >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy, so that a build during the run does not change the binary measured.
cp target/release/kalah "$work/kalah-new"
new_bin="$work/kalah-new"
new_label="$(git rev-parse --short HEAD)"
git diff --quiet HEAD -- solver tools db-format || new_label="$new_label+"

echo "- reference: $ref_sha; new: $new_label; machine: $(nproc) threads, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'); rounds: $rounds; cases: $cases${db:+; database: $db}"
echo
echo "| round | case | binary | value | nodes | figure (s) | wall (s) | user (s) | peak RSS (MB) |"
echo "|---:|---|---|---:|---:|---:|---:|---:|---:|"

# one ROUND CASE SIDE BIN: one run, one table row, one line of $work/runs.jsonl.
one() {
  local round=$1 case=$2 side=$3 bin=$4
  local args
  case "$case" in
    64s) args=(solve --pits 6 --seeds 4 --capture standard --threads 1 --quiet --json) ;;
    64e) args=(solve --pits 6 --seeds 4 --capture empty --threads 1 --quiet --json) ;;
    bench) args=(bench --json --quiet) ;;
    65s) args=(solve --pits 6 --seeds 5 --capture standard --threads 2 --tt-mb 2048 --quiet --json) ;;
    fixed) args=(estimate --pits 6 --seeds 6 --capture empty
                 --replay results/raw/estimate/66-fixed-set.json --unit-seconds 0 --db "$db"
                 --endgame none --tt-mb 2048 --threads 1 --json) ;;
    *) echo "unknown case: $case" >&2; exit 2 ;;
  esac
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$bin" "${args[@]}" >"$work/out.json"
  python3 - "$work" "$round" "$case" "$side" <<'PY'
import json, sys
work, rnd, case, side = sys.argv[1:5]
text = open(f"{work}/out.json").read()
# `kalah bench` prints one JSON object a position; every other case one object.
d = json.loads(text) if case != "bench" else [json.loads(l) for l in text.splitlines() if l.strip()]
wall, user, sys_s, rss = open(f"{work}/time").read().split()[-4:]
if case == "fixed":
    samples = d["samples"]
    value = ";".join(s["answer"] for s in samples)
    nodes = sum(s["nodes"] for s in samples)
    figure = sum(s["cpu_seconds"] for s in samples)
    shown = f"{len(samples)} answers"
elif case == "bench":
    value = ";".join(str(p["value"]) for p in d)
    nodes = sum(p["nodes"] for p in d)
    figure = sum(p["seconds"] for p in d)
    shown = f"{len(d)} values"
else:
    value = d["value"]
    nodes = d["nodes"]
    figure = float(wall)
    shown = f"{value:+d}"
row = {"round": int(rnd), "case": case, "side": side, "value": value, "nodes": nodes,
       "figure": figure, "wall": float(wall), "user": float(user), "sys": float(sys_s),
       "rss_kb": int(rss)}
with open(f"{work}/runs.jsonl", "a") as f:
    f.write(json.dumps(row) + "\n")
print(f"| {rnd} | {case} | {side} | {shown} | {nodes:,} | {figure:.2f} | {wall} | {user} "
      f"| {int(rss) / 1024:.0f} |")
PY
}

IFS=, read -r -a case_list <<<"$cases"
for round in $(seq "$rounds"); do
  for case in "${case_list[@]}"; do
    if [ $((round % 2)) = 1 ]; then
      one "$round" "$case" ref "$ref_bin"
      one "$round" "$case" new "$new_bin"
    else
      one "$round" "$case" new "$new_bin"
      one "$round" "$case" ref "$ref_bin"
    fi
  done
done
[ -n "$out" ] && cp "$work/runs.jsonl" "$out"

python3 - "$work/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
what = {"64s": "wall s", "64e": "wall s", "65s": "wall s", "bench": "search s", "fixed": "unit CPU s"}
print()
print("| case | figure | reference (median) | new (median) | new / reference | new won | nodes ref → new | peak RSS MB ref → new |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
bad = False
for case in dict.fromkeys(r["case"] for r in runs):
    ref = [r for r in runs if r["case"] == case and r["side"] == "ref"]
    new = [r for r in runs if r["case"] == case and r["side"] == "new"]
    values = {json.dumps(r["value"]) for r in ref + new}
    if len(values) != 1:
        print(f"{case}: the values differ between runs: {sorted(values)[:3]}", file=sys.stderr)
        bad = True
    fr = statistics.median(r["figure"] for r in ref)
    fn = statistics.median(r["figure"] for r in new)
    by_round = {r["round"]: r["figure"] for r in ref}
    won = sum(1 for r in new if r["figure"] < by_round[r["round"]])
    nr = statistics.median(r["nodes"] for r in ref)
    nn = statistics.median(r["nodes"] for r in new)
    mr = max(r["rss_kb"] for r in ref) / 1024
    mn = max(r["rss_kb"] for r in new) / 1024
    print(f"| {case} | {what[case]} | {fr:.2f} | {fn:.2f} | {fn / fr:.3f} | {won} of {len(new)} "
          f"| {nr:,.0f} → {nn:,.0f} | {mr:,.0f} → {mn:,.0f} |")
sys.exit(1 if bad else 0)
PY

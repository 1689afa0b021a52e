#!/usr/bin/env bash
# Measures `kalah db probe --batch` (results/db.md, "Batch probing"): builds the default
# 6-pit database of levels 0..=K (default 20) in WORKDIR, draws N random positions of it
# (scripts/random-positions.py, seed 1), and times three batch runs over them (page cache
# warm) and, for comparison, 100 single probes. The first 100 answers of the batch are
# checked against the single probe's. Deletes WORKDIR at the end.
# Usage: scripts/db-probe-speed.sh [K] [N] [WORKDIR]; KALAH=path picks the binary
# (default target/release/kalah).
set -euo pipefail
K=${1:-20}
N=${2:-1000000}
W=${3:-/tmp/kalah-probe-speed}
BIN=${KALAH:-target/release/kalah}
rm -rf "$W" && mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
echo "# commit $(git rev-parse --short HEAD), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" db build --pits 6 --max-seeds "$K" --format byte --out "$W/db" --no-timings | tail -1
du -sh "$W/db"
python3 "$(dirname "$0")/random-positions.py" "$N" --pits 6 --max-seeds "$K" --seed 1 \
    > "$W/positions.txt"
cat "$W/db"/*.kdb > /dev/null
for run in 1 2 3; do
    start=$(date +%s.%N)
    "$BIN" db probe --db "$W/db" --batch < "$W/positions.txt" > "$W/answers.jsonl"
    end=$(date +%s.%N)
    python3 -c "import sys; n, t = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); \
print(f'batch run $run: {n} positions in {t:.2f} s, {n / t:,.0f} positions/s')" \
        "$(wc -l < "$W/answers.jsonl")" "$start" "$end"
done
start=$(date +%s.%N)
head -100 "$W/positions.txt" | while read -r p; do
    "$BIN" db probe --db "$W/db" --position "$p"
done > "$W/single.txt"
end=$(date +%s.%N)
python3 -c "import sys; t = float(sys.argv[2]) - float(sys.argv[1]); \
print(f'single probes: 100 positions in {t:.2f} s, {100 / t:,.1f} positions/s')" "$start" "$end"
# The batch's first 100 values and margins against the single probes'.
python3 - "$W/answers.jsonl" "$W/single.txt" <<'PY'
import json, sys
batch = [json.loads(l) for _, l in zip(range(100), open(sys.argv[1]))]
fig = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith(("value:", "margin:"))]
single = list(zip(fig[0::2], fig[1::2]))
assert [(b["value"], b["margin"]) for b in batch] == single, "batch and single probes differ"
print("the first 100 batch answers equal the single probes'")
PY

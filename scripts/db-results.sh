#!/usr/bin/env bash
# Regenerates the figures of results/db.md: builds the default 6-pit Kalah database up to
# level K (default 20) under /usr/bin/time -v, then rebuilds level K-2 with 1 and with 2
# threads on top of the lower levels. Usage: scripts/db-results.sh [K] [WORKDIR]
set -euo pipefail
K=${1:-20}
W=${2:-/tmp/kalah-db-results}
cargo build --release -p tools
BIN=target/release/kalah
rm -rf "$W" && mkdir -p "$W"
echo "# commit $(git rev-parse --short HEAD), $(nproc) cores, $(uname -srm)"
/usr/bin/time -v "$BIN" db build --pits 6 --max-seeds "$K" --format byte --out "$W/db" 2> "$W/time.txt"
grep -E "Elapsed|Maximum resident" "$W/time.txt"
L=$((K - 2))
for t in 1 2; do
    mkdir -p "$W/t$t"
    for k in $(seq 0 $((L - 1))); do
        cp "$W/db/"*"-k$(printf %03d "$k").kdb" "$W/t$t/"
    done
    /usr/bin/time -v "$BIN" db build --pits 6 --max-seeds "$L" --threads "$t" --format byte --out "$W/t$t" \
        2> "$W/time-t$t.txt" | tail -1
    grep -E "Maximum resident" "$W/time-t$t.txt"
done
"$BIN" db verify "$W/db" --sample 200000 | tail -3

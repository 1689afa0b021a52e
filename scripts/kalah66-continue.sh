#!/usr/bin/env bash
# Continue the Kalah(6,6) proofs committed in results/proofs/ (results/kalah66.md, "The
# Kalah(6,6) runs"): one worker a proof, one search thread each, at low priority, for at
# most SECONDS of wall time (default 9000: a session less its last half hour), then each
# proof's status. A worker stopped by the limit loses only its unit in flight (at most
# --unit-seconds of CPU); commit results/proofs/*/results/ afterwards.
#
#   scripts/kalah66-continue.sh [SECONDS]
#
# KALAH: the kalah binary (default target/release/kalah, built if missing). TT_MB: each
# worker's transposition table (default 4096; each worker also builds the 25-seed
# endgame table, about 1.8 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${1:-9000}
KALAH=${KALAH:-target/release/kalah}
TT_MB=${TT_MB:-4096}
if [[ ! -x $KALAH ]]; then
    cargo build --release --locked -p tools
fi
pids=()
for c in empty standard; do
    dir=results/proofs/6x6-$c
    timeout --signal=KILL "$LIMIT" nice -n 19 "$KALAH" prove "$dir" --worker --threads 1 \
        --tt-mb "$TT_MB" --unit-seconds 600 2>"$dir.log" &
    pids+=($!)
done
for p in "${pids[@]}"; do
    wait "$p" || true
done
for c in empty standard; do
    "$KALAH" prove results/proofs/6x6-$c --status
done

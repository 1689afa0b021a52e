#!/usr/bin/env bash
# Measures what the checksum at open costs (results/db.md, "The checksum at open"): builds
# the default 6-pit database of levels 0..=K (default 18) in WORKDIR with BEFORE (a binary
# without the check), and a one-byte copy, then for each format times with the files in
# the page cache:
#   - a single `kalah db probe` (one process: start, open, one probe), BEFORE and AFTER,
#     AFTER both without the stamp (every file hashed: the first open) and with it;
#   - `kalah db probe --batch` of N random positions (scripts/random-positions.py, seed 1),
#     BEFORE and AFTER with the stamp, best of 3.
# and prints the bytes hashed a second at the first open. Deletes WORKDIR at the end.
# Usage: BEFORE=bin AFTER=bin scripts/db-open-cost.sh [K] [N] [WORKDIR]
set -euo pipefail
K=${1:-18}
N=${2:-300000}
W=${3:-/tmp/kalah-open-cost}
BEFORE=${BEFORE:?BEFORE=path of a kalah binary without the check}
AFTER=${AFTER:-target/release/kalah}
rm -rf "$W" && mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
echo "# commit $(git rev-parse --short HEAD), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BEFORE" db build --pits 6 --max-seeds "$K" --out "$W/compact" --no-timings | tail -1
"$BEFORE" db convert "$W/compact" "$W/byte" --format byte --no-timings | tail -1
rm -f "$W"/*/kalah-verified.txt
python3 "$(dirname "$0")/random-positions.py" "$N" --pits 6 --max-seeds "$K" --seed 1 \
    > "$W/positions.txt"
POS=$(head -1 "$W/positions.txt")
sleep 3 # the stamp records only files changed 2 s or more before their verification
# Seconds of the command "$@" (stdin from $IN), best of $RUNS.
best() {
    python3 - "$@" <<'PY'
import os, subprocess, sys, time
runs, best = int(os.environ.get("RUNS", "5")), None
for _ in range(runs):
    if os.environ.get("FRESH"):
        for d in ("compact", "byte"):
            p = os.path.join(os.environ["W"], d, "kalah-verified.txt")
            if os.path.exists(p):
                os.remove(p)
    stdin = open(os.environ["IN"]) if os.environ.get("IN") else subprocess.DEVNULL
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdin=stdin, stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter() - t
    best = t if best is None else min(best, t)
print(f"{best:.4f}")
PY
}
export W
for fmt in compact byte; do
    D="$W/$fmt"
    bytes=$(cat "$D"/*.kdb | wc -c)
    cat "$D"/*.kdb > /dev/null
    b=$(best "$BEFORE" db probe --db "$D" --position "$POS")
    first=$(FRESH=1 best "$AFTER" db probe --db "$D" --position "$POS")
    "$AFTER" db verify "$D" > /dev/null
    test -s "$D/kalah-verified.txt"
    a=$(best "$AFTER" db probe --db "$D" --position "$POS")
    echo "$fmt: $bytes bytes in $(ls "$D"/*.kdb | wc -l) files"
    echo "  single probe: before $b s; after, first open (no stamp) $first s; after, stamped $a s"
    python3 -c "import sys; b, f, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); \
print(f'  first open hashes {n / max(f - b, 1e-9) / 1e9:.2f} GB/s (bytes / (first - before))')" "$b" "$first" "$bytes"
    bb=$(IN="$W/positions.txt" RUNS=3 best "$BEFORE" db probe --db "$D" --batch)
    ab=$(IN="$W/positions.txt" RUNS=3 best "$AFTER" db probe --db "$D" --batch)
    python3 -c "import sys; n, b, a = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); \
print(f'  batch of {n}: before {b:.2f} s ({n / b:,.0f}/s), after {a:.2f} s ({n / a:,.0f}/s), after/before {a / b:.3f}')" \
        "$N" "$bb" "$ab"
done

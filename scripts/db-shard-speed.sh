#!/usr/bin/env bash
# Times one database level built whole and as 1, 2 and 4 shards run one after another
# (`kalah db build --shard I/N`, then `kalah db merge`), on this machine, and checks
# that every merged level is byte-identical to the whole build. Prints a markdown table:
# wall and CPU (user + sys) seconds from /usr/bin/time summed over the shards, positions
# per wall second and per CPU second, peak resident memory of one process (which counts
# the lower levels' mapped pages it touched, page cache, besides its own allocations).
#
#   scripts/db-shard-speed.sh [K] [THREADS]     defaults: K=20, THREADS=2 (6 pits)
#
# KALAH: the kalah binary (default target/release/kalah). Levels 0..K-1 are built first
# (unsharded, not timed) in a temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-20}
T=${2:-2}
# shellcheck source=scripts/db-timing-common.sh
source scripts/db-timing-common.sh
W=$(mktemp -d "${TMPDIR:-/tmp}/kalah-shard-speed.XXXXXX")
trap 'rm -rf "$W"' EXIT

"$KALAH" db build --pits 6 --max-seeds $((K - 1)) --format byte --out "$W/lower" --no-timings >/dev/null
positions=$(awk -v n=$((K + 11)) 'BEGIN { c = 1; for (i = 1; i <= 11; i++) c = c * (n - 11 + i) / i; printf "%d", c }')

# Runs a command under /usr/bin/time; adds its wall and CPU seconds to `wall`, `cpu`.
wall=0 cpu=0 rss=0
timed() {
    /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$@" >/dev/null
    read -r e u s m <"$W/time"
    wall=$(echo "$wall + $e" | bc)
    cpu=$(echo "$cpu + $u + $s" | bc)
    ((m > rss)) && rss=$m
    return 0
}

row() {
    printf '| %s | %s | %.2f | %.2f | %.1f | %.1f | %d |\n' "$1" "$positions" "$wall" "$cpu" \
        "$(echo "$positions / $wall / 1000000" | bc -l)" \
        "$(echo "$positions / $cpu / 1000000" | bc -l)" $((rss / 1024))
}

echo "| build of level $K ($T threads) | positions | wall s | CPU s | M positions/wall s | M positions/CPU s | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
mkdir "$W/whole"
cp -l "$W"/lower/*.kdb "$W/whole/"
wall=0 cpu=0 rss=0
timed "$KALAH" db build --pits 6 --max-seeds "$K" --threads "$T" --format byte --out "$W/whole"
row "unsharded (tiled generator)"
level=$(compgen -G "$W/whole/*-k$(printf %03d "$K").kdb")
level=${level##*/}
for n in 1 2 4; do
    rm -rf "$W/s"
    mkdir "$W/s"
    cp -l "$W"/lower/*.kdb "$W/s/"
    wall=0 cpu=0 rss=0
    for ((i = 0; i < n; i++)); do
        timed "$KALAH" db build --pits 6 --max-seeds "$K" --threads "$T" --shard "$i/$n" --format byte --out "$W/s"
    done
    timed "$KALAH" db merge --format byte --dir "$W/s"
    cmp "$W/whole/$level" "$W/s/$level"
    row "$n shard(s) one after another (tiled generator, each its splits), and the merge"
done

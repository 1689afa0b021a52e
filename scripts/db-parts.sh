#!/usr/bin/env bash
# Builds the 6-pit, standard-capture database of levels 0..K twice under /usr/bin/time -v:
# in one piece (the default budget, which holds every level up to 31 whole), then with
# --memory-gb GIB (levels that do not fit half of it, less 256 MiB, in parts); compares
# every level file of the two with cmp, and prints each run's report, wall and CPU
# time, peak resident set and page faults. Both databases are removed at the end.
#
#   scripts/db-parts.sh [K] [GIB] [DIR]    defaults: K=26, GIB=1, DIR a fresh mktemp -d
#
# KALAH: the kalah binary (default target/release/kalah). DIR needs about 2.2 times the
# database's size free (levels 0..26: 2.7 GB each, and level 26's parts while it merges).
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-26}
GIB=${2:-1}
# shellcheck source=scripts/db-timing-common.sh
source scripts/db-timing-common.sh
if [[ -n ${3:-} ]]; then
    W=$3
    mkdir -p "$W"
else
    W=$(mktemp -d "${TMPDIR:-/tmp}/kalah-parts.XXXXXX")
fi
trap 'rm -rf "$W/db-whole" "$W/db" "$W/time-db-whole" "$W/time-db"' EXIT

echo "# commit $(git rev-parse --short HEAD), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"

run() {
    local name=$1
    shift
    echo
    echo "\$ kalah db build --pits 6 --capture standard --max-seeds $K --out DIR/$name $*"
    /usr/bin/time -v -o "$W/time-$name" "$KALAH" db build --pits 6 --capture standard \
        --max-seeds "$K" --out "$W/$name" "$@"
    grep -E 'Elapsed|User time|System time|Maximum resident|page faults' "$W/time-$name"
}

run db-whole
run db --memory-gb "$GIB"

echo
same=0
for f in "$W"/db-whole/*.kdb; do
    cmp "$f" "$W/db/${f##*/}"
    same=$((same + 1))
done
left=$(find "$W/db" -mindepth 1 ! -name '*.kdb' | wc -l)
echo "cmp: all $same level files identical; $left other files left in the parted build's directory"

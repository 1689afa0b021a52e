#!/usr/bin/env bash
# The XXH3-64 payload checksum of every level file of a database, as `kalah db info FILE`
# prints it (each file's header holds it; `kalah db verify DIR` recomputes them). A change
# to these values is a change of behaviour.
#
# Usage:
#   scripts/checksums.sh > results/checksums.txt
#       The databases that tools/tests/checksums.rs builds (6 pits, levels 0..=12, standard
#       and empty capture, other switches default, files of one byte an entry: format
#       version 1, whose checksum is that of the values alone), built into a temporary
#       directory.
#   scripts/checksums.sh --dir DIR [--build CAPTURE MAX_SEEDS] > results/checksums-31.txt
#       Every level of the database in DIR (opened read-only). With --build, first builds
#       (or completes: levels present and intact are skipped) the 6-pit database of that
#       capture rule up to MAX_SEEDS into DIR, on 2 threads, as the header's command says:
#       `--dir /work/db/standard` gave results/checksums-31.txt; for the empty-capture
#       one, `--dir DIR --build empty 31 > results/checksums-31-empty.txt`. The files must
#       be of one format, which the list names; --build writes one-byte files (whose
#       checksum is that of the values alone), a database built with the default format
#       is listed as compact.
#
# KALAH=path/to/kalah uses that binary instead of building one (cargo build --release,
# into $CARGO_TARGET_DIR or target/).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=""
build_capture=""
build_max=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --build) build_capture=$2; build_max=$3; shift 3 ;;
    *) echo "usage: $0 [--dir DIR [--build CAPTURE MAX_SEEDS]]" >&2; exit 2 ;;
  esac
done
if [ -n "$build_capture" ] && [ -z "$dir" ]; then
  echo "--build needs --dir DIR" >&2
  exit 2
fi
if [ -n "${KALAH:-}" ]; then
  K=$KALAH
else
  cargo build --release -p tools >&2
  K=${CARGO_TARGET_DIR:-target}/release/kalah
fi
commit=$(git rev-parse --short HEAD)
checksum() { "$K" db info "$1" | awk '/^checksum:/ {print $2}'; }

if [ -z "$dir" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "# Level checksums (XXH3-64 of the payload, as in each file's header)."
  echo "# Command: scripts/checksums.sh > results/checksums.txt"
  echo "# commit: $commit"
  for capture in standard empty; do
    $K db build --pits 6 --max-seeds 12 --capture "$capture" --format byte --out "$tmp/$capture" --no-timings >/dev/null 2>&1
    for f in "$tmp/$capture"/*.kdb; do
      echo "$(basename "$f") $(checksum "$f")"
    done
  done
  exit 0
fi

if [ -n "$build_capture" ]; then
  $K db build --pits 6 --capture "$build_capture" --max-seeds "$build_max" --threads 2 \
    --format byte --out "$dir" >&2
fi
shopt -s nullglob
files=("$dir"/*.kdb)
if [ ${#files[@]} -eq 0 ]; then
  echo "$dir holds no level files (*.kdb)" >&2
  exit 1
fi
# The rules and the top level, from the files themselves.
rules=$("$K" db info "${files[0]}" | sed -n 's/^rules: *//p')
capture=$(sed -n 's/.*capture=\([a-z]*\).*/\1/p' <<<"$rules")
top=$(printf '%s\n' "${files[@]}" | sed -n 's/.*-k\([0-9]\{3\}\)\.kdb$/\1/p' | sort | tail -1)
top=$((10#$top))
args="--dir $dir"
[ -n "$build_capture" ] && args="$args --build $build_capture $build_max"
# The files' format (a compact file's checksum is that of its own payload, codes and
# slots, so a list holds for one format: `kalah db convert` turns either into the other).
formats=$(for f in "${files[@]}"; do "$K" db info "$f" | awk '/^format:/ {print $2}'; done | sort -u)
if [ "$(wc -l <<<"$formats")" -ne 1 ]; then
  echo "$dir holds level files of more than one format ($(echo $formats)): convert them to one first" >&2
  exit 1
fi
echo "# Level checksums (XXH3-64 of the payload, as \`kalah db info FILE\` prints it) of every"
echo "# level of a database: ${#files[@]} files, levels 0..=$top, format $formats."
echo "# Rules: $rules"
echo "# The database: kalah db build --pits 6 --capture $capture --max-seeds $top --threads 2 --format $formats --out DIR"
echo "# (the build does not depend on --threads: the same bytes on any number of threads)."
echo "# Listed by: scripts/checksums.sh $args"
echo "# commit: $commit"
for f in "${files[@]}"; do
  echo "$(basename "$f") $(checksum "$f")"
done

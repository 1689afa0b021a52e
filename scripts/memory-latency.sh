#!/usr/bin/env bash
# The latency of one random read from memory on this machine: a pointer chase (each load's
# address is the previous load's value, so no two loads overlap) through a random cycle of
# the cache lines of an array of SIZE MiB, with 4 KiB pages and with huge pages
# (madvise(MADV_HUGEPAGE)). The search and the endgame build read their tables at random,
# so this bounds how fast a node or a board can be on this machine.
#
# Usage: scripts/memory-latency.sh [SIZE_MIB ...]   (default: 16 128 512)
# Needs a C compiler (cc). Prints one line a size and page kind: nanoseconds a read.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/chase.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv) {
  size_t bytes = (size_t)atoi(argv[1]) << 20;
  int huge = atoi(argv[2]);
  uint64_t *a = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) return 1;
  madvise(a, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  size_t lines = bytes / 64, *perm = malloc(lines * sizeof *perm);
  for (size_t i = 0; i < lines; i++) perm[i] = i;
  uint64_t x = 88172645463325252ull; /* xorshift64: a fixed random cycle */
  for (size_t i = lines - 1; i > 0; i--) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    size_t j = x % (i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  for (size_t i = 0; i < lines; i++) a[perm[i] * 8] = perm[(i + 1) % lines] * 8;
  size_t steps = 20000000; uint64_t p = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < steps; i++) p = a[p];
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / steps;
  printf("%6s MiB, %-10s %6.1f ns a read (end %llu)\n", argv[1],
         huge ? "huge pages" : "4 KiB", ns, (unsigned long long)p);
  return 0;
}
C
cc -O2 -o "$dir/chase" "$dir/chase.c"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 128 512)
for mib in "${sizes[@]}"; do
  for huge in 0 1; do "$dir/chase" "$mib" "$huge"; done
done

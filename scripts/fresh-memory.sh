#!/usr/bin/env bash
# What fresh memory costs on this machine: the rate at which the kernel hands out zeroed
# anonymous pages on first touch (a write to each 4 KiB), with 4 KiB pages and with huge
# pages (madvise(MADV_HUGEPAGE)). Every search's transposition table and endgame table is
# such memory, so a solve pays this rate for its tables before it searches (the kernel's
# `clear_page_erms` in a profile). A second pass over the same memory, already mapped,
# is timed beside it as the machine's plain write rate.
#
# Usage: scripts/fresh-memory.sh [SIZE_MIB ...]   (default: 256 1024)
# Needs a C compiler (cc). Prints one line a size and page kind: GB/s first touch, GB/s again.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/fresh.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t bytes = (size_t)atoi(argv[1]) << 20;
  int huge = atoi(argv[2]);
  volatile char *a = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) return 1;
  madvise((void *)a, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  double t0 = seconds();
  for (size_t i = 0; i < bytes; i += 4096) a[i] = 1;
  double t1 = seconds();
  for (size_t i = 0; i < bytes; i += 64) a[i] = 2;
  double t2 = seconds();
  printf("%6s MiB, %-10s first touch %6.2f GB/s, mapped %6.2f GB/s\n", argv[1],
         huge ? "huge pages" : "4 KiB", bytes / (t1 - t0) / 1e9, bytes / (t2 - t1) / 1e9);
  return 0;
}
C
cc -O2 -o "$dir/fresh" "$dir/fresh.c"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024)
for mib in "${sizes[@]}"; do
  for huge in 0 1; do "$dir/fresh" "$mib" "$huge"; done
done

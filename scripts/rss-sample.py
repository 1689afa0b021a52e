#!/usr/bin/env python3
"""Runs a command and samples its resident set every millisecond (/proc/PID/statm).

    scripts/rss-sample.py [--window START END] -- COMMAND [ARGS...]

Prints the command's standard output as it comes, then its peak resident set as the
kernel counts it (ru_maxrss), the five highest samples with the output line before each,
how many samples passed 896, 960 and 1024 MiB, and with --window the samples between
START and END seconds (to see how fast the resident set grows back after a release of the
lower levels' pages: results/db.md, "Levels in parts"). Linux only.
"""

import argparse
import resource
import subprocess
import sys
import threading
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", nargs=2, type=float, metavar=("START", "END"))
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            lines.append((time.time() - t0, line.rstrip()))
            print(line, end="", flush=True)

    reader = threading.Thread(target=read)
    reader.start()
    samples: list[tuple[float, float]] = []
    statm = f"/proc/{p.pid}/statm"
    while p.poll() is None:
        try:
            with open(statm) as f:
                pages = int(f.read().split()[1])
            samples.append((time.time() - t0, pages * 4096 / 2**20))
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.001)
    reader.join()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak resident set (ru_maxrss): {peak:.1f} MiB; {len(samples)} samples")
    for t, mib in sorted(samples, key=lambda s: -s[1])[:5]:
        before = [text for at, text in lines if at <= t]
        print(f"  {t:8.3f} s {mib:7.1f} MiB   after: {before[-1][:90] if before else '-'}")
    for limit in (896, 960, 1024):
        print(f"  samples above {limit} MiB: {sum(1 for _, m in samples if m > limit)}")
    if a.window:
        start, end = a.window
        for t, mib in samples:
            if start <= t <= end:
                print(f"  {t:8.4f} s {mib:7.1f} MiB")
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()

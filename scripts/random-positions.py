#!/usr/bin/env python3
"""Random Kalah positions, one a line, for `kalah db probe --batch`.

Usage: scripts/random-positions.py N [--pits M] [--max-seeds K] [--seeds S] [--seed R]

Each board is drawn uniformly among all boards of 2M pits with at most K seeds (so most
come from the largest levels, as a database's entries do), the side to move at random, and
the other 2M*S - k seeds of Kalah(M,S) split at random between the two stores. The same
arguments give the same positions.
"""

import argparse
import random
from math import comb


def composition(rng, seeds, cells):
    """A uniform random way to put `seeds` seeds into `cells` pits (stars and bars)."""
    bars = sorted(rng.sample(range(seeds + cells - 1), cells - 1))
    out, last = [], -1
    for b in bars + [seeds + cells - 1]:
        out.append(b - last - 1)
        last = b
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int)
    p.add_argument("--pits", type=int, default=6)
    p.add_argument("--max-seeds", type=int, default=20)
    p.add_argument("--seeds", type=int, default=4, help="seeds a pit at the start")
    p.add_argument("--seed", type=int, default=1, help="the draws' seed")
    a = p.parse_args()
    m, cells = a.pits, 2 * a.pits
    total = cells * a.seeds
    if a.max_seeds > total:
        p.error(f"--max-seeds {a.max_seeds}: Kalah({m},{a.seeds}) has only {total} seeds")
    rng = random.Random(a.seed)
    levels = list(range(a.max_seeds + 1))
    weights = [comb(k + cells - 1, cells - 1) for k in levels]
    out = []
    for k in rng.choices(levels, weights, k=a.n):
        board = composition(rng, k, cells)
        south = rng.randint(0, total - k)
        side = rng.choice("AB")
        row = lambda r: ",".join(map(str, r))
        out.append(f"{row(board[:m])}/{south}/{row(board[m:])}/{total - k - south}/{side}")
    print("\n".join(out))


if __name__ == "__main__":
    main()

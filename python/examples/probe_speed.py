#!/usr/bin/env python3
"""The speed of ``kalah.Database.probe_many``: positions a second, from a database in the
page cache.

Draws ``--count`` positions uniformly among the boards of levels ``--min-seeds`` to
``--max-seeds`` (each level equally often, each board of a level equally likely, random
stores and side to move), reads them once to bring their pages into the page cache, then
times ``--repeat`` calls of ``probe_many`` on them: once as position strings, once as
``kalah.Position`` objects. Prints the best of the repeats, and checks that both give the
same values.

    python python/examples/probe_speed.py DIR --max-seeds 20 --count 1000000
"""

import argparse
import random
import time

import kalah


def random_board(rng, cells, seeds):
    """A board of `seeds` seeds in `cells` pits, every one equally likely (stars and bars)."""
    bars = sorted(rng.sample(range(seeds + cells - 1), cells - 1))
    edges = [-1] + bars + [seeds + cells - 1]
    return [edges[i + 1] - edges[i] - 1 for i in range(cells)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="database directory (kalah db build)")
    p.add_argument("--min-seeds", type=int, default=0)
    p.add_argument("--max-seeds", type=int, default=None, help="default: the database's top level")
    p.add_argument("--count", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()

    db = kalah.Database(args.dir)
    pits = db.rules.pits
    top = db.max_seeds if args.max_seeds is None else args.max_seeds
    rng = random.Random(args.seed)
    texts = []
    for i in range(args.count):
        k = args.min_seeds + i % (top - args.min_seeds + 1)
        c = random_board(rng, 2 * pits, k)
        texts.append("%s/%d/%s/%d/%s" % (",".join(map(str, c[:pits])), rng.randrange(40),
                                         ",".join(map(str, c[pits:])), rng.randrange(40), rng.choice("AB")))
    rules = kalah.Rules(pits=pits)
    objects = [kalah.Position(t, rules) for t in texts]
    first = db.probe_many(texts)  # brings the pages read into the page cache
    print("database: %s, levels 0..=%d, %s" % (db.dir, db.max_seeds, db.rules))
    print("positions: %d, levels %d..=%d, each level equally often" % (len(texts), args.min_seeds, top))
    for name, items in (("strings", texts), ("Position objects", objects)):
        best = None
        for _ in range(args.repeat):
            t = time.perf_counter()
            found = db.probe_many(items)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        assert [(f.margin, f.gain) for f in found] == [(f.margin, f.gain) for f in first]
        print("probe_many of %s: best of %d: %.3f s, %.2f M positions/s"
              % (name, args.repeat, best, len(items) / best / 1e6))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What each second answer of a proof cost beside its first: the figures of
results/kalah66.md, "Second answers".

    scripts/second-answer-cost.py results/proofs/6x6-standard [--each]

For every question (board, bound) answered both in DIR/results (the proof) and in
DIR/check/results (the second answers), it pairs the two records and prints, for each
number of search threads the second answers used, the questions, the CPU seconds and
nodes of the first and second answers and their ratios; `--each` adds a line a question,
`--by-file` groups the second answers by the record file that holds them (one a worker
run: the way to tell apart runs of one thread count in other configurations, which the
records do not name).
Standard library only; the records are read by scripts/check-proof.py's reader (their
checksums and proof ids checked).
"""

import importlib.util
import os
import sys


def checker():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("check_proof", os.path.join(here, "check-proof.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def costs(cp, folder, expect_id):
    """(key, beta) -> (cpu s, nodes, threads, file name) of each answer record of `folder`'s
    files."""
    out = {}
    if not os.path.isdir(folder):
        return out
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".kpr")):
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        for at in range(0, len(data) - len(data) % cp.RECORD, cp.RECORD):
            raw = data[at : at + cp.RECORD]
            rec, _why = cp.decode(raw, expect_id)
            if rec is None or rec[0] != cp.ANSWER:
                continue
            fields = cp.LAYOUT.unpack(raw)
            nodes, threads, cpu_ms = fields[7], fields[8], fields[9]
            out.setdefault((rec[1], rec[2]), (cpu_ms / 1000, nodes, threads, name))
    return out


def main(argv):
    each = "--each" in argv
    by_file = "--by-file" in argv
    dirs = [a for a in argv if not a.startswith("--")]
    if len(dirs) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cp = checker()
    proof = dirs[0]
    with open(os.path.join(proof, "proof.txt"), "rb") as f:
        man = cp.Manifest(f.read().decode("utf-8"))
    first = costs(cp, os.path.join(proof, "results"), man.proof_id())
    second = costs(cp, os.path.join(proof, "check", "results"), man.check_id())
    groups = {}
    for q, (cpu2, nodes2, thr, name) in sorted(second.items()):
        if q not in first:
            continue
        cpu1, nodes1, _, _ = first[q]
        group = (thr, name if by_file else "")
        groups.setdefault(group, []).append((q, cpu1, cpu2, nodes1, nodes2))
        if each:
            plural = "s" if thr != 1 else ""
            print(
                f"{q[0]:032x} >= {q[1]:+d}: first {cpu1:9.1f} s {nodes1:14,d} nodes, "
                f"second ({thr} thread{plural}, {name}) {cpu2:9.1f} s {nodes2:14,d} nodes, "
                f"CPU x{cpu2 / max(cpu1, 1e-3):.2f}"
            )
    for (thr, name), rows in sorted(groups.items()):
        c1 = sum(r[1] for r in rows)
        c2 = sum(r[2] for r in rows)
        n1 = sum(r[3] for r in rows)
        n2 = sum(r[4] for r in rows)
        print(
            f"second answers with {thr} search thread{'s' if thr != 1 else ''}"
            f"{' in ' + name if name else ''}: "
            f"{len(rows)} questions; CPU s first {c1:,.1f}, second {c2:,.1f} (x{c2 / max(c1, 1e-3):.2f}); "
            f"nodes first {n1:,d}, second {n2:,d} (x{n2 / max(n1, 1):.2f})"
        )
    unmatched = sum(1 for q in second if q not in first)
    if unmatched:
        print(f"{unmatched} second answers of questions the proof did not ask (a split unit's moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

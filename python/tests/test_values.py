"""The published values of Kalah(4,3) to Kalah(6,4) from the start (`tools/data/published.txt`,
the table of `results/values.md`), solved from Python.

The cases `kalah verify --quick` runs (each a few seconds here) run by default; the others
(from about 30 s to a few minutes on two cores) are marked slow and run with KALAH_SLOW=1.
"""

import pytest

import kalah
from conftest import REPO


def published():
    """(pits, seeds, capture, value, cost) of every published case from Kalah(4,3) to (6,4)."""
    cases = []
    for line in (REPO / "tools" / "data" / "published.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pits, seeds, capture, value, cost = line.split()
        pits, seeds = int(pits), int(seeds)
        if pits >= 4 and seeds >= 3 and (pits, seeds) <= (6, 4):
            cases.append((pits, seeds, capture, int(value), cost))
    return cases


CASES = published()


def test_the_range_is_the_published_one():
    assert {(m, n, c) for m, n, c, _, _ in CASES} == {
        (4, 3, "empty"), (4, 4, "empty"), (4, 5, "empty"), (4, 6, "empty"), (5, 3, "empty"),
        (5, 4, "empty"), (5, 5, "empty"), (5, 6, "empty"), (6, 3, "empty"), (6, 4, "empty"),
        (6, 4, "standard")}


@pytest.mark.parametrize(
    "pits, seeds, capture, value",
    [pytest.param(m, n, c, v, marks=[] if cost == "quick" else [pytest.mark.slow],
                  id="Kalah(%d,%d)-%s" % (m, n, c))
     for m, n, c, v, cost in CASES],
)
def test_published_value(pits, seeds, capture, value):
    start = kalah.Position.start(kalah.Rules(pits=pits, seeds=seeds, capture=capture))
    solution = kalah.solve(start)
    assert solution.value == value
    assert start.play(" ".join(solution.pv)).final_margin == value

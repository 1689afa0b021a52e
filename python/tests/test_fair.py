"""`kalah.fair_starts`: the committed lists, the same starts as `kalah fair` finds, each a
draw by `kalah.solve`."""

import json
import subprocess

import pytest

import kalah


def test_the_committed_starts_are_draws_near_the_start():
    rules = kalah.Rules(pits=4, seeds=3)
    starts = kalah.fair_starts(rules)
    assert starts
    moved = [k for _, k in starts]
    assert moved == sorted(moved) and set(moved) <= {1, 2}
    for position, _ in starts:
        assert position.rules == rules
        assert position.to_move == "A"
        assert position.board_seeds + sum(position.stores) == 24
    # A sample, each solved: every one is a draw.
    for position, _ in starts[:: max(1, len(starts) // 12)]:
        assert kalah.solve(position).value == 0, str(position)


def test_the_committed_list_is_what_kalah_fair_finds(kalah_bin):
    rules = kalah.Rules(pits=4, seeds=3)
    out = subprocess.run(
        [kalah_bin, "fair", "--pits", "4", "--seeds", "3", "--moved", "2", "--json",
         "--quiet", "--threads", "1"],
        check=True, capture_output=True, text=True,
    ).stdout
    found = [(json.loads(line)["position"], json.loads(line)["moved"]) for line in out.splitlines()]
    assert [(str(p), k) for p, k in kalah.fair_starts(rules)] == found


def test_rules_without_a_list_are_refused():
    with pytest.raises(ValueError, match="no committed list of fair starts for Kalah\\(6,6\\)"):
        kalah.fair_starts(kalah.Rules(pits=6, seeds=6))
    with pytest.raises(ValueError, match="pie"):
        kalah.fair_starts(kalah.Rules(pits=4, seeds=3, pie=True))

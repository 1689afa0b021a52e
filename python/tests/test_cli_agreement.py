"""`kalah.solve` and `kalah.moves` give exactly `kalah solve` and `kalah moves`'s numbers, on
200 random positions under ten rule sets (every switch, clockwise rules included) and on
positions under the pie rule."""

import json
import random
import subprocess

import pytest

import kalah

# Small boards, so that each solve takes a fraction of a second on two cores.
RULE_SETS = [
    dict(pits=4, seeds=3),
    dict(pits=3, seeds=4, capture="empty"),
    dict(pits=4, seeds=4, end="mover"),
    dict(pits=3, seeds=3, remaining="emptier"),
    dict(pits=3, seeds=3, remaining="discard", opp_store="sow"),
    dict(pits=3, seeds=2, sowing="relay"),
    dict(pits=2, seeds=3, direction="cw"),
    dict(pits=3, seeds=2, direction="cw", end="mover"),
    dict(pits=5, seeds=2, capture="empty", end="mover"),
    dict(pits=6, seeds=2),
]

POSITIONS = 200


def cli_flags(rules):
    """`kalah`'s switches for a `Rules`."""
    flags = ["--pits", str(rules.pits), "--seeds", str(rules.seeds)]
    for name in ("capture", "sowing", "direction", "opp_store", "end", "remaining"):
        flags += ["--" + name.replace("_", "-"), getattr(rules, name)]
    if rules.pie:
        flags.append("--pie")
    return flags


def cli(kalah_bin, command, position):
    out = subprocess.run(
        [kalah_bin, command, "--json", "--quiet", "--position", str(position)] + cli_flags(position.rules),
        check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def random_positions(count, seed, rule_sets, with_over=True):
    """`count` positions reached by random play from the start of each rule set in turn
    (a few of them over, where `with_over`)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        rules = kalah.Rules(**rule_sets[len(out) % len(rule_sets)])
        p = kalah.Position.start(rules)
        for _ in range(rng.randrange(0, 30)):
            moves = p.legal_moves()
            if not moves:
                break
            q = p.play(rng.choice(moves))
            if q.game_over and not (with_over and rng.random() < 0.1):
                break
            p = q
        out.append(p)
    return out


@pytest.mark.parametrize("position", random_positions(POSITIONS, 20261204, RULE_SETS), ids=str)
def test_solve_and_moves_agree_with_the_command(kalah_bin, position):
    moves = kalah.moves(position)
    want = cli(kalah_bin, "moves", position)
    assert [(m.move, m.value) for m in moves] == [(w["move"], w["value"]) for w in want]

    solution = kalah.solve(position)
    (want,) = cli(kalah_bin, "solve", position)
    assert solution.value == want["value"]
    assert solution.gain == want["future_gain"]
    assert solution.method == want["method"]
    if position.game_over:
        assert solution.best_move is None and solution.pv == [] and want["pv"] == []
        assert solution.value == position.final_margin
        return
    # The best move is one the command values as best, and the variation keeps the value
    # to the end of the game (the first moves of a cyclic one: it may never end).
    assert solution.best_move in [m.move for m in moves if m.value == moves[0].value]
    assert solution.value == moves[0].value
    after = position.play(" ".join(solution.pv))
    if after.game_over:
        assert after.final_margin == solution.value
    else:
        assert position.rules.can_cycle and len(solution.pv) == 200
        assert kalah.solve(after).value == solution.value


PIE_RULE_SETS = [dict(r, pie=True) for r in RULE_SETS[:6]]


@pytest.mark.parametrize("position", random_positions(12, 7, PIE_RULE_SETS, with_over=False), ids=str)
def test_the_pie_rule_agrees_with_the_command(kalah_bin, position):
    solution = kalah.solve(position)
    (want,) = cli(kalah_bin, "solve", position)
    assert solution.value == want["value"]
    assert solution.pie_value == want["pie_value"]
    assert [(t.moves, t.value, t.swap) for t in solution.pie_turns] == [
        (t["turn"], t["value"], t["swap"]) for t in want["turns"]
    ]
    with pytest.raises(ValueError) as e:
        kalah.moves(position)
    assert "does not use the pie rule" in str(e.value)


def test_a_position_string_is_read_with_the_default_rules(kalah_bin):
    text = "2,0,3,1/4/0,5,1,0/8/B"
    assert kalah.solve(text).value == kalah.solve(kalah.Position(text)).value
    (want,) = cli(kalah_bin, "solve", kalah.Position(text))
    assert kalah.solve(text).value == want["value"]

"""Rules, positions and moves: what they hold, and every kind of bad input refused with
`kalah`'s message as a ValueError (never a crash)."""

import pytest

import kalah


def test_rules_defaults_and_switches():
    r = kalah.Rules()
    assert (r.pits, r.seeds) == (6, None)
    assert (r.capture, r.sowing, r.direction, r.opp_store, r.end, r.remaining, r.pie) == (
        "standard", "single", "ccw", "skip", "either", "owner", False)
    assert not r.can_cycle
    r = kalah.Rules(pits=3, seeds=5, capture="EMPTY", direction="cw", opp_store="sow",
                    end="mover", remaining="discard", pie=True)
    assert (r.capture, r.direction, r.opp_store, r.end, r.remaining, r.pie) == (
        "empty", "cw", "sow", "mover", "discard", True)
    assert r.can_cycle
    # Relay sowing has no captures unless asked, as `kalah --sowing relay`.
    assert kalah.Rules(sowing="relay").capture == "none"
    assert kalah.Rules(sowing="relay", capture="standard").capture == "standard"
    assert str(kalah.Rules(pits=4, seeds=3)).startswith("Kalah(4,3) capture=standard")
    assert kalah.Rules(pits=4) == kalah.Rules(pits=4)
    assert len({kalah.Rules(pits=4), kalah.Rules(pits=4)}) == 1
    assert eval(repr(r), {"Rules": kalah.Rules}) == r


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"pits": 0}, "pits a side must be 1 to 6, got 0"),
        ({"pits": 7}, "pits a side must be 1 to 6, got 7"),
        ({"pits": -1}, "pits a side must be 1 to 6, got -1"),
        ({"pits": 10**30}, "pits a side must be 1 to 6, got 1000000000000000000000000000000"),
        ({"seeds": 0}, "seeds a pit must be 1 to 12, got 0"),
        ({"seeds": 13}, "seeds a pit must be 1 to 12, got 13"),
        ({"capture": "all"}, "unknown value 'all' for capture; expected one of: standard, empty, none"),
        ({"sowing": "double"}, "unknown value 'double' for sowing; expected one of: single, relay"),
        ({"direction": "up"}, "unknown value 'up' for direction; expected one of: ccw, cw"),
        ({"opp_store": "x"}, "unknown value 'x' for opp-store; expected one of: skip, sow"),
        ({"end": "never"}, "unknown value 'never' for end; expected one of: either, mover"),
        ({"remaining": "me"}, "unknown value 'me' for remaining; expected one of: owner, emptier, discard"),
    ],
)
def test_bad_rules(kwargs, message):
    with pytest.raises(ValueError) as e:
        kalah.Rules(**kwargs)
    assert str(e.value) == message


def test_rules_of_the_wrong_type_are_type_errors():
    with pytest.raises(TypeError):
        kalah.Rules(pits="six")
    with pytest.raises(TypeError):
        kalah.Rules(capture=1)


def test_position_round_trips_and_carries_its_rules():
    p = kalah.Position("1,0,2/0/0,4,0/0/A")
    assert str(p) == "1,0,2/0/0,4,0/0/A"
    assert (p.pits, p.row_a, p.row_b, p.stores, p.to_move) == (3, [1, 0, 2], [0, 4, 0], (0, 0), "A")
    # 7 seeds: no Kalah(3,n) holds them, so the seeds a pit default to 4, as `kalah`.
    assert p.rules.seeds == 4 and p.rules.pits == 3
    # 24 seeds on 3 pits a side: Kalah(3,4) is named, without seeds given.
    q = kalah.Position("4,4,4/2/4,4,2/0/B")
    assert q.rules.seeds == 4 and q.to_move == "B"
    assert kalah.Position("4,4,4/2/4,4,2/0/B", kalah.Rules(pits=3, seeds=4)) == q
    assert kalah.Position.start() == kalah.Position("4,4,4,4,4,4/0/4,4,4,4,4,4/0/A")
    s = kalah.Position.start(kalah.Rules(pits=2, seeds=5, end="mover"))
    assert str(s) == "5,5/0/5,5/0/A" and s.rules.end == "mover" and s.rules.seeds == 5
    assert eval(repr(q), {"Position": kalah.Position, "Rules": kalah.Rules}) == q


@pytest.mark.parametrize(
    "text, rules, message",
    [
        ("4,4/0/4,4/0", None, "position '4,4/0/4,4/0': expected 5 parts 'A-pits/A-store/B-pits/B-store/side', found 4"),
        ("4,x/0/4,4/0/A", None, "position: row A: 'x' is not a seed count (a whole number from 0 to 4294967295)"),
        ("4,-1/0/4,4/0/A", None, "position: row A: '-1' is not a seed count (a whole number from 0 to 4294967295)"),
        ("4,4/0/4,4/z/A", None, "position: store B: 'z' is not a seed count (a whole number from 0 to 4294967295)"),
        ("4,4/0/4,4,4/0/A", None, "position: rows A and B have 2 and 3 pits; they must match"),
        ("4,4/0/4,4/0/C", None, "position: side 'C' must be A or B"),
        ("1,1,1,1,1,1,1/0/1,1,1,1,1,1,1/0/A", None, "position: row A: 7 pits, expected 1 to 6"),
        ("200,100/0/0,0/0/A", None, "position: 300 seeds on the board, more than the 255 the encoding holds"),
        ("4/2147483647/4/0/A", None,
         "position: 2147483655 seeds in the stores and on the board, more than the 2147483647 a store can count"),
        ("1,0,2/0/0,4,0/0/A", kalah.Rules(), "position has 3 pits a side but the rules say 6"),
        ("1,0,2/0/0,4,0/0/A", kalah.Rules(pits=3, seeds=2),
         "seeds=2: the position holds 7 seeds, not the 12 of Kalah(3,2); leave seeds out (seeds=None) with a position"),
    ],
)
def test_bad_positions(text, rules, message):
    with pytest.raises(ValueError) as e:
        kalah.Position(text, rules)
    assert str(e.value) == message


def test_moves_are_annotated_and_played():
    start = kalah.Position.start(kalah.Rules(pits=6, seeds=4))
    assert start.legal_moves() == ["A1", "A2", "A3+", "A4", "A5", "A6"]
    after = start.play("A3 A6 B1")
    assert str(after) == "4,4,0,5,5,0/2/0,6,6,6,5,5/0/A"
    assert start.play("A3+ A6 B1") == after
    assert after.rules == start.rules
    p = kalah.Position("1,0,2/0/0,4,0/0/A")
    assert p.legal_moves() == ["A1x5#", "A3"]
    end = p.play("A1x5#")
    assert str(end) == "0,0,0/7/0,0,0/0/B"
    assert end.game_over and end.final_margin == 7 and end.legal_moves() == []
    assert not p.game_over and p.final_margin is None
    # Over with seeds left: each side keeps its own (remaining=owner) or they go to the
    # player whose row is empty (emptier).
    q = kalah.Position("0,0,0/10/0,4,0/10/A")
    assert q.game_over and q.final_margin == -4
    assert kalah.Position("0,0,0/10/0,4,0/10/A", kalah.Rules(pits=3, remaining="emptier")).final_margin == 4
    assert kalah.Position("0,0,0/10/0,4,0/10/A", kalah.Rules(pits=3, end="mover")).game_over
    assert not kalah.Position("0,0,0/10/0,4,0/10/B", kalah.Rules(pits=3, end="mover")).game_over


@pytest.mark.parametrize(
    "moves, message",
    [
        ("A2", "move 1 'A2' is illegal: pit A2 is empty"),
        ("A4", "move 1 'A4' is illegal: there is no pit 4: pits are numbered 1 to 3"),
        ("A0", "move 1 'A0' is illegal: there is no pit 0: pits are numbered 1 to 3"),
        ("B1", "move 1 'B1' is illegal: it is South's turn (row A), not row B"),
        ("Z9", "move 1 'Z9' is illegal: 'Z9' is not a move: expected a row letter A or B, a pit number, then optionally x<seeds>, + and #"),
        ("", "'' is not a move: expected a row letter A or B, a pit number, then optionally x<seeds>, + and #"),
        ("A3+", "move 1 'A3+' is illegal: written 'A3+' but the move is 'A3'"),
        ("A1x3", "move 1 'A1x3' is illegal: written 'A1x3' but the move is 'A1x5#'"),
        ("A3#", "move 1 'A3#' is illegal: written 'A3#' but the move is 'A3'"),
        ("A1 B1", "move 2 'B1' is illegal: the game is already over"),
        ("A3 A1", "move 2 'A1' is illegal: it is North's turn (row B), not row A"),
    ],
)
def test_illegal_moves(moves, message):
    p = kalah.Position("1,0,2/0/0,4,0/0/A")
    with pytest.raises(ValueError) as e:
        p.play(moves)
    assert str(e.value) == message


def test_positions_are_values():
    p = kalah.Position("1,0,2/0/0,4,0/0/A")
    assert p == kalah.Position("1,0,2/0/0,4,0/0/A")
    assert p != kalah.Position("1,0,2/0/0,4,0/0/A", kalah.Rules(pits=3, capture="empty"))
    assert len({p, kalah.Position("1,0,2/0/0,4,0/0/A")}) == 1
    with pytest.raises(AttributeError):
        p.pits = 4

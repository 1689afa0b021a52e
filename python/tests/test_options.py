"""The options of `solve` and `moves`, each refused as `kalah solve` refuses its option (the
option named as Python's keyword), and the positions no solve can take."""

import pytest

import kalah

SMALL = kalah.Position("1,0,2/0/0,4,0/0/A")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tt_mb": 0}, "tt_mb: a transposition table of 0 MiB cannot hold a search: give at least 1"),
        ({"tt_mb": -3}, "tt_mb: '-3' is not a size in MiB (a whole number from 1)"),
        ({"tt_mb": "big"}, "tt_mb: 'big' is not a size in MiB (a whole number from 1)"),
        ({"threads": 0}, "threads: '0' is not a thread count: 0 threads cannot run anything"),
        ({"threads": 10**6}, "threads: 1000000 threads is more than 4 per core of this machine's"),
        ({"threads": -2}, "threads: '-2' is not a thread count (a whole number from 1 to"),
        ({"endgame": "some"}, "endgame: expected a number of seeds, 'auto' or 'none', not 'some'"),
        ({"endgame": -1}, "endgame: expected a number of seeds, 'auto' or 'none', not '-1'"),
        ({"timeout": 0}, "timeout: 0 is not a time limit (a positive number of seconds, or None)"),
        ({"timeout": -1.5}, "timeout: -1.5 is not a time limit (a positive number of seconds, or None)"),
        ({"timeout": float("nan")}, "timeout: NaN is not a time limit (a positive number of seconds, or None)"),
    ],
)
def test_bad_options(kwargs, message):
    for f in (kalah.solve, kalah.moves):
        with pytest.raises(ValueError) as e:
            f(SMALL, **kwargs)
        assert str(e.value).startswith(message)


def test_options_that_do_not_fit():
    start = kalah.Position.start(kalah.Rules(pits=6, seeds=4))
    with pytest.raises(ValueError) as e:
        kalah.solve(start, tt_mb=10**9)
    # The table is sized for the boards of the position (at most tt_mb), then checked.
    assert str(e.value).startswith("tt_mb 1000000000: a transposition table of ")
    assert "MiB is more than the" in str(e.value) and "(MemAvailable in /proc/meminfo)" in str(e.value)
    with pytest.raises(ValueError) as e:
        kalah.solve(start, endgame=40)
    assert str(e.value) == (
        "endgame=40: the table would hold more than 4294967296 boards; build a database with "
        "`kalah db build` instead")
    cyclic = kalah.Position.start(kalah.Rules(pits=6, seeds=12, direction="cw"))
    with pytest.raises(ValueError) as e:
        kalah.solve(cyclic)
    assert str(e.value).startswith(
        "clockwise sowing can cycle, so these rules are solved by retrograde analysis of every "
        "board with up to 144 seeds:")
    with pytest.raises(ValueError) as e:
        kalah.moves(kalah.Position("1,0/0/1,0/0/A", kalah.Rules(pits=2, direction="cw")), endgame=3)
    assert str(e.value).startswith("endgame=3: clockwise rules are solved by retrograde analysis")


def test_options_that_change_nothing_but_the_speed():
    p = kalah.Position("2,0,3,1/4/0,5,1,0/8/B")
    want = kalah.solve(p).value
    for kwargs in ({"endgame": "none"}, {"endgame": 3}, {"threads": 1}, {"tt_mb": 1}, {"timeout": 60}):
        assert kalah.solve(p, **kwargs).value == want
        assert [m.value for m in kalah.moves(p, **kwargs)] == [m.value for m in kalah.moves(p)]


def test_what_is_not_a_position():
    with pytest.raises(TypeError) as e:
        kalah.solve(42)
    assert str(e.value) == "expected a kalah.Position or a position string, not int"
    with pytest.raises(ValueError) as e:
        kalah.solve("4,4/0/4,4/0")
    assert "expected 5 parts" in str(e.value)
    over = kalah.Position("0,0,0/7/0,0,0/0/B")
    assert kalah.moves(over) == []
    s = kalah.solve(over)
    assert (s.value, s.best_move, s.pv) == (7, None, [])

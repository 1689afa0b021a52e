"""The OpenSpiel bridge: OpenSpiel's mancala and `kalah` play the same games, state for
state, under the numbering `kalah.openspiel` maps."""

import random

import pytest

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="open_spiel is not installed (pip install open_spiel: a wheel exists for CPython "
    "3.11 on x86-64 Linux; elsewhere it may not install)",
)

import kalah  # noqa: E402
from kalah import openspiel as ks  # noqa: E402


def test_the_start_and_the_rules():
    game = ks.load_game()
    state = game.new_initial_state()
    assert ks.position_from_state(state) == kalah.Position.start(kalah.Rules(pits=6, seeds=4))
    assert ks.RULES == kalah.Rules(pits=6, seeds=4)
    assert [ks.move_from_action(0, a) for a in state.legal_actions()] == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert [ks.action_from_move(m) for m in ["A1", "A6", "B1", "B6", "B5x9#", "a3+"]] == [1, 6, 8, 13, 12, 3]


def test_random_games_agree_state_for_state():
    game = ks.load_game()
    rng = random.Random(3)
    for _ in range(60):
        state = game.new_initial_state()
        position = kalah.Position.start(ks.RULES)
        record = []
        while not state.is_terminal():
            assert ks.position_from_state(state) == position
            player = state.current_player()
            assert player == (0 if position.to_move == "A" else 1)
            legal = state.legal_actions()
            moves = position.legal_moves()
            assert [ks.move_from_action(player, a) for a in legal] == [
                m.rstrip("+#").split("x")[0] for m in moves]
            action = rng.choice(legal)
            move = moves[legal.index(action)]
            record.append(move)
            state.apply_action(action)
            position = position.play(move)
        # OpenSpiel leaves the last seeds on the board; kalah sweeps them to their owners.
        final = ks.position_from_state(state)
        assert final.game_over and position.game_over
        assert final.final_margin == position.final_margin
        returns = state.returns()
        assert returns[0] == (1.0 if final.final_margin > 0 else -1.0 if final.final_margin < 0 else 0.0)
        # And back: the record replayed into OpenSpiel gives the same state.
        again = ks.state_from_moves(" ".join(record), game)
        assert again.observation_tensor(0) == state.observation_tensor(0)


def test_a_perfect_move_is_an_openspiel_action():
    game = ks.load_game()
    state = game.new_initial_state()
    rng = random.Random(8)
    # Late in a random game, where a search takes a fraction of a second.
    while ks.position_from_state(state).board_seeds > 20:
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    position = ks.position_from_state(state)
    best = kalah.moves(position)[0]
    state.apply_action(ks.action_from_move(best.move))
    assert ks.position_from_state(state) == position.play(best.move)


def test_bad_moves_and_actions():
    with pytest.raises(ValueError) as e:
        ks.state_from_moves("A3 A3")
    assert str(e.value) == "move 2 'A3' is illegal: pit A3 is empty"
    with pytest.raises(ValueError):
        ks.action_from_move("C1")
    with pytest.raises(ValueError):
        ks.action_from_move("A7")
    with pytest.raises(ValueError):
        ks.move_from_action(0, 8)
    with pytest.raises(ValueError):
        ks.position_from_state(pyspiel.load_game("tic_tac_toe").new_initial_state())

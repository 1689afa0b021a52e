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


class OldLayout:
    """A mancala state seen through OpenSpiel's observation tensor of before 2026: the
    14 board cells alone."""

    def __init__(self, state):
        self._state = state

    def observation_tensor(self, player):
        return self._state.observation_tensor(player)[:14]

    def __getattr__(self, name):
        return getattr(self._state, name)


def test_both_tensor_layouts_give_the_same_positions():
    game = ks.load_game()
    rng = random.Random(5)
    assert len(game.new_initial_state().observation_tensor(0)) in (14, 16)
    for _ in range(20):
        state = game.new_initial_state()
        position = kalah.Position.start(ks.RULES)
        while True:
            # The player is the state's, not the tensor's: the same either way.
            assert ks.position_from_state(OldLayout(state)) == ks.position_from_state(state)
            assert ks.position_from_state(state).to_move == position.to_move
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            position = position.play(ks.move_from_action(state.current_player(), action))
            state.apply_action(action)


def late_state(seed, seeds_left=16):
    """A state of a random game with at most `seeds_left` seeds on the board, not over:
    solved in a fraction of a second."""
    game = ks.load_game()
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal() and ks.position_from_state(state).board_seeds > seeds_left:
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            return state


def outcome(margin):
    return (margin > 0) - (margin < 0)


def test_the_perfect_bot_plays_a_best_move_and_keeps_the_value():
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    import numpy as np

    bot = ks.PerfectBot(tt_mb=16)
    assert isinstance(bot, pyspiel.Bot)
    for seed in range(4):
        state = late_state(seed)
        position = ks.position_from_state(state)
        value = kalah.solve(position, tt_mb=16).value
        action = bot.step(state)
        after = position.play(ks.move_from_action(state.current_player(), action))
        assert kalah.solve(after, tt_mb=16).value == value
        # Two perfect bots end the game with the value's outcome; against a random
        # player the perfect one never does worse than the value.
        returns = evaluate_bots(state.clone(), [bot, bot], np.random.RandomState(seed))
        assert list(returns) == [outcome(value), -outcome(value)]
        random_bot = pyspiel.make_uniform_random_bot(1 - state.current_player(), seed)
        me = state.current_player()
        bots = [bot, random_bot] if me == 0 else [random_bot, bot]
        returns = evaluate_bots(state.clone(), bots, np.random.RandomState(seed))
        sign = 1 if me == 0 else -1
        assert returns[me] >= sign * outcome(value)


def test_the_exact_evaluator_gives_the_perfect_play_returns_to_mcts():
    from open_spiel.python.algorithms import mcts
    import numpy as np

    evaluator = ks.ExactEvaluator(tt_mb=16)
    for seed in range(4):
        state = late_state(seed + 10)
        value = kalah.solve(ks.position_from_state(state), tt_mb=16).value
        assert list(evaluator.evaluate(state)) == [outcome(value), -outcome(value)]
        prior = evaluator.prior(state)
        assert [a for a, _ in prior] == state.legal_actions()
        assert abs(sum(p for _, p in prior) - 1.0) < 1e-9
    # A finished game is valued by its final margin, without a search.
    state = late_state(3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    margin = ks.position_from_state(state).final_margin
    assert list(evaluator.evaluate(state)) == [outcome(margin), -outcome(margin)]
    assert list(state.returns()) == [outcome(margin), -outcome(margin)]
    # OpenSpiel's MCTS runs on it and plays a legal move.
    state = late_state(21)
    bot = mcts.MCTSBot(ks.load_game(), uct_c=2.0, max_simulations=20, evaluator=evaluator,
                       random_state=np.random.RandomState(1), solve=True)
    assert bot.step(state) in state.legal_actions()

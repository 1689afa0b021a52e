"""OpenSpiel's ``mancala`` as a client of the perfect player.

OpenSpiel's ``mancala`` is Kalah(6,4) under this project's default rules: standard
capture, counter-clockwise single sowing, the opponent's store skipped, the game over as
soon as either row is empty, each player keeping the seeds on their own side. So every
OpenSpiel state is a ``kalah.Position`` of ``RULES``, and every action a move.

The numbering, mapped here once:

=====================  ==============================  ========================
OpenSpiel              meaning                          ``kalah``
=====================  ==============================  ========================
player 0               moves first                      South, row A, side 'A'
player 1                                                North, row B, side 'B'
board index 1..6       player 0's pits, sowing order    A1..A6
board index 7          player 0's store                 South's store
board index 8..13      player 1's pits, sowing order    B1..B6
board index 0          player 1's store                 North's store
action a in 1..6       player 0 empties index a         move 'A<a>'
action a in 8..13      player 1 empties index a         move 'B<a-7>'
=====================  ==============================  ========================

Both sow the same way round (A1..A6, South's store, B1..B6, North's store), and
OpenSpiel's opposite pits (indices ``i`` and ``14 - i``) are ``kalah``'s (A``i`` and
B``7-i``), which ``tests/test_openspiel.py`` checks by playing the same games in both.

Two differences of bookkeeping, not of rules: OpenSpiel leaves the seeds on the board
when the game ends (its returns add them to each owner's store; ``kalah`` sweeps them),
so a final state converts to a position whose ``final_margin`` is the game's; and
OpenSpiel's returns are only win, draw or loss, where ``kalah`` gives the margin.

OpenSpiel's Python API cannot set a mancala board (``SetBoard`` is C++ only), so the way
back from ``kalah`` to OpenSpiel is through moves: ``state_from_moves`` replays a record
of ``kalah`` moves from the start, and ``action_from_move`` turns one move into an
action.

OpenSpiel's players of this game: ``PerfectBot``, a ``pyspiel.Bot`` that plays a best
move every turn (for ``evaluate_bots`` and anything else that takes a bot), and
``ExactEvaluator``, the exact win, draw or loss of a state for OpenSpiel's MCTS in place
of random rollouts. Both solve through ``kalah.solve``, so they take its options (``db=``
a ``kalah.Database`` makes each position a probe or a short search; without one an early
position of Kalah(6,4) takes a minute or more on two cores).

The observation tensor of ``mancala`` grew in 2026 from the 14 board cells to 16 floats
(the cells, then the player to move and the move number). The board is read from its
first 14 floats and the player from the state itself, so both layouts work.

Importing this module imports ``pyspiel``; ``import kalah`` alone does not.
"""

from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import kalah

RULES = kalah.Rules(pits=6, seeds=4)
"""The rules of OpenSpiel's ``mancala``: Kalah(6,4), every switch at its default."""

PITS = 6
_SOUTH_STORE = 7
_NORTH_STORE = 0


def load_game() -> "pyspiel.Game":
    """OpenSpiel's ``mancala`` game."""
    return pyspiel.load_game("mancala")


def _board(state: "pyspiel.State") -> Tuple[List[int], int]:
    """The 14 board cells of a mancala state, in OpenSpiel's numbering, and the player
    to move (0 or 1).

    The cells are the observation tensor's first 14 floats, in both of its layouts (14
    floats before 2026, 16 since: the cells, the player, the move number). The player is
    the state's; once the game is over OpenSpiel has none, so it is the side ``kalah``
    gives the position reached by the game's actions."""
    if state.get_game().get_type().short_name != "mancala":
        raise ValueError(
            "not a mancala state: %s" % state.get_game().get_type().short_name
        )
    t = state.observation_tensor(0)
    if len(t) not in (2 * PITS + 2, 2 * PITS + 4):
        raise ValueError(
            "a mancala observation tensor of %d floats: expected 14 or 16" % len(t)
        )
    cells = [int(x) for x in t[: 2 * PITS + 2]]
    if not state.is_terminal():
        return cells, state.current_player()
    # Every action names its pit and so its player: the game replayed in kalah.
    record = " ".join(move_from_action(_player_of(a), a) for a in state.history())
    end = kalah.Position.start(RULES).play(record) if record else kalah.Position.start(RULES)
    return cells, 0 if end.to_move == "A" else 1


def _player_of(action: int) -> int:
    """The player whose pit ``action`` empties."""
    return 0 if action <= PITS else 1


def position_from_state(state: "pyspiel.State") -> "kalah.Position":
    """The ``kalah.Position`` of an OpenSpiel mancala state (under ``RULES``)."""
    cells, player = _board(state)
    row_a = cells[1 : PITS + 1]
    row_b = cells[_SOUTH_STORE + 1 : _SOUTH_STORE + 1 + PITS]
    side = "A" if player == 0 else "B"
    text = "%s/%d/%s/%d/%s" % (
        ",".join(map(str, row_a)),
        cells[_SOUTH_STORE],
        ",".join(map(str, row_b)),
        cells[_NORTH_STORE],
        side,
    )
    return kalah.Position(text, RULES)


def move_from_action(player: int, action: int) -> str:
    """The ``kalah`` move (unannotated, 'A3' or 'B5') of OpenSpiel's ``action`` by
    ``player`` (0 or 1)."""
    if player == 0 and 1 <= action <= PITS:
        return "A%d" % action
    if player == 1 and _SOUTH_STORE + 1 <= action <= _SOUTH_STORE + PITS:
        return "B%d" % (action - _SOUTH_STORE)
    raise ValueError("action %r is not a pit of player %r" % (action, player))


def action_from_move(move: str) -> int:
    """OpenSpiel's action of a ``kalah`` move ('A3', 'B5x9#': annotations are ignored
    here, and checked by ``kalah.Position.play``)."""
    text = move.strip()
    digits = ""
    for ch in text[1:]:
        if not ch.isdigit():
            break
        digits += ch
    if len(text) < 2 or text[0].upper() not in "AB" or not digits:
        raise ValueError("'%s' is not a move of OpenSpiel's mancala" % move)
    pit = int(digits)
    if not 1 <= pit <= PITS:
        raise ValueError("'%s': there is no pit %d: pits are numbered 1 to %d" % (move, pit, PITS))
    return pit if text[0].upper() == "A" else _SOUTH_STORE + pit


def state_from_moves(
    moves: Union[str, Iterable[str]], game: Optional["pyspiel.Game"] = None
) -> "pyspiel.State":
    """The OpenSpiel state after a record of ``kalah`` moves from the start ('A3 A6 B2',
    or a list of moves). Each move is checked by ``kalah`` first (legality, side to move,
    annotations), so an illegal one raises ``kalah``'s ValueError, not an OpenSpiel
    crash."""
    record = moves.split() if isinstance(moves, str) else list(moves)
    if record:
        kalah.Position.start(RULES).play(" ".join(record))
    state = (game or load_game()).new_initial_state()
    for move in record:
        state.apply_action(action_from_move(move))
    return state


def _outcome(margin: int) -> float:
    """OpenSpiel's return for player 0 of a game that ends with ``margin`` (South minus
    North): 1 for a win, 0 for a draw, -1 for a loss."""
    return float((margin > 0) - (margin < 0))


class PerfectBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` that plays a best move of ``kalah.solve`` every turn: the
    principal variation's first move, so among equal moves always the same one.

    ``solve_options`` are ``kalah.solve``'s keyword arguments (``db``, ``tt_mb``,
    ``threads``, ``endgame``, ``timeout``). The bot keeps no state between moves, so it
    can join a game at any state, for either player."""

    def __init__(self, **solve_options: Any) -> None:
        pyspiel.Bot.__init__(self)
        self.solve_options = solve_options

    def step(self, state: "pyspiel.State") -> int:
        """The action of a best move at ``state``."""
        best = kalah.solve(position_from_state(state), **self.solve_options).best_move
        if best is None:
            raise ValueError("the game is over: there is no move to play")
        return action_from_move(best)

    def restart_at(self, state: "pyspiel.State") -> None:
        """Nothing to forget: each move is solved from its state."""

    def inform_action(self, state: "pyspiel.State", player_id: int, action: int) -> None:
        """Nothing to learn from the other player's moves."""

    def provides_policy(self) -> bool:
        return False


class ExactEvaluator(mcts.Evaluator):
    """The exact value of a state for OpenSpiel's MCTS (``mcts.MCTSBot(..., evaluator=
    ExactEvaluator())``), in place of random rollouts: each player's return under perfect
    play from the state, 1, 0 or -1, as ``state.returns()`` will be at the end of a game
    both sides play perfectly. The prior is uniform over the legal actions.

    ``solve_options`` are ``kalah.solve``'s keyword arguments, as for ``PerfectBot``."""

    def __init__(self, **solve_options: Any) -> None:
        self.solve_options = solve_options

    def evaluate(self, state: "pyspiel.State") -> "np.ndarray":
        """Player 0's and player 1's returns under perfect play from ``state``."""
        position = position_from_state(state)
        margin = position.final_margin
        if margin is None:
            margin = kalah.solve(position, **self.solve_options).value
        v = _outcome(margin)
        return np.array([v, -v])

    def prior(self, state: "pyspiel.State") -> Sequence[Tuple[int, float]]:
        """Each legal action, all equally likely."""
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]

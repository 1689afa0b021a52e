#!/usr/bin/env python3
"""OpenSpiel's MCTS bot against the perfect player, on OpenSpiel's mancala (Kalah(6,4)).

The bot plays one game as South (first) and one as North against ``kalah.openspiel``'s
``PerfectBot``, each game played by OpenSpiel's ``evaluate_bots``. Before each of its moves the
exact value of every legal move is read from ``kalah.moves``, so each move the bot makes
is scored by what it loses: the perfect-play final margin of its best move less that of
the move it chose, from the bot's side (0 for a best move). The perfect player plays a
best move every turn, so the bot's final margin is the start's perfect-play value less
the sum of what its moves lost; the report checks that identity for every game.

Usage (from the repository root, after ``pip install ./python`` and
``pip install open_spiel``):

    python python/examples/mcts_vs_perfect.py --db DIR --simulations 1000

``--exact`` gives the MCTS bot ``kalah.openspiel.ExactEvaluator`` in place of random
rollouts: each leaf it expands is then valued by perfect play.

A database (``kalah db build --pits 6 --max-seeds 24 --out DIR`` or more) makes each
position a second or less; without one the first positions take minutes each on two
cores (Kalah(6,4) from the start: about 90 s on two threads).
"""

import argparse
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

import kalah
from kalah import openspiel as ks


def side_sign(side: str) -> int:
    return 1 if side == "A" else -1


def record_of(state) -> list:
    """The game's moves so far, annotated as ``kalah`` writes them."""
    position = kalah.Position.start(ks.RULES)
    record = []
    for action in state.history():
        move = ks.move_from_action(0 if action <= ks.PITS else 1, action)
        annotated = next(m for m in position.legal_moves() if m.rstrip("+#").split("x")[0] == move)
        record.append(annotated)
        position = position.play(annotated)
    return record


class Scored(pyspiel.Bot):
    """A bot whose every move is scored, as it is made, by the final margin it loses
    against a best move (read from ``kalah.moves``), and printed as a table row."""

    def __init__(self, bot, opts, out):
        pyspiel.Bot.__init__(self)
        self.bot, self.opts, self.out = bot, opts, out
        self.losses = []

    def restart_at(self, state):
        self.bot.restart_at(state)
        self.losses = []

    def inform_action(self, state, player_id, action):
        self.bot.inform_action(state, player_id, action)

    def step(self, state):
        pos = ks.position_from_state(state)
        values = kalah.moves(pos, **self.opts)
        action = self.bot.step(state)
        move = ks.move_from_action(state.current_player(), action)
        chosen = next(v for v in values if v.move.rstrip("+#").split("x")[0] == move)
        lost = side_sign(pos.to_move) * (values[0].value - chosen.value)
        self.losses.append(lost)
        print(
            "| %d | %s | %+d | %s | %+d | %d |"
            % (len(state.history()) + 1, chosen.move, chosen.value, values[0].move, values[0].value, lost),
            file=self.out,
        )
        self.out.flush()
        return action


def play_game(game, bot, bot_side, opts, out, rng):
    """One game, played by ``evaluate_bots``; returns (bot's final margin, start value for
    the bot, moves lost)."""
    state = game.new_initial_state()
    start_value = side_sign(bot_side) * kalah.solve(ks.position_from_state(state), **opts).value
    scored = Scored(bot, opts, out)
    perfect = ks.PerfectBot(**opts)
    bots = [scored, perfect] if bot_side == "A" else [perfect, scored]
    print("", file=out)
    print("### MCTS bot as %s (%s)" % ("South" if bot_side == "A" else "North", bot_side), file=out)
    print("", file=out)
    print("| move no. | bot's move | its margin | best move | best margin | lost |", file=out)
    print("|---:|---|---:|---|---:|---:|", file=out)
    returns = evaluate_bots(state, bots, rng)
    final = ks.position_from_state(state).final_margin
    assert returns[0] == (final > 0) - (final < 0), (returns, final)
    bot_final = side_sign(bot_side) * final
    losses = scored.losses
    print("", file=out)
    print("record: %s" % " ".join(record_of(state)), file=out)
    print("", file=out)
    print(
        "bot's final margin %+d = start value %+d - %d lost over %d moves (%d of them not best): %s"
        % (
            bot_final,
            start_value,
            sum(losses),
            len(losses),
            sum(1 for x in losses if x),
            "holds" if bot_final == start_value - sum(losses) else "DOES NOT HOLD",
        ),
        file=out,
    )
    return bot_final, start_value, losses


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", help="database directory (kalah db build) to probe")
    p.add_argument("--simulations", type=int, default=1000, help="MCTS simulations a move")
    p.add_argument("--rollouts", type=int, default=1, help="random rollouts an evaluation")
    p.add_argument("--exact", action="store_true", help="value MCTS leaves exactly (ExactEvaluator)")
    p.add_argument("--uct-c", type=float, default=2.0, help="MCTS exploration constant")
    p.add_argument("--seed", type=int, default=1, help="random seed of the bot")
    p.add_argument("--threads", type=int, default=None, help="search threads")
    p.add_argument("--tt-mb", type=int, default=128, help="transposition table, MiB")
    args = p.parse_args(argv)

    game = ks.load_game()
    rng = np.random.RandomState(args.seed)
    opts = {"tt_mb": args.tt_mb, "threads": args.threads}
    if args.db:
        opts["db"] = kalah.Database(args.db, ks.RULES)
    if args.exact:
        evaluator = ks.ExactEvaluator(**opts)
    else:
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=rng)
    bot = mcts.MCTSBot(
        game,
        uct_c=args.uct_c,
        max_simulations=args.simulations,
        evaluator=evaluator,
        random_state=rng,
        solve=True,
    )
    out = sys.stdout
    print(
        "MCTS (%d simulations, %d rollout(s), uct_c %g, seed %d) against the perfect player, "
        "OpenSpiel mancala = %s" % (args.simulations, args.rollouts, args.uct_c, args.seed, ks.RULES),
        file=out,
    )
    t = time.time()
    totals = []
    for side in ("A", "B"):
        totals.append((side,) + play_game(game, bot, side, opts, out, rng))
    print("", file=out)
    print("### Summary", file=out)
    print("", file=out)
    print("| bot as | start value | lost | bot's final margin | bot's moves | not best |", file=out)
    print("|---|---:|---:|---:|---:|---:|", file=out)
    for side, final, start, losses in totals:
        print(
            "| %s | %+d | %d | %+d | %d | %d |"
            % ("South" if side == "A" else "North", start, sum(losses), final, len(losses), sum(1 for x in losses if x)),
            file=out,
        )
    print("", file=out)
    print("(%.0f s in all)" % (time.time() - t), file=out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""OpenSpiel's MCTS bot against the perfect player, on OpenSpiel's mancala (Kalah(6,4)).

The bot plays one game as South (first) and one as North. Before each of its moves the
exact value of every legal move is read from ``kalah.moves``, so each move the bot makes
is scored by what it loses: the perfect-play final margin of its best move less that of
the move it chose, from the bot's side (0 for a best move). The perfect player plays a
best move every turn, so the bot's final margin is the start's perfect-play value less
the sum of what its moves lost; the report checks that identity for every game.

Usage (from the repository root, after ``pip install ./python`` and
``pip install open_spiel``):

    python python/examples/mcts_vs_perfect.py --db DIR --simulations 1000

A database (``kalah db build --pits 6 --max-seeds 24 --out DIR`` or more) makes each
position a second or less; without one the first positions take minutes each on two
cores (Kalah(6,4) from the start: about 90 s on two threads).
"""

import argparse
import sys
import time

import numpy as np
from open_spiel.python.algorithms import mcts

import kalah
from kalah import openspiel as ks


def side_sign(side: str) -> int:
    return 1 if side == "A" else -1


def play_game(game, bot, bot_side, opts, out):
    """One game; returns (bot's final margin, start value for the bot, moves lost)."""
    state = game.new_initial_state()
    start_value = None
    losses = []
    record = []
    print("", file=out)
    print("### MCTS bot as %s (%s)" % ("South" if bot_side == "A" else "North", bot_side), file=out)
    print("", file=out)
    print("| move no. | bot's move | its margin | best move | best margin | lost |", file=out)
    print("|---:|---|---:|---|---:|---:|", file=out)
    while not state.is_terminal():
        pos = ks.position_from_state(state)
        values = kalah.moves(pos, **opts)
        sign = side_sign(pos.to_move)
        if start_value is None:
            start_value = side_sign(bot_side) * values[0].value
        player = state.current_player()
        if pos.to_move == bot_side:
            action = bot.step(state)
            move = ks.move_from_action(player, action)
            chosen = next(v for v in values if v.move.rstrip("+#").split("x")[0] == move)
            lost = sign * (values[0].value - chosen.value)
            losses.append(lost)
            print(
                "| %d | %s | %+d | %s | %+d | %d |"
                % (len(record) + 1, chosen.move, chosen.value, values[0].move, values[0].value, lost),
                file=out,
            )
            record.append(chosen.move)
        else:
            best = values[0]
            action = ks.action_from_move(best.move)
            record.append(best.move)
        state.apply_action(action)
        out.flush()
    final = ks.position_from_state(state).final_margin
    bot_final = side_sign(bot_side) * final
    print("", file=out)
    print("record: %s" % " ".join(record), file=out)
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
    p.add_argument("--uct-c", type=float, default=2.0, help="MCTS exploration constant")
    p.add_argument("--seed", type=int, default=1, help="random seed of the bot")
    p.add_argument("--threads", type=int, default=None, help="search threads")
    p.add_argument("--tt-mb", type=int, default=128, help="transposition table, MiB")
    args = p.parse_args(argv)

    game = ks.load_game()
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=rng)
    bot = mcts.MCTSBot(
        game,
        uct_c=args.uct_c,
        max_simulations=args.simulations,
        evaluator=evaluator,
        random_state=rng,
        solve=True,
    )
    opts = {"tt_mb": args.tt_mb, "threads": args.threads}
    if args.db:
        opts["db"] = kalah.Database(args.db, ks.RULES)
    out = sys.stdout
    print(
        "MCTS (%d simulations, %d rollout(s), uct_c %g, seed %d) against the perfect player, "
        "OpenSpiel mancala = %s" % (args.simulations, args.rollouts, args.uct_c, args.seed, ks.RULES),
        file=out,
    )
    t = time.time()
    totals = []
    for side in ("A", "B"):
        totals.append((side,) + play_game(game, bot, side, opts, out))
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

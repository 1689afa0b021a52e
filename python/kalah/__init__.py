"""Perfect play for Kalah(m,n) and its endgame databases, from Python.

The numbers and the error messages are those of the ``kalah`` command of this
repository; every value is a final margin, South's store minus North's at the end of
perfect play, unless named a gain.

>>> import kalah
>>> p = kalah.Position.start(kalah.Rules(pits=4, seeds=3))
>>> kalah.solve(p).value
6
>>> [(m.move, m.value) for m in kalah.moves(p)]
[('A2+', 6), ('A3', 2), ('A4', -2), ('A1', -6)]

``kalah.openspiel`` converts OpenSpiel's ``mancala`` states and gives OpenSpiel a perfect
player (``PerfectBot``) and an exact evaluator for its MCTS (``ExactEvaluator``); it
imports ``pyspiel`` and so is imported only on request.
"""

from ._kalah import (
    Database,
    DatabaseError,
    MoveValue,
    PieTurn,
    Position,
    Probe,
    Probes,
    Rules,
    Solution,
    __version__,
    fair_starts,
    moves,
    solve,
)

__all__ = [
    "Database",
    "DatabaseError",
    "MoveValue",
    "PieTurn",
    "Position",
    "Probe",
    "Probes",
    "Rules",
    "Solution",
    "__version__",
    "fair_starts",
    "moves",
    "solve",
]

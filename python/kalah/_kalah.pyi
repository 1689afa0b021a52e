"""Type stubs of ``kalah._kalah``, the Rust part of the ``kalah`` module.

Every value is a final margin, South's store minus North's at the end of perfect play,
unless named a gain (the side to move's future net gain). Errors carry the messages of
the ``kalah`` command: ``ValueError`` for bad input, ``DatabaseError`` (an ``OSError``)
naming the file for an unusable database file.
"""

import os
import pathlib
from typing import Iterable, Iterator, Literal, Optional, Union, overload

__version__: str

Capture = Literal["standard", "empty", "none"]
Sowing = Literal["single", "relay"]
Direction = Literal["ccw", "cw"]
OppStore = Literal["skip", "sow"]
End = Literal["either", "mover"]
Remaining = Literal["owner", "emptier", "discard"]
Side = Literal["A", "B"]
EndgameChoice = Union[int, Literal["auto", "none"]]
DbChoice = Union[str, "os.PathLike[str]", "Database"]
PositionLike = Union["Position", str]

class DatabaseError(OSError):
    """A database file or directory that cannot be used; the message names the file."""

class Rules:
    """A rule set of Kalah(m, n): the board size and every switch of ``kalah``'s rules.

    ``seeds=None`` leaves the seeds a pit to the position (the game whose seeds it
    holds), or 4 for the start. ``capture`` defaults to "standard", or "none" with
    ``sowing="relay"``. Raises ValueError with ``kalah``'s message for a value it refuses.
    """

    def __init__(
        self,
        pits: int = 6,
        seeds: Optional[int] = None,
        capture: Optional[Capture] = None,
        sowing: Sowing = "single",
        direction: Direction = "ccw",
        opp_store: OppStore = "skip",
        end: End = "either",
        remaining: Remaining = "owner",
        pie: bool = False,
    ) -> None: ...
    @property
    def pits(self) -> int: ...
    @property
    def seeds(self) -> Optional[int]: ...
    @property
    def capture(self) -> Capture: ...
    @property
    def sowing(self) -> Sowing: ...
    @property
    def direction(self) -> Direction: ...
    @property
    def opp_store(self) -> OppStore: ...
    @property
    def end(self) -> End: ...
    @property
    def remaining(self) -> Remaining: ...
    @property
    def pie(self) -> bool: ...
    @property
    def can_cycle(self) -> bool:
        """Whether play can repeat a position (clockwise sowing)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Position:
    """A position and the rules it is played under.

    ``text`` is ``kalah``'s position string 'A-pits/A-store/B-pits/B-store/side', e.g.
    '1,0,2/0/0,4,0/0/A'. ``rules=None``: the default switches on the position's board
    size; seeds a pit inferred from the seeds the position holds.
    """

    def __init__(self, text: str, rules: Optional[Rules] = None) -> None: ...
    @staticmethod
    def start(rules: Optional[Rules] = None) -> "Position":
        """The start position of ``rules`` (default Kalah(6,4)), South to move."""
    @property
    def rules(self) -> Rules: ...
    @property
    def pits(self) -> int: ...
    @property
    def row_a(self) -> list[int]:
        """South's pits A1..Am."""
    @property
    def row_b(self) -> list[int]:
        """North's pits B1..Bm."""
    @property
    def stores(self) -> tuple[int, int]:
        """(South's store, North's store)."""
    @property
    def board_seeds(self) -> int: ...
    @property
    def to_move(self) -> Side:
        """'A' (South) or 'B' (North)."""
    @property
    def game_over(self) -> bool: ...
    @property
    def final_margin(self) -> Optional[int]:
        """South's store minus North's at the end, when the game is over here; else None."""
    @property
    def store_margin(self) -> int:
        """South's store minus North's now."""
    def legal_moves(self) -> list[str]:
        """The legal moves, annotated ('A3+', 'A1x5', 'B2#'), in pit order."""
    def play(self, moves: str) -> "Position":
        """The position after one move or a record of moves ('A3 A6 B2'); annotations
        are optional and checked. Raises ValueError for an illegal move."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Solution:
    """The solution of a position."""

    @property
    def value(self) -> int:
        """The final margin under perfect play (South minus North)."""
    @property
    def gain(self) -> int:
        """The side to move's future net gain."""
    @property
    def best_move(self) -> Optional[str]: ...
    @property
    def pv(self) -> list[str]: ...
    @property
    def method(self) -> Literal["mtdf", "retrograde"]: ...
    @property
    def nodes(self) -> int: ...
    @property
    def position(self) -> str: ...
    @property
    def pie_value(self) -> Optional[int]:
        """Under the pie rule, the opener's final margin with the swap."""
    @property
    def pie_turns(self) -> list["PieTurn"]: ...

class PieTurn:
    """One whole first turn under the pie rule."""

    @property
    def moves(self) -> str: ...
    @property
    def value(self) -> int: ...
    @property
    def swap(self) -> bool: ...

class MoveValue:
    """One legal move and the final margin after it and perfect play."""

    @property
    def move(self) -> str: ...
    @property
    def value(self) -> int: ...

class Probe:
    """One value read from a database."""

    @property
    def margin(self) -> int:
        """The final margin (South minus North)."""
    @property
    def gain(self) -> int:
        """The future net gain of the side to move."""
    def __eq__(self, other: object) -> bool: ...

class Probes:
    """The values of ``Database.probe_many``, in the order of its positions."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> Probe: ...
    @overload
    def __getitem__(self, index: slice) -> list[Probe]: ...
    def __iter__(self) -> Iterator[Probe]: ...
    @property
    def margins(self) -> list[int]:
        """The final margins (South minus North), in order."""
    @property
    def gains(self) -> list[int]:
        """The future net gains of the side to move, in order."""

class Database:
    """A database directory built by ``kalah db build``, memory-mapped read-only.

    ``rules=None`` takes the one rule set whose level files the directory holds.
    Raises FileNotFoundError / NotADirectoryError for a bad path, DatabaseError naming
    the file for a damaged, truncated or foreign level file.
    """

    def __init__(self, dir: Union[str, "os.PathLike[str]"], rules: Optional[Rules] = None) -> None: ...
    @property
    def dir(self) -> pathlib.Path: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def max_seeds(self) -> int: ...
    def probe(self, position: PositionLike) -> Probe:
        """The database's value of one position. ValueError where it is of other rules
        or has more seeds than the database covers."""
    def probe_many(self, positions: Iterable[PositionLike]) -> Probes:
        """``probe`` of every position, in order (millions a second); errors prefixed
        'positions[i]: '."""
    def check_files(self) -> None:
        """Every level file's checksum and value range; DatabaseError naming the first
        damaged file."""

def solve(
    position: PositionLike,
    *,
    db: Optional[DbChoice] = None,
    tt_mb: int = 128,
    threads: Optional[int] = None,
    endgame: EndgameChoice = "auto",
    timeout: Optional[float] = None,
) -> Solution:
    """The exact solution of a position: ``kalah solve``'s numbers. Ctrl-C raises
    KeyboardInterrupt and ``timeout`` TimeoutError, never a partial value."""

def moves(
    position: PositionLike,
    *,
    db: Optional[DbChoice] = None,
    tt_mb: int = 128,
    threads: Optional[int] = None,
    endgame: EndgameChoice = "auto",
    timeout: Optional[float] = None,
) -> list[MoveValue]:
    """The final margin after each legal move, best first: ``kalah moves``'s numbers."""

def fair_starts(rules: Rules) -> list[tuple[Position, int]]:
    """Every committed fair start of ``rules`` (results/raw/fair/): a start near the
    rules' start that perfect play draws, South moving first, with the seeds moved from
    the start, fewest moved first. ValueError where no list is committed for the rules
    (``kalah fair`` computes one)."""
    ...

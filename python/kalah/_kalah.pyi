"""Type stubs of ``kalah._kalah``, the Rust part of the ``kalah`` module.

Every value is a final margin, South's store minus North's at the end of perfect play,
unless named a gain (the side to move's future net gain). Errors carry the messages of
the ``kalah`` command: ``ValueError`` for bad input, ``DatabaseError`` (an ``OSError``)
naming the file for an unusable database file.

The types only: each docstring has one source, the Rust doc comment in ``python/src/``,
which is the object's ``__doc__`` (``help(kalah.solve)``). ``tests/test_docs.py`` checks
that every public object has one and that no docstring is written here again; mypy's
stubtest checks these types against the built module (``.ci/run``).
"""

import os
import pathlib
from typing import Iterable, Iterator, Literal, Optional, Union, final, overload

from typing_extensions import Self

__all__ = [
    "Rules",
    "Position",
    "Solution",
    "MoveValue",
    "PieTurn",
    "Database",
    "Probe",
    "Probes",
    "solve",
    "moves",
    "fair_starts",
    "DatabaseError",
    "__version__",
]

__version__: str

_Capture = Literal["standard", "empty", "none"]
_Sowing = Literal["single", "relay"]
_Direction = Literal["ccw", "cw"]
_OppStore = Literal["skip", "sow"]
_End = Literal["either", "mover"]
_Remaining = Literal["owner", "emptier", "discard"]
_Side = Literal["A", "B"]
_EndgameChoice = Union[int, Literal["auto", "none"]]
_DbChoice = Union[str, "os.PathLike[str]", "Database"]
_PositionLike = Union["Position", str]

class DatabaseError(OSError):
    ...

@final
class Rules:
    def __new__(
        cls,
        pits: int = 6,
        seeds: Optional[int] = None,
        capture: Optional[_Capture] = None,
        sowing: _Sowing = "single",
        direction: _Direction = "ccw",
        opp_store: _OppStore = "skip",
        end: _End = "either",
        remaining: _Remaining = "owner",
        pie: bool = False,
    ) -> Self: ...
    @property
    def pits(self) -> int: ...
    @property
    def seeds(self) -> Optional[int]: ...
    @property
    def capture(self) -> _Capture: ...
    @property
    def sowing(self) -> _Sowing: ...
    @property
    def direction(self) -> _Direction: ...
    @property
    def opp_store(self) -> _OppStore: ...
    @property
    def end(self) -> _End: ...
    @property
    def remaining(self) -> _Remaining: ...
    @property
    def pie(self) -> bool: ...
    @property
    def can_cycle(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Position:
    def __new__(cls, text: str, rules: Optional[Rules] = None) -> Self: ...
    @staticmethod
    def start(rules: Optional[Rules] = None) -> "Position": ...
    @property
    def rules(self) -> Rules: ...
    @property
    def pits(self) -> int: ...
    @property
    def row_a(self) -> list[int]: ...
    @property
    def row_b(self) -> list[int]: ...
    @property
    def stores(self) -> tuple[int, int]: ...
    @property
    def board_seeds(self) -> int: ...
    @property
    def to_move(self) -> _Side: ...
    @property
    def game_over(self) -> bool: ...
    @property
    def final_margin(self) -> Optional[int]: ...
    @property
    def store_margin(self) -> int: ...
    def legal_moves(self) -> list[str]: ...
    def play(self, moves: str) -> "Position": ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Solution:
    @property
    def value(self) -> int: ...
    @property
    def gain(self) -> int: ...
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
    def pie_value(self) -> Optional[int]: ...
    @property
    def pie_turns(self) -> list["PieTurn"]: ...

@final
class PieTurn:
    @property
    def moves(self) -> str: ...
    @property
    def value(self) -> int: ...
    @property
    def swap(self) -> bool: ...

@final
class MoveValue:
    @property
    def move(self) -> str: ...
    @property
    def value(self) -> int: ...

@final
class Probe:
    @property
    def margin(self) -> int: ...
    @property
    def gain(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Probes:
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> Probe: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Probe]: ...
    def __iter__(self) -> Iterator[Probe]: ...
    @property
    def margins(self) -> list[int]: ...
    @property
    def gains(self) -> list[int]: ...

@final
class Database:
    def __new__(cls, dir: Union[str, "os.PathLike[str]"], rules: Optional[Rules] = None) -> Self: ...
    @property
    def dir(self) -> pathlib.Path: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def max_seeds(self) -> int: ...
    def probe(self, position: _PositionLike) -> Probe: ...
    def probe_many(self, positions: Iterable[_PositionLike]) -> Probes: ...
    def check_files(self) -> None: ...

def solve(
    position: _PositionLike,
    *,
    db: Optional[_DbChoice] = None,
    tt_mb: int = 64,
    threads: Optional[int] = None,
    endgame: _EndgameChoice = "auto",
    timeout: Optional[float] = None,
) -> Solution: ...

def moves(
    position: _PositionLike,
    *,
    db: Optional[_DbChoice] = None,
    tt_mb: int = 64,
    threads: Optional[int] = None,
    endgame: _EndgameChoice = "auto",
    timeout: Optional[float] = None,
) -> list[MoveValue]: ...

def fair_starts(rules: Rules) -> list[tuple[Position, int]]: ...

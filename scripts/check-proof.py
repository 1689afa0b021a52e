#!/usr/bin/env python3
"""Check a `kalah prove` proof directory without the solver: an independent proof checker.

It shares no code with the Rust solver. The rules of Kalah are written here again from the
rules texts (`shared/seeds/`) and the switch definitions of the rule builder; the proof's
file formats from their documentation (the KPR2 record layout of solver/src/proof/journal.rs,
the manifest of solver/src/proof/dir.rs) and the spec of needed units and second answers
(`spec-check.md`, kept in the proof's issue). XXH3-64 is scripts/kdb.py's pure-Python one,
itself written from the public XXH3 specification.

What it checks
--------------
* Every record of every `DIR/results/*.kpr` file: its magic, its XXH3-64 checksum, its kind,
  that it belongs to this proof (its proof id is the XXH3-64 of the canonical manifest) and
  that its question and answer lie within its board's seeds. A bad record is an error that
  names the file and the record number, except the very last record of a file, which is
  the torn write of a killed worker: dropped with a warning (as the Rust reader does).
* The front end: rebuilt from the manifest's root and depth with this script's own move
  generator, one ply further below every board a split record names (recursively), cut at
  the end of the game. A record whose board is nowhere in it is an error.
* The minimax: every answer is applied wherever its board stands (leaves, and interior
  nodes whose board was answered about before it was split); a node is worth the best of
  its moves; answers that contradict each other are an error.
* It prints the root's proved interval, each first move's, and the answer records the
  root's bounds actually rest on (the *needed units*), and, when `DIR/check/results/`
  holds second answers (records of a separate check run), whether each needed unit is
  confirmed by them, contradicted, or still open.

What it trusts
--------------
The leaf answers themselves: that each recorded "value >= beta?" answer is what an exact
search of its board returns. That is what the second answers are for: an independent
re-search of each needed unit, possibly split into its moves, whose records this script
reads and combines the same way.

Values
------
Inside a proof every value is a *future net gain* of the side to move on its board: the
seeds it will still add to its store minus those its opponent will, the final sweep
included. Printed margins are final margins, South minus North, as `kalah prove --status`
prints them.

Usage
-----
  check-proof.py DIR            a report for people
  check-proof.py DIR --json     one JSON object (the fields of `kalah prove DIR --status
                                --json` that describe the root and the first moves, with
                                the same names, plus `needed` and `second_answers`)

Exit status: 0 when the proof directory reads cleanly (whether or not the root is exact);
1 when it is refused (a damaged, foreign or misplaced record, contradictory answers, a bad
manifest) or when a second answer disagrees with a needed unit; 2 on a usage error.
"""

import argparse
import json
import os
import re
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kdb import xxh3_64  # noqa: E402  (pure-Python XXH3-64, seed 0)

# ---------------------------------------------------------------------------------------
# Errors


class Refused(Exception):
    """The proof directory cannot be trusted, or cannot be read as a proof."""


# ---------------------------------------------------------------------------------------
# The manifest (DIR/proof.txt)

HEADER = "kalah-proof 1"
CHECK_HEADER = b"kalah-proof-check 1\n"
MAX_PITS = 6
MAX_SEEDS_PER_PIT = 12
MAX_DEPTH = 8
MAX_BOARD_SEEDS = 255
I32_MAX = 2**31 - 1

# Every switch and its values, the default first (the rule builder's spellings).
SWITCHES = {
    "capture": ("standard", "empty", "none"),
    "sowing": ("single", "relay"),
    "direction": ("ccw", "cw"),
    "opp-store": ("skip", "sow"),
    "end": ("either", "mover"),
    "remaining": ("owner", "emptier", "discard"),
}


def parse_unsigned(text, what, limit):
    """A whole number as the manifest writes it (an optional '+', digits), at most limit."""
    if not re.fullmatch(r"\+?[0-9]+", text) or int(text) > limit:
        raise ValueError(f"{what}: '{text}' is not a number from 0 to {limit}")
    return int(text)


def parse_signed(text, what):
    if not re.fullmatch(r"[+-]?[0-9]+", text) or not -(2**31) <= int(text) <= I32_MAX:
        raise ValueError(f"{what}: '{text}' is not a 32-bit whole number")
    return int(text)


class Position:
    """A whole position: rows A (South) and B (North), both stores, the side to move.

    The string form is `A-pits/A-store/B-pits/B-store/side`, e.g. `6,6,6/0/6,6,6/0/A`.
    """

    def __init__(self, text):
        parts = text.strip().split("/")
        if len(parts) != 5:
            raise ValueError(f"position '{text}': expected 5 parts, found {len(parts)}")
        row = lambda s, part: [  # noqa: E731
            parse_unsigned(c.strip(), part, 2**32 - 1) for c in s.split(",")
        ]
        self.a = row(parts[0], "row A")
        self.store_a = parse_unsigned(parts[1].strip(), "store A", 2**32 - 1)
        self.b = row(parts[2], "row B")
        self.store_b = parse_unsigned(parts[3].strip(), "store B", 2**32 - 1)
        side = parts[4].strip()
        if side not in ("A", "a", "B", "b"):
            raise ValueError(f"position: side '{side}' must be A or B")
        self.south_to_move = side in ("A", "a")
        if not 1 <= len(self.a) <= MAX_PITS:
            raise ValueError(f"position: row A: {len(self.a)} pits, expected 1 to {MAX_PITS}")
        if len(self.a) != len(self.b):
            raise ValueError("position: rows A and B must have as many pits")
        total = sum(self.a) + sum(self.b)
        if total > MAX_BOARD_SEEDS:
            raise ValueError(f"position: {total} seeds on the board, more than {MAX_BOARD_SEEDS}")
        if total + self.store_a + self.store_b > I32_MAX:
            raise ValueError("position: more seeds than a store can count")

    def text(self):
        j = lambda r: ",".join(str(c) for c in r)  # noqa: E731
        side = "A" if self.south_to_move else "B"
        return f"{j(self.a)}/{self.store_a}/{j(self.b)}/{self.store_b}/{side}"

    def board(self):
        """The pits from the side to move: its row first."""
        return tuple(self.a + self.b) if self.south_to_move else tuple(self.b + self.a)

    def sign(self):
        """+1 when South moves, -1 when North does: a gain of the mover times it is South's."""
        return 1 if self.south_to_move else -1

    def store_margin(self):
        return self.store_a - self.store_b


class Manifest:
    """The proof's manifest: rules, root position, front-end depth and first guess."""

    def __init__(self, text):
        # Lines end at "\n" (a "\r" before it is dropped), as Rust's str::lines reads them.
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
        if lines and lines[-1] == "":
            lines.pop()
        if not lines or lines[0] != HEADER:
            raise ValueError(f"the first line is not '{HEADER}'")
        seen = {}
        for line in lines[1:]:
            if line.startswith("#") or not line.strip():
                continue
            if " " not in line:
                raise ValueError(f"'{line}' is not 'key value'")
            key, value = line.split(" ", 1)
            if key in seen:
                raise ValueError(f"'{key}' is given twice")
            seen[key] = value
        for key in seen:
            if key not in SWITCHES and key not in (
                "pits", "seeds", "position", "depth", "guess"
            ):
                raise ValueError(f"unknown key '{key}'")
        self.pits = parse_unsigned(seen.get("pits", "0"), "pits", 2**63)
        self.seeds = parse_unsigned(seen.get("seeds", "0"), "seeds", 2**63)
        self.rules = {}
        for switch, values in SWITCHES.items():
            if switch not in seen:
                continue
            v = seen[switch].lower()
            if v not in values:
                raise ValueError(
                    f"{switch}: unknown value '{seen[switch]}' for {switch}; expected one "
                    f"of: {', '.join(values)}"
                )
            self.rules[switch] = v
        for switch, values in SWITCHES.items():
            self.rules.setdefault(switch, values[0])
        if "capture" not in seen and self.rules["sowing"] == "relay":
            self.rules["capture"] = "none"  # relay sowing captures only when asked to
        if not 1 <= self.pits <= MAX_PITS:
            raise ValueError(f"pits a side must be 1 to {MAX_PITS}, got {self.pits}")
        if not 1 <= self.seeds <= MAX_SEEDS_PER_PIT:
            raise ValueError(f"seeds a pit must be 1 to {MAX_SEEDS_PER_PIT}, got {self.seeds}")
        if "position" not in seen:
            raise ValueError("no position")
        self.position = Position(seen["position"])
        if len(self.position.a) != self.pits:
            raise ValueError(
                f"position has {len(self.position.a)} pits a side but the rules say {self.pits}"
            )
        if "depth" not in seen:
            raise ValueError("no depth")
        self.depth = parse_unsigned(seen["depth"], "depth", 2**32 - 1)
        if self.depth > MAX_DEPTH:
            raise ValueError(f"depth {self.depth} is more than {MAX_DEPTH}")
        if "guess" not in seen:
            raise ValueError("no guess")
        self.guess = parse_signed(seen["guess"], "guess")

    def rules_text(self):
        r = self.rules
        return (
            f"Kalah({self.pits},{self.seeds}) capture={r['capture']} sowing={r['sowing']} "
            f"direction={r['direction']} opp-store={r['opp-store']} end={r['end']} "
            f"remaining={r['remaining']}"
        )

    def text(self):
        """The canonical manifest: what `kalah prove` writes, and what the proof id hashes."""
        r = self.rules
        return (
            f"{HEADER}\n# {self.rules_text()}\npits {self.pits}\nseeds {self.seeds}\n"
            f"capture {r['capture']}\nsowing {r['sowing']}\ndirection {r['direction']}\n"
            f"opp-store {r['opp-store']}\nend {r['end']}\nremaining {r['remaining']}\n"
            f"position {self.position.text()}\ndepth {self.depth}\nguess {self.guess}\n"
        )

    def proof_id(self):
        return xxh3_64(self.text().encode())

    def check_id(self):
        return xxh3_64(CHECK_HEADER + self.text().encode())

    def margins(self, lo, hi):
        """A final-margin interval (South minus North) from one on the root mover's gain."""
        p = self.position
        a, b = p.store_margin() + p.sign() * lo, p.store_margin() + p.sign() * hi
        return min(a, b), max(a, b)


# ---------------------------------------------------------------------------------------
# The game, from the rules texts
#
# A board is a tuple of 2m seed counts seen from the player to move: its pits 1..m (A1..Am
# when South moves), then the opponent's pits 1..m. Pit i (0-based) of the mover faces the
# opponent's pit m - 1 - i, i.e. cell 2m - 1 - i: A1 faces Bm, Am faces B1.

SAME, OTHER, OVER = "same", "other", "over"


class Game:
    """Kalah under one rule set: moves, their outcomes and the end of the game."""

    def __init__(self, pits, rules):
        if rules["direction"] != "ccw":
            raise Refused(
                "clockwise sowing: kalah prove refuses such proofs (positions can repeat), "
                "and so does this checker"
            )
        self.m = pits
        self.rules = rules
        m = pits
        self.own_store = 2 * m
        self.opp_store = 2 * m + 1
        # The sowing path counter-clockwise from the mover's side: its own pits towards its
        # store, the store, then the opponent's pits, then (only if seeds are sown there)
        # the opponent's store, and round again to the mover's first pit.
        path = list(range(m)) + [self.own_store] + list(range(m, 2 * m))
        if rules["opp-store"] == "sow":
            path.append(self.opp_store)
        self.after = [0] * (2 * m + 2)
        for i, slot in enumerate(path):
            self.after[slot] = path[(i + 1) % len(path)]
        self.cache = {}

    def ending(self, due_row, other_row):
        """The end rule, for rows of `due_row` seeds (the player due to move) and
        `other_row` (the other): None while play goes on, else what each store takes
        from the board (due player first)."""
        if self.rules["end"] == "either":
            over = due_row == 0 or other_row == 0
        else:
            over = due_row == 0
        if not over:
            return None
        remaining = self.rules["remaining"]
        if remaining == "owner":
            return due_row, other_row
        if remaining == "discard":
            return 0, 0
        # emptier: everything to the player whose row is empty (under `mover`, the player
        # due to move; under `either`, whichever row is empty, nothing left if both are).
        rest = due_row + other_row
        if self.rules["end"] == "mover" or due_row == 0:
            return rest, 0
        return 0, rest

    def terminal_value(self, board):
        """If the game is over with the mover of `board` due to move, its gain from the
        final sweep; None when play goes on."""
        m = self.m
        end = self.ending(sum(board[:m]), sum(board[m:]))
        return None if end is None else end[0] - end[1]

    def play(self, board, pit):
        """Play the mover's pit `pit` (0-based, holding seeds).

        Returns (next, gain, captured, child): who moves next (SAME, OTHER or OVER), the
        mover's net gain (own store minus the opponent's, sweep included), the seeds
        captured (the last seed included) and the board after it from the point of view
        of the player due to move (None when the game is over).
        """
        m = self.m
        s = list(board) + [0, 0]
        hand, s[pit], at = s[pit], 0, pit
        relay = self.rules["sowing"] == "relay"
        while True:
            # One seed a slot along the path; a full pit laps and refills the pit emptied.
            while hand:
                at = self.after[at]
                s[at] += 1
                hand -= 1
            # "Seed on": a last seed that lands in an occupied pit (either row) lifts it.
            if relay and at < 2 * m and s[at] > 1:
                hand, s[at] = s[at], 0
                continue
            break
        captured = 0
        capture = self.rules["capture"]
        if at < m and s[at] == 1 and capture != "none":
            # The last seed fell in an empty pit of the mover's row.
            facing = 2 * m - 1 - at
            if capture == "empty" or s[facing] > 0:
                captured = s[facing] + 1
                s[self.own_store] += captured
                s[at] = s[facing] = 0
        own, opp = s[self.own_store], s[self.opp_store]
        again = at == self.own_store
        own_row, opp_row = sum(s[:m]), sum(s[m : 2 * m])
        if again:
            end = self.ending(own_row, opp_row)
        else:
            end = self.ending(opp_row, own_row)
            end = None if end is None else (end[1], end[0])
        if end is not None:
            return OVER, own + end[0] - opp - end[1], captured, None
        if again:
            return SAME, own - opp, captured, tuple(s[: 2 * m])
        return OTHER, own - opp, captured, tuple(s[m : 2 * m] + s[:m])

    def moves(self, board):
        """Every move of the mover, in pit order: (pit, next, gain, captured, child)."""
        out = self.cache.get(board)
        if out is None:
            out = tuple(
                (pit,) + self.play(board, pit) for pit in range(self.m) if board[pit] > 0
            )
            self.cache[board] = out
        return out


def key_of(board):
    """The board's 128-bit key: one byte a cell, mover's pits first, little-endian."""
    return int.from_bytes(bytes(board), "little")


def board_of_key(key, pits):
    """The first 2m cells of a key (a key with seeds beyond them names no board here)."""
    return tuple(key.to_bytes(16, "little")[: 2 * pits])


def key_seeds(key):
    return sum(key.to_bytes(16, "little"))


def position_of(board, pits):
    """A board as a position string: its mover as South, both stores empty."""
    j = lambda r: ",".join(str(c) for c in r)  # noqa: E731
    return f"{j(board[:pits])}/0/{j(board[pits:])}/0/A"


def move_text(south, pit, nxt, captured):
    """A first move in the game's notation: A3+, B5x9#, ..."""
    t = f"{'A' if south else 'B'}{pit + 1}"
    if captured:
        t += f"x{captured}"
    if nxt == SAME:
        t += "+"
    if nxt == OVER:
        t += "#"
    return t


# ---------------------------------------------------------------------------------------
# Result files (KPR2 records, 64 bytes, little-endian)
#
#  0  4  magic b"KPR2"          16 16  board key            36 4  milliseconds
#  4  4  kind: 0 answer, 1 split 32 2  beta (i16)           40 8  nodes
#  8  8  proof id               34 2  result (i16)          48 4  threads
#                                                           52 4  CPU milliseconds
#                                                           56 8  XXH3-64 of bytes 0..56

RECORD = 64
ANSWER, SPLIT = 0, 1
LAYOUT = struct.Struct("<4sIQ16shhIQIIQ")


class Record:
    __slots__ = ("kind", "key", "beta", "result", "file", "index")

    def __init__(self, kind, key, beta, result, file, index):
        self.kind, self.key, self.beta, self.result = kind, key, beta, result
        self.file, self.index = file, index


def decode(raw, expect_id):
    """The record in the 64 bytes `raw`, or the reason it is not one of this proof."""
    magic, kind, pid, key, beta, result, _ms, _nodes, _thr, _cpu, checksum = LAYOUT.unpack(raw)
    if magic != b"KPR2":
        return None, "bad magic (not a record of format KPR2)"
    if xxh3_64(raw[:56]) != checksum:
        return None, "checksum mismatch"
    if kind not in (ANSWER, SPLIT):
        return None, "unknown record kind"
    if pid != expect_id:
        return None, (
            f"it belongs to another proof (id {pid:016x}, this one is {expect_id:016x})"
        )
    key = int.from_bytes(key, "little")
    seeds = key_seeds(key)
    if abs(beta) > seeds + 1 or abs(result) > seeds:
        return None, f"question {beta} or answer {result} outside the {seeds} seeds of its board"
    return (kind, key, beta, result), None


def read_results(folder, expect_id, label):
    """Every record of `folder`/*.kpr, files in name order: (records, warnings, files).

    A record that cannot be read, or is not one of this proof, is an error naming its file
    and number, except the last record of a file (or a partial one at its end): the torn
    write of a killed worker, dropped with a warning.
    """
    if not os.path.isdir(folder):
        return [], [], 0
    names = sorted(
        (n for n in os.listdir(folder) if n.endswith(".kpr") and n != ".kpr"),
        key=os.fsencode,
    )
    records, warnings = [], []
    for name in names:
        path = os.path.join(folder, name)
        shown = f"{label}/{name}"
        if not os.path.isfile(path):
            raise Refused(f"{path}: not a regular file, where a proof's file was expected")
        with open(path, "rb") as f:
            data = f.read()
        whole = len(data) // RECORD
        for i in range(whole):
            at = i * RECORD
            rec, why = decode(data[at : at + RECORD], expect_id)
            if rec is not None:
                records.append(Record(*rec, shown, i))
                continue
            after = len(data) - at - RECORD
            if after:
                raise Refused(
                    f"{path}: record {i} (byte {at}) is corrupt: {why}; {after} more bytes "
                    f"follow it, so this is not a torn final write. The file was damaged "
                    f"after it was written: restore it from version control (or delete it "
                    f"to solve its units again)"
                )
            warnings.append(
                f"{path}: the last record (byte {at}) is unreadable ({why}): taken for "
                f"the torn write of a killed worker and dropped"
            )
        rest = len(data) % RECORD
        if rest:
            warnings.append(
                f"{path}: {rest} bytes of a torn final record at byte {whole * RECORD} (the "
                f"file is not a whole number of {RECORD}-byte records): dropped"
            )
    return records, warnings, len(names)


# ---------------------------------------------------------------------------------------
# The front end
#
# A target is ("fixed", v): a board where the game is over (v the sweep's value for its
# mover) or a move that ends the game; ("leaf", key): a board the search settles, shared
# by every path that reaches it; ("node", n): an interior node, one per path, whose moves
# are expanded.


class Tree:
    """The front end rooted at `root` for `depth` plies, one ply more below each board in
    `splits` (recursively), cut where the game ends. Interior nodes are numbered in
    pre-order (a node before its descendants)."""

    def __init__(self, game, root, depth, splits):
        self.game = game
        self.splits = splits
        self.boards = []  # node -> board
        self.moves = []  # node -> [(pit, next, gain, captured, target)]
        self.leaves = {}  # key -> board, in the order first met
        self.root = self.grow(root, depth)

    def grow(self, board, depth):
        game = self.game
        v = game.terminal_value(board)
        if v is not None:
            return ("fixed", v)
        key = key_of(board)
        if depth == 0 and key not in self.splits:
            self.leaves.setdefault(key, board)
            return ("leaf", key)
        n = len(self.boards)
        self.boards.append(board)
        self.moves.append(None)
        out = []
        for pit, nxt, gain, captured, child in game.moves(board):
            to = ("fixed", 0) if nxt == OVER else self.grow(child, max(depth - 1, 0))
            out.append((pit, nxt, gain, captured, to))
        self.moves[n] = out
        return ("node", n)

    def keys(self):
        """Every board key of the tree (leaves and interior nodes)."""
        return set(self.leaves).union(key_of(b) for b in self.boards)


def through(nxt, gain, child):
    """The mover's interval through a move, from its child's (the child's mover's)."""
    if nxt == OVER:
        return gain, gain
    lo, hi = child
    if nxt == SAME:
        return gain + lo, gain + hi
    return gain - hi, gain - lo


class Knowledge:
    """What answer records prove of each board, by key: [lo, hi] on its value."""

    def __init__(self):
        self.bounds = {}

    def of(self, key):
        b = self.bounds.get(key)
        if b is None:
            s = key_seeds(key)
            return -s, s
        return b

    def learn(self, key, beta, result):
        """Add "value >= beta?" answered `result` (fail-soft): False on a contradiction."""
        lo, hi = self.of(key)
        if result >= beta:
            lo = max(lo, result)
        else:
            hi = min(hi, result)
        self.bounds[key] = (lo, hi)
        return lo <= hi


def consistent(tree, know, pits, what, more):
    """The minimax of `tree` under `know`, refused where `what` contradict each other."""
    mm = Minimax(tree, know)
    bad = mm.contradiction()
    if bad is not None:
        lo, hi = mm.node[bad]
        raise Refused(
            f"{what} contradict each other on board "
            f"{position_of(tree.boards[bad], pits)}: value >= {lo} and value <= {hi}{more}"
        )
    return mm


class Minimax:
    """Every interval of a tree for one state of knowledge."""

    def __init__(self, tree, know):
        self.tree, self.know = tree, know
        self.node = [None] * len(tree.boards)
        # Pre-order: walking the nodes backwards meets each child before its parent.
        for n in range(len(tree.boards) - 1, -1, -1):
            lo = hi = None
            for m in tree.moves[n]:
                mlo, mhi = self.move(m)
                lo = mlo if lo is None else max(lo, mlo)
                hi = mhi if hi is None else max(hi, mhi)
            olo, ohi = know.of(key_of(tree.boards[n]))
            self.node[n] = (max(lo, olo), min(hi, ohi))

    def of(self, target):
        kind, x = target
        if kind == "fixed":
            return x, x
        if kind == "leaf":
            return self.know.of(x)
        return self.node[x]

    def move(self, m):
        _pit, nxt, gain, _captured, to = m
        return through(nxt, gain, self.of(to))

    def contradiction(self):
        """The first node (pre-order) whose own answers and moves do not meet, or None."""
        for n, (lo, hi) in enumerate(self.node):
            if lo > hi:
                return n
        return None


def apply(records, trees_keys, know, pits, on_unknown):
    """Learn every answer record whose board is in `trees_keys`; `on_unknown(record)` for
    the others. A contradiction is an error naming the board and the file."""
    for r in records:
        if r.key not in trees_keys:
            on_unknown(r)
            continue
        if r.kind == ANSWER and not know.learn(r.key, r.beta, r.result):
            lo, hi = know.of(r.key)
            raise Refused(
                f"the results contradict each other on board "
                f"{position_of(board_of_key(r.key, pits), pits)}: value >= {lo} and value "
                f"<= {hi} (last read from {r.file}, record {r.index}); a search or the "
                f"files are wrong"
            )


# ---------------------------------------------------------------------------------------
# Needed units (spec-check.md)


class Needed:
    """The answer records the root's proved bounds rest on, walked as spec-check.md says."""

    def __init__(self, tree, mm, records, pits):
        self.tree, self.mm, self.pits = tree, mm, pits
        self.by_key = {}
        for r in records:
            if r.kind == ANSWER:
                self.by_key.setdefault(r.key, []).append(r)
        self.units = []
        self.seen = set()

    def proves(self, r, t, yes):
        if yes:
            return r.result >= r.beta and r.result >= t
        return r.result < r.beta and r.result < t

    def unit(self, key, board, t, yes):
        if (key, t, yes) in self.seen:
            return
        self.seen.add((key, t, yes))
        rec = next((r for r in self.by_key.get(key, ()) if self.proves(r, t, yes)), None)
        if rec is None:  # cannot happen when the walk follows proved intervals
            raise Refused(f"internal: no record proves unit {position_of(board, self.pits)} {t}")
        self.units.append((key, board, t, yes, rec))

    def support(self, target, t, yes):
        """Record what proves "value >= t" (yes) or "value < t" (no) at `target`."""
        kind, x = target
        if kind == "fixed":
            return
        board = self.tree.leaves[x] if kind == "leaf" else self.tree.boards[x]
        seeds = sum(board)
        if (yes and t <= -seeds) or (not yes and t > seeds):
            # The board's seeds alone prove it (no side can gain more than the seeds left):
            # it holds by the rules, as at a Fixed board, and rests on no record. (The spec
            # does not name this case; without it such a unit would have no record.)
            return
        if kind == "leaf":
            self.unit(x, self.tree.leaves[x], t, yes)
            return
        board = self.tree.boards[x]
        key = key_of(board)
        lo, hi = self.mm.know.of(key)
        if (yes and lo >= t) or (not yes and hi < t):
            self.unit(key, board, t, yes)
            return
        for m in self.tree.moves[x]:
            _pit, nxt, gain, _captured, to = m
            mlo, mhi = self.mm.move(m)
            if yes and mlo < t:
                continue
            if not yes and mhi >= t:
                raise Refused("internal: a move of a node proved below t is not below t")
            if nxt == SAME:
                self.support(to, t - gain, yes)
            elif nxt == OTHER:
                self.support(to, gain - t + 1, not yes)
            if yes:
                return  # the first move that reaches t suffices
        if yes:
            raise Refused("internal: no move of a node proved at least t reaches t")


# ---------------------------------------------------------------------------------------
# The whole check


def load(proof_dir):
    """Read and check the proof in `proof_dir`; a dict of everything the report shows."""
    man_path = os.path.join(proof_dir, "proof.txt")
    try:
        with open(man_path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise Refused(f"{proof_dir}: not a proof directory: cannot read proof.txt: {e}")
    try:
        man = Manifest(text)
    except ValueError as e:
        raise Refused(f"{man_path}: not a proof directory: {e}")
    pits = man.pits
    game = Game(pits, man.rules)
    root_board = man.position.board()

    # The proof's records, its front end and what the answers prove.
    records, warnings, files = read_results(
        os.path.join(proof_dir, "results"), man.proof_id(), "results"
    )
    splits = {r.key for r in records if r.kind == SPLIT}
    tree = Tree(game, root_board, man.depth, splits)
    know = Knowledge()

    def unknown(r):
        raise Refused(
            f"{os.path.join(proof_dir, r.file)}: record {r.index} names board "
            f"{position_of(board_of_key(r.key, pits), pits)}, which is not in this proof's "
            f"front end; the file was damaged or belongs to another proof"
        )

    apply(records, tree.keys(), know, pits, unknown)
    mm = consistent(tree, know, pits, "the results", " (its own answers and its moves' do "
                    "not meet); a search or the files are wrong")
    root = mm.of(tree.root)
    seeds = sum(root_board)

    first = []
    if tree.root[0] == "node":
        for m in tree.moves[tree.root[1]]:
            pit, nxt, _gain, captured, _to = m
            text = move_text(man.position.south_to_move, pit, nxt, captured)
            first.append((text, man.margins(*mm.move(m))))

    # The needed units: what proves "root >= lo" and "root < hi + 1".
    need = Needed(tree, mm, records, pits)
    claims = []
    if root[0] > -seeds:
        before = len(need.units)
        need.support(tree.root, root[0], True)
        claims.append(("yes", root[0], len(need.units) - before))
    if root[1] < seeds:
        before = len(need.units)
        need.support(tree.root, root[1] + 1, False)
        claims.append(("no", root[1] + 1, len(need.units) - before))

    second = second_answers(proof_dir, man, game, need.units, warnings)

    answered = {(r.key, r.beta) for r in records if r.kind == ANSWER}
    answers = sum(1 for r in records if r.kind == ANSWER)
    return {
        "manifest": man,
        "tree": tree,
        "root": root,
        "first": first,
        "needed": need.units,
        "claims": claims,
        "second": second,
        "records": len(records),
        "answered": len(answered),
        "duplicates": answers - len(answered),
        "splits": len(splits),
        "files": files,
        "warnings": warnings,
    }


def second_answers(proof_dir, man, game, units, warnings):
    """The verdict of the check records (DIR/check/results) on each needed unit."""
    folder = os.path.join(proof_dir, "check", "results")
    records, warns, files = read_results(folder, man.check_id(), "check/results")
    warnings.extend(warns)
    splits = {r.key for r in records if r.kind == SPLIT}
    trees = {}
    for key, board, _t, _yes, _rec in units:
        if key not in trees:
            trees[key] = Tree(game, board, 0, splits)
    used = set()
    for tr in trees.values():
        used |= tr.keys()
    know = Knowledge()
    unused = []
    apply(records, used, know, man.pits, unused.append)
    confirmed, open_, disagree = [], [], []
    verdict = {}
    for key, tr in trees.items():
        mm = consistent(tr, know, man.pits, "the check records", "")
        verdict[key] = mm.of(tr.root)
    verdicts = []
    for u in units:
        key, _board, t, yes, _rec = u
        lo, hi = verdict[key]
        if (yes and lo >= t) or (not yes and hi < t):
            confirmed.append(u)
            verdicts.append("confirmed")
        elif (yes and hi < t) or (not yes and lo >= t):
            disagree.append(u)
            verdicts.append("disagrees")
        else:
            open_.append(u)
            verdicts.append("open")
    return {
        "verdicts": verdicts,
        "files": files,
        "records": len(records),
        "confirmed": confirmed,
        "open": open_,
        "disagree": disagree,
        "unused": len(unused),
    }


# ---------------------------------------------------------------------------------------
# Reports


def unit_json(u, pits):
    key, board, t, yes, rec = u
    return {
        "board": position_of(board, pits),
        "board_key": f"{key:032x}",
        "t": t,
        "need": "yes" if yes else "no",
        "record": {"file": rec.file, "index": rec.index},
    }


def report_json(proof_dir, st):
    man = st["manifest"]
    lo, hi = man.margins(*st["root"])
    pits = man.pits
    sec = st["second"]
    obj = {
        "dir": proof_dir,
        "rules": man.rules_text(),
        "position": man.position.text(),
        "depth": man.depth,
        "front_nodes": len(st["tree"].boards),
        "leaves": len(st["tree"].leaves),
        "splits": st["splits"],
        "proved": lo == hi,
        "value": lo if lo == hi else None,
        "margin_at_least": lo,
        "margin_at_most": hi,
        "gain_at_least": st["root"][0],
        "gain_at_most": st["root"][1],
        "first_moves": [
            {"move": t, "proved": a == b, "margin_at_least": a, "margin_at_most": b}
            for t, (a, b) in st["first"]
        ],
        "records": st["records"],
        "answered": st["answered"],
        "duplicates": st["duplicates"],
        "result_files": st["files"],
        "needed": [
            dict(unit_json(u, pits), second=v) for u, v in zip(st["needed"], sec["verdicts"])
        ],
        "second_answers": {
            "needed": len(st["needed"]),
            "confirmed": len(sec["confirmed"]),
            "open": len(sec["open"]),
            "disagree": [unit_json(u, pits) for u in sec["disagree"]],
            "unused_records": sec["unused"],
            "records": sec["records"],
            "files": sec["files"],
        },
        "warnings": st["warnings"],
    }
    print(json.dumps(obj))


def report_text(proof_dir, st):
    man = st["manifest"]
    tree = st["tree"]
    lo, hi = man.margins(*st["root"])
    pits = man.pits
    say = print
    say(f"proof:       {proof_dir}")
    say(f"rules:       {man.rules_text()}")
    say(f"position:    {man.position.text()}")
    say(
        f"front end:   {man.depth} plies, {len(tree.boards)} interior nodes, "
        f"{len(tree.leaves)} leaves ({st['splits']} boards split)"
    )
    say(
        f"records:     {st['records']} in {st['files']} files ({st['answered']} distinct "
        f"questions answered, {st['duplicates']} answered twice)"
    )
    if lo == hi:
        say(f"value:       {lo:+} (final margin, South minus North; proved: its bounds meet)")
    else:
        say(f"bounds:      {lo:+} <= margin <= {hi:+} (proved bounds, not yet the value)")
    for t, (a, b) in st["first"]:
        shown = f"{a:+} (proved)" if a == b else f"{a:+} <= margin <= {b:+} (bounds)"
        say(f"  {t:<6} {shown}")
    side = "South" if man.position.south_to_move else "North"
    say(f"needed:      {len(st['needed'])} answer records carry the root's bounds")
    for yes, t, n in st["claims"]:
        g = f"gain >= {t}" if yes == "yes" else f"gain <= {t - 1}"
        say(f"  root {g} ({side}'s future net gain): {n} units")
    for u in st["needed"]:
        key, board, t, yes, rec = u
        q = f"value >= {t}" if yes else f"value <= {t - 1}"
        say(f"  {position_of(board, pits):<40} {q:<14} {rec.file} record {rec.index}")
    sec = st["second"]
    if sec["records"] == 0:
        # As `kalah prove DIR --status` says it: "0 of N confirmed" would read as a check
        # under way.
        say(
            f"second answers: none asked ({len(st['needed'])} needed units; "
            "`kalah prove DIR --second-answers` asks them)"
        )
        return
    say(
        f"second answers: {len(sec['confirmed'])} of {len(st['needed'])} needed units "
        f"confirmed, {len(sec['open'])} open, {len(sec['disagree'])} disagree "
        f"({sec['records']} check records in {sec['files']} files, {sec['unused']} unused)"
    )
    for key, board, t, yes, rec in sec["disagree"]:
        q = f"value >= {t}" if yes else f"value <= {t - 1}"
        say(f"  DISAGREE: {position_of(board, pits)} {q} ({rec.file} record {rec.index})")


def selftest():
    """The worked examples of the rules texts (shared/seeds/), played by this move
    generator; returns the failures."""
    std = {k: v[0] for k, v in SWITCHES.items()}
    g = Game(6, std)
    bad = []

    def expect(what, got, want):
        if got != want:
            bad.append(f"{what}: got {got}, expected {want}")

    # 003: "With four seeds in each starting pit, choose your third pit ... the final seed
    # reaches your store, you play again" (000: "A3 does it on move one").
    expect("A3 of Kalah(6,4)", g.play((4,) * 12, 2), (SAME, 1, 0, (4, 4, 0, 5, 5, 5) + (4,) * 6))
    # 003: "let your six pits be 1, 0, 2, 2, 2, 2. Put four seeds in the opponent pit
    # opposite your second pit. Sowing your first pit ... You capture five seeds".
    # It empties North's row: the game ends and South sweeps its own 8 seeds too.
    board = (1, 0, 2, 2, 2, 2, 0, 0, 0, 0, 4, 0)
    expect("the capture of five", g.play(board, 0)[:3], (OVER, 5 + 8, 5))
    # 000: "A1 faces B6, A2 faces B5, and so on": a lone seed sown into each empty pit of
    # the mover's row captures the pit it faces (B(7 - i) for A(i)).
    for i in range(1, 6):
        cells = [0] * 12
        cells[i - 1], cells[11 - i] = 1, 3
        expect(f"A{i + 1} captures B{6 - i}", g.play(tuple(cells), i - 1)[2], 4)
    # 000: capture only with seeds opposite; the empty-capture rule takes the lone seed.
    board = (1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1)
    expect("no capture facing an empty pit", g.play(board, 0)[2], 0)
    empty = Game(6, dict(std, capture="empty"))
    expect("empty capture", empty.play(board, 0)[:3], (OVER, 1 - 5, 1))
    # 000: "a full pit will sow all the way round and drop a seed back into the pit you
    # emptied"; the opponent's store is stepped over. Thirteen seeds from A1 end in A1,
    # empty before, and capture B6 (two seeds); the board is then North's to move.
    board = (13, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1)
    after = (2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1, 1)
    expect("a lap of thirteen", g.play(board, 0), (OTHER, 1 + 3, 3, after))
    # 000: "The game ends the moment a player is due to move and their whole row is
    # empty ... the other player sweeps every seed still on their own side".
    mover = Game(6, dict(std, end="mover"))
    expect("the end sweep", mover.terminal_value((0,) * 6 + (3,) * 6), -18)
    # 001: "seed on": a last seed in an occupied pit is lifted and sown on.
    # A1 (1 seed) lands on A2 (2): lift 3: A3, store, B1 (1): lift 2: B2, B3 (1): lift 2:
    # A1, A2, both emptied on the way: the turn ends there.
    relay = Game(3, dict(std, sowing="relay", capture="none"))
    expect("relay", relay.play((1, 2, 0, 1, 1, 1), 0), (OTHER, 1, 0, (0, 2, 0, 1, 1, 1)))
    return bad


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv == ["--selftest"]:
        bad = selftest()
        for b in bad:
            print(f"FAIL {b}", file=sys.stderr)
        print("selftest: " + ("ok" if not bad else f"{len(bad)} failures"))
        sys.stdout.flush()
        return 1 if bad else 0
    ap = argparse.ArgumentParser(
        description="Check a kalah prove directory independently of the solver.",
        epilog="check-proof.py --selftest plays the rules texts' worked examples.",
    )
    ap.add_argument("dir", help="the proof directory (proof.txt, results/*.kpr)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    a = ap.parse_args(argv)
    sys.setrecursionlimit(10000)
    try:
        st = load(a.dir)
    except Refused as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for w in st["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    if a.json:
        report_json(a.dir, st)
    else:
        report_text(a.dir, st)
    if st["second"]["disagree"]:
        print(
            f"error: {len(st['second']['disagree'])} needed units are contradicted by "
            f"their second answers",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader of the output went away (`| head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)

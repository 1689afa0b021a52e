#!/usr/bin/env python3
"""The tables of results/kalah66-opening.md: every first move and every whole first turn
of Kalah(6,6) under both capture rules, from the committed proofs, and the pie rule's
value as far as they prove it.

    scripts/kalah66-opening.py [--write FILE] [KALAH]

KALAH: the kalah binary (default target/release/kalah). --write FILE: put the tables in
FILE between the lines `<!-- tables: scripts/kalah66-opening.py -->` and `<!-- end of
tables -->` (results/kalah66-opening.md) instead of printing them. Each proof is read with `kalah
prove DIR --status --json`; nothing is searched. A turn's bounds are those of its own
proof (results/proofs/6x6-<capture>-<turn>), narrowed by what the start's proof
(6x6-<capture>) proves of it: a first move at most the start's value, and each turn
after A1+ at most A1+'s. A row without a proof of its own shows those bounds alone.

The pie rule: North may take South's side after South's whole first turn, so South's
result is -min |v| over the turns' values v. With only bounds on some v, min |v| is
bounded: at least the smallest |v| any turn is proved to reach, at most the smallest
|v| any turn is proved not to pass.
"""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ARGS = sys.argv[1:]
WRITE = None
if ARGS[:1] == ["--write"]:
    WRITE, ARGS = ARGS[1], ARGS[2:]
KALAH = ARGS[0] if ARGS else os.path.join(ROOT, "target/release/kalah")
OUT = []
PROOFS = os.path.join(ROOT, "results/proofs")
TURNS = ["A2", "A3", "A4", "A5", "A6", "A1+A2", "A1+A3", "A1+A4", "A1+A5", "A1+A6"]
# Rawlings (2015), as published: standard capture per-turn bounds; empty capture a value
# for each whole first turn (the per-move table of the Wikipedia article's October 2015
# revision). "1-2" there is A1+ A2.
RAWLINGS = {
    "standard": {"A1+A2": "win by at least 2", "A1+A3": "win by at least 4",
                 "A6": "loss by at least 2"},
    "empty": {"A1+A2": "+2", "A1+A3": "+2", "A1+A4": "0", "A1+A5": "0", "A1+A6": "0",
              "A2": "+2", "A3": "0", "A4": "0", "A5": "0", "A6": "-2"},
}


def say(text=""):
    OUT.append(text)


def status(name):
    d = os.path.join(PROOFS, name)
    if not os.path.isfile(os.path.join(d, "proof.txt")):
        return None
    out = subprocess.run([KALAH, "prove", d, "--status", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def shown(lo, hi):
    if lo == hi:
        return f"**{lo:+d}**"
    return f"{lo:+d} <= v <= {hi:+d} (bounds)"


def second(st):
    s = st["second_answers"]
    if s["needed"] == 0 or s["records"] == 0:
        return "none asked"
    dis = len(s["disagree"])
    return f'{s["confirmed"]} of {s["needed"]} confirmed, {dis} disagree, {s["open"]} open'


def table(capture):
    root = status(f"6x6-{capture}")
    first = {m["move"]: (m["margin_at_least"], m["margin_at_most"]) for m in root["first_moves"]}
    a1 = first["A1+"]
    rows, bounds, checks = [], {}, {}
    cpu = 0.0
    for turn in TURNS:
        # A turn after A1+ without a proof of its own: at most A1+, and at least what the
        # board allows (South holds 2 in store, North none: -68).
        lo, hi = first.get(turn, (-68, a1[1]))
        st = status(f"6x6-{capture}-{turn.replace('+', '')}")
        if st is not None:
            lo, hi = max(lo, st["margin_at_least"]), min(hi, st["margin_at_most"])
            cpu += st["cpu_seconds"] + st["second_answers"]["cpu_seconds"]
            units = f'{st["units"]["done"]} ({st["units"]["split"]} split)'
            work = f'{st["cpu_seconds"]:,.0f}'
            if st["second_answers"]["records"]:
                work += f' + {st["second_answers"]["cpu_seconds"]:,.0f}'
            chk = second(st)
            checks[turn] = st["second_answers"]
        else:
            units, work, chk = "not started", "", ""
        bounds[turn] = (lo, hi)
        rows.append(f"| {turn.replace('+', '+ ')} | {shown(lo, hi)} | {units} | {work} | {chk} "
                    f"| {RAWLINGS[capture].get(turn, '')} |")
    say(f"### {capture} capture (the start: {root['value']:+d}, proved; A1+ "
          f"{shown(*a1)})\n")
    say("| whole first turn | value (final margin) | units (split) | CPU s (proof + second "
          "answers) | second answers | Rawlings 2015 |")
    say("|---|---|---:|---:|---|---|")
    say("\n".join(rows))
    # min |v|: a turn proved on one side of 0 reaches at least its bound nearest 0; a
    # turn whose bounds hold 0 may be 0.
    def low_abs(b):
        lo, hi = b
        return lo if lo > 0 else (-hi if hi < 0 else 0)

    least = min(low_abs(b) for b in bounds.values())
    most = min(max(abs(lo), abs(hi)) for lo, hi in bounds.values())
    pie = f"**{-least:+d}**, proved" if least == most else \
        f"{-most:+d} <= pie value <= {-least:+d} (bounds, not proved)"
    if least == most:
        # The turns that settle it: proved exactly |v| = least. The value is certified
        # only once each of them has every needed unit answered twice, none disagreeing.
        def certified(t):
            s = checks.get(t)
            return s is not None and s["needed"] > 0 and s["confirmed"] == s["needed"] \
                and not s["disagree"]

        settle = [t for t, (lo, hi) in bounds.items() if lo == hi and abs(lo) == least]
        if least == 0 and settle:
            # One turn worth 0 settles it: name the certified ones, else the first.
            settle = [t for t in settle if certified(t)] or settle[:1]
        parts = []
        for t in settle:
            parts.append(f"{t.replace('+', '+ ')} = {bounds[t][0]:+d}, " +
                         ("every needed unit answered twice" if certified(t) else
                          "second answers not complete, so not yet certified"))
        if settle:
            pie += f" by the search ({'; '.join(parts)})"
    say(f"\nPie rule: South's result {pie}; these rows' proofs and second answers: "
          f"{cpu:,.0f} CPU s.\n")


for capture in ("standard", "empty"):
    table(capture)
text = "\n".join(OUT).rstrip("\n") + "\n"
if WRITE is None:
    sys.stdout.write(text)
else:
    START, END = "<!-- tables: scripts/kalah66-opening.py -->", "<!-- end of tables -->"
    doc = open(WRITE).read()
    head, rest = doc.split(START + "\n", 1)
    tail = rest.split(END + "\n", 1)[1] if END in rest else rest
    open(WRITE, "w").write(f"{head}{START}\n\n{text}\n{END}\n{tail}")

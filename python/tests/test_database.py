"""`kalah.Database`: its probes against `scripts/kdb.py` (the standard-library reader written
from db-format/FORMAT.md alone) and against the search, and every kind of damaged file or
bad directory refused with an exception naming it."""

import importlib.util
import os
import random
import shutil
import subprocess
import sys
from math import comb

import pytest

import kalah
from conftest import REPO

RULES = {"capture": "standard", "sowing": "single", "direction": "ccw", "opp_store": "skip",
         "end": "either", "remaining": "owner"}
SLUG = "m4-standard-single-ccw-skip-either-owner"


@pytest.fixture(scope="module")
def kdb():
    spec = importlib.util.spec_from_file_location("kdb", REPO / "scripts" / "kdb.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def level_file(directory, k):
    return os.path.join(directory, "%s-k%03d.kdb" % (SLUG, k))


def every_board(cells, k):
    """Every way to put k seeds in `cells` pits."""
    if cells == 1:
        yield [k]
        return
    for first in range(k + 1):
        for rest in every_board(cells - 1, k - first):
            yield [first] + rest


def text(cells, stores, side):
    return "%s/%d/%s/%d/%s" % (",".join(map(str, cells[:4])), stores[0],
                               ",".join(map(str, cells[4:])), stores[1], side)


def test_database_opens_with_its_rules(small_db):
    db = kalah.Database(small_db)
    assert db.max_seeds == 10
    assert db.rules == kalah.Rules(pits=4)
    assert str(db.dir) == str(small_db)
    assert kalah.Database(str(small_db), kalah.Rules(pits=4, seeds=2)).max_seeds == 10


def test_probes_equal_the_reference_reader(small_db, kdb):
    db = kalah.Database(small_db)
    rng = random.Random(5)
    texts = []
    for k in range(0, 11):
        boards = list(every_board(8, k))
        for cells in boards if len(boards) <= 2000 else rng.sample(boards, 2000):
            stores = (rng.randrange(0, 20), rng.randrange(0, 20))
            texts.append(text(cells, stores, rng.choice("AB")))
    found = db.probe_many(texts)
    assert len(found) == len(texts)
    levels = {}
    for t, f in zip(texts, found):
        pos = kdb.Position(t)
        k = pos.seeds()
        if k not in levels:
            levels[k] = kdb.open_level(str(small_db), 4, k, RULES)
        v = levels[k].value(kdb.rank(pos.cells()))
        store = pos.a_store - pos.b_store
        assert (f.gain, f.margin) == (v, store + v if pos.side == "A" else store - v), t
    # The same through probe() one at a time, and through Position objects.
    for t, f in list(zip(texts, found))[::97]:
        p = db.probe(t)
        assert (p.margin, p.gain) == (f.margin, f.gain)
        q = db.probe(kalah.Position(t, kalah.Rules(pits=4)))
        assert (q.margin, q.gain) == (f.margin, f.gain)
    assert [(p.margin, p.gain) for p in db.probe_many([kalah.Position(t, kalah.Rules(pits=4)) for t in texts[:50]])] == [
        (f.margin, f.gain) for f in found[:50]]


def test_many_probes_are_a_sequence(small_db):
    db = kalah.Database(small_db)
    texts = ["1,0,0,0/0/0,0,0,0/0/A", "0,0,0,2/5/1,0,0,0/9/B", "0,0,0,0/3/0,0,0,0/1/A"]
    found = db.probe_many(iter(texts))
    assert len(found) == 3
    assert found.margins == [db.probe(t).margin for t in texts]
    assert found.gains == [db.probe(t).gain for t in texts]
    assert found[-1] == found[2] == db.probe(texts[2])
    assert [p.margin for p in found] == found.margins
    with pytest.raises(IndexError):
        found[3]
    assert found[0:2] == [found[0], found[1]] and found[::-2] == [found[2], found[0]]
    with pytest.raises(TypeError):
        found["x"]


def test_every_spelling_of_a_position_string_reads_the_same(small_db):
    db = kalah.Database(small_db)
    plain = "2,0,1,0/12/0,3,0,1/4/B"
    spellings = [plain, " 2,0,1,0/12/0,3,0,1/4/B", "2, 0,1,0/12/0,3,0,1/4/B", "02,0,1,0/012/0,3,0,1/4/b",
                 "2,0,1,0/12/0,3,0,1/4/ B ", "+2,0,1,0/12/0,3,0,1/4/B"]
    want = db.probe(plain)
    for s in spellings:
        assert db.probe(s) == want, s
    assert list(db.probe_many(spellings)) == [want] * len(spellings)
    # Refused alike by probe and probe_many, whichever way each reads them.
    for bad in ["2,0,1,0/12/0,3,0,1/4/C", "2,0,1,0/12/0,3,0,1/4", "2,0,1/12/0,3,0,1/4/B",
                "2,0,1,0/12/0,3,0,1/4/BB", "2,0,1,0/99999999999/0,3,0,1/4/B", "2,0,1,0/2147483647/0,3,0,1/4/B",
                "200,60,0,0/0/0,0,0,0/0/A", "2,,1,0/0/0,3,0,1/4/B"]:
        with pytest.raises(ValueError) as one:
            db.probe(bad)
        with pytest.raises(ValueError) as many:
            db.probe_many(["1,0,0,0/0/0,0,0,0/0/A", bad])
        assert str(many.value) == "positions[1]: " + str(one.value), bad


def test_the_reference_reader_prints_the_same_margin(small_db):
    db = kalah.Database(small_db)
    t = "2,0,3,1/4/0,1,1,0/8/B"
    out = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "kdb.py"), "probe", str(small_db), "--position", t],
        check=True, capture_output=True, text=True,
    ).stdout
    margin = [line for line in out.splitlines() if line.startswith("margin:")][0].split()[1]
    assert int(margin) == db.probe(t).margin


def test_probes_equal_the_search_and_a_solve_through_the_database(small_db):
    db = kalah.Database(small_db)
    rng = random.Random(11)
    for _ in range(40):
        cells = [0] * 8
        for _ in range(rng.randrange(1, 11)):
            cells[rng.randrange(8)] += 1
        p = kalah.Position(text(cells, (3, 1), rng.choice("AB")), kalah.Rules(pits=4))
        assert db.probe(p).margin == kalah.solve(p, endgame="none").value
    # Kalah(4,3) from the start, the levels up to 10 read from the database.
    start = kalah.Position.start(kalah.Rules(pits=4, seeds=3))
    assert kalah.solve(start, db=db).value == 6
    assert kalah.solve(start, db=str(small_db)).value == 6
    assert [(m.move, m.value) for m in kalah.moves(start, db=db)] == [
        (m.move, m.value) for m in kalah.moves(start)]


def test_positions_the_database_does_not_hold(small_db):
    db = kalah.Database(small_db)
    with pytest.raises(ValueError) as e:
        db.probe("3,3,3,3/0/3,3,3,3/0/A")
    assert str(e.value) == (
        "the position has 24 seeds on the board but the database in %s covers at most 10 "
        "(levels 0..=10)" % small_db)
    with pytest.raises(ValueError) as e:
        db.probe_many(["1,0,0,0/0/0,0,0,0/0/A", "3,3,3,3/0/3,3,3,3/0/A"])
    assert str(e.value).startswith("positions[1]: the position has 24 seeds")
    with pytest.raises(ValueError) as e:
        db.probe_many(["1,0,0,0/0/0,0,0,0/0/A", "1,0,0/0/0,0,0/0/A"])
    assert str(e.value) == "positions[1]: position has 3 pits a side but the rules say 4"
    with pytest.raises(ValueError) as e:
        db.probe_many(["x"])
    assert str(e.value).startswith("positions[0]: position 'x': expected 5 parts")
    with pytest.raises(ValueError) as e:
        db.probe(kalah.Position("1,0,0,0/0/0,0,0,0/0/A", kalah.Rules(pits=4, capture="empty")))
    assert "are not the database's" in str(e.value)
    with pytest.raises(ValueError) as e:
        db.probe(kalah.Position("1,0,0,0/0/0,0,0,0/0/A", kalah.Rules(pits=4, pie=True)))
    assert "does not use the pie rule" in str(e.value)
    with pytest.raises(TypeError):
        db.probe_many([3])
    with pytest.raises(ValueError) as e:
        kalah.solve(kalah.Position.start(kalah.Rules(pits=4, seeds=3, capture="empty")), db=db)
    assert "no database for these rules in %s" % small_db in str(e.value)
    assert len(db.probe_many([])) == 0


def copy_db(small_db, tmp_path):
    d = tmp_path / "db"
    shutil.copytree(small_db, d)
    return d


def test_missing_and_wrong_directories(tmp_path, small_db):
    missing = tmp_path / "nothing"
    with pytest.raises(FileNotFoundError) as e:
        kalah.Database(missing)
    assert str(e.value) == "%s: no such directory" % missing
    with pytest.raises(FileNotFoundError):
        kalah.solve("1,0/0/1,0/0/A", db=missing)
    link = tmp_path / "dangling"
    os.symlink(missing, link)
    with pytest.raises(FileNotFoundError) as e:
        kalah.Database(link)
    assert "a symbolic link to a path that does not exist" in str(e.value)
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError) as e:
        kalah.Database(afile)
    assert str(e.value) == "%s: not a directory (give the directory of the level files)" % afile
    with pytest.raises(NotADirectoryError):
        kalah.Database(afile / "below")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(empty)
    assert "holds no level files" in str(e.value)
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(small_db, kalah.Rules(pits=4, capture="empty"))
    assert "no database for these rules in %s" % small_db in str(e.value)
    assert isinstance(e.value, OSError)


def test_a_truncated_level_is_named(small_db, tmp_path):
    d = copy_db(small_db, tmp_path)
    path = level_file(d, 3)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 5)
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(d)
    assert str(e.value).startswith(path + ": file is")
    assert "(truncated)" in str(e.value)


def test_a_file_that_is_not_a_database_is_named(small_db, tmp_path):
    d = copy_db(small_db, tmp_path)
    path = level_file(d, 2)
    with open(path, "r+b") as f:
        f.write(b"NOTADB!!")
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(d)
    assert str(e.value) == "%s: not a Kalah database (bad magic bytes)" % path


def test_a_value_out_of_range_is_named(small_db, tmp_path):
    d = copy_db(small_db, tmp_path)
    path = level_file(d, 1)
    # Level 1 of 4 pits: 8 boards; the first ([0,...,0,1], rank 0) gets 100.
    with open(path, "r+b") as f:
        f.seek(64)
        f.write(bytes([100]))
    # The payload no longer hashes to the header's checksum: refused when opened, before
    # any value is read.
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(d)
    assert str(e.value).startswith(path + ": payload checksum mismatch")
    assert str(e.value).endswith("delete it and rebuild it with `kalah db build`")


def test_a_checksum_mismatch_is_named(small_db, tmp_path):
    d = copy_db(small_db, tmp_path)
    path = level_file(d, 6)
    size = os.path.getsize(path)
    assert size == 64 + comb(6 + 7, 7)
    with open(path, "r+b") as f:
        f.seek(size - 1)
        b = f.read(1)[0]
        f.seek(size - 1)
        f.write(bytes([b ^ 1 if b not in (6, 0xFA) else 0]))
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(d)
    assert str(e.value).startswith(path + ": payload checksum mismatch")
    kalah.Database(small_db).check_files()


def test_compact_files_read_the_same_as_one_byte_files(small_db, compact_db):
    byte, compact = kalah.Database(small_db), kalah.Database(compact_db)
    assert compact.max_seeds == byte.max_seeds == 10
    texts = [text(cells, (0, 0), side) for k in range(0, 11) for cells in every_board(8, k)
             for side in "AB"]
    a, b = compact.probe_many(texts), byte.probe_many(texts)
    assert len(a) == len(texts) and (a.margins, a.gains) == (b.margins, b.gains)
    compact.check_files()
    # Smaller: version 2 keeps 32 entries in a slot of 16 bytes, plus continuations.
    assert os.path.getsize(level_file(compact_db, 10)) < os.path.getsize(level_file(small_db, 10))


def test_a_damaged_compact_file_is_named(compact_db, tmp_path):
    d = copy_db(compact_db, tmp_path)
    path = level_file(d, 10)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size - 1)
        b = f.read(1)[0]
        f.seek(size - 1)
        f.write(bytes([b ^ 0xFF]))
    with pytest.raises(kalah.DatabaseError) as e:
        kalah.Database(d).check_files()
    assert str(e.value).startswith(path + ": ")
    kalah.Database(compact_db).check_files()


def test_several_rule_sets_in_one_directory(small_db, tmp_path, kalah_bin):
    d = copy_db(small_db, tmp_path)
    subprocess.run([kalah_bin, "db", "build", "--pits", "4", "--capture", "empty", "--max-seeds", "2",
                    "--threads", "1", "--no-timings", "--out", str(d)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with pytest.raises(ValueError) as e:
        kalah.Database(d)
    assert "holds levels of 2 rule sets" in str(e.value) and "give rules=" in str(e.value)
    assert kalah.Database(d, kalah.Rules(pits=4, capture="empty")).max_seeds == 2
    assert kalah.Database(d, kalah.Rules(pits=4)).max_seeds == 10

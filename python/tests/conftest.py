"""Shared fixtures: the `kalah` command the module is compared with, and a small database.

The command is `$KALAH_BIN` where set (it must exist then), else the release build of this
repository (`cargo build --release -p tools`: `target/release/kalah`, or under
`$CARGO_TARGET_DIR`); tests that need it are skipped, saying how to build it, where there is
none.
"""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def kalah_binary():
    """The `kalah` executable, or None."""
    env = os.environ.get("KALAH_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError("KALAH_BIN=%s is not an executable" % env)
        return env
    targets = [os.environ.get("CARGO_TARGET_DIR"), str(REPO / "target")]
    for t in targets:
        if t and os.access(os.path.join(t, "release", "kalah"), os.X_OK):
            return os.path.join(t, "release", "kalah")
    return None


@pytest.fixture(scope="session")
def kalah_bin():
    b = kalah_binary()
    if b is None:
        pytest.skip("no kalah binary: build it with `cargo build --release -p tools` or set KALAH_BIN")
    return b


def pytest_collection_modifyitems(config, items):
    if os.environ.get("KALAH_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="a solve of a minute or more on two cores: run with KALAH_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def small_db(kalah_bin, tmp_path_factory):
    """Kalah(4,·) levels 0..=10 under the default rules, built by `kalah db build` in
    one-byte files (format version 1: the damage tests write into entries by offset)."""
    out = tmp_path_factory.mktemp("db4")
    subprocess.run(
        [kalah_bin, "db", "build", "--pits", "4", "--max-seeds", "10", "--threads", "2",
         "--format", "byte", "--no-timings", "--out", str(out)],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return out


@pytest.fixture(scope="session")
def compact_db(kalah_bin, small_db, tmp_path_factory):
    """`small_db` rewritten as compact files (format version 2) by `kalah db convert`."""
    out = tmp_path_factory.mktemp("db4c")
    subprocess.run(
        [kalah_bin, "db", "convert", str(small_db), str(out)],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return out

"""A long solve stopped by its time limit or by Ctrl-C raises, never returns a value, and
leaves the module ready for the next solve."""

import subprocess
import sys
import textwrap

import pytest

import kalah

# Kalah(6,4) from the start: about 90 s of search on two cores (results/values.md), and its
# endgame table takes seconds to build; Kalah(5,2) with clockwise sowing: its retrograde
# analysis takes about 30 s of CPU.
LONG = kalah.Position.start(kalah.Rules(pits=6, seeds=4))
LONG_CYCLIC = kalah.Position.start(kalah.Rules(pits=5, seeds=2, direction="cw"))


@pytest.mark.parametrize("position", [LONG, LONG_CYCLIC], ids=["search", "retrograde"])
def test_the_time_limit_raises_timeout_error(position):
    with pytest.raises(TimeoutError) as e:
        kalah.solve(position, timeout=1.0)
    assert str(e.value) == "stopped after the time limit of 1 s: no value was found"
    with pytest.raises(TimeoutError):
        kalah.moves(position, timeout=0.5)
    # The next solve is whole.
    assert kalah.solve(kalah.Position.start(kalah.Rules(pits=4, seeds=3))).value == 6


def test_ctrl_c_raises_keyboard_interrupt():
    script = textwrap.dedent(
        """
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import kalah
        print("started", flush=True)
        try:
            v = kalah.solve(kalah.Position.start(kalah.Rules(pits=6, seeds=4)), endgame="none")
            print("value", v.value)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        print(kalah.solve(kalah.Position.start(kalah.Rules(pits=4, seeds=3))).value)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "started"
    import signal
    import time

    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert out.split() == ["KeyboardInterrupt", "6"]
    assert proc.returncode == 0

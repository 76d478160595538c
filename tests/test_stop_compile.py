"""A stop signal while the command waits where Python's handler cannot run: inside a compile,
where the signals are held, and inside the OpenCL driver, which compiles each kernel at its first
launch.  The command still stops within a second, with its one line and status."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# A command's guard around a step that holds the stop signals for ten seconds, as a cold compile
# holds them while LLVM runs in the process.
HELD = """
import os, sys, time
from inpaint import cancel
from inpaint.cli import guard

def run():
    guard.stop_promptly()
    with cancel.signals_held():
        os.write(2, b"holding\\n")
        time.sleep(10)
    return 0

sys.exit(guard.guarded("held", run, program=True))
"""


def _env(tmp_path: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("POCL_CACHE_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


@pytest.mark.parametrize("sig, status, line", [(signal.SIGINT, 130, "held: interrupted"),
                                               (signal.SIGTERM, 143, "held: stopped by SIGTERM")])
def test_a_stop_signal_while_the_signals_are_held_ends_the_run_at_once(tmp_path, sig, status, line):
    with subprocess.Popen([sys.executable, "-c", HELD], env=_env(tmp_path), stderr=subprocess.PIPE,
                          text=True) as p:
        assert p.stderr.readline() == "holding\n"
        sent = time.monotonic()
        p.send_signal(sig)
        err = p.stderr.read()
        code = p.wait(timeout=60)
        took = time.monotonic() - sent
    assert code == status, err
    assert err.strip() == line
    assert took < 5, took  # not after the ten seconds the step holds the signals


@pytest.mark.slow
@pytest.mark.opencl
@pytest.mark.parametrize("after", [0.05, 0.5, 1.0])
def test_ctrl_c_during_a_cold_compile_stops_within_a_second(tmp_path, after):
    out = tmp_path / "out.png"
    with subprocess.Popen([sys.executable, "-m", "inpaint", "--case", "walkingman", "--backend", "opencl",
                           "-o", str(out)], env=_env(tmp_path), cwd=tmp_path, stderr=subprocess.PIPE,
                          text=True) as p:
        note = p.stderr.readline()
        assert "compiling the OpenCL kernels" in note
        time.sleep(after)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        err = p.stderr.read()
        code = p.wait(timeout=120)
        took = time.monotonic() - sent
    if code == 0:  # the compile and the fill were over before the signal: nothing to stop
        assert out.exists()
        return
    assert code == 130, err
    assert err.strip() == "inpaint: interrupted"
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))
    assert took < 1.0, took


# The same, where the system gives the signal to another thread that lets it through (a reading
# thread started before the step): Python still runs the handler in the main thread, mid-step.
HELD_ELSEWHERE = """
import os, signal, sys, threading, time
from inpaint import cancel
from inpaint.cli import guard

def run():
    guard.stop_promptly()
    other = threading.Thread(target=threading.Event().wait, daemon=True)
    other.start()
    with cancel.signals_held():
        try:
            signal.pthread_kill(other.ident, signal.SIGTERM)
            start = time.monotonic()
            while time.monotonic() - start < 10:  # Python's steps, where a handler can run
                pass
        except BaseException as exc:
            os.write(2, f"raised inside the held step: {type(exc).__name__}\\n".encode())
            raise
    return 0

sys.exit(guard.guarded("held", run, program=True))
"""


def test_a_stop_signal_through_another_thread_is_not_raised_inside_the_held_step(tmp_path):
    """The held step (a compile, the filter of standard error being put in) is not broken off by
    an exception: the run ends as for a signal taken while held, with its one line and status."""
    proc = subprocess.run([sys.executable, "-c", HELD_ELSEWHERE], env=_env(tmp_path), capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (143, "held: stopped by SIGTERM\n")


class _StopWhileTaken:
    """The filter's lock, with a stop's :func:`~inpaint.cl.build.unfilter_stderr` coming (as from
    another thread) just before a build takes it, once."""

    def __init__(self, lock):
        self._lock, self.stops = lock, 0

    def acquire(self, *args, **kwargs):
        return self._lock.acquire(*args, **kwargs)

    def release(self):
        self._lock.release()

    def __enter__(self):
        if self.stops == 0:
            from inpaint.cl import build

            self.stops += 1
            build.unfilter_stderr()
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()


def test_a_stop_as_a_build_starts_leaves_standard_error_unfiltered_for_good(monkeypatch):
    """The stop's last line goes straight to standard error: a build starting at that moment on
    another thread does not put the compiler-output filter (a pipe whose thread the process's end
    outruns) in front of it afterwards."""
    from inpaint.cl import build

    def identity():
        st = os.fstat(2)
        return st.st_dev, st.st_ino

    monkeypatch.setitem(build._FILTER, "off", False)
    lock = _StopWhileTaken(build._FILTER_LOCK)
    monkeypatch.setattr(build, "_FILTER_LOCK", lock)
    real = identity()
    with build._compiler_summary_dropped():
        during = identity()
    assert lock.stops == 1 and build._FILTER["off"]
    assert during == real

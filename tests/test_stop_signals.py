"""A stop signal at the edges of a run: while the command's modules load, and in its last moments
after it said it succeeded.  Real processes, real signals, at several moments each.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inpaint.methods.options import BACKEND, DEVICE, PROFILE

REPO = Path(__file__).resolve().parent.parent
# What the installed ``inpaint`` script does: import the entry point, call it.  It says "ready"
# on standard error between the two, so that a signal is sent once the entry point is imported:
# before that (Python's own start, the import of the entry point's module), no program can guard.
SCRIPT = ("import os, sys; from inpaint.cli import main; os.write(2, b'ready\\n'); sys.exit(main())")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in (BACKEND.env, DEVICE.env, PROFILE.env)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


@pytest.mark.parametrize("delay", [0.03, 0.08, 0.15])
def test_ctrl_c_while_the_command_loads_ends_with_one_line_and_status_130(tmp_path, delay):
    with subprocess.Popen([sys.executable, "-c", SCRIPT, "--case", "walkingman", "--backend", "numpy",
                           "-o", str(tmp_path / "out.png")], cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as p:
        assert p.stderr.readline() == "ready\n"
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        err = p.stderr.read()
        code = p.wait(timeout=120)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert code == 130, err
    assert err.strip() == "inpaint: interrupted"
    assert not (tmp_path / "out.png").exists()


# Each signal at every moment: by default SIGTERM at the first and last and SIGINT at the middle
# one; the others run in the slow selection.
AFTER = (0.01, 0.03, 0.08)


@pytest.mark.parametrize("sig, delays", [
    (signal.SIGTERM, AFTER[::2]), (signal.SIGINT, AFTER[1:2]),
    pytest.param(signal.SIGTERM, AFTER[1:2], marks=pytest.mark.slow),
    pytest.param(signal.SIGINT, AFTER[::2], marks=pytest.mark.slow)])
def test_a_stop_signal_after_the_success_line_keeps_the_runs_status(tmp_path, sig, delays):
    for i, delay in enumerate(delays):
        out = tmp_path / f"out{i}.png"
        with subprocess.Popen([sys.executable, "-m", "inpaint", "--case", "walkingman", "-o", str(out)],
                              cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) as p:
            lines = []
            while line := p.stderr.readline():
                lines.append(line)
                if line.startswith("inpaint: removed "):
                    time.sleep(delay)
                    p.send_signal(sig)
                    break
            lines += p.stderr.readlines()
            code = p.wait(timeout=120)
        assert code == 0, (delay, code, lines)  # not ended by the signal it came after success
        assert out.is_file()
        assert not any("interrupted" in line or "stopped by" in line for line in lines), lines

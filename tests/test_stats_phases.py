"""``--stats`` accounts for the whole command: the phase rows add up to the wall from the
process's start, for ``inpaint`` and ``inpaint resize`` (run as real processes, on numpy)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from inpaint.cli import phases
from inpaint.report import format_phases

REPO = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| (.+?) \| \**(\d+\.\d{3})\** \| [\d.]+ \|$")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(7)
    Image.fromarray(rng.integers(0, 256, (40, 48, 3), dtype=np.uint8)).save(tmp_path / "img.png")
    mask = np.zeros((40, 48), np.uint8)
    mask[16:22, 20:27] = 255
    Image.fromarray(mask).save(tmp_path / "mask.png")
    return tmp_path


def _inpaint(folder: Path, *argv: str) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "inpaint", *argv], capture_output=True, text=True, cwd=folder,
                          env=env, timeout=120)
    return proc, time.perf_counter() - t


def _phases(stdout: str) -> tuple[dict[str, float], float]:
    """The whole-command table's rows and its total."""
    part = stdout[stdout.index("whole command: "):].splitlines()
    wall = float(re.match(r"whole command: (\d+\.\d{3}) s wall, from the first import", part[0]).group(1))
    rows = {}
    for line in part[3:]:
        m = ROW.match(line)
        assert m, line
        rows[m.group(1)] = float(m.group(2))
        if line.startswith("| **total**"):
            break
    total = rows.pop("**total**")
    assert total == wall
    return rows, total


def _check(rows: dict[str, float], total: float, elapsed: float, expected: list[str]) -> None:
    assert list(rows) == expected
    assert sum(rows.values()) == pytest.approx(total, abs=1e-6)  # exact at the printed millisecond
    assert rows[phases.STARTUP] > 0
    assert total <= elapsed  # from the first import: never more than the run seen from outside


def test_stats_phases_add_up_to_the_wall(files):
    proc, elapsed = _inpaint(files, "img.png", "--mask", "mask.png", "--backend", "numpy", "--patch", "5",
                             "--stats", "-o", "out.png")
    assert proc.returncode == 0, proc.stderr
    assert "multiscale fill, backend numpy" in proc.stdout  # the fill's own table stays
    rows, total = _phases(proc.stdout)
    _check(rows, total, elapsed, [phases.STARTUP, phases.READ, phases.FILL, phases.WRITE, phases.OTHER])
    assert (files / "out.png").exists()


def test_resize_stats(files):
    proc, elapsed = _inpaint(files, "resize", "img.png", "--width", "40", "--backend", "numpy", "--stats",
                             "-o", "small.png")
    assert proc.returncode == 0, proc.stderr
    rows, total = _phases(proc.stdout)
    _check(rows, total, elapsed, [phases.STARTUP, phases.READ, phases.CARVE, phases.WRITE, phases.OTHER])
    with Image.open(files / "small.png") as im:
        assert im.size == (40, 40)


def test_resize_stats_refuses_a_batch(files):
    Image.open(files / "img.png").save(files / "two.png")
    (files / "out").mkdir()
    proc, _ = _inpaint(files, "resize", "img.png", "two.png", "--width", "40", "--backend", "numpy", "--stats",
                       "-o", "out")
    assert proc.returncode == 2
    assert "--stats takes one image" in proc.stderr


def test_stats_phase_table_rounding():
    """Rounded rows still add up: "other" takes up what the rounding leaves."""
    table = format_phases([("a", 0.0004), ("b", 0.0004), ("c", 0.0004)], 0.0021, "process start", "other")
    rows = [ROW.match(line) for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    seconds = {m.group(1): float(m.group(2)) for m in rows[1:]}
    total = seconds.pop("**total**")
    assert seconds == {"a": 0.0, "b": 0.0, "c": 0.0, "other": 0.002} and total == 0.002


def test_time_before_the_exec_is_not_start_up(files):
    """A shell that waits, then execs the command in the same process (as ``a && inpaint ...``
    in ``bash -c`` does), must not have its wait booked as the command's start-up."""
    import shlex
    import subprocess
    import sys

    argv = [sys.executable, "-m", "inpaint", "img.png", "--mask", "mask.png", "--backend", "numpy", "--patch",
            "5", "--stats", "-o", "late.png", "--method", "criminisi"]  # (any fill: the start-up is under test)
    proc = subprocess.run(["bash", "-c", "sleep 1.5; exec " + shlex.join(argv)], cwd=files, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows, total = _phases(proc.stdout)
    assert rows[phases.STARTUP] < 1.4  # the wait alone was 1.5 s

"""The command loads OpenCL's drivers on a thread while its modules load: through the loader
pyopencl itself uses, only where loading them is safe, and never for a command that runs without
OpenCL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint.cli import _asks_for_no_device

REPO = Path(__file__).resolve().parents[1]

# In a fresh process: the caches prepared, the drivers loaded on a thread (unless told "plain"),
# then pyopencl's own listing; what it found, and which loaders and drivers the process mapped.
PROBE = r"""
import json, os, resource, sys, threading
limit, plain = int(sys.argv[1]), sys.argv[2] == "plain"
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from inpaint.cl import kcache, preload
from inpaint.cancel import STOP_SIGNALS
kcache.prepare()
tasks = set(os.listdir("/proc/self/task"))
started = False if plain else preload.start()
threads = [t.name for t in threading.enumerate()]
preload.wait()
def held(task):
    try:
        with open(f"/proc/self/task/{task}/status") as fh:
            mask = int(next(line for line in fh if line.startswith("SigBlk:")).split()[1], 16)
    except (FileNotFoundError, ProcessLookupError):
        return None                  # the thread ended meanwhile: no signal can reach it
    return all(mask >> (sig - 1) & 1 for sig in STOP_SIGNALS)
# the threads the drivers started meanwhile (and still run), and whether each keeps the stop signals held
driver_threads = [h for h in map(held, sorted(set(os.listdir("/proc/self/task")) - tasks)) if h is not None]
def mapped():
    with open("/proc/self/maps") as fh:
        return sorted({line.split()[-1] for line in fh if "/" in line})
before, imported = mapped(), "pyopencl" in sys.modules
found = None
if not limit:
    from inpaint.cl import runtime
    try:
        found = [(d.platform.name, d.name) for _, _, d in runtime.all_devices()]
    except runtime.OpenCLUnavailable:
        found = []
print(json.dumps({"started": started, "threads": threads, "driver_threads": driver_threads, "before": before,
                  "imported": imported,
                  "after": mapped(), "found": found, "again": preload.start()}))
"""


def _probe(limit: int = 0, plain: bool = False, **env: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(limit), "plain" if plain else "preload"],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO), **env))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _loaders(paths: list[str]) -> list[str]:
    return [p for p in paths if os.path.basename(p).startswith("libOpenCL")]


@pytest.mark.opencl
def test_the_drivers_threads_started_ahead_keep_the_stop_signals_held():
    """As where the runtime starts the drivers (``signals_held``): a stop signal that came to a
    driver's thread would interrupt its compiler, and PoCL aborts the process."""
    got = _probe()
    assert got["started"] and got["driver_threads"], got["driver_threads"]  # (PoCL starts its workers)
    assert all(got["driver_threads"]), got["driver_threads"]


@pytest.mark.opencl
def test_the_drivers_load_through_pyopencls_own_loader_before_it_is_imported():
    found = _probe()
    assert found["started"] and "inpaint-opencl-load" in found["threads"]
    assert not found["again"]  # once a process
    # the drivers were loaded by the thread, before pyopencl was imported ...
    assert not found["imported"]
    assert any("pocl" in os.path.basename(p).lower() or "nvidia" in p for p in found["before"]), found["before"]
    # ... through the one loader pyopencl then uses: no second loader appears
    assert len(_loaders(found["before"])) == 1
    assert _loaders(found["after"]) == _loaders(found["before"])
    assert found["found"]


@pytest.mark.parametrize("registered", [True, False])
def test_the_devices_found_are_those_pyopencl_finds_alone(tmp_path, registered):
    """Every driver pyopencl's own import finds, and no other: those its wheel carries and names
    by their file's name alone, and none where none is registered (an empty vendors folder)."""
    env = {} if registered else {"OCL_ICD_VENDORS": str(tmp_path)}
    assert _probe(**env)["found"] == _probe(plain=True, **env)["found"]


@pytest.mark.parametrize("limit", [600 << 20, 64 << 30])
def test_no_driver_loads_ahead_under_an_address_space_limit(limit):
    """Too small for the drivers, or large: the thread's stack would count against a first
    compile's room, so the drivers load when first used."""
    found = _probe(limit)
    assert not found["started"] and "inpaint-opencl-load" not in found["threads"]
    assert not _loaders(found["after"])


@pytest.mark.parametrize(("argv", "none"), [
    (["p.png", "--mask", "m.png"], False),
    (["p.png", "--backend", "opencl"], False),
    (["p.png", "--backend", "numpy"], True),
    (["p.png", "--backend=numpy"], True),
    (["p.png", "--backend=numpy", "--backend", "auto"], False),  # the last one counts
    (["--help"], True),
    (["p.png", "-h"], True),
    (["--version"], True),
    (["p.png", "--backend"], False),  # argparse says what is missing
])
def test_a_command_that_runs_without_opencl_loads_no_driver(argv, none, monkeypatch):
    monkeypatch.delenv("INPAINT_BACKEND", raising=False)
    assert _asks_for_no_device(argv) is none
    monkeypatch.setenv("INPAINT_BACKEND", "numpy")
    assert _asks_for_no_device(["p.png"])
    assert not _asks_for_no_device(["p.png", "--backend", "opencl"])


def test_a_command_with_bad_input_still_ends_at_once_with_its_line(tmp_path):
    """The drivers may still be loading when a bad input ends the run: the process waits for them
    (a driver half loaded is not taken apart) and ends with the error's status and line."""
    Image.new("RGB", (20, 16)).save(tmp_path / "p.png")
    save_mask(tmp_path / "m.png", box_mask(8, 8, slice(2, 5), slice(2, 5)))  # the wrong size
    proc = subprocess.run([sys.executable, "-m", "inpaint", "p.png", "--mask", "m.png", "-o", "o.png"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("inpaint: error: "), proc.stderr
    assert not (tmp_path / "o.png").exists()

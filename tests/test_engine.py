"""The engine (backend, device, profile) is resolved once at the edge and passed down."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from inpaint.cl import engine as engine_mod, profiles, runtime as rtmod
from inpaint.cl.engine import Engine, resolve
from inpaint.cli import remove, resize


@pytest.fixture
def pictures(tmp_path):
    rng = np.random.default_rng(7)
    img = rng.integers(0, 255, (30, 37, 3), dtype=np.uint8)
    mask = np.zeros((30, 37), np.uint8)
    mask[11:16, 14:20] = 255
    Image.fromarray(img).save(tmp_path / "i.png")
    Image.fromarray(mask).save(tmp_path / "m.png")
    return tmp_path


@pytest.fixture
def profile_loads(monkeypatch):
    """Every load of a profile from its name (a loaded Profile passed on is not a load)."""
    loads = []
    real = profiles.load_profile

    def counting(spec):
        if not isinstance(spec, profiles.Profile):
            loads.append(spec)
        return real(spec)

    for module in (profiles, engine_mod, rtmod):
        monkeypatch.setattr(module, "load_profile", counting)
    return loads


def test_a_numpy_fill_loads_the_profile_once(pictures, profile_loads):
    remove.main([str(pictures / "i.png"), "--mask", str(pictures / "m.png"), "-o", str(pictures / "o.png"),
                 "--backend", "numpy", "--profile", "adreno330", "-q", "-p", "3"])  # (3: a fill of two levels)
    assert profile_loads == ["adreno330"]


def test_the_job_runs_on_the_engine_it_is_given():
    from inpaint.api import start

    img = np.random.default_rng(1).integers(0, 255, (20, 20, 3), dtype=np.uint8)
    mask = np.zeros((20, 20), bool)
    mask[8:12, 8:12] = True
    for method in ("multiscale", "criminisi"):
        # the engine stands for the strings: its numpy wins over backend='opencl'
        job = start(img, mask, method=method, patch=3, backend="opencl", engine=Engine("numpy"))
        job.run()
        assert job.stats.backend == "numpy"


def test_resolve_keeps_the_named_device_it_found(runtime):
    eng = resolve("opencl", f"{runtime.device.name.strip()}", None, check=True)
    assert eng.device == runtime.device and eng.profile.name == "native"
    assert resolve("auto", None, "adreno330", check=True).device is None  # the choice stays open
    with pytest.raises(rtmod.OpenCLUnavailable):
        resolve("opencl", "no such device anywhere", None, check=True)


@pytest.mark.opencl
def test_an_opencl_fill_loads_the_profile_and_finds_the_device_once(pictures, profile_loads, monkeypatch):
    looked_up = []
    real = rtmod.all_devices
    monkeypatch.setattr(rtmod, "all_devices", lambda: looked_up.append(1) or real())
    monkeypatch.setattr(rtmod, "_RUNTIMES", {})  # no runtime of an earlier test in this thread
    remove.main([str(pictures / "i.png"), "--mask", str(pictures / "m.png"), "-o", str(pictures / "o.png"),
                 "--backend", "opencl", "--device", "cpu", "--profile", "cpu_only", "-q"])
    assert profile_loads == ["cpu_only"]
    assert len(looked_up) == 1


@pytest.mark.opencl
def test_resize_hands_the_carver_the_runtime_it_opened(pictures, monkeypatch, capsys):
    opened = []
    real = rtmod.get_runtime
    monkeypatch.setattr(rtmod, "get_runtime", lambda *a, **k: opened.append(a) or real(*a, **k))
    resize.main([str(pictures / "i.png"), "--width", "30", "-o", str(pictures / "o.png"), "--backend", "opencl",
                 "--stats", "-q"])
    assert len(opened) == 1  # the command opened it to time it; the carver ran on that one
    assert "OpenCL program build" in capsys.readouterr().out

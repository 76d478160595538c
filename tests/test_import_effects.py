"""Importing the library changes nothing in the process; the front ends prepare the kernel caches.

Each case runs in a fresh interpreter with its home and cache folders in an empty temporary
folder, so that what an import would set, write, lock or register shows.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

#: Imports every module of the package after the third-party modules it uses (which register exit
#: hooks of their own: Pillow, logging), and prints what changed.
IMPORT_ALL = textwrap.dedent("""
    import atexit, importlib, json, logging, os, pkgutil, sys, threading
    import numpy, PIL.Image

    def fds():
        return sorted(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else []

    env, hooks, files, threads = dict(os.environ), atexit._ncallbacks(), fds(), threading.active_count()
    import inpaint
    names = ["inpaint"] + [m.name for m in pkgutil.walk_packages(inpaint.__path__, "inpaint.")]
    for name in names:
        if not name.endswith("__main__"):
            importlib.import_module(name)
    home = [os.path.join(d, f) for d, _, fs in os.walk(os.environ["HOME"]) for f in fs + _]
    print(json.dumps({"modules": len(names), "env": {k: v for k, v in os.environ.items() if env.get(k) != v},
                      "gone": sorted(set(env) - set(os.environ)), "hooks": atexit._ncallbacks() - hooks,
                      "files": fds() == files, "threads": threading.active_count() - threads,
                      "pyopencl": "pyopencl" in sys.modules, "home": home}))
""")


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("POCL_CACHE_DIR", "POCL_WORK_GROUP_SPECIALIZATION", "PYOPENCL_NO_CACHE", "PYOPENCL_HOME",
                        "XDG_CACHE_HOME")}
    home.mkdir()
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    return env


def _python(code: str, home: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", code, *args], env=_env(home), cwd=home, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_importing_every_module_changes_nothing(tmp_path):
    got = json.loads(_python(IMPORT_ALL, tmp_path / "home").stdout)
    assert got["modules"] > 50  # the walk found the package's modules
    assert got["env"] == {} and got["gone"] == []
    assert got["hooks"] == 0 and got["files"] and got["threads"] == 0
    assert got["pyopencl"] is False  # pyopencl's own import sets PYOPENCL_HOME and exit hooks
    assert got["home"] == []


PREPARE = textwrap.dedent("""
    import atexit, json, os, sys
    from inpaint.cl import kcache, runtime
    hooks = atexit._ncallbacks()
    if sys.argv[1] == "prepare":
        kcache.prepare()
        once = atexit._ncallbacks()
        kcache.prepare()
        assert atexit._ncallbacks() == once, "prepare() twice did more than once"
    else:
        runtime.opencl_available()  # the runtime's first use prepares the caches itself
    print(json.dumps({"pocl": os.environ.get("POCL_CACHE_DIR"), "hooks": atexit._ncallbacks() - hooks,
                      "pyopencl": "pyopencl" in sys.modules,
                      "specialize": os.environ.get("POCL_WORK_GROUP_SPECIALIZATION")}))
""")


@pytest.mark.skipif(importlib.util.find_spec("pyopencl") is None, reason="the caches are pyopencl's and PoCL's")
@pytest.mark.parametrize("how", ["prepare", "runtime"])
def test_the_caches_are_prepared_by_the_front_end_or_at_the_runtimes_first_use(tmp_path, how):
    home = tmp_path / "home"
    got = json.loads(_python(PREPARE, home, how).stdout)
    assert got["pocl"] == str(home / ".cache" / "inpaint-cl" / "pocl")
    assert got["specialize"] == "0"  # one compiled kernel for every work-group size
    # prepare() itself loads no OpenCL, so nothing is written to the cache to record at exit
    assert got["pyopencl"] is (how == "runtime")
    assert got["hooks"] >= 1 if how == "runtime" else got["hooks"] == 0
    assert (home / ".cache" / "inpaint-cl" / "pocl" / ".lock").exists()


@pytest.mark.skipif(importlib.util.find_spec("pyopencl") is None, reason="the caches are pyopencl's and PoCL's")
def test_the_command_prepares_the_caches_when_it_starts(tmp_path):
    home = tmp_path / "home"
    proc = subprocess.run([sys.executable, "-m", "inpaint", "--version"], env=_env(home), cwd=home,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("inpaint "), proc.stderr
    assert (home / ".cache" / "inpaint-cl" / "pocl" / ".lock").exists()


@pytest.mark.skipif(importlib.util.find_spec("pyopencl") is None, reason="the caches are pyopencl's and PoCL's")
def test_the_users_own_work_group_specialization_stands(tmp_path):
    home = tmp_path / "home"
    env = dict(_env(home), POCL_WORK_GROUP_SPECIALIZATION="1")
    proc = subprocess.run([sys.executable, "-c", PREPARE, "prepare"], env=env, cwd=home, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["specialize"] == "1"


NEW_SIZES = textwrap.dedent("""
    import glob, json, os, sys
    import numpy as np
    from inpaint.cl import kcache
    kcache.prepare()
    from inpaint import api
    from inpaint.methods.multiscale import opencl as mcl
    groups, fitted = [], mcl.Poisson._group
    def group(self, *args):
        groups[-1].append(fitted(self, *args))
        return groups[-1][-1]
    mcl.Poisson._group = group
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (96, 128, 3), dtype=np.uint8)
    compiled = []
    for side in (12, 30):  # two holes whose sweeps take work-groups of other sizes
        mask = np.zeros((96, 128), bool)
        mask[40:40 + side, 50:50 + side] = True
        groups.append([])
        api.inpaint(img, mask, device=sys.argv[1])
        compiled.append(len(glob.glob(os.path.join(kcache.pocl_cache_dir(), "**", "*.so"), recursive=True)))
    print(json.dumps({"compiled": compiled, "groups": groups}))
""")


@pytest.mark.slow  # compiles the fill's program afresh
@pytest.mark.opencl
def test_a_hole_of_a_new_size_needs_no_compile_on_pocl(tmp_path):
    """The correction's work-group is fitted to the hole on a CPU; PoCL compiles one kernel for
    every group size, so a second hole whose groups differ compiles nothing."""
    got = json.loads(_python(NEW_SIZES, tmp_path / "home", "portable").stdout)
    first, second = (set(g) for g in got["groups"])
    assert second - first, "the two holes should take work-groups of other sizes"
    assert got["compiled"][0] > 0 and got["compiled"][1] == got["compiled"][0]

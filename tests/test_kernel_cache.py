"""Damaged, full or shared kernel caches: the command recovers with the same result, or says why.

The end-to-end cases damage real cache files the way a crash, a full disk or a stray write does,
then run the command in a fresh process: PoCL would otherwise abort the process or report a
missing kernel (see :mod:`inpaint.cl.kcache`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, first_by_default, save_mask
from PIL import Image

from inpaint.cl import kcache

REPO = Path(__file__).resolve().parent.parent
pytest.importorskip("pyopencl")


def _env(cache: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("POCL_CACHE_DIR", "PYOPENCL_NO_CACHE")}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
               **extra)
    return env


def _fill(work: Path, cache: Path, **extra: str) -> tuple[subprocess.CompletedProcess, bytes]:
    out = work / "out.png"
    proc = subprocess.run([sys.executable, "-m", "inpaint", "photo.png", "--mask", "mask.png", "-o", str(out), "-y",
                           "--backend", "opencl"], cwd=work, env=_env(cache, **extra), capture_output=True,
                          text=True, timeout=300)
    return proc, (out.read_bytes() if out.exists() else b"")


def _programs(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/*/program.bc"))


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A photo, a cache filled by one clean run, and that run's output."""
    work = tmp_path_factory.mktemp("kcache")
    rgb = np.random.default_rng(3).integers(0, 256, (40, 56, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(work / "photo.png")
    save_mask(work / "mask.png", box_mask(40, 56, slice(12, 26), slice(18, 36)))
    cache = work / "cache"
    proc, out = _fill(work, cache)
    assert proc.returncode == 0, proc.stderr
    root = cache / "inpaint-cl" / "pocl"
    if not _programs(root):
        pytest.skip("the OpenCL device is not PoCL: no PoCL kernel cache to damage")
    return work, cache, out


def _copy(warm, tmp_path) -> tuple[Path, Path]:
    work, cache, _ = warm
    mine = tmp_path / "cache"
    shutil.copytree(cache, mine, copy_function=shutil.copy2)  # keeps the ledger's modification times
    for name in ("photo.png", "mask.png"):
        shutil.copy2(work / name, tmp_path / name)
    return mine, mine / "inpaint-cl" / "pocl"


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _halve(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _garbage(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8).tobytes())


DAMAGE = {
    # what happened: (which files, how) -- each made PoCL abort the process or miss a kernel
    "program.bc emptied": ("*/*/program.bc", _empty),
    "program.bc overwritten": ("*/*/program.bc", _garbage),
    "kernel objects emptied": ("*/*/*/*/*.so", _empty),
    "kernel objects cut in half": ("*/*/*/*/*.so", _halve),
    "pyopencl's SQLite cache overwritten": ("../../pytools/*.sqlite", _garbage),
    "pyopencl's SQLite cache cut in half": ("../../pytools/*.sqlite", _halve),
}


@pytest.mark.parametrize("damage", first_by_default(DAMAGE))
@pytest.mark.opencl
def test_a_damaged_cache_is_rebuilt_and_gives_the_same_result(warm, tmp_path, damage):
    cache, root = _copy(warm, tmp_path)
    pattern, how = DAMAGE[damage]
    files = sorted(root.glob(pattern))
    assert files
    for path in files:
        how(path)
    proc, out = _fill(tmp_path, cache)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr
    assert out == warm[2]
    if ".so" in pattern or ".bc" in pattern:  # compiled again, and whole
        assert all(p.stat().st_size > 0 for p in root.glob(pattern))


@pytest.mark.opencl
def test_a_program_left_by_a_run_that_did_not_finish_is_compiled_again(warm, tmp_path):
    cache, root = _copy(warm, tmp_path)
    (root / "ledger.json").unlink()  # the run that wrote these files never recorded them
    for path in root.glob("*/*/*/*/*.so"):
        _halve(path)
    (root / "tempfile_left").write_bytes(b"x")
    proc, out = _fill(tmp_path, cache)
    assert proc.returncode == 0 and out == warm[2], proc.stderr
    assert not (root / "tempfile_left").exists()


@pytest.mark.opencl
def test_a_damaged_program_in_the_users_own_pocl_folder_is_rebuilt_in_the_process(warm, tmp_path):
    cache, root = _copy(warm, tmp_path)
    own = tmp_path / "own"
    shutil.copytree(root, own, copy_function=shutil.copy2)
    for path in own.glob("*/*/program.bc"):
        _empty(path)  # PoCL loads it and finds no kernels in it
    proc, out = _fill(tmp_path, cache, POCL_CACHE_DIR=str(own))
    assert proc.returncode == 0, proc.stderr
    assert "rebuilt without it" in proc.stderr and "INVALID_KERNEL_NAME" in proc.stderr
    assert out == warm[2]
    assert (root / "ledger.json").read_text() == (warm[1] / "inpaint-cl" / "pocl" / "ledger.json").read_text()


def _tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def test_the_ledger_keeps_recorded_programs_and_drops_changed_or_unknown_ones(tmp_path, monkeypatch):
    root = tmp_path / "pocl"
    _tree(root, {"AA/KEPT/program.bc": b"bc", "AA/KEPT/k/64-1-1/k.so": b"so", "AA/KEPT/last_accessed": b"",
                 "BB/CHANGED/program.bc": b"bc", "BB/CHANGED/k/64-1-1/k.so": b"so"})
    monkeypatch.setitem(kcache._state, "root", str(root))
    monkeypatch.setitem(kcache._state, "distrusted", False)
    kcache._seal()
    (root / "AA/KEPT/last_accessed").write_bytes(b"touched")  # PoCL rewrites it on every use
    (root / "BB/CHANGED/k/64-1-1/k.so").write_bytes(b"s")
    _tree(root, {"CC/UNKNOWN/program.bc": b"bc", "CC/UNKNOWN/tempfile_x": b""})

    assert kcache.check_pocl_cache(str(root), alone=False) == [os.path.join("BB", "CHANGED")]
    # another run may be writing or loading them
    assert (root / "CC/UNKNOWN/tempfile_x").exists() and (root / "BB/CHANGED/program.bc").exists()
    assert kcache.check_pocl_cache(str(root), alone=True) == [os.path.join("BB", "CHANGED"),
                                                              os.path.join("CC", "UNKNOWN")]
    assert sorted(p.name for p in root.glob("*/*")) == ["KEPT"]

    kcache.distrust()  # a cached program proved unusable: the next run starts empty
    kcache._seal()
    assert kcache.check_pocl_cache(str(root), alone=True) == [os.path.join("AA", "KEPT")]


def test_a_file_changed_behind_a_running_process_is_not_sealed_as_good(tmp_path, monkeypatch):
    """A cached file damaged while a run is active (another process noticed it and compiled
    apart) stays out of the ledger that run writes when it exits: the next run that has the cache
    to itself removes the program and compiles it again, instead of loading the damaged file."""
    root = tmp_path / "pocl"
    _tree(root, {"AA/GOOD/program.bc": b"bc", "AA/GOOD/k/64-1-1/k.so": b"so" * 50,
                 "BB/HURT/program.bc": b"bc", "BB/HURT/k/64-1-1/k.so": b"so" * 50})
    monkeypatch.setitem(kcache._state, "root", str(root))
    monkeypatch.setitem(kcache._state, "distrusted", False)
    kcache._seal()  # the ledger the runs started with
    (root / "BB/HURT/k/64-1-1/k.so").write_bytes(b"s")  # truncated behind the running process
    _tree(root, {"CC/NEW/program.bc": b"bc"})  # what the process compiled
    kcache._seal()  # the process exits
    assert kcache.check_pocl_cache(str(root), alone=True) == [os.path.join("BB", "HURT")]
    assert sorted(p.name for p in root.glob("*/*")) == ["GOOD", "NEW"]


def _holder(lock: Path) -> subprocess.Popen:
    """Another process that holds the cache's shared lock until its input ends."""
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | "
                               "os.O_CREAT); fcntl.flock(fd, fcntl.LOCK_SH); print('held', flush=True); "
                               "sys.stdin.read()", str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_another_running_process_keeps_the_cache_shared(tmp_path):
    pytest.importorskip("fcntl")
    root = tmp_path / "pocl"
    root.mkdir()
    holder = _holder(root / ".lock")
    try:
        assert kcache._lock(str(root)) is False
    finally:
        holder.communicate("", timeout=30)
        os.close(kcache._state.pop("lock"))
        kcache._state["lock"] = None
    assert kcache._lock(str(root)) is True
    os.close(kcache._state["lock"])
    kcache._state["lock"] = None


def _try_shared(lock: Path) -> bool:
    """Whether another process could start using the cache now (take the shared lock at once)."""
    code = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
            "try: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)\nexcept OSError: sys.exit(1)")
    return subprocess.run([sys.executable, "-c", code, str(lock)], timeout=30).returncode == 0


def test_no_other_process_uses_the_cache_while_the_alone_one_checks_it(tmp_path):
    pytest.importorskip("fcntl")
    root = tmp_path / "pocl"
    root.mkdir()
    try:
        assert kcache._lock(str(root)) is True
        assert not _try_shared(root / ".lock")  # it would compile into folders the check removes
        kcache._share()
        assert _try_shared(root / ".lock")
    finally:
        kcache._unlock()


def test_a_changed_program_beside_another_running_process_is_left_to_it(tmp_path, monkeypatch):
    """While another process uses the cache, a program folder that differs from the ledger may be
    that process's fresh work: it stays, and this process compiles in a folder of its own."""
    pytest.importorskip("fcntl")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("POCL_CACHE_DIR", raising=False)
    monkeypatch.setitem(kcache._state, "reason", None)
    monkeypatch.setitem(kcache._state, "root", None)
    cleanups = []
    monkeypatch.setattr(kcache.atexit, "register", lambda *a: cleanups.append(a))
    root = tmp_path / "cache" / "inpaint-cl" / "pocl"
    _tree(root, {"AA/KEPT/program.bc": b"bc", "BB/CHANGED/program.bc": b"bc"})
    monkeypatch.setitem(kcache._state, "root", str(root))
    kcache._seal()
    monkeypatch.setitem(kcache._state, "root", None)
    sealed = (root / "BB/CHANGED/program.bc").stat()
    (root / "BB/CHANGED/program.bc").write_bytes(b"rewritten")
    holder = _holder(root / ".lock")
    try:
        kcache._prepare_pocl()
        assert (root / "BB/CHANGED/program.bc").read_bytes() == b"rewritten"
        assert os.environ["POCL_CACHE_DIR"] != str(root) and kcache._state["root"] is None
        assert kcache._state["lock"] is None and cleanups
        monkeypatch.delenv("POCL_CACHE_DIR")
        (root / "BB/CHANGED/program.bc").write_bytes(b"bc")  # as the ledger has it
        os.utime(root / "BB/CHANGED/program.bc", ns=(sealed.st_atime_ns, sealed.st_mtime_ns))
        kcache._prepare_pocl()  # nothing differs: the shared cache is used
        assert os.environ["POCL_CACHE_DIR"] == str(root) and kcache._state["root"] == str(root)
    finally:
        holder.communicate("", timeout=30)
        kcache._unlock()
        for func, *args in cleanups:
            func(*args)


def test_a_full_disk_compiles_in_a_temporary_folder_or_says_there_is_no_room(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(kcache.tempfile, "tempdir", None)
    monkeypatch.setenv("POCL_CACHE_DIR", "unset below")
    monkeypatch.delenv("POCL_CACHE_DIR")
    monkeypatch.setitem(kcache._state, "reason", None)
    monkeypatch.setitem(kcache._state, "root", None)
    cleanups = []
    monkeypatch.setattr(kcache.atexit, "register", lambda *a: cleanups.append(a))
    full = {str(tmp_path / "cache" / "inpaint-cl" / "pocl")}
    monkeypatch.setattr(kcache, "_free_bytes", lambda path: 0 if path in full else kcache.MIN_FREE_BYTES)

    kcache._prepare_pocl()
    folder = os.environ["POCL_CACHE_DIR"]
    assert Path(folder).parent == tmp_path / "tmp" and Path(folder).is_dir()
    assert kcache.unusable_reason() is None and kcache._state["root"] is None
    cleanups[0][0](*cleanups[0][1:])  # removed at exit
    assert not Path(folder).exists()

    monkeypatch.delenv("POCL_CACHE_DIR")
    full.add(str(tmp_path / "tmp"))
    kcache._prepare_pocl()
    assert "POCL_CACHE_DIR" not in os.environ
    assert kcache.unusable_reason().startswith("no room to compile the OpenCL kernels (0 MB free in")


@pytest.mark.parametrize("whose", ["ours", "POCL_CACHE_DIR"])
def test_a_cache_folder_that_cannot_be_written_compiles_in_a_temporary_one_and_says_so(tmp_path, monkeypatch,
                                                                                        whose):
    # A POCL_CACHE_DIR PoCL cannot write failed every compile, blamed on PoCL's version.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(kcache.tempfile, "tempdir", None)
    monkeypatch.setattr(kcache.atexit, "register", lambda *a: None)
    for key in ("reason", "root", "uncached"):
        monkeypatch.setitem(kcache._state, key, None)
    if whose == "ours":
        monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
        monkeypatch.delenv("POCL_CACHE_DIR", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        monkeypatch.setenv("POCL_CACHE_DIR", str(blocked))
    kcache._prepare_pocl()
    assert Path(os.environ["POCL_CACHE_DIR"]).parent == tmp_path / "tmp"
    why = kcache.uncached_reason()
    assert why == (f"the kernel cache {blocked}/inpaint-cl/pocl cannot be written" if whose == "ours" else
                   f"POCL_CACHE_DIR={blocked} is not a folder that can be written")
    assert kcache.unusable_reason() is None


def test_a_temporary_kernel_cache_is_removed_by_a_stop_and_after_a_kill(tmp_path):
    """The temporary folder a run compiles in (its cache cannot be written) is named and
    registered as the writes' temporary files: the clean-up a stop signal runs removes it, and
    one a killed run left is removed by the next run."""
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = _env(blocked, TMPDIR=str(tmp))
    env.pop("POCL_CACHE_DIR", None)
    code = ("import os, sys; from inpaint.cl import kcache; from inpaint.io import atomic; kcache._prepare_pocl(); "
            "print(os.environ['POCL_CACHE_DIR']); sys.stdout.flush(); "
            "atomic.cleanup_temp_files() if sys.argv[1] == 'stop' else None; os._exit(0)")
    for how in ("stop", "kill"):
        proc = subprocess.run([sys.executable, "-c", code, how], env=env, capture_output=True, text=True, timeout=120)
        folder = Path(proc.stdout.strip())
        assert folder.parent == tmp and ".pocl-cache~inpaint." in folder.name, proc.stderr
        assert folder.exists() == (how == "kill")
    os.utime(folder, (1, 1))  # (a killed run's folder is left alone for a while: its process may be ending)
    proc = subprocess.run([sys.executable, "-c", code, "stop"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert list(tmp.iterdir()) == []


def test_the_cache_keeps_under_its_limit_by_removing_the_programs_used_longest_ago(tmp_path, monkeypatch):
    """Past :data:`~inpaint.cl.kcache.CACHE_LIMIT` a run that has the cache to itself removes the
    program folders PoCL used longest ago (their ``last_accessed``), and only as many as needed."""
    import json

    root = tmp_path / "pocl"
    for i, age in enumerate([50, 10, 40, 20, 30]):  # folder i last used ``age`` hours ago
        folder = root / f"0{i}" / f"hash{i}"
        folder.mkdir(parents=True)
        (folder / "program.bc").write_bytes(b"x" * 1000)
        (folder / "last_accessed").write_text("")
        os.utime(folder / "last_accessed", (1e9 - age * 3600, 1e9 - age * 3600))
    (root / "ledger.json").write_text(json.dumps({"files": kcache._scan(str(root))}))
    monkeypatch.setattr(kcache, "CACHE_LIMIT", 3000)
    assert kcache.check_pocl_cache(str(root), alone=False) == []
    assert len(_programs(root)) == 5  # beside other processes nothing is removed
    assert kcache.check_pocl_cache(str(root), alone=True) == []
    assert [p.name for p in _programs(root)] == ["hash1", "hash3", "hash4"]  # the 3 used last
    monkeypatch.setattr(kcache, "CACHE_LIMIT", 10_000)
    kcache.check_pocl_cache(str(root), alone=True)
    assert len(_programs(root)) == 3


def test_only_the_cache_check_imports_pyopencl_when_a_module_loads():
    """PoCL reads its cache folder when it starts, so no module loads pyopencl on import:
    :func:`inpaint.cl.kcache.load_pyopencl` checks the caches first, for the runtime, and
    functions import it later, once a runtime exists."""
    import ast

    found = []
    for folder in (REPO / "inpaint", REPO / "mobile_ui"):
        for path in folder.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in list(ast.walk(tree)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    node.body = []  # deferred imports are fine
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] == "pyopencl" for n in names):
                    found.append(str(path.relative_to(REPO)))
    assert found == []


# (the smallest address space in the slow selection: the library's own test below runs under one
# that small by default)
LIMITS = [
    ("RLIMIT_FSIZE", 1000 << 10, "file-size limit (ulimit -f: 1000 KB)"),    # LLVM ended the process (exit 1)
    ("RLIMIT_AS", 700 << 20, "address-space limit (ulimit -v: 700 MB)"),    # PoCL hung compiling, or aborted
    ("RLIMIT_AS", 500_000 << 10, "address-space limit (ulimit -v: 488 MB)"),  # PoCL aborted starting its threads
]


@pytest.mark.opencl
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX limits")
@pytest.mark.parametrize("limit, size, words", LIMITS[:2] + [pytest.param(*LIMITS[2], marks=pytest.mark.slow)])
def test_a_small_process_limit_falls_back_or_says_so(tmp_path, limit, size, words):
    import resource

    rgb = np.random.default_rng(3).integers(0, 256, (40, 56, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "photo.png")
    save_mask(tmp_path / "mask.png", box_mask(40, 56, slice(12, 26), slice(18, 36)))

    def limited(backend):  # (the limits are checked before any build: the Criminisi method's quick fill will do)
        return subprocess.run([sys.executable, "-m", "inpaint", "photo.png", "--mask", "mask.png", "-o",
                               f"{backend}.png", "--backend", backend, "--method", "criminisi"], cwd=tmp_path,
                              env=_env(tmp_path / "cache"),
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=lambda: resource.setrlimit(getattr(resource, limit), (size, size)))

    auto = limited("auto")
    assert auto.returncode == 0, auto.stderr
    warning, done = auto.stderr.splitlines()  # one warning, then the result line; nothing from a driver
    assert words in warning and "numpy" in warning, auto.stderr
    assert done.startswith("inpaint: removed ") and (tmp_path / "auto.png").is_file(), auto.stderr
    strict = limited("opencl")
    assert strict.returncode == 3 and len(strict.stderr.strip().splitlines()) == 1, strict.stderr
    assert words in strict.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX limits")
def test_under_a_small_address_space_limit_the_library_never_loads_opencl(tmp_path):
    # PoCL starts its threads when the platforms are listed, and aborts the process doing so under
    # a small limit: the library must not get that far, whichever backend is asked for.
    script = """
import resource, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, (500 << 20, 500 << 20))
import numpy as np
from inpaint.api import inpaint
from inpaint.errors import OpenCLUnavailable
img = np.random.default_rng(1).integers(0, 256, (20, 24, 3), dtype=np.uint8)
mask = np.zeros((20, 24), bool)
mask[8:12, 9:14] = True
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    inpaint(img, mask, method="criminisi", backend="auto")
print("auto:", *(str(w.message) for w in caught), sep=" ")
try:
    inpaint(img, mask, method="criminisi", backend="opencl")
except OpenCLUnavailable as exc:
    print("opencl:", exc)
print("loaded:", "pyopencl" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=_env(tmp_path / "cache"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    auto, strict, loaded = proc.stdout.splitlines()
    assert auto.startswith("auto: OpenCL unavailable, using the numpy backend: the address-space limit (ulimit -v: "
                           "500 MB)"), proc.stdout
    assert strict.startswith("opencl: the address-space limit (ulimit -v: 500 MB) is too small"), proc.stdout
    assert loaded == "loaded: False"


@pytest.mark.opencl
@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="mounts a small tmpfs (root on Linux)")
def test_pyopencls_cache_on_a_full_disk_is_left_alone(warm, tmp_path):
    # pyopencl's SQLite caches on a full disk: "database or disk is full", exit 1.
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(tiny)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (tiny / "filler").write_bytes(b"\0" * 270_000)
        # PoCL's programs from the clean run (no compile to wait for); pyopencl's own cache, which
        # it writes after each build, on the full disk.
        cache, _ = _copy(warm, tmp_path)
        shutil.rmtree(cache / "pytools")
        (cache / "pytools").symlink_to(tiny)
        proc, out = _fill(tmp_path, cache)
        assert proc.returncode == 0, proc.stderr
        assert out == warm[2] and "internal error" not in proc.stderr
    finally:
        subprocess.run(["umount", str(tiny)], capture_output=True)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_the_ledger_scan_lists_the_program_folders_files_as_a_plain_walk_does(tmp_path):
    root = tmp_path / "pocl"
    program = root / "AB" / "CDEF"
    (program / "kernel" / "16-1-1").mkdir(parents=True)
    (program / "program.bc").write_bytes(b"x" * 7)
    (program / "kernel" / "16-1-1" / "kernel.so").write_bytes(b"y" * 11)
    (program / "last_accessed").write_text("1")
    (program / "tempfile_x").write_text("half")
    (root / "ledger.json").write_text("{}")
    (root / "AB" / "stray").write_text("in an XX folder itself")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.so").write_text("not the cache's")
    (program / "linked").symlink_to(outside, target_is_directory=True)
    (program / "link.so").symlink_to(program / "program.bc")
    (program / "broken.so").symlink_to(program / "gone")

    expected = {}
    for dirpath, _dirs, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == "." or os.sep not in rel:
            continue
        for name in files:
            path = os.path.join(dirpath, name)
            if name == "last_accessed" or name.startswith("tempfile") or not os.path.exists(path):
                continue
            st = os.stat(path)
            expected[os.path.join(rel, name)] = [st.st_size, st.st_mtime_ns]
    found = kcache._scan(str(root))
    assert found == expected
    assert sorted(found) == sorted(os.path.join("AB", "CDEF", *p) for p in
                                   (("program.bc",), ("kernel", "16-1-1", "kernel.so"), ("link.so",)))


def test_a_programs_folder_is_the_one_pocl_used_last_and_shows_its_compiled_kernels(tmp_path, monkeypatch):
    root = tmp_path / "pocl"
    monkeypatch.setenv("POCL_CACHE_DIR", str(root))
    old, new = root / "AB" / "OLD", root / "CD" / "NEW"
    for folder, when in ((old, 1000.0), (new, 2000.0)):
        (folder / "vote" / "0-0-0").mkdir(parents=True)
        (folder / "vote" / "0-0-0" / "vote.so").write_bytes(b"x")
        (folder / "onion" / "0-0-0").mkdir(parents=True)  # a compile under way: no object yet
        (folder / "last_accessed").write_text("")
        os.utime(folder / "last_accessed", (when, when))
    assert kcache.program_folder(1500.0) == str(new)
    assert kcache.program_folder(2000.02) == str(new)  # the file system's clock may lag behind
    assert kcache.program_folder(2500.0) is None
    assert kcache.kernel_compiled(str(new), "vote")
    assert not kcache.kernel_compiled(str(new), "onion") and not kcache.kernel_compiled(str(new), "compose")
    monkeypatch.setenv("POCL_CACHE_DIR", str(tmp_path / "none"))
    assert kcache.program_folder(0.0) is None


@pytest.mark.slow  # compiles kernels the first fill did not launch
@pytest.mark.opencl
def test_a_kernel_compiled_at_its_first_launch_gets_the_compile_note(warm, tmp_path):
    """PoCL compiles a kernel when its first launch runs, seconds after a build that came from the
    cache: a larger hole, whose correction takes other kernels, says it is compiling, once; its
    next run says nothing."""
    mine, _root = _copy(warm, tmp_path)
    rgb = np.random.default_rng(4).integers(0, 256, (200, 220, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "photo.png")
    save_mask(tmp_path / "mask.png", box_mask(200, 220, slice(10, 190), slice(10, 210)))
    note = "compiling the OpenCL kernels this run needs"
    first, _ = _fill(tmp_path, mine)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count(note) == 1 and "the kernels for this device compiled as they first ran" in first.stderr, \
        first.stderr
    again, _ = _fill(tmp_path, mine)
    assert again.returncode == 0 and note not in again.stderr, again.stderr


@pytest.mark.slow  # a compile from nothing
@pytest.mark.opencl
def test_a_run_whose_cache_cannot_be_written_says_it_compiles_again_next_time(tmp_path):
    # It said "first run only; later runs reuse them", and the next run compiled all again.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    rgb = np.random.default_rng(5).integers(0, 256, (40, 48, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "photo.png")
    save_mask(tmp_path / "mask.png", box_mask(40, 48, slice(14, 24), slice(16, 28)))
    proc, out = _fill(tmp_path, blocked)
    assert proc.returncode == 0 and out, proc.stderr
    note, summary = proc.stderr.strip().splitlines()
    assert note == (f"inpaint: compiling the OpenCL kernels this run needs (the kernel cache "
                    f"{blocked}/inpaint-cl/pocl cannot be written: again on every run)...")
    assert re.search(r"the kernels for this device compiled (in [\d.]+ s|as they first ran), not cached\)", summary), \
        summary

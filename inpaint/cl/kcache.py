"""The kernel caches on disk, checked before OpenCL loads.

PoCL keeps each compiled program in a folder (``program.bc`` and one shared object per kernel and
work-group size) and loads those files without checking them: a truncated or overwritten file
makes it report a missing kernel, or abort the whole process where nothing can catch it.  LLVM
also aborts when the disk fills while it writes one.  pyopencl keeps its argument setters in a
SQLite file, and a damaged one fails its import.

So, once per process and before pyopencl is imported, :func:`prepare`:

* has PoCL compile one kernel for every work-group size (``POCL_WORK_GROUP_SPECIALIZATION=0``,
  unless it is set), so that a hole of a new size needs no compile;
* points PoCL at a folder of ours (unless ``POCL_CACHE_DIR`` is set), with a ledger of every
  file's size and modification time, written when a process that loaded OpenCL exits.  A
  program folder whose files differ from the ledger is removed before PoCL can load it; so is one
  the ledger does not know (a process that wrote it did not finish).  PoCL then compiles those
  programs afresh.  The check holds the cache alone: while another process uses the cache, a
  folder may be its work in progress, so nothing is removed, and a process that finds a folder
  differing from the ledger compiles in a temporary folder of its own instead;
* compiles in a fresh temporary folder when the cache's folder (ours, or ``POCL_CACHE_DIR``) cannot
  be written or its disk has too little room (:func:`uncached_reason`), and says that OpenCL
  cannot be used when no folder has room (:func:`unusable_reason`);
* removes a SQLite cache of pyopencl's that fails SQLite's quick check, and turns pyopencl's
  caches off when their folder cannot be written.

Within a process, a program whose kernels are missing although it built is built once more from
a source no cache has seen (:func:`inpaint.cl.build.build`), and :func:`distrust` then makes the
next process start from an empty cache.

Importing this module (or any other of the package) changes nothing: the front ends (the
command, the app, the benchmarks) call :func:`prepare` when they start, and
:func:`load_pyopencl` calls it before the first import of pyopencl, for the library's own callers.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
from typing import Any

from ..limits import address_space_limit

#: Free space the cache's disk needs before a compile may write there (one program bundle
#: takes under 1 MB, LLVM's temporary files a little more).
MIN_FREE_BYTES = 16 << 20

_LEDGER = "ledger.json"
#: The most bytes of compiled programs the cache keeps: past it, a run that has the cache to itself
#: removes those used longest ago (:func:`_keep_under`).
CACHE_LIMIT = 256 << 20
_LOCK = ".lock"
# PoCL rewrites ``last_accessed`` on every use and writes through ``tempfile*`` names it renames.
_VOLATILE = ("last_accessed",)

_state: dict[str, Any] = {"root": None, "lock": None, "distrusted": False, "reason": None, "prepared": False,
                          "pyopencl": None, "uncached": None, "known": None}


def _user_cache_dir(app: str) -> str:
    # The folder pytools and pyopencl use (platformdirs, with XDG_CACHE_HOME on macOS too).
    if sys.platform == "darwin" and os.getenv("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], app)
    try:
        import platformdirs
    except ImportError:  # pyopencl's own dependency, so only in a broken install
        return os.path.join(os.getenv("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), app)
    return platformdirs.user_cache_dir(app, app)


def _free_bytes(path: str) -> int:
    try:
        st = os.statvfs(path)
    except (OSError, AttributeError):  # no statvfs (Windows): assume room
        return MIN_FREE_BYTES
    return st.f_bavail * st.f_frsize


def _scan(root: str) -> dict[str, list[int]]:
    """``{relative path: [size, mtime_ns]}`` of every file in the program folders under
    ``root`` (``XX/HASH/...``), without PoCL's temporary and access-time files.

    Every command runs it when it starts and when it ends, so it walks with :func:`os.scandir`
    and builds each relative path once (``os.walk`` and ``relpath`` took twice as long); as
    ``os.walk`` does, it does not follow links to folders."""
    found: dict[str, list[int]] = {}

    def walk(folder: str, rel: str, depth: int) -> None:
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            return
        for entry in entries:
            name = entry.name
            path = f"{rel}{os.sep}{name}" if rel else name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    walk(entry.path, path, depth + 1)
                continue
            if depth < 2 or name in _VOLATILE or name.startswith("tempfile"):
                continue  # the ledger and lock in the root, and anything in an XX folder itself
            try:
                st = os.stat(entry.path)
            except OSError:
                continue
            found[path] = [st.st_size, st.st_mtime_ns]

    walk(root, "", 0)
    return found


def _entry(rel: str) -> str:
    return os.path.join(*rel.split(os.sep)[:2])


def _read_ledger(root: str) -> dict[str, list[int]]:
    try:
        with open(os.path.join(root, _LEDGER), encoding="utf-8") as f:
            files = json.load(f)["files"]
        return {str(k): [int(v[0]), int(v[1])] for k, v in files.items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return {}


def _lock(root: str) -> bool:
    """Lock ``root`` for this process's life; ``True`` when no other process held it.

    Alone, the lock is exclusive until :func:`_share`, so that the check runs before any other
    process can use the cache; otherwise it is shared, taken once an alone process's check ends."""
    try:
        import fcntl
    except ImportError:  # Windows: assume others may be running
        return False
    try:
        fd = os.open(os.path.join(root, _LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return False
    _state["lock"] = fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        pass
    fcntl.flock(fd, fcntl.LOCK_SH)  # waits out an alone process's check
    return False


def _share() -> None:
    """Let other processes use the cache beside this one (after an alone process's check)."""
    if _state["lock"] is None:
        return
    import fcntl

    # Not atomic: another process may take the lock in between, and this one then waits out
    # that process's check before it compiles anything.
    fcntl.flock(_state["lock"], fcntl.LOCK_SH)


def _unlock() -> None:
    if _state["lock"] is not None:
        os.close(_state["lock"])
        _state["lock"] = None


def check_pocl_cache(root: str, alone: bool) -> list[str]:
    """The program folders under ``root`` that PoCL must not load; removed when ``alone``.

    A folder must not be loaded when a file differs in size or modification time from the
    ledger, or, when ``alone``, when the ledger does not list one of its files.  Only when
    ``alone`` are they removed, and PoCL's temporary files with them: otherwise another process
    may be writing or reading them.  Then too the cache is kept under :data:`CACHE_LIMIT`
    (:func:`_keep_under`).
    """
    ledger = _read_ledger(root)
    bad: set[str] = set()
    files = _scan(root)
    for rel, stat in files.items():
        known = ledger.get(rel)
        if (known is not None and known != stat) or (known is None and alone):
            bad.add(_entry(rel))
    if not alone:
        return sorted(bad)
    for entry in sorted(bad):
        shutil.rmtree(os.path.join(root, entry), ignore_errors=True)
    _keep_under(root, {rel: st for rel, st in files.items() if _entry(rel) not in bad}, CACHE_LIMIT)
    for dirpath, _dirs, files in os.walk(root):  # PoCL's half-written files of runs that did not finish
        for name in files:
            if name.startswith("tempfile"):
                try:
                    os.unlink(os.path.join(dirpath, name))
                except OSError:
                    pass
    return sorted(bad)


def _keep_under(root: str, files: dict[str, list[int]], limit: int) -> list[str]:
    """Remove the program folders PoCL built or loaded longest ago (its ``last_accessed``) until
    those left hold at most ``limit`` bytes of ``files`` (:func:`_scan`'s); returns the removed.
    Every new combination of the fill's options is a program of its own (about a megabyte), so
    without this the cache would only grow."""
    sizes: dict[str, int] = {}
    for rel, (size, _) in files.items():
        sizes[_entry(rel)] = sizes.get(_entry(rel), 0) + size
    total = sum(sizes.values())
    if total <= limit:
        return []

    def used(entry: str) -> float:
        try:
            return os.stat(os.path.join(root, entry, "last_accessed")).st_mtime
        except OSError:
            return 0.0

    removed = []
    for entry in sorted(sizes, key=used):
        if total <= limit:
            break
        shutil.rmtree(os.path.join(root, entry), ignore_errors=True)
        total -= sizes[entry]
        removed.append(entry)
    return removed


def _seal() -> None:
    root = _state["root"]
    if root is None:
        return
    files = {} if _state["distrusted"] else _scan(root)
    ledger = _read_ledger(root)
    if files == ledger and not _state["distrusted"]:
        return
    # A file known when this run started (the ledger then, less what its check removed) that
    # differs now was changed behind the runs (PoCL writes a program's files once): it stays out of
    # the ledger, so that the next run that has the cache to itself removes its program and
    # compiles it again, instead of trusting the change.
    start = _state.get("known")
    known = start[1] if start is not None and start[0] == root else ledger
    files = {rel: st for rel, st in files.items() if known.get(rel, st) == st}
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ledger-", dir=root)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"files": files}, f)
        os.replace(tmp, os.path.join(root, _LEDGER))
    except OSError:  # a read-only or full disk: the next run checks against the old ledger
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def pocl_cache_dir() -> str:
    """The folder PoCL keeps its compiled programs in: ``POCL_CACHE_DIR`` (which :func:`prepare`
    sets), else PoCL's own default under the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``pocl/kcache``)."""
    return os.environ.get("POCL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pocl", "kcache")


def program_folder(since: float) -> str | None:
    """The folder of PoCL's cache (:func:`pocl_cache_dir`) whose program PoCL built or loaded last,
    if that was after ``since`` (``time.time()``, less a little for the file system's coarser
    clock), else None: PoCL rewrites a program folder's ``last_accessed`` on every build or load."""
    newest, found = since - 0.05, None
    try:
        with os.scandir(pocl_cache_dir()) as entries:
            groups = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        for group in groups:
            with os.scandir(group) as entries:
                folders = [e.path for e in entries]
            for folder in folders:
                try:
                    mtime = os.stat(os.path.join(folder, "last_accessed")).st_mtime
                except OSError:
                    continue
                if mtime >= newest:
                    newest, found = mtime, folder
    except OSError:
        return None
    return found


def kernel_compiled(folder: str, name: str) -> bool:
    """Whether PoCL's program folder ``folder`` (:func:`program_folder`) holds kernel ``name``
    compiled, for any work-group size: PoCL compiles a kernel when its first launch runs, not when
    its program builds."""
    try:
        with os.scandir(os.path.join(folder, name)) as variants:
            return any(os.path.isfile(os.path.join(v.path, name + ".so")) for v in variants if v.is_dir())
    except OSError:
        return False


def written_after(since: float) -> float | None:
    """The time (``time.time()``) of the newest file PoCL wrote in its cache folder
    (:func:`pocl_cache_dir`) after ``since``, or None: PoCL writes there when it compiles a
    program, and each kernel when it first runs, and not when it loads them from there, so this
    says whether a build compiled, and when a first run's compiling ended."""
    root = pocl_cache_dir()
    if not os.path.isdir(root):
        return None
    newest = None
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name in _VOLATILE or name.startswith("tempfile") or name == _LEDGER:
                continue
            try:
                mtime = os.stat(os.path.join(dirpath, name)).st_mtime
            except OSError:
                continue
            if mtime > since and (newest is None or mtime > newest):
                newest = mtime
    return newest


def distrust() -> None:
    """Make the next process start from an empty PoCL cache (a cached program proved unusable)."""
    _state["distrusted"] = True


def unusable_reason() -> str | None:
    """Why OpenCL cannot compile kernels in this process (no folder with room), or ``None``."""
    return _state["reason"]


def uncached_reason() -> str | None:
    """Why this process compiles its kernels in a temporary folder, so that the next run compiles
    them again (a cache folder that cannot be written), or ``None``."""
    return _state["uncached"]


def _usable_folder(folder: str) -> bool:
    if not folder.strip():
        return False
    try:  # a file made and removed: os.access says yes to root, whom a read-only mount refuses
        os.makedirs(folder, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".inpaint-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
        return True
    except (OSError, ValueError):
        return False


def _temporary_pocl_cache() -> None:
    base = tempfile.gettempdir()
    if _free_bytes(base) < MIN_FREE_BYTES:
        _state["reason"] = (f"no room to compile the OpenCL kernels ({_free_bytes(base) >> 20} MB free in "
                            f"{base}); free some disk space")
        return
    from ..io.atomic import drop_temp, new_temp_folder

    # named and registered as the writes' temporary folders are: a stopped run removes it, and the
    # next run removes a killed one's
    folder = str(new_temp_folder("pocl-cache"))
    os.environ["POCL_CACHE_DIR"] = folder
    atexit.register(drop_temp, folder)


def _file_size_limit() -> str | None:
    """Why the process's file-size limit (``ulimit -f``) is too small for the compiler, or None.

    PoCL's compiler writes files of a megabyte and more; past the limit LLVM ends the process
    ("IO failure on output stream")."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    except (ImportError, ValueError, OSError):  # not on this system
        return None
    if soft == resource.RLIM_INFINITY or soft >= MIN_FREE_BYTES:
        return None
    return (f"the file-size limit (ulimit -f: {soft >> 10} KB) is too small to compile the OpenCL kernels; "
            f"raise it to {MIN_FREE_BYTES >> 20} MB or more (ulimit -f unlimited)")


#: The address space PoCL needs to compile the kernels: under a smaller ``ulimit -v`` its compiler
#: deadlocks or aborts the process (measured with Debian's PoCL 3.1: a cold compile of the default
#: fill hung at 800 MB and ran at 1000 MB; a warm run aborted starting its threads at 500 MB).
MIN_ADDRESS_SPACE = 1536 << 20


def _address_space_limit() -> str | None:
    """Why the process's address-space limit (``ulimit -v``) is too small for PoCL, or None."""
    soft = address_space_limit()
    if soft is None or soft >= MIN_ADDRESS_SPACE:
        return None
    return (f"the address-space limit (ulimit -v: {soft >> 20} MB) is too small for the OpenCL CPU driver; "
            f"raise it to {MIN_ADDRESS_SPACE >> 20} MB or more")


def load_refusal() -> str | None:
    """Why OpenCL's drivers must not be loaded in this process at all, or None.

    Under a small address-space limit PoCL aborts the process while it starts its threads, which
    the OpenCL loader does for every installed driver when the platforms are first listed; nothing
    can catch that, so the limit is read (as it is now) before pyopencl is imported.  Without
    pyopencl there is nothing to refuse (the caller says it is missing).
    """
    if _state["pyopencl"] is None and not _installed():
        return None
    return _address_space_limit()


def _prepare_pocl() -> None:
    # One compiled kernel a kernel, not one a work-group size: PoCL specializes each kernel for the
    # size of the group it is launched with, and the correction's group is fitted to the hole, so
    # a hole of a new size cost a compile of several seconds, where the kernel for any size is a
    # few percent slower (docs/BENCHMARKS.md).  The user's own setting stands.
    os.environ.setdefault("POCL_WORK_GROUP_SPECIALIZATION", "0")
    reason = _file_size_limit() or _address_space_limit()
    if reason is not None:
        _state["reason"] = reason
        return
    own = os.environ.get("POCL_CACHE_DIR")
    if own:  # the user's folder: theirs to manage, if PoCL can write there
        if not _usable_folder(own):
            _state["uncached"] = f"POCL_CACHE_DIR={own} is not a folder that can be written"
            _temporary_pocl_cache()
        return
    root = os.path.join(_user_cache_dir("inpaint-cl"), "pocl")
    writable = _usable_folder(root)
    if not writable or _free_bytes(root) < MIN_FREE_BYTES:
        _state["uncached"] = (f"the kernel cache {root} cannot be written" if not writable else
                              f"the kernel cache's disk has {_free_bytes(root) >> 20} MB free")
        _temporary_pocl_cache()
        return
    alone = _lock(root)
    try:
        differs = check_pocl_cache(root, alone)
        gone = set(differs)
        _state["known"] = (root, {rel: st for rel, st in _read_ledger(root).items() if _entry(rel) not in gone})
    finally:
        _share()  # whatever happened, never keep the others out
    if differs and not alone:
        _unlock()  # a folder differs while another process uses the cache: compile apart from it
        _temporary_pocl_cache()
        return
    os.environ["POCL_CACHE_DIR"] = root
    _state["root"] = root  # sealed at exit once this process loads OpenCL (load_pyopencl)


def _prepare_pyopencl() -> None:
    if os.environ.get("PYOPENCL_NO_CACHE"):
        return
    import sqlite3  # here: only with pyopencl (python-for-android builds the app without it)

    folder = _user_cache_dir("pytools")
    try:
        os.makedirs(folder, exist_ok=True)
        usable = os.access(folder, os.W_OK)
        names = os.listdir(folder)
    except OSError:
        usable, names = False, []
    for name in names:
        if not (name.startswith("pdict-") and "pyopencl" in name and name.endswith(".sqlite")):
            continue
        path = os.path.join(folder, name)
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                ok = con.execute("PRAGMA quick_check").fetchall() == [("ok",)]
            finally:
                con.close()
        except sqlite3.Error:
            ok = False
        if not ok:
            for suffix in ("", "-journal", "-wal", "-shm"):
                try:
                    os.unlink(path + suffix)
                except FileNotFoundError:
                    pass
                except OSError:
                    usable = False
    if usable and _free_bytes(folder) < MIN_FREE_BYTES:
        usable = False  # its SQLite caches would fail on a full disk ("database or disk is full")
    if not usable:
        os.environ["PYOPENCL_NO_CACHE"] = "1"


def _installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("pyopencl") is not None
    except ImportError:  # the numpy backend runs without it (and the app's APK has no pyopencl)
        return False


def prepare() -> None:
    """Check the kernel caches on disk and point PoCL and pyopencl at them, once per process.

    Sets ``POCL_CACHE_DIR`` and ``POCL_WORK_GROUP_SPECIALIZATION`` (unless the user did), removes
    damaged cache files and holds a shared lock on the PoCL cache while the process runs; once
    :func:`load_pyopencl` has loaded OpenCL, the cache's files are recorded when the process exits
    (see the module's description).

    Call it when a program starts, before anything imports pyopencl (PoCL reads its cache folder
    when it starts); later calls do nothing.  Without pyopencl, or once it is loaded, it does
    nothing either.
    """
    if _state["prepared"]:
        return
    _state["prepared"] = True
    if "pyopencl" in sys.modules or not _installed():
        return
    _prepare_pocl()
    _prepare_pyopencl()


def load_pyopencl() -> Any:
    """:func:`prepare` the kernel caches, then import and return :mod:`pyopencl` (``None`` if missing)."""
    if _state["pyopencl"] is None:
        if not _installed():
            return None
        prepare()
        try:
            import pyopencl
        except ImportError:
            return None
        _state["pyopencl"] = pyopencl
        if _state["root"] is not None:  # PoCL may write to the cache from now on: record it at exit
            atexit.register(_seal)
    return _state["pyopencl"]

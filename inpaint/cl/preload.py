"""OpenCL's drivers loaded on a thread while the command loads its own modules.

Listing the OpenCL platforms the first time makes the OpenCL loader load every installed driver:
about 0.2 s on a machine with an NVIDIA driver and PoCL.  pyopencl does it holding Python's lock,
so nothing else of the command could run meanwhile.  The command, run as a program, lists them
first, on a thread of its own, through the loader pyopencl's compiled module links, called with
:mod:`ctypes`, which lets go of the lock (:func:`start`).  The imports, the argument checks and
the reading of the inputs run beside it.  The loader keeps what it found, so pyopencl's own
listing (after :func:`wait`) is then immediate.

Nothing starts under an address-space limit (``ulimit -v``), where the runtime may refuse to
load the drivers at all (:func:`inpaint.cl.kcache.load_refusal`) and a first compile needs all the
room it can have, nor without pyopencl, nor once pyopencl is imported.
The thread starts after the kernel caches are prepared (PoCL reads its cache folder when it
starts), with the stop signals held, which the drivers' own threads then keep; it says nothing,
and the process does not end while it runs (a driver half loaded is not taken apart).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from pathlib import Path

from ..cancel import STOP_SIGNALS
from ..limits import address_space_limit

_thread: list[threading.Thread] = []


def _extension() -> Path | None:
    """pyopencl's compiled module, found without importing pyopencl; PYOPENCL_HOME set as its import
    sets it (the loader its wheel carries finds that wheel's drivers through it)."""
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("pyopencl")
    if spec is None or spec.origin is None:
        return None
    home = Path(os.path.abspath(spec.origin)).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (home / f"_cl{suffix}").is_file():
            os.environ["PYOPENCL_HOME"] = str(home)
            return home / f"_cl{suffix}"
    return None


def _list_platforms(extension: Path) -> None:
    # The drivers' threads, started from here, keep the stop signals held, as where the runtime
    # starts them (inpaint.cancel.signals_held): a signal that came to one of them would interrupt
    # its compiler (PoCL then aborts: "Final linking of kernel ... failed").
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    # Loaded as pyopencl's import will load it (the same file, so the same copy): the loader comes
    # in as its dependency, and finds a driver named in the wheel by the module's search path.
    try:
        module = ctypes.CDLL(str(extension))
        module.clGetPlatformIDs(0, None, ctypes.byref(ctypes.c_uint(0)))
    except (OSError, AttributeError):  # pyopencl's own import finds and says what is amiss
        pass


def start() -> bool:
    """Start loading the OpenCL drivers on a thread, where that is safe; whether it started.

    Call it once, after :func:`inpaint.cl.kcache.prepare` and before pyopencl is imported.
    """
    # Under an address-space limit the thread's stack (which the C library keeps for reuse) counts
    # against what a first compile may need: there the drivers load as they did, when first used.
    if _thread or "pyopencl" in sys.modules or address_space_limit() is not None:
        return False
    try:
        extension = _extension()
    except (ImportError, OSError, ValueError):
        return False
    if extension is None:
        return False
    thread = threading.Thread(target=_list_platforms, args=(extension,), name="inpaint-opencl-load")
    thread.start()
    _thread.append(thread)
    return True


def wait() -> None:
    """Wait until the drivers started by :func:`start` are loaded (nothing if none were)."""
    if _thread:
        _thread[0].join()

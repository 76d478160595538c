"""The ``inpaint`` command: object removal, plus ``resize``, ``select``, ``bench``, ``devices`` and ``app``.

One module per command (:mod:`~inpaint.cli.remove`, :mod:`~inpaint.cli.resize`,
:mod:`~inpaint.cli.devices`, :mod:`~inpaint.cli.bench`, :mod:`~inpaint.cli.app`), each with
``main(argv, prog)``; :func:`main` dispatches to them and runs each inside the guard
(:func:`inpaint.cli.guard.guarded`: one line and an exit status for every error).  The options
both ``inpaint`` and ``inpaint resize`` take are declared once (:mod:`~inpaint.cli.shared`).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from ..cancel import STOP_SIGNALS, signals_held
from . import phases

# The command's own modules load in main(), with the stop signals held: this module imports only
# what the standard library and the signals need, so that the command holds them a moment after
# Python starts (a Ctrl-C while numpy loads would end with Python's traceback).


def _command(name: str) -> Any:
    """The module of command ``name`` (imported only when it runs).  The stop signals wait while
    it loads: the threads its libraries start (numpy's BLAS) keep them held (see
    :func:`inpaint.cancel.signals_held`)."""
    with signals_held():
        if name == "resize":
            from . import resize as module
        elif name == "bench":
            from . import bench as module
        elif name == "devices":
            from . import devices as module
        elif name == "app":
            from . import app as module
        elif name == "select":
            from . import select as module
        else:
            from . import remove as module
    return module


def _start(name: str, argv: list[str], prog: str, program: bool) -> int:
    """Run command ``name``: the kernel caches are prepared first, before anything loads OpenCL
    (PoCL reads its cache folder when it starts).  A program whose command may use OpenCL loads
    the drivers on a thread of its own meanwhile (:mod:`inpaint.cl.preload`)."""
    from ..cl import kcache
    from . import guard

    kcache.prepare()
    if program and name in ("remove", "resize", "devices") and not _asks_for_no_device(argv):
        from ..cl import preload

        preload.start()
    if name != "app":
        guard.stop_promptly()
    return _command(name).main(argv, prog)


def _asks_for_no_device(argv: Sequence[str]) -> bool:
    """Whether the command line surely runs without OpenCL: help, the version, or numpy's backend."""
    backend = os.environ.get("INPAINT_BACKEND")
    for i, token in enumerate(argv):
        if token in ("-h", "--help", "--version"):
            return True
        if token.startswith("--backend="):
            backend = token.partition("=")[2]
        elif token == "--backend":
            backend = argv[i + 1] if i + 1 < len(argv) else None
    return backend == "numpy"


def bench_main() -> int:
    """Entry point of the ``inpaint-bench`` program (the benchmarks' distribution): ``inpaint
    bench`` under another name, with its one-line errors, exit statuses and Ctrl-C."""
    sys.argv[1:1] = ["bench"]
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``inpaint`` command."""
    program = argv is None  # the command itself: the process ends with this run
    if program and hasattr(signal, "pthread_sigmask"):  # let through once the guard's handlers are in
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    phases.enter()  # --stats times the start-up up to here
    if program:  # a PNG photo decodes while the command's modules load
        from . import early

        early.start(sys.argv[1:])
    from .guard import guarded
    from .shared import COMMANDS

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        prog = f"inpaint {argv[0]}"
        status = guarded(prog, lambda: _start(argv[0], argv[1:], prog, program), program)
    else:
        status = guarded("inpaint", lambda: _start("remove", argv, "inpaint", program), program)
    if program:
        from .guard import end_process

        end_process(status)
    return status

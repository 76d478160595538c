"""The whole command's time, phase by phase, for ``--stats``.

The clock starts at the first import of the command's modules (this module is the first the
command imports), so the interpreter's own start before it (some 20 ms) is left out, and the
table says so.  The process's start time the system keeps would include it, but it is the time
of the fork, not of the exec: a shell that runs ``pip install ... && inpaint ...`` in one
process would book the install as start-up.  Each phase is the wall time
(``time.perf_counter``) around one part of the command; whatever lies between them (option
parsing, checks, planning the output) is booked as "other", so that the rows add up to the wall.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

#: ``perf_counter()`` when the command's modules were first imported (the fallback start).
IMPORTED = time.perf_counter()

#: The phases' names in the tables (both commands use them).
STARTUP = "start-up: the command's imports"
READ = "reading the image and masks"
CONTEXT = "OpenCL set-up: loading pyopencl, finding the devices, context and queue"
BUILD = "OpenCL program build or cache load"
FILL = "the fill (inpaint(): checks, the fill, reading the result back)"
CARVE = "carving (the seam carver)"
WRITE = "writing the output: back to the input's depth, encode, atomic write"
OTHER = ("other: option parsing, checks, planning, and the modules imported for them (the wall minus the "
         "rows above)")

_entered = False


def process_start() -> tuple[float, str]:
    """``(perf_counter value at the start, what the start is)``: the first import of this module."""
    return IMPORTED, "the first import of the command's modules (the interpreter's own start, some 20 ms, not measured)"


def enter() -> None:
    """Note that the command came in through :func:`inpaint.cli.main` (the console script)."""
    global _entered
    _entered = True


def entered() -> bool:
    """Whether :func:`enter` was called since the last call of this (which clears it)."""
    global _entered
    mark, _entered = _entered, False
    return mark


class Phases:
    """The wall time of each phase of one command run, in the order first timed.  Made first
    thing in a command's ``main``: the start-up ends there (its modules are imported by then)."""

    def __init__(self) -> None:
        self.through_cli = entered()
        self.created = time.perf_counter()
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + max(float(seconds), 0.0)

    @contextlib.contextmanager
    def timing(self, name: str) -> Iterator[None]:
        t = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - t)

    def table(self) -> tuple[list[tuple[str, float]], float, str]:
        """``(rows, wall, start)`` up to now: with a start-up row when the run came through
        :func:`inpaint.cli.main`, timed from the process's start; else from this object's making."""
        now = time.perf_counter()
        rows = list(self.seconds.items())
        if not self.through_cli:
            return rows, now - self.created, "the command's own start (called in-process: no start-up row)"
        start, what = process_start()
        return [(STARTUP, self.created - start)] + rows, now - start, what

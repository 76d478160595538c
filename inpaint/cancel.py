"""One cancellation flag for a whole run.

A front end sets it when it is told to stop (a signal, the app's Cancel); every long loop of the
library calls :func:`check` between steps (fill steps, seam-carving passes, enlargement rounds),
so the threads of a ``--jobs`` batch stop within one step, and nothing half-done is written.
"""

from __future__ import annotations

import threading

_FLAG = threading.Event()


class Cancelled(BaseException):
    """Raised by :func:`check` once a stop is requested.  A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` of a job swallows it."""


def request() -> None:
    """Ask every running job to stop at its next step."""
    _FLAG.set()


def requested() -> bool:
    """Whether a stop was requested."""
    return _FLAG.is_set()


def clear() -> None:
    """Forget an earlier request (a front end calls it when a new run starts)."""
    _FLAG.clear()


def check() -> None:
    """Raise :class:`Cancelled` when a stop was requested."""
    if _FLAG.is_set():
        raise Cancelled()

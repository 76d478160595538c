"""Stopping the jobs that run when a stop is asked for.

A front end asks for a stop when it is told to (a signal, Ctrl-C); every long loop of the library
calls :func:`check` between steps (fill steps, seam-carving passes, enlargement rounds), so the
threads of a ``--jobs`` batch stop within one step, and nothing half-done is written.

A request ends the jobs that were running when it came, not the ones started after it: each job
notes the number of requests so far when it starts (:func:`since`) and runs its steps in
:func:`scope`, where :func:`check` raises only for a later request.  A command runs whole in one
scope (so a request ends every job of its run, also one that starts a moment after it), and
:func:`requested` stays true until :func:`clear`, so that a batch starts no further image.
"""

from __future__ import annotations

import contextlib
import contextvars
import signal
import threading
from typing import Iterator

_FLAG = threading.Event()
_LOCK = threading.Lock()
_COUNT = 0
# The number of requests when the job running in this context started (None: no job scope).
_SINCE: contextvars.ContextVar[int | None] = contextvars.ContextVar("inpaint_cancel_since", default=None)


class Cancelled(BaseException):
    """Raised by :func:`check` once a stop is requested.  A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` of a job swallows it."""


def request() -> None:
    """Ask every running job to stop at its next step."""
    global _COUNT
    with _LOCK:
        _COUNT += 1
        _FLAG.set()


def requested() -> bool:
    """Whether a stop was requested since the last :func:`clear`."""
    return _FLAG.is_set()


def clear() -> None:
    """Forget an earlier request (a front end calls it when a new run starts)."""
    _FLAG.clear()


def mark() -> int:
    """The number of requests so far: a job started now is stopped by any later one."""
    with _LOCK:
        return _COUNT


def since() -> int:
    """Where a job started now counts requests from: the enclosing :func:`scope`'s start (a
    command's run), else now (:func:`mark`)."""
    outer = _SINCE.get()
    return mark() if outer is None else outer


@contextlib.contextmanager
def scope(start: int | None = None) -> Iterator[None]:
    """Run a job's steps (or a whole run): :func:`check` inside raises for a request after
    ``start`` (default: :func:`since`)."""
    token = _SINCE.set(since() if start is None else start)
    try:
        yield
    finally:
        _SINCE.reset(token)


def check() -> None:
    """Raise :class:`Cancelled` when a stop was requested after the current job started (outside
    any job's :func:`scope`: when one was requested and not cleared)."""
    if not _FLAG.is_set():
        return
    since = _SINCE.get()
    if since is None or mark() > since:
        raise Cancelled()


#: The signals that ask a command to stop.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold the stop signals in this thread for a moment; they come when it ends.

    For the calls a signal must not interrupt, as the OpenCL driver's start and compiles: PoCL
    compiles with LLVM in the process, and LLVM's own handlers take SIGINT and SIGTERM while it
    compiles and delete the compiler's output, so the build fails with the compiler's line on
    standard error ("1 error generated.") before the run stops.  Python's handler could not have
    run during such a call anyway.  Threads started meanwhile (the driver's, numpy's BLAS) keep the
    signals held, so that one always comes to a thread of ours.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)

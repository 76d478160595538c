"""Stopping the jobs that run when a stop is asked for.

A front end asks for a stop when it is told to (a signal, Ctrl-C); every long loop of the library
calls :func:`check` between steps (fill steps, seam-carving passes, enlargement rounds), so the
threads of a ``--jobs`` batch stop within one step, and nothing half-done is written.

A request ends the jobs that were running when it came, not the ones started after it: each job
holds one :class:`Token`, which notes the number of requests so far when it is made, and runs its
steps in :func:`scope`, where :func:`check` raises only for a later request or once the token
itself is cancelled (:meth:`Token.cancel`: the app's Cancel button).  A command runs whole in one
scope (so a request ends every job of its run, also one that starts a moment after it), and
:func:`requested` stays true until :func:`clear`, so that a batch starts no further image.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import threading
from collections.abc import Callable, Iterator

_FLAG = threading.Event()
_LOCK = threading.Lock()
_COUNT = 0



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


class Token:
    """One job's stop, handed to the job (``api.start(..., token=)``) and checked between its steps.

    It is cancelled by :meth:`cancel`, or by any :func:`request` made after the token was.

    Parameters
    ----------
    since : int, optional
        The number of requests that do not cancel it (default: those so far, :func:`mark`).
    """

    def __init__(self, since: int | None = None):
        self.since = mark() if since is None else int(since)
        self._stop = threading.Event()

    def cancel(self) -> None:
        """Stop the job holding this token at its next check (from any thread)."""
        self._stop.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel`, or a :func:`request` after the token was made, was called."""
        return self._stop.is_set() or (_FLAG.is_set() and mark() > self.since)

    def check(self) -> None:
        """Raise :class:`Cancelled` when :attr:`cancelled`."""
        if self.cancelled:
            raise Cancelled()


# The token of the job (or run) running in this context (None: no scope).
_TOKEN: contextvars.ContextVar[Token | None] = contextvars.ContextVar("inpaint_cancel_token", default=None)


def since() -> int:
    """Where a job started now counts requests from: the enclosing :func:`scope`'s start (a
    command's run), else now (:func:`mark`)."""
    outer = _TOKEN.get()
    return mark() if outer is None else outer.since


def current() -> Token:
    """The token a job started now holds: the enclosing :func:`scope`'s (a command's run, the
    app's job), else a new one."""
    outer = _TOKEN.get()
    return Token() if outer is None else outer


@contextlib.contextmanager
def scope(start: Token | int | None = None) -> Iterator[Token]:
    """Run a job's steps (or a whole run) under a token: :func:`check` inside raises once it is
    cancelled.  ``start``: the token, or the number of requests that do not count (default: the
    enclosing scope's token, else a new one)."""
    tok = start if isinstance(start, Token) else current() if start is None else Token(start)
    reset = _TOKEN.set(tok)
    try:
        yield tok
    finally:
        _TOKEN.reset(reset)


def check() -> None:
    """Raise :class:`Cancelled` when the current job's token is cancelled (outside any job's
    :func:`scope`: when a stop was requested and not cleared)."""
    tok = _TOKEN.get()
    if tok is None:
        if _FLAG.is_set():
            raise Cancelled()
        return
    tok.check()


#: The signals that ask a command to stop.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


#: What a stop signal that comes while the signals are held does at once (see :func:`end_held_with`).
_END_HELD: list[Callable[[int], None]] = []


def end_held_with(end: Callable[[int], None] | None) -> None:
    """Let a front end that owns the process end it at once on a stop signal that comes while the
    main thread holds the signals (a cold compile takes seconds and cannot be interrupted): a
    thread of ours takes the signal meanwhile and calls ``end(signum)``, which must not return
    (it ends the process: :func:`os._exit`).  ``None`` turns this off."""
    _END_HELD[:] = [] if end is None else [end]


def _watch_held(done: threading.Event, end: Callable[[int], None]) -> None:
    """Take the stop signals while the main thread holds them.  The signals are held in this
    thread too (it starts in the held block), as :func:`signal.sigtimedwait` needs; one taken
    just after the block ended goes back to the process, for the handlers it has by then."""
    while True:
        info = signal.sigtimedwait(STOP_SIGNALS, 0.05)
        if info is not None and not done.is_set():
            end(info.si_signo)
        if info is not None:
            os.kill(os.getpid(), info.si_signo)
        if done.is_set():
            return


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold the stop signals in this thread for a moment; they come when it ends.

    For the calls a signal must not interrupt, as the OpenCL driver's start and compiles: PoCL
    compiles with LLVM in the process, and LLVM's own handlers take SIGINT and SIGTERM while it
    compiles and delete the compiler's output, so the build fails with the compiler's line on
    standard error ("1 error generated.") before the run stops.  Python's handler could not have
    run during such a call anyway.  Threads started meanwhile (the driver's, numpy's BLAS) keep the
    signals held, so that one always comes to a thread of ours.  A front end that owns the process
    can still stop at once meanwhile: :func:`end_held_with`.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    done = threading.Event()
    watcher = None
    if (_END_HELD and hasattr(signal, "sigtimedwait") and not set(STOP_SIGNALS) & set(old)
            and threading.current_thread() is threading.main_thread()):
        watcher = threading.Thread(target=_watch_held, args=(done, _END_HELD[0]), daemon=True,
                                   name="inpaint-held-signals")
        watcher.start()
        _WATCHER[:] = [watcher]
    try:
        yield
    finally:
        done.set()
        if watcher is not None:
            _WATCHER.clear()
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: The thread taking the stop signals while the main thread holds them (see :func:`signals_held`).
_WATCHER: list[threading.Thread] = []


def held_here(signum: int) -> bool:
    """Whether the calling thread holds ``signum`` now (inside :func:`signals_held`)."""
    return hasattr(signal, "pthread_sigmask") and signum in signal.pthread_sigmask(signal.SIG_BLOCK, ())


def pass_on(signum: int) -> None:
    """Send a stop signal that Python's handler got in the main thread while that thread holds the
    signals where a held signal goes.  The system gives a process's signal to any thread that lets
    it through (a reading thread started outside a held block), and Python runs the handler in the
    main thread all the same, in the middle of the step it holds them for.  The signal goes to the
    thread that takes them meanwhile (:func:`end_held_with`), else back to the main thread, which
    takes it when its held step is over."""
    watcher = next(iter(_WATCHER), None)
    target = watcher if watcher is not None else threading.main_thread()
    signal.pthread_kill(target.ident, signum)

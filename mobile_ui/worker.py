"""The app's one worker thread, window-free.

OpenCL command queues are not thread-safe, so every pipeline run (and the OpenCL
context the library caches per thread) lives on **one** long-lived thread: the
:class:`Worker`.  The UI thread only submits jobs and receives callbacks; the app wraps
those callbacks with :func:`kivy.clock.mainthread` so they run on the UI thread.

A job is a function ``fn(job)`` run on the worker thread; it polls ``job.cancelled``
(or calls :meth:`Job.check`) between steps and raises :class:`Cancelled` to stop early.  Its
one stop is an :class:`inpaint.cancel.Token` (:attr:`Job.token`), which the library's job
receives too: the library's own checks inside a long step stop it as well.

The library tells of a job that ran on another backend or device than asked (``backend='auto'``
falling back to numpy, or to the next device) with a :class:`inpaint.errors.FallbackWarning`,
not an error.  The worker
records those while the job runs and hands their texts to the UI as :attr:`Job.notes`.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from inpaint import cancel


class Cancelled(Exception):
    """Raised inside a job when the user cancelled it."""


def is_device_note(category: type) -> bool:
    """Whether a warning of ``category`` says that a job ran on numpy or another device than the
    one asked for (:class:`inpaint.errors.FallbackWarning`).

    Parameters
    ----------
    category : type
        The warning's class.

    Returns
    -------
    bool
    """
    from inpaint.errors import FallbackWarning

    return issubclass(category, FallbackWarning)


class Job:
    """A handle on one submitted job."""

    _ids = itertools.count(1)

    def __init__(self, fn: Callable[[Job], Any], on_done: Callable[[Any], None] | None,
                 on_error: Callable[[BaseException], None] | None, on_cancel: Callable[[], None] | None):
        self.id = next(self._ids)
        self.fn = fn
        self.on_done = on_done
        self.on_error = on_error
        self.on_cancel = on_cancel
        #: The job's one stop, handed to the library's job (:func:`inpaint.api.start` takes the
        #: enclosing scope's token).
        self.token = cancel.Token()
        self.finished = threading.Event()
        self.outcome: str | None = None   # "done", "error" or "cancelled" once finished
        #: Texts of the device notes (:func:`is_device_note`) the job raised, each once, in order;
        #: set on the worker thread before any callback is called.
        self.notes: list[str] = []

    @property
    def cancelled(self) -> bool:
        return self.token.cancelled

    def cancel(self) -> None:
        """Ask the job to stop at its next check."""
        self.token.cancel()

    def check(self) -> None:
        """Raise :class:`Cancelled` if the job was cancelled."""
        if self.token.cancelled:
            raise Cancelled()

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)


class Worker:
    """One daemon thread running submitted jobs in order."""

    def __init__(self, name: str = "inpaint-worker"):
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._thread.start()

    @property
    def ident(self) -> int | None:
        """Thread id of the worker (tests check the pipeline ran there)."""
        return self._thread.ident

    @property
    def busy(self) -> bool:
        return not self._idle.is_set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job is queued or running (``False`` on timeout)."""
        return self._idle.wait(timeout)

    def submit(self, fn: Callable[[Job], Any], *, on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None,
               on_cancel: Callable[[], None] | None = None) -> Job:
        job = Job(fn, on_done, on_error, on_cancel)
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(job)
        return job

    def shutdown(self, timeout: float | None = 5.0) -> None:
        """Stop after the current job (queued jobs are cancelled)."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                self._run(job)
            finally:
                job.finished.set()
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.set()

    @staticmethod
    def _call(job: Job) -> Any:
        """``job.fn(job)``, with the device notes it raises recorded in ``job.notes``.

        ``catch_warnings`` swaps module-wide state and is not thread-safe: only this thread uses
        it while the UI thread runs.  Other warnings go on to the usual handler afterwards.
        """
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                # Recorded whatever the filters say ("error" would turn a note into a failed job,
                # "ignore" or "once" would hide it from the UI).
                from inpaint.errors import FallbackWarning

                warnings.filterwarnings("always", category=FallbackWarning)
                with cancel.scope(job.token):  # the library's jobs started in fn take this token
                    return job.fn(job)
        finally:
            for w in caught:
                if is_device_note(w.category):
                    if str(w.message) not in job.notes:
                        job.notes.append(str(w.message))
                else:  # already passed the filters inside: show it as it would have been
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)

    @staticmethod
    def _run(job: Job) -> None:
        try:
            job.check()
            result = Worker._call(job)
            job.check()  # cancelled during the last step: still a cancel for the user
        except (Cancelled, cancel.Cancelled):  # between steps, or inside one (the library's check)
            job.outcome = "cancelled"
            if job.on_cancel:
                job.on_cancel()
        except Exception as exc:  # noqa: BLE001 - reported to the UI as a message, never a crash
            job.outcome = "error"
            if job.on_error:
                job.on_error(exc)
        else:
            job.outcome = "done"
            if job.on_done:
                job.on_done(result)


#: The phases of a removal, in order, as :func:`run_inpaint` reports them: setting the fill up
#: (its pyramids and buffers), building the OpenCL kernels (slow on a device's first run, cached
#: afterwards; after a build that compiled, until the fill's first progress, since a driver such
#: as PoCL compiles each kernel at its first launch too), and the fill's own steps.
PHASES = ("preparing", "compiling", "filling")


def run_inpaint(job: Job, image: np.ndarray, mask: np.ndarray, params: dict,
                on_progress: Callable[[np.ndarray, float, int], None] | None = None,
                interval: float = 0.1, factory: Callable[..., Any] | None = None,
                on_phase: Callable[[str], None] | None = None, share: float = 0.1) -> Any:
    """Run the inpainting pipeline on the calling (worker) thread.

    The fill job (:func:`inpaint.api.start`, the default method) is created and stepped
    here, so the OpenCL queue belongs to this thread.  ``on_progress(image, fraction, iterations)`` is called
    at most every ``interval`` seconds with the partially filled image, and less often when that
    image is slow to make (a large photo's takes tenths of a second, here, while the fill
    waits): the partial images take at most ``share`` of the time.  ``on_phase(name)`` is
    called as each of :data:`PHASES` begins (``'compiling'`` while an OpenCL program is built on
    this thread, then the phase it interrupted again; when the build compiled, as PoCL's cache
    shows, or a kernel's first launch compiles it, ``'filling'`` only comes with the fill's next
    progress).

    Returns
    -------
    tuple
        ``(InpaintResult, wall seconds)``.

    Raises
    ------
    Cancelled
        When ``job`` is cancelled between two steps.
    """
    from inpaint.cl import build as cl_build, kcache  # window-free and without pyopencl

    if factory is None:
        from inpaint.api import start as factory  # deferred import
    tell = on_phase or (lambda _phase: None)
    thread, phase = threading.get_ident(), ["preparing"]
    building, compiled = [0.0], [False]

    def listener(event: str, _sources: Any, _seconds: float) -> None:
        if threading.get_ident() != thread:
            return
        if event == "start":
            building[0] = time.time()
            tell("compiling")
        elif event == "compile":  # a kernel's first launch compiles it, on the driver's thread
            compiled[0] = True
            tell("compiling")
        elif kcache.written_after(building[0]) is not None:
            compiled[0] = True   # the kernels compile at their first launch: still compiling
        else:                    # loaded from the cache
            tell(phase[0])

    def compiling_ended() -> None:
        if compiled[0]:
            compiled[0] = False
            tell(phase[0])

    start = time.perf_counter()
    tell("preparing")
    cl_build.add_build_listener(listener)
    try:
        inp = factory(image, mask, **params)
        phase[0] = "filling"
        if not compiled[0]:
            tell("filling")
        last, wait = time.perf_counter(), interval
        while not inp.done:
            job.check()
            inp.step()
            now = time.perf_counter()
            if on_progress is not None and now - last >= wait and not inp.done:
                compiling_ended()
                pixels = inp.image
                last = time.perf_counter()
                wait = max(interval, (last - now) * (1.0 - share) / share)
                on_progress(pixels, float(inp.progress), int(inp.iterations))
    finally:
        cl_build.remove_build_listener(listener)
    job.check()
    result = inp.result()
    return result, time.perf_counter() - start

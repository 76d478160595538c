"""The guard every front end runs in, and the exit status of every error.

=====  ==================================================================================
exit   meaning
=====  ==================================================================================
0      done (also for an empty mask, which writes an unchanged copy)
1      an internal error (a bug: the message says what failed; no traceback is shown)
2      bad input or environment: options, images, masks, profiles, outputs that cannot be
       written (a full disk, a name too long, a closed standard output), an image too large
       for the memory (the host's or the OpenCL device's), threads that cannot start
3      no usable device: OpenCL missing, ``--device`` matches no device, an OpenCL device that
       fails to build or run the kernels; for the app, no display to open its window on
130    interrupted by Ctrl-C (SIGINT); SIGTERM and SIGHUP give 143 and 129
=====  ==================================================================================

:func:`guarded` turns every error into one line on stderr and that exit status, removes the
temporary files of an unfinished write on SIGINT, SIGTERM and SIGHUP, and never shows a
traceback (set ``INPAINT_DEBUG=1`` to see one).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from .. import cancel
from ..errors import (
    CaseDataError,
    DeviceError,
    ImageTooLarge,
    InputError,
    OpenCLUnavailable,
    OutOfMemory,
    ProfileError,
    ReportLost,
)
from ..limits import address_space_limit
from .progress import clear_bars

EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_NO_DEVICE = 3
EXIT_INTERRUPTED = 130

#: The exit status of each error class (the first that matches); anything else is a bug (1).
EXIT_CODES = ((InputError, EXIT_BAD_INPUT), (MemoryError, EXIT_BAD_INPUT), (ProfileError, EXIT_BAD_INPUT),
              (CaseDataError, EXIT_BAD_INPUT), (DeviceError, EXIT_NO_DEVICE), (OpenCLUnavailable, EXIT_NO_DEVICE))

#: The table above, for the commands' help.
EXIT_TABLE = ("Exit status: 0 done (also for an empty mask, which writes an unchanged copy), 2 bad input or "
              "environment (an existing output without --overwrite, a full disk...), 3 no usable OpenCL device, "
              "130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP).")


def _opencl_error(exc: BaseException) -> bool:
    """Whether ``exc`` is one of pyopencl's errors (recognised without importing pyopencl)."""
    return type(exc).__module__.split(".")[0] == "pyopencl"


def _opencl_out_of_memory(exc: BaseException) -> bool:
    """Whether one of pyopencl's errors says that memory ran out: its MemoryError (a buffer the
    device could not allocate), or the host's memory, which pyopencl reports as a RuntimeError
    with the status OUT_OF_HOST_MEMORY."""
    if type(exc).__name__ == "MemoryError":
        return True
    cl = sys.modules.get("pyopencl")
    codes = getattr(cl, "status_code", None)
    return codes is not None and getattr(exc, "code", None) in (
        getattr(codes, "OUT_OF_HOST_MEMORY", None), getattr(codes, "MEM_OBJECT_ALLOCATION_FAILURE", None))


def thread_error(exc: BaseException) -> bool:
    """Whether ``exc`` says that a thread could not be started (a process or memory limit)."""
    return isinstance(exc, RuntimeError) and "can't start new thread" in str(exc)


def exit_code(exc: BaseException) -> int:
    """The exit status a front end gives for ``exc`` (see the table above)."""
    if isinstance(exc, (KeyboardInterrupt, cancel.Cancelled)):
        return EXIT_INTERRUPTED
    for cls, code in EXIT_CODES:
        if isinstance(exc, cls):
            return code
    if isinstance(exc, OSError) or thread_error(exc):  # the environment: disk, names, limits
        return EXIT_BAD_INPUT
    if _opencl_error(exc):
        return EXIT_BAD_INPUT if _opencl_out_of_memory(exc) else EXIT_NO_DEVICE
    return EXIT_INTERNAL


def error_message(exc: BaseException) -> str:
    """The one line a front end prints for ``exc`` (after ``PROG: error: ``); see :func:`exit_code`."""
    if isinstance(exc, OutOfMemory):  # says which limit and what to try
        return one_line(exc)
    if isinstance(exc, MemoryError):
        limit = address_space_limit()
        if limit is not None:  # the likelier cause, and the one the user can change
            return (f"not enough memory for this job under the address-space limit (ulimit -v: {limit >> 20} MB); "
                    "raise it, or use a smaller image")
        return "not enough memory for this job; use a smaller image"
    if isinstance(exc, ReportLost):
        why = "was closed" if isinstance(exc.cause, BrokenPipeError) else f"failed ({exc.strerror or one_line(exc)})"
        return f"the result is written, but standard output {why}: its report is not"
    if isinstance(exc, BrokenPipeError):
        return "standard output was closed before everything was written"
    if isinstance(exc, OSError) and not isinstance(exc, InputError):
        name = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes)) else ""
        if len(name) > 60:
            name = name[:28] + "..." + name[-28:]
        return f"{exc.strerror or one_line(exc)}{': ' + name if name else ''}"
    if thread_error(exc):
        return "cannot start a thread (a process or memory limit); use fewer --jobs or raise the limit"
    if _opencl_error(exc):
        if _opencl_out_of_memory(exc):
            return ("the OpenCL device ran out of memory for this job; use a smaller image, or "
                    f"--backend numpy ({one_line(exc)})")
        return f"the OpenCL device failed: {one_line(exc)}; try --backend numpy or another --device"
    if isinstance(exc, ImageTooLarge):
        return f"{one_line(exc)}; raise the limit with --max-pixels"
    return one_line(exc)


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP (a BaseException, like KeyboardInterrupt,
    so that no ``except Exception`` swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Process:
    """What the signal handlers need to know about the command that owns the process."""

    prog: str | None = None  # the command's name while it owns the process (``program``), else None
    status: int | None = None  # its exit status once its run is over (the process is on its way out)
    lock = threading.Lock()
    handled = False  # the main thread took a stop signal: it ends the run itself
    ending = False  # the stop deadline ends the process: the main thread must not report too
    signalled = False  # a stop signal has come, which the main thread may not have taken yet


#: Seconds the main thread has to take a stop signal before the run ends without it: a call into
#: the OpenCL driver (PoCL compiles each kernel at its first launch) runs no Python handler
#: until it returns, and a run stops within a second.
STOP_GRACE = 0.5


def stop_promptly() -> None:
    """Make the command that owns the process stop within a second of a stop signal, also while
    its main thread waits inside the OpenCL driver or holds the signals for a compile: a thread
    then ends the run as the handler would (:func:`_end_now`).  Not for the app, whose own
    handlers close its windows and keep its state."""
    prog = _Process.prog
    if prog is None or threading.current_thread() is not threading.main_thread():
        return

    def end(signum: int) -> None:
        with _Process.lock:
            if _Process.handled or _Process.ending:  # (one signal can wake both threads below)
                return
            _Process.ending = True
        cancel.request()
        _end_now(prog, signum)

    cancel.end_held_with(end)  # a signal while the signals are held: at once
    read, write = os.pipe()  # a signal the driver keeps Python's handler from: after the grace
    os.set_blocking(write, False)
    try:
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except (ValueError, OSError):  # pragma: no cover - not the main interpreter
        return

    def watch() -> None:
        while True:
            data = os.read(read, 64)
            _Process.signalled = True  # (the compile's note, due meanwhile, is not shown)
            time.sleep(STOP_GRACE)
            end(data[-1])

    threading.Thread(target=watch, daemon=True, name="inpaint-stop-deadline").start()


def stop_exception(signum: int) -> BaseException:
    """What a stop signal raises in the main thread: Ctrl-C's KeyboardInterrupt, else Terminated."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _stop_line(prog: str, signum: int) -> str:
    """The one line a run stopped by ``signum`` ends with."""
    if signum == signal.SIGINT:
        return f"{prog}: interrupted"
    name = signal.Signals(signum).name if hasattr(signal, "Signals") else str(signum)
    return f"{prog}: stopped by {name}"


def _can_raise(frame: Any) -> bool:
    """Whether an exception raised at ``frame`` reaches the guard.  Not inside an import: there
    it may pass through an extension module's initialisation, which aborts the process (a
    nanobind module) or turns it into an ImportError (numpy).  Not in a ``__del__``, where it
    would be printed and ignored.  And only while the command runs (not before the guard's
    ``try`` or while it reports)."""
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__":
            return False
        if code is _run_command.__code__:
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: Any) -> None:
    """SIGINT, SIGTERM and SIGHUP: ask every job to stop (the threads of a batch check the flag
    between steps), and stop the main thread like Ctrl-C does.  Where an exception cannot be
    raised safely and the command owns the process, the run ends here, the same way.  While the
    main thread holds the signals (a compile, the filter of standard error being put in), one that
    came through another thread is not raised in the middle of that step: it goes where a held
    signal goes (:func:`inpaint.cancel.pass_on`)."""
    if cancel.held_here(signum):
        cancel.pass_on(signum)
        return
    cancel.request()
    prog = _Process.prog
    with _Process.lock:
        if _Process.ending:  # the stop deadline is ending the process (another thread)
            time.sleep(60)
        _Process.handled = True
    if prog is None or _can_raise(frame):
        raise stop_exception(signum)
    _end_now(prog, signum)


def _wait_if_ending() -> None:
    """Where another thread is ending the process for a stop signal (:func:`stop_promptly`), wait
    for it: the jobs it stopped end in this thread too, which must not report the run's end a
    second way (a SIGTERM's batch said it was interrupted, and exited with 130, not 143)."""
    if _Process.ending:
        time.sleep(60)


def _end_now(prog: str, signum: int) -> None:
    """End the process at once for ``signum``: remove the temporary files of an unfinished
    write, say the one line, and exit with the signal's status; once the run is over (its result
    written and reported), exit quietly with the run's own status."""
    # Whatever a step below meets (a module the signal found half imported), the process ends: a
    # thread that died here would leave the main thread waiting for an end that never comes.
    try:
        if threading.current_thread() is threading.main_thread():
            for sig in _STOP_SIGNALS:  # nothing may interrupt the last steps
                signal.signal(sig, signal.SIG_IGN)
        try:
            _remove_temp_files()
        except Exception:  # noqa: BLE001 - the line and the exit still come
            pass
        if _Process.status is None:
            _say_last(_stop_line(prog, signum))
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
    finally:
        if _Process.status is not None:
            os._exit(_Process.status)
        os._exit(EXIT_INTERRUPTED if signum == signal.SIGINT else 128 + signum)


@contextlib.contextmanager
def show_warnings(prog: str) -> Iterator[None]:
    """Print warnings as ``PROG: warning: ...`` lines (library deprecation noise is hidden)."""
    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        text = one_line(message if isinstance(message, BaseException) else Exception(message))
        if "Non-empty compiler output" in text:  # pyopencl's build log: not for users
            return
        clear_bars()
        print(f"{prog}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", UserWarning)
        warnings.simplefilter("always", RuntimeWarning)
        warnings.showwarning = show
        yield


#: Seconds a kernel build may take before the command says that it is compiling.
COMPILE_NOTE_AFTER = 0.5
_COMPILE_NOTED = False


class CompileTime:
    """How long the kernels of a run took to compile, once its :func:`compile_note` is over:
    ``seconds`` is None unless the note was shown (a first run on the device).  ``during``: some
    kernels compiled at their first launch, beside the work (PoCL): then no time of their own is
    known (``seconds`` is the builds' alone)."""

    seconds: float | None = None
    during: bool = False


@contextlib.contextmanager
def compile_note(prog: str, enabled: bool = True, bar: Any = None) -> Iterator[CompileTime]:
    """Say once, while it happens, that a slow OpenCL build is a first-run cost: kernels are
    compiled for the device on first use and cached afterwards.  A kernel that a driver compiles
    at its first launch (PoCL) gets the note when the run lasts :data:`COMPILE_NOTE_AFTER` past
    that launch, as no event ends its compile.  Yields a :class:`CompileTime`
    that says, afterwards, how long compiling took: the program builds, and the kernels a driver
    compiles at their first launch (PoCL), as its cache shows them
    (:func:`inpaint.cl.kcache.written_after`).  The progress display ``bar`` leaves build times
    out of its estimate of the time left."""
    from ..cl import build

    timers: list[threading.Timer] = []
    launches: list[threading.Timer] = []  # (for kernels compiled at their first launch: the run's end cancels it)
    result = CompileTime()
    first = {"wall": None, "builds": 0.0, "noted": False, "built": False, "during": False}

    def show() -> None:
        global _COMPILE_NOTED
        if _COMPILE_NOTED or cancel.requested() or _Process.signalled:  # (a run being stopped says only that)
            return
        _COMPILE_NOTED = True
        first["noted"] = True
        lead = "\n" if bar is not None and getattr(bar, "drawn", False) else ""
        from ..cl.kcache import uncached_reason

        why = uncached_reason()
        when = ("once for each kind of fill; later runs reuse them" if why is None
                else f"{why}: again on every run")
        sys.stderr.write(f"{lead}{prog}: compiling the OpenCL kernels this run needs ({when})...\n")
        sys.stderr.flush()

    def listener(event: str, sources: Any, seconds: float) -> None:
        if event == "start":
            if first["wall"] is None:
                first["wall"] = time.time()
            if not _COMPILE_NOTED:
                timer = threading.Timer(COMPILE_NOTE_AFTER, show)
                timer.daemon = True
                timers.append(timer)
                timer.start()
        elif event in ("end", "failed"):  # (a failed build compiled nothing this run uses)
            while timers:
                timers.pop().cancel()
            if event == "failed":
                return
            first["built"] = True
            first["builds"] += seconds
            if bar is not None and hasattr(bar, "exclude"):
                bar.exclude(seconds)
        elif event == "compile":  # queued, and no event ends it: a note if the run lasts
            if first["wall"] is None:
                first["wall"] = time.time()
            first["built"] = first["during"] = True
            if bar is not None and hasattr(bar, "compiling"):
                from ..cl import kcache

                bar.compiling(kcache.written_after)
            if not _COMPILE_NOTED and not launches:
                timer = threading.Timer(COMPILE_NOTE_AFTER, show)
                timer.daemon = True
                launches.append(timer)
                timer.start()

    if not enabled:
        yield result
        return
    entered = time.time()
    build.add_build_listener(listener)
    try:
        yield result
    finally:
        build.remove_build_listener(listener)
        for timer in timers + launches:
            timer.cancel()
        if first["noted"] and first["built"]:
            # (a kernel compiled at its first launch ends unseen, among the work's launches: the
            # time from the first build to its cache file would count the work between as compiling)
            result.seconds = min(first["builds"], time.time() - entered)
            result.during = first["during"]


_STDOUT_FAILED = threading.local()


def flush_stdout() -> None:
    """Flush standard output, so that a full device or a closed pipe is an error of the run (exit
    2), not a message Python prints at exit."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):  # already closed by the caller
            return
        _STDOUT_FAILED.value = True
        raise


def _is_stdout_error() -> bool:
    """Whether the error being handled came from standard output: its flush failed, or flushing
    it again fails (a print to a full device or a closed pipe raises from inside the print)."""
    failed = getattr(_STDOUT_FAILED, "value", False) or getattr(sys.stdout, "failed", False)
    _STDOUT_FAILED.value = False
    if failed or isinstance(sys.exc_info()[1], BrokenPipeError):
        return True
    exc = sys.exc_info()[1]
    # Files are written through save_images, whose errors name the file; a nameless write error
    # comes from printing to standard output.
    return (isinstance(exc, OSError) and exc.filename is None
            and exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EBADF, errno.EDQUOT))


class _Closed:
    """Standard output closed when the process started (``>&-``): Python gives None, where a
    print would vanish.  Writing is an error of the run, as on a closed pipe."""

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _Watched:
    """A standard stream that remembers a failed write, so that the guard can tell which stream
    failed: an error of standard error (a full device) cannot be reported on it.  ``messages``:
    the stream only says how the work goes (standard error), so a write that fails is dropped and
    the work goes on (a note that cannot be printed must not cost the photo); the run's status
    then says that something could not be said."""

    def __init__(self, stream: Any, messages: bool = False):
        self._stream = stream
        self._messages = messages
        self.failed = False
        self.error: OSError | None = None  # the failed write's error (argparse's help drops it)

    def write(self, text: str) -> int:
        if self.failed and self._messages:
            return len(text)
        try:
            return self._stream.write(text)
        except OSError as exc:
            self.failed, self.error = True, exc
            if self._messages:
                return len(text)
            raise

    def flush(self) -> None:
        if self.failed and self._messages:
            return
        try:
            self._stream.flush()
        except OSError:
            self.failed = True
            if not self._messages:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _watched_streams() -> Iterator[tuple[_Watched, _Watched]]:
    """Standard output and error watched for the run, then put back as they were.  A closed
    standard output is a :class:`_Closed` (what the command prints there is an error of the
    run); messages for a closed standard error (``2>&-``: none wanted) go to the null device."""
    out, err = sys.stdout, sys.stderr
    sink = open(os.devnull, "w", encoding="utf-8") if err is None else None  # closed below
    sys.stdout = _Watched(out if out is not None else _Closed())
    sys.stderr = _Watched(err if err is not None else sink, messages=True)
    try:
        yield sys.stdout, sys.stderr
    finally:
        sys.stdout, sys.stderr = out, err
        if sink is not None:
            sink.close()


def _say_last(text: str) -> None:
    """The run's last line (:func:`_say`); where the process ends with the run, straight to
    standard error: not into the filter that a compile on another thread may have put on it,
    whose thread would not pass it on before the process ends."""
    unfilter = getattr(sys.modules.get("inpaint.cl.build"), "unfilter_stderr", None)
    if unfilter is not None and _Process.prog is not None:
        unfilter()
    _say(text)


def _say(text: str) -> None:
    """One line on standard error, if it can still take it (it may be the stream that failed)."""
    try:
        clear_bars()
        print(text, file=sys.stderr)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush at exit does
    not fail again on the closed pipe or the full device."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured in tests)
        pass


#: The signals that stop a run (SIGINT: status 130, the others 128 + the number).
_STOP_SIGNALS = cancel.STOP_SIGNALS


def _take_signals(prog: str | None) -> dict[int, Any]:
    """Install the stop handler for SIGTERM and SIGHUP, and for SIGINT too when the command
    ``prog`` owns the process (else None: Python's Ctrl-C stays); returns the previous handlers.
    A signal that is ignored (e.g. under nohup) stays ignored.  For the command, the stop signals
    are then unblocked: its entry point blocks them while its modules load."""
    previous: dict[int, Any] = {}
    if prog is not None:
        _Process.prog, _Process.status, _Process.signalled = prog, None, False
    for sig in _STOP_SIGNALS:
        if sig == signal.SIGINT and prog is None:
            continue
        try:
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue
            previous[sig] = signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # pragma: no cover - not the main interpreter
            pass
    if prog is not None and hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    return previous


def _remove_temp_files() -> None:
    """Remove the temporary files of unfinished writes.  Only a run that wrote can have left one,
    so the writer is not imported for it; it may be half imported, when a signal came meanwhile."""
    cleanup = getattr(sys.modules.get("inpaint.io.atomic"), "cleanup_temp_files", None)
    if cleanup is not None:
        cleanup()


def _run_command(fn: Callable[[], int]) -> int:
    """Run the command itself (a signal raises its exception only while this frame is on the stack)."""
    return int(fn() or 0)


def guarded(prog: str, fn: Callable[[], int], program: bool = False) -> int:
    """Run a front end: errors become one line and an exit status, signals clean up.

    Ctrl-C prints one line and gives 130; SIGTERM and SIGHUP give 128 + the signal number.
    Either way the temporary files of an unfinished write are removed, and an existing output
    is left as it was.  ``--help`` and usage errors exit through argparse (0 and 2).
    ``program``: the process ends with this run (the command itself, not a caller in the same
    process).  Then Ctrl-C is handled here too, a signal at any moment ends the process with its
    status and at most one line (where an exception could not be raised safely, as inside an
    import, the handler ends the process itself, after the same clean-up), and once stopped,
    further signals stay ignored until it exits, so that a second Ctrl-C cannot turn status 130
    into a death by the signal.
    """
    main_thread = threading.current_thread() is threading.main_thread()
    previous = _take_signals(prog if program else None) if main_thread else {}

    def hold() -> None:
        """While reporting and cleaning up, a second signal must not interrupt with a traceback."""
        if not main_thread:
            return
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                sig = getattr(signal, name)
                try:
                    old = signal.signal(sig, signal.SIG_IGN)
                except (ValueError, OSError):  # pragma: no cover
                    continue
                previous.setdefault(sig, old)

    def cleanup_temp_files() -> None:
        hold()
        _remove_temp_files()

    cancel.clear()
    try:
        with _watched_streams() as (_, err):
            status = _guarded_run(prog, fn, err, cleanup_temp_files)
    finally:
        if not program:  # the run is over: a stop it was asked for must not stop the caller's next job
            cancel.clear()
            for sig, handler in previous.items():
                try:
                    signal.signal(sig, handler)
                except (ValueError, OSError, TypeError):  # pragma: no cover
                    pass
    if program:  # the process ends with this run, with this status, whatever signal comes now
        _Process.status = status
        _ignore_stop_signals()
    return status


def end_process(status: int) -> NoReturn:
    """End the command's process with ``status`` once its run is over.  What a normal exit does
    for the user still happens: the other threads finish, the exit hooks run (an OpenCL queue's
    work finishes, see :mod:`inpaint.cl.runtime`, unless the run failed), the standard streams
    are flushed.  Then the process ends without taking its modules and the OpenCL driver apart
    one by one, which takes a GPU's driver about 0.2 s and changes nothing.  Under a profiler or a coverage tool, which
    write their results after the command returns, it exits as Python does."""
    if sys.getprofile() is not None or sys.gettrace() is not None or _monitored():
        sys.exit(status)
    runtime = sys.modules.get("inpaint.cl.runtime")
    if status and runtime is not None:  # after an error the queues' work is not waited for
        runtime.abandon_queued_work()
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            with contextlib.suppress(RuntimeError):  # one still starting (a stop came meanwhile)
                thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    os._exit(status)


def debugging() -> bool:
    """Whether ``INPAINT_DEBUG`` asks for tracebacks: set to anything but empty, ``0``, ``false``,
    ``no`` or ``off``."""
    return os.environ.get("INPAINT_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


def _monitored() -> bool:
    """Whether a tool watches the process through :mod:`sys.monitoring` (Python 3.12: coverage,
    profilers)."""
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(i) is not None for i in range(6))


def _ignore_stop_signals() -> None:
    """Ignore the stop signals from now on.  The run is over and its status known; Python puts the
    default handlers back while it exits (an ignored signal stays ignored), and a signal then
    would end the process by the signal, after its run said it succeeded."""
    for sig in _STOP_SIGNALS:
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):  # pragma: no cover - not the main thread
            pass


def _guarded_run(prog: str, fn: Callable[[], int], err: _Watched, cleanup_temp_files: Callable[[], None]) -> int:
    """:func:`guarded`'s run and its reports, with the standard streams watched."""
    try:
        with show_warnings(prog), cancel.scope():  # a stop request ends every job of this run
            status = _run_command(fn)
            flush_stdout()
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            return EXIT_BAD_INPUT if err.failed and status == 0 else status  # what it had to say is lost
    except SystemExit as done:
        if done.code in (0, None):  # --help: its text must reach standard output too
            try:
                flush_stdout()
                lost = getattr(sys.stdout, "error", None)  # (argparse ignores a failed write)
                if lost is not None:
                    raise lost
            except OSError as exc:
                _silence_stdout()
                if not isinstance(exc, BrokenPipeError):
                    _say(f"{prog}: error: cannot write to standard output: {error_message(exc)}")
                return EXIT_BAD_INPUT
        raise
    except (KeyboardInterrupt, cancel.Cancelled):
        _wait_if_ending()
        cancel.request()  # the other threads of a batch stop too
        cleanup_temp_files()
        _say_last(f"{prog}: interrupted")
        return EXIT_INTERRUPTED
    except Terminated as exc:
        _wait_if_ending()
        cleanup_temp_files()
        _say_last(_stop_line(prog, exc.signum))
        return 128 + exc.signum
    except Exception as exc:  # noqa: BLE001 - the one place every error is reported
        cleanup_temp_files()
        if err.failed and isinstance(exc, OSError):  # standard error itself is full or closed: say nothing
            return EXIT_BAD_INPUT
        on_stdout = isinstance(exc, OSError) and _is_stdout_error()
        if on_stdout:
            _silence_stdout()
        if debugging():  # the traceback, then the same line and status as without
            import traceback

            with contextlib.suppress(OSError, ValueError):
                traceback.print_exc(file=sys.stderr)
        code = exit_code(exc)
        if code == EXIT_INTERNAL:
            _say(f"{prog}: internal error: {type(exc).__name__}: {one_line(exc)} (this is a bug; "
                 "run with INPAINT_DEBUG=1 for the traceback and report it)")
        elif on_stdout and not isinstance(exc, (BrokenPipeError, ReportLost)):
            _say(f"{prog}: error: cannot write to standard output: {error_message(exc)}")
        else:
            _say(f"{prog}: error: {error_message(exc)}")
        return code

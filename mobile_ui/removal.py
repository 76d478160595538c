"""Jobs on the worker thread: Remove, Try again and Resize, their phases and progress, Cancel.

Every long operation (a removal, a resize, a tap selection, a refine) starts here with
:meth:`RemovalController.begin_job` and :meth:`RemovalController.submit`: the worker's
callbacks come back on Kivy's thread, and a callback of a job that was cancelled or replaced
(an older token) is ignored.
"""

from __future__ import annotations

import dataclasses
import time
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from kivy.clock import Clock, mainthread

from inpaint.geometry import bbox
from inpaint.methods.defaults import MAX_SEED
from inpaint.report import format_percent, format_seconds, seconds_left

from . import devices, masktools
from .history import Snapshot, frozen
from .worker import run_inpaint

#: The option Try again changes every other time, where the method takes it, and the value it
#: takes then: each match may brighten or darken its source.  The dark smears a strong edge beside
#: the hole can leave are where this fill is the better one, and the plain fill elsewhere, so the
#: user gets the other kind of fill to choose from, not only another seed of the same kind.
ALTERNATE = ("adapt", "on")


def next_try(method: Any, default: int, tries: int) -> tuple[int, bool]:
    """The seed of a removal's ``tries``-th Try again (1, 2, ...) with ``method``, whose default
    seed is ``default``, and whether it takes :data:`ALTERNATE`: for a method that has it, every
    odd try the first fill's kind with it, every even one the next seed without it (seed 0 plain,
    seed 0 with it, seed 1 plain, ...); otherwise each try the next seed."""
    if ALTERNATE[0] in method.names:
        return (default + tries // 2) % (MAX_SEED + 1), tries % 2 == 1
    return (default + tries) % (MAX_SEED + 1), False


#: How a resize's messages name the masks: the strokes the user painted.
APP_WORDS = {"keep_mask": "the green Protect mask", "drop_mask": "the red mask", "drop_mask_subject": ""}


@dataclasses.dataclass
class Removal:
    """The last removal, for Try again: its input, the mask it filled, the protected pixels, the
    seed of its latest fill, whether that took :data:`ALTERNATE`, how many times it was tried again,
    and its fills (weak references: the history holds the pictures)."""

    image: np.ndarray
    mask: np.ndarray
    protect: np.ndarray | None
    seed: int | None
    alternate: bool = False
    tries: int = 0
    fills: list = dataclasses.field(default_factory=list)

    def showing(self, image: np.ndarray | None) -> bool:
        """Whether ``image`` is one of this removal's fills."""
        return any(ref() is image for ref in self.fills)


def _duration(seconds: float) -> str:
    """``1.23`` -> ``'1.2 s'``; a minute or more as ``'1:15'``."""
    return f"{seconds:.1f} s" if seconds < 59.95 else format_seconds(seconds)


class RemovalController:
    """Runs the app's jobs on its worker and shows their progress in the app's status line.

    Parameters
    ----------
    app : InpaintApp
        The app whose document, editor, worker and status properties the jobs use.
    """

    #: A kernel build that ends sooner than this was a cache load: it is not called compiling.
    COMPILE_NOTE_AFTER = 0.3

    def __init__(self, app: Any):
        self.app = app
        self.token = 0                  # the running job's; late callbacks of older jobs are ignored
        self.job_status = ""            # the running job's status, without its dots
        self.phase: str | None = None   # the removal's phase (worker.PHASES) until it fills
        self.phase_started = 0.0
        self.job_started = 0.0
        self.fraction_started = 0.0     # the progress when the time-left clock started
        self.told: set[str] = set()     # device notes already told (see tell_notes)

    # -- any job ------------------------------------------------------------------------
    def begin_job(self, status: str) -> None:
        """Mark the app busy with a new job (a new token) and say ``status``."""
        app = self.app
        self.token += 1
        app.busy = True
        app.progress = 0.0
        self.job_started = time.monotonic()
        self.fraction_started = 0.0
        self.job_status = status.rstrip("…")
        app.editor.painting_enabled = False
        app.editor.show_original = False
        app.status = status
        if app.root is not None:   # a phone's sheet of tools closes: the job shows on the photo
            app.root.sheet_open = False

    def submit(self, fn: Callable[[Any], Any], on_done: Callable[[Any], Any], failed: str) -> None:
        """Run ``fn(job)`` on the worker as the job :meth:`begin_job` began; an error is a
        message titled ``failed``."""
        token = self.token
        self.app.job = self.app.worker.submit(fn, on_done=on_done,
                                              on_error=partial(self.job_error, token, failed),
                                              on_cancel=partial(self.job_cancelled, token))

    def finish_job(self, restore: bool = False) -> None:
        """The app is no longer busy; ``restore`` shows the document again (a live fill is dropped)."""
        app = self.app
        Clock.unschedule(self._tick_phase)
        self.phase = None
        app.busy = False
        app.job = None
        app.progress = 0.0
        app.editor.painting_enabled = True
        if restore and app.image is not None:
            app.editor.set_document(app.image, app.editor.mask, app.editor.keep)
        app.editor._upload_overlay()

    def cancel(self) -> None:
        """Stop the running job; the document stays exactly as it was."""
        if self.app.job is None:
            return
        self.app.job.cancel()
        self.token += 1          # late callbacks of the cancelled job are ignored
        self.finish_job(restore=True)
        self.app.status = "Cancelled; the image is unchanged."

    @mainthread
    def job_cancelled(self, token):
        if token == self.token:  # normally cancel() has already reset the UI
            self.finish_job(restore=True)

    @mainthread
    def job_error(self, token, title, exc):
        if token != self.token:
            return
        self.finish_job(restore=True)
        from inpaint.errors import SeamError

        # a resize's masks in the app's words, not the library's argument names
        message = exc.worded(APP_WORDS) if isinstance(exc, SeamError) else str(exc) or type(exc).__name__
        self.app.status = f"{title}: {' '.join(message.split())}"
        details = getattr(exc, "details", None)   # BuildFailure: the driver's build log
        self.app.dialogs.show_message(title, message, hint=devices.error_hint(exc),
                                      details=str(details) if details else "")

    def job_notes(self) -> list[str]:
        """The running job's device notes not yet told in this session (each is told once)."""
        job = self.app.job
        notes = [n for n in (job.notes if job is not None else []) if n not in self.told]
        self.told.update(notes)
        return notes

    def tell_notes(self, notes: list[str], done: str) -> None:
        """Put ``done`` in the status line, and when the job ran on numpy or another device than
        asked (``notes``), say so there, first (the line is shortened at its end), and in a message."""
        if not notes:
            self.app.status = done
            return
        if any("numpy" in n for n in notes):   # the other notes name the device used instead
            title, hint = "Ran on numpy", ("To skip OpenCL from now on: open Settings and, under Advanced, "
                                           "set Run on to the processor (numpy); or choose another OpenCL device.")
        else:
            title, hint = "Ran on another device", "Open Settings and, under Advanced, choose the OpenCL device to use."
        self.app.status = f"{title}. {done} Note: {' '.join(notes)}"
        self.app.dialogs.show_message(title, "\n\n".join(notes), hint=hint)

    def show_progress(self, fraction: float) -> None:
        """The progress bar and the status line: percent done and the time left."""
        self.app.progress = fraction
        base = self.fraction_started     # done before the clock started: not part of the pace
        done = (fraction - base) / (1.0 - base) if base < 1.0 else 0.0
        left = seconds_left(time.monotonic() - self.job_started, done)
        # Until there is a pace to go by, the percentage alone: a large photo's fill spends its
        # first seconds on coarse levels, a small share of the work, and 0.03 % rather than 0 %
        # shows that it moves.
        eta = f" · about {format_seconds(left)} left" if left is not None else ""
        self.app.status = f"{self.job_status}… {format_percent(fraction)}{eta}"

    # -- remove and try again -------------------------------------------------------------
    def removal_mask(self) -> np.ndarray:
        """The mask Remove fills: the painted mask grown by the Grow setting, the growth stopping at
        the green Protect strokes (protected pixels outside the painted mask are kept as they are)."""
        radius = int(self.app.grow)
        editor = self.app.editor
        mask = editor.mask
        if radius <= 0:
            return mask.copy()
        grown = masktools.grow(mask, radius)
        return grown & ~editor.keep | mask if editor.keep is not None else grown

    def remove(self) -> None:
        """Fill the painted mask (grown by Grow) on the worker; the fill replaces the picture."""
        app = self.app
        if app.busy or app.image is None:
            return
        if not app.editor.mask.any():
            app.dialogs.show_message("Nothing to remove", "Paint over the object you want to remove first "
                                                          "(or tap it with Select).")
            return
        params = self._settings_or_say()
        if params is None:
            return
        if app.editor.keep.any():  # the green Protect strokes: never copied into the hole
            params["protect"] = app.editor.keep.copy()
        removal = Removal(app.image, self.removal_mask(), params.get("protect"), self._seed_default())
        self._run_removal(removal, params, app.document.snapshot("remove"), "Removing…")

    def _settings_or_say(self) -> dict | None:
        """The run's parameters from the settings, or None once a message has said what is wrong."""
        try:
            return self.app.run_params()
        except ValueError as exc:
            self.app.dialogs.show_message("Check the settings", str(exc))
            return None

    def _method(self) -> Any:
        """The chosen method's declaration."""
        from inpaint.methods import registry

        return registry.get(self.app.method)

    def _seed_default(self) -> int | None:
        """The chosen method's default seed; None when it takes none (its fill is always the same)."""
        method = self._method()
        return method.option("seed").default if "seed" in method.names else None

    def try_again(self) -> None:
        """Fill the last removal's mask in its input again, the next try of :func:`next_try`: another
        fill replaces the one shown, as one undo step (Undo brings the previous fill back)."""
        app = self.app
        removal = app.last_removal
        if app.busy or removal is None or not removal.showing(app.image):
            return
        params = self._settings_or_say()
        if params is None:
            return
        default = self._seed_default()
        if default is None:
            app.dialogs.show_message(
                "Always the same fill",
                f"The {app.method} method has no randomness: it fills the same way every time.",
                hint="For another fill, choose another method in Settings, or paint the mask "
                     "differently and Remove again.")
            return
        tries = removal.tries + 1  # counted once the fill is shown: a cancelled try is tried again
        seed, alternate = next_try(self._method(), default, tries)
        if removal.protect is not None:
            params["protect"] = removal.protect
        params["seed"] = seed
        if alternate:
            params[ALTERNATE[0]] = ALTERNATE[1]
        self._run_removal(removal, params, app.document.snapshot("try again"), "Trying again…",
                          attempt=(tries, seed, alternate))

    def _run_removal(self, removal: Removal, params: dict, before: Snapshot, status: str,
                     attempt: tuple[int, int, bool] | None = None) -> None:
        """Fill ``removal`` on the worker; on success the fill replaces the picture (one undo step),
        and a Try again's ``attempt`` (its number, seed and whether colours adapt) becomes the
        removal's."""
        self.begin_job(status)
        token = self.token
        self.phase_started = time.monotonic()
        self._phase_text(token, "preparing")
        changing = bbox(removal.mask)   # the live fill changes these pixels alone
        fn = partial(run_inpaint, image=removal.image, mask=removal.mask, params=params,
                     on_progress=partial(self._job_progress, token, changing), factory=self.app.engine,
                     on_phase=partial(self._job_phase, token))
        self.submit(fn, partial(self._remove_done, token, before, removal, attempt), "Remove failed")

    def _phase_text(self, token, phase: str, *_args) -> None:
        """The status line of a removal before its fill shows progress (see
        :data:`mobile_ui.worker.PHASES`), with the seconds spent in the phase so far."""
        app = self.app
        if token != self.token or not app.busy or self.phase == "filling" and phase != "filling":
            return
        self.phase = phase
        elapsed = time.monotonic() - self.phase_started
        seconds = f" {elapsed:.0f} s" if elapsed >= 1 else ""
        if phase == "preparing":
            h, w = app.image.shape[:2]
            app.status = f"Removing: preparing the fill ({w}x{h}, {w * h / 1e6:.1f} MP)…{seconds}"
        elif phase == "compiling":
            app.status = ("Removing: preparing the device, compiling its kernels (first run on this device "
                          f"only; later runs reuse them)…{seconds}")
        else:
            self.show_progress(app.progress)

    @mainthread
    def _job_phase(self, token, phase: str) -> None:
        if token != self.token or not self.app.busy:
            return
        if self.phase == "compiling" and self.app.progress == 0:
            # A build slow enough to be announced compiled the program; a driver that compiles
            # each kernel at its first launch (PoCL) goes on compiling in the fill's first steps,
            # for seconds before any progress: the note stays until the first (_job_progress).
            return
        Clock.unschedule(self._tick_phase)
        self.phase_started = time.monotonic()
        if phase == "filling" and self.phase in ("preparing", "compiling", "compiling-soon") \
                and self.app.progress == 0:
            self.job_started = self.phase_started   # the time left counts from the fill's start
        if phase == "compiling":   # said only if the build is slow: a cached one takes milliseconds
            self.phase = "compiling-soon"
            Clock.schedule_once(partial(self._compiling, token), self.COMPILE_NOTE_AFTER)
            return
        self._phase_text(token, phase)
        if phase != "filling":
            Clock.schedule_interval(self._tick_phase, 0.5)

    def _compiling(self, token, *_args) -> None:
        if token == self.token and self.app.busy and self.phase == "compiling-soon":
            self._phase_text(token, "compiling")
            Clock.schedule_interval(self._tick_phase, 0.5)

    def _tick_phase(self, *_args):
        if not self.app.busy or self.phase not in ("preparing", "compiling"):
            return False
        self._phase_text(self.token, self.phase)

    @mainthread
    def _job_progress(self, token, changing, image, fraction, iterations):
        if token != self.token or not self.app.busy:
            return
        if self.phase == "compiling":   # the first launches are compiled: the fill shows its own progress
            Clock.unschedule(self._tick_phase)
            self.phase = "filling"
            if self.app.progress == 0:       # the time left counts from here, at the pace from here
                self.job_started, self.fraction_started = time.monotonic(), fraction
        self.app.editor.show_pixels(image, changing)
        self.app.editor._overlay_color.a = 0      # the red mask stays until the live fill replaces it
        self.show_progress(fraction)

    @mainthread
    def _remove_done(self, token, before, removal, attempt, outcome):
        if token != self.token:
            return
        if attempt is not None:
            removal.tries, removal.seed, removal.alternate = attempt
        app, editor = self.app, self.app.editor
        again = removal is app.last_removal
        result, wall = outcome
        out = np.asarray(result.image)
        if out.shape != app.image.shape or out.dtype != np.uint8:
            self.finish_job()
            app.dialogs.show_message("Remove failed", f"the pipeline returned {out.dtype} {out.shape}")
            return
        notes = self.job_notes()
        app.last_result = result
        app.history.push(before)
        app.image = frozen(out)
        if not again:  # the painted mask is used up; after Try again it is what the user painted since
            app.last_removal = removal
            editor.mask[...] = False
        removal.fills.append(weakref.ref(app.image))
        editor.set_document(app.image, editor.mask, editor.keep)
        self.finish_job()
        app.document.history_changed()
        app.last_wall_seconds = wall
        filled = int(removal.mask.sum())
        if again:
            kind = ", colours adapted," if removal.alternate else ""  # first: a phone shortens the line's end
            done = (f"Filled again{kind} in {_duration(wall)} ({filled:,} px, seed {removal.seed}). "
                    "Undo brings the previous fill back.")
        else:
            done = f"Removed in {_duration(wall)} ({filled:,} px filled). Undo takes it back; Save keeps it."
        self.tell_notes(notes, done)
        app.document.update_info()

    # -- resize (seam carving, when inpaint.seam exists) ----------------------------------
    def resize(self, width: int, height: int) -> None:
        """Resize the photo to ``width`` x ``height`` by seam carving, on the worker (red strokes
        are carved out first, green Protect strokes kept)."""
        app = self.app
        if app.busy or app.image is None:
            return
        if not app.has_seam:
            app.dialogs.show_message("Resize", "Seam carving is not available in this build.")
            return
        width, height = int(width), int(height)
        h, w = app.image.shape[:2]
        keep = app.editor.keep.copy() if app.editor.keep.any() else None
        drop = app.editor.mask.copy() if app.editor.mask.any() else None
        if (width, height) == (w, h) and drop is None:
            app.status = (f"Nothing to resize: the photo is already {w}x{h}. Choose another size, or mark in red "
                          "what to carve out.")
            return
        opts = {"backend": app.backend}
        if app.backend != "numpy":
            params = app.run_params()
            opts.update(device=params.get("device"), profile=params.get("profile"))
        before = app.document.snapshot("resize")
        self.begin_job(f"Resizing to {width}x{height}…")
        token = self.token
        image = app.image

        def job_fn(job):
            from inpaint.seam import resize

            def progress(*args, **_kw):
                job.check()
                if args and isinstance(args[0], (int, float)):
                    frac = float(args[0]) if len(args) == 1 else float(args[0]) / max(float(args[1]), 1.0)
                    self._resize_progress(token, min(max(frac, 0.0), 1.0))

            start = time.perf_counter()
            out = resize(image, width, height, keep_mask=keep, drop_mask=drop, progress=progress, **opts)
            return out, time.perf_counter() - start

        self.submit(job_fn, partial(self._resize_done, token, before), "Resize failed")

    @mainthread
    def _resize_progress(self, token, fraction):
        if token == self.token and self.app.busy:
            self.show_progress(fraction)

    @mainthread
    def _resize_done(self, token, before, outcome):
        if token != self.token:
            return
        app = self.app
        out, wall = outcome
        notes = self.job_notes()
        out = getattr(out, "image", out)
        out = np.ascontiguousarray(np.asarray(out, dtype=np.uint8)[..., :3])
        app.history.push(before)
        app.image = frozen(out)
        h, w = out.shape[:2]
        app.editor.set_document(app.image, np.zeros((h, w), bool), np.zeros((h, w), bool))
        self.finish_job()
        app.document.history_changed()
        self.tell_notes(notes, f"Resized to {w}x{h} in {_duration(wall)}.")
        app.document.update_info()

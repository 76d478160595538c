"""One image's run, the same for ``inpaint`` and ``inpaint resize``.

Both commands fill or carve one image the same way around their own work: the output checks
before anything is read, the phases ``--stats`` times, the notes, the progress display with its
first-build note, the stop check after the work, the atomic write-back and the phase table.
:class:`ImageRun` holds these; each command adds only what its work needs.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .. import cancel
from .phases import OTHER, Phases
from .shared import say


class ImageRun:
    """One image of a command's run.

    Parameters
    ----------
    prog : str
        The command's name in its messages (``'inpaint'``, ``'inpaint resize'``).
    args : argparse.Namespace
        The command's options (``quiet``, ``progress``, ``overwrite``, ``force``, ``stats``).
    label : str, optional
        The image's place in a batch (``'[2/5] photo.jpg'``); None for one image.
    phases : Phases, optional
        The command's phases, timed with ``--stats`` (one image, not a batch).
    progress : bool
        Whether this image shows progress (a batch of several jobs shows none).
    """

    def __init__(self, prog: str, args: argparse.Namespace, label: str | None = None,
                 phases: Phases | None = None, progress: bool = True):
        self.prog = prog
        self.args = args
        self.label = label
        self.name = f"{label}: " if label else ""
        self.phases = phases if getattr(args, "stats", False) else None
        self.progress = progress
        #: Outputs must be new files: checked before the work, and again as each is put in place.
        self.new = not (args.overwrite or args.force)
        #: The one token of this image's job (:mod:`inpaint.cancel`): the run's, else a new one.
        self.token = cancel.current()
        #: How long the work's kernels took to compile (:class:`inpaint.cli.guard.CompileTime`).
        self.compiled: Any = None

    def timing(self, phase: str) -> contextlib.AbstractContextManager[None]:
        """Time ``phase`` for ``--stats`` (nothing without it)."""
        return self.phases.timing(phase) if self.phases is not None else contextlib.nullcontext()

    def check_outputs(self, out: Any, inputs: Sequence[tuple[str, Any]], extra: Any = None, extra_what: str = "",
                      extra_label: Any = None, extra_force: bool = False) -> None:
        """The cheap output checks, before anything is read: names, formats, folders, collisions
        with the inputs and each other, files that exist.  ``extra`` is the second picture
        (``--save-mapping``, ``--save-seams``), ``extra_what`` its option."""
        from .. import io as imageio
        from ..io.naming import check_new

        if extra is not None:
            imageio.check_output(extra, mode=None, size=None, inputs=inputs, what=extra_what,
                                 **({"force": self.args.force} if extra_force else {}))
        label = extra if extra_label is None else extra_label
        image = next((Path(p) for what, p in inputs if what == "input image" and p is not None), None)
        if image is not None and out is not None and Path(out).suffix.lower() == image.suffix.lower():
            from .batch import writable_beside

            writable_beside(image, Path(out))  # a result in the input's format: the input's own error first
        imageio.check_output(out, mode=None, size=None, inputs=inputs, force=self.args.force,
                             others=[(f"{extra_what} {label}", label)] if extra is not None else [])
        for path, what in ((out, "output"), (label if extra is not None else None, f"{extra_what} file")):
            if path is not None and not any(imageio.same_file(path, src) for _, src in inputs):
                check_new(path, self.args.overwrite or self.args.force, what)

    def say(self, text: str, always: bool = False) -> None:
        """``PROG: [label: ]text`` on standard error (unless ``--quiet``, or ``always``)."""
        if always or not self.args.quiet:
            say(f"{self.prog}: {self.name}{text}")

    def note(self, text: str | None) -> None:
        """A note (what an output cannot keep, ...), unless ``--quiet``."""
        if text and not self.args.quiet:
            say(f"{self.prog}: note: {self.name}{text}")

    @contextlib.contextmanager
    def working(self, task: str) -> Iterator[Any]:
        """The progress display of the work (``task``: ``'filling'``, ``'carving'``), with the note
        of a slow first build; yields ``progress(fraction)``.  Runs under the image's token."""
        from .guard import compile_note
        from .progress import Progress

        bar = Progress(self.prog, f"{task} {self.label}" if self.label else task,
                       "none" if self.args.quiet or not self.progress else self.args.progress)
        try:
            with compile_note(self.prog, not self.args.quiet, bar) as self.compiled, cancel.scope(self.token):
                yield bar
        finally:
            bar.close()

    def compile_words(self) -> str:
        """``'the kernels for this device compiled in 5.2 s, once'`` (or ``'... compiled as they
        first ran, once'``, PoCL's) after a run that compiled them, for the summary line; ``''``
        otherwise.  (The program builds are timed; a kernel a driver compiles at its first launch
        ends unseen among the work's launches.)"""
        seconds = getattr(self.compiled, "seconds", None)
        if seconds is None:
            return ""
        from ..cl.kcache import uncached_reason

        cached = ", once" if uncached_reason() is None else ", not cached"
        if getattr(self.compiled, "during", False):  # (their time is not known apart from the work's)
            return f"the kernels for this device compiled as they first ran{cached}"
        return f"the kernels for this device compiled in {seconds:.1f} s{cached}"

    def stopped(self) -> None:
        """Raise :class:`inpaint.cancel.Cancelled` when a stop came during the work: its result
        is not written."""
        cancel.check()

    def save(self, items: list) -> list:
        """Write ``(image, path, options)`` items atomically; returns their notes.

        Raises
        ------
        InputError
            The write failed (permission denied, disk full...): nothing was left behind.
        """
        from .. import io as imageio
        from .streams import deliver

        try:
            notes = imageio.save_images(items)
        except OSError as exc:
            from .shared import cannot_write

            raise cannot_write(exc, [path for _, path, _ in items]) from None
        deliver([path for _, path, _ in items])
        return notes

    def print_phases(self, lead: bool = True) -> None:
        """With ``--stats``: the whole command's time, phase by phase."""
        if self.phases is not None:
            from ..report import format_phases

            table = format_phases(*self.phases.table(), OTHER)
            print(table if lead else table.lstrip("\n"))


"""One progress display, with an estimate of the time left, for every command.

Styles (``--progress``):

* ``bar``: one line redrawn in place, ``inpaint: filling [#####.....]  50%  0:04 elapsed, about 0:04 left``;
* ``plain``: a new line every few seconds (for logs, pipes and CI), the same words without the bar;
* ``none``: nothing;
* ``auto`` (the default): ``bar`` on a terminal; elsewhere nothing for a short job, and ``plain``
  lines once a job has run for a while, so a long job in a pipe still shows its pace.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..report import format_seconds, seconds_left

STYLES = ("auto", "bar", "plain", "none")

#: ``plain``: seconds between lines; ``auto`` off a terminal: seconds before the first line.
PLAIN_EVERY = 5.0
AUTO_AFTER = 10.0
#: After :meth:`Progress.compiling`, a wait between two updates longer than this (in seconds) is
#: looked at for the driver's compiles.
STALL = 0.3

#: The bars drawn on their line now: a message printed meanwhile takes them off it first.
_SHOWN: list[Progress] = []


def clear_bars() -> None:
    """Take a drawn bar off its line before another line is printed there (its next update draws
    it again, below): a message must not be glued to the bar, nor leave a stale bar above it."""
    for bar in list(_SHOWN):
        bar.clear()


def _columns(stream: TextIO) -> int:
    """The terminal's width where ``stream`` is a terminal (80 where it cannot say)."""
    import os
    import shutil

    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size().columns or 80


class Progress:
    """``progress(fraction)`` draws or prints the state; ``close()`` ends the line.

    Parameters
    ----------
    prog : str
        The command's name, e.g. ``'inpaint'`` or ``'inpaint resize'``.
    task : str
        What is being done, e.g. ``'filling'`` or ``'carving'``.
    style : {'auto', 'bar', 'plain', 'none'}
    stream : file, optional
        Default ``sys.stderr``.
    """

    def __init__(self, prog: str, task: str, style: str = "auto", stream: TextIO | None = None):
        if style not in STYLES:
            raise ValueError(f"progress style must be one of {', '.join(STYLES)}, got {style!r}")
        self.stream = stream if stream is not None else sys.stderr
        if style == "auto":
            try:
                tty = self.stream.isatty()
            except (AttributeError, ValueError):
                tty = False
            style = "bar" if tty else "auto-plain"
        self.style = style
        self.prog = prog
        self.task = task
        self.t0 = time.monotonic()
        self.last = -1.0
        self.drawn = False
        self._shown = 0  # characters of the bar's line on screen
        self.fraction = 0.0
        self.plain_every = PLAIN_EVERY
        self.auto_after = AUTO_AFTER
        self.excluded = 0.0
        self._written_after: Callable[[float], float | None] | None = None  # see compiling
        self._seen = (self.t0, 0.0)  # the last update's time, and what was left out by then
        self._said_done = False

    def exclude(self, seconds: float) -> None:
        """Leave ``seconds`` of one-off work (a kernel build) out of the pace the estimate goes by."""
        self.excluded += max(0.0, float(seconds))

    def compiling(self, written_after: Callable[[float], float | None]) -> None:
        """A kernel's compile was queued, which a driver (PoCL) runs when the launch's turn comes,
        with no word when it ends.  From here on, a wait between two updates longer than
        :data:`STALL` is left out of the pace up to the driver's last compile in it
        (``written_after(since)``: the time, as ``time.time()``, of the newest compiled file
        written after ``since``, or None), less what :meth:`exclude` left out meanwhile."""
        self._written_after = written_after

    def eta(self, fraction: float, now: float | None = None) -> float | None:
        """Seconds left at the pace so far (one-off work left out), or None before there is a pace."""
        elapsed = (time.monotonic() if now is None else now) - self.t0
        return seconds_left(max(elapsed - self.excluded, 0.0), fraction)

    def text(self, fraction: float, now: float | None = None) -> str:
        """The words of one update (without the bar)."""
        now = time.monotonic() if now is None else now
        left = self.eta(fraction, now)
        tail = f"about {format_seconds(left)} left" if left is not None and fraction < 1.0 else (
            "done" if fraction >= 1.0 else "estimating the time left")
        return f"{fraction * 100:3.0f}%  {format_seconds(now - self.t0)} elapsed, {tail}"

    def __call__(self, fraction: float) -> None:
        if self.style == "none":
            return
        fraction = min(max(float(fraction), 0.0, self.fraction), 1.0)  # (never back: a total that grows)
        self.fraction = fraction
        now = time.monotonic()
        before, left_out = self._seen
        if self._written_after is not None and now - before > STALL:
            start = time.time() - (now - before)
            end = self._written_after(start)
            if end is not None:
                self.excluded += max(0.0, min(end - start, now - before) - (self.excluded - left_out))
        self._seen = (now, self.excluded)
        if self.style == "bar":
            if fraction < 1.0 and now - self.last < 0.1:
                return
            # one line: a longer one wraps at every redraw (a narrow terminal gets a shorter bar)
            room = max(_columns(self.stream) - 1, 20)
            words = self.text(fraction, now)
            width = min(24, room - len(self.prog) - len(self.task) - len(words) - 6)
            filled = int(fraction * max(width, 0))
            bar = f"[{'#' * filled}{'.' * (width - filled)}] " if width >= 5 else ""
            line = f"{self.prog}: {self.task} {bar}{words}"[:room]
            # (spaces over what a longer line before left)
            self.stream.write("\r" + line + " " * max(self._shown - len(line), 0))
            self.stream.flush()
            self.drawn, self._shown, self.last = True, len(line), now
            if self not in _SHOWN:
                _SHOWN.append(self)
            return
        # plain / auto-plain: a line every few seconds, and plain's last line however short the job
        done = fraction >= 1.0 and self.style == "plain" and not self._said_done
        if self.style == "auto-plain" and now - self.t0 < self.auto_after:
            return
        if not done and self.last < 0 and self.style == "plain" and now - self.t0 < min(self.plain_every, 1.0):
            return
        if not done and self.last >= 0 and now - self.last < self.plain_every:
            return
        self._said_done = fraction >= 1.0
        self.stream.write(f"{self.prog}: {self.task} {self.text(fraction, now)}\n")
        self.stream.flush()
        self.last = now

    def steps(self, done: int, total: int) -> None:
        """``progress(done, total)`` callbacks (seam carving) in the same display."""
        self(done / total if total else 1.0)

    def clear(self) -> None:
        """Take the bar off its line (:func:`clear_bars`)."""
        if self.drawn:
            try:
                self.stream.write("\r" + " " * self._shown + "\r")
                self.stream.flush()
            except (OSError, ValueError):  # the stream failed: the message after it says so, if it can
                pass
            self.drawn, self._shown = False, 0
        if self in _SHOWN:
            _SHOWN.remove(self)

    def close(self) -> None:
        """End the bar's line (call once, also when the job failed)."""
        if self in _SHOWN:
            _SHOWN.remove(self)
        if self.style == "bar" and self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

"""The process's warning filters, changed by one thread at a time.

``warnings.catch_warnings`` saves the process-wide filters on entry and puts them back on exit.
Two threads that overlap such blocks can each put back what the other had set, and a warning
given on one thread meanwhile meets the other's filters.  A batch reads its next image on a
thread of its own while the main thread reads a mask: every short block of this package's own
goes through :func:`filtered`, and a warning that reading gives goes through :func:`warn`, so
that the blocks take turns and no warning meets another thread's filters.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator

_FILTERS = threading.RLock()


@contextlib.contextmanager
def filtered(action: str, category: type[Warning] = Warning) -> Iterator[None]:
    """``warnings.simplefilter(action, category)`` inside ``warnings.catch_warnings()``, while no
    other thread changes the filters or gives a warning through :func:`warn`.  The block must not
    wait for another thread."""
    with _FILTERS, warnings.catch_warnings():
        warnings.simplefilter(action, category)
        yield


def warn(message: Warning, stacklevel: int = 1) -> None:
    """``warnings.warn(message, stacklevel=stacklevel)``, never inside another thread's
    :func:`filtered` block (whose filters would apply to it)."""
    with _FILTERS:
        warnings.warn(message, stacklevel=stacklevel + 1)

"""The process's warning filters, changed by one thread at a time.

``warnings.catch_warnings`` saves the process-wide filters on entry and puts them back on exit.
Two threads that overlap such blocks can each put back what the other had set: a batch's reading
thread that checked an image for a decompression bomb while the main thread checked an output's
format (with every warning ignored) could leave every later warning ignored, and a reading
thread's warning given during the other thread's block was lost.  Every short block of this
package's own goes through :func:`filtered`, and a warning that a reading thread gives goes
through :func:`warn`, so that neither happens.
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

"""How results are named, and the one overwrite rule, for the commands and the app alike.

* A result's default name is the input's stem with :data:`REMOVED_SUFFIX` (object removal, in the
  command and the app) or :data:`RESIZED_SUFFIX` (``inpaint resize``), and the input's extension.
* An existing file is never replaced unless the user says so: the commands refuse it unless
  ``--overwrite`` is given (:func:`check_new`); the app suggests a free name (:func:`free_name`)
  and replaces a file only when "replace existing file" is ticked.  An input is never replaced
  by a batch.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError


def shown(path: str | os.PathLike[str]) -> str:
    """A file name as a message line shows it: control characters (a newline in a name, an
    escape sequence) written as escapes, so that one message stays one line and says which file."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


#: Name ending of object-removal results (``photo_removed.jpg``).
REMOVED_SUFFIX = "_removed"
#: Name ending of ``inpaint resize`` results.
RESIZED_SUFFIX = "_resized"
#: Name ending of a mask file paired with its image (``photo_mask.png``).
MASK_SUFFIX = "_mask"
#: Name endings of the commands' results, which a batch never takes for inputs.
RESULT_SUFFIXES = (REMOVED_SUFFIX, RESIZED_SUFFIX)


def result_name(image: str | os.PathLike[str], suffix: str = REMOVED_SUFFIX, ext: str | None = None) -> Path:
    """``<stem><suffix><ext>`` beside ``image`` (its own extension, or ``.png`` when it has none)."""
    p = Path(image)
    return p.with_name(f"{p.stem}{suffix}{ext if ext is not None else (p.suffix or '.png')}")


def free_name(path: str | os.PathLike[str]) -> Path:
    """``path`` when no file has that name, else the first free ``<stem>-2<ext>``, ``-3``..."""
    p = Path(path)
    n = 2
    candidate = p
    while os.path.lexists(candidate):
        candidate = p.with_name(f"{p.stem}-{n}{p.suffix}")
        n += 1
    return candidate


def check_new(path: str | os.PathLike[str], overwrite: bool, what: str = "output") -> None:
    """Refuse an existing ``path`` unless ``overwrite`` (the commands' ``--overwrite``).

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is false.
    """
    if not overwrite and os.path.lexists(path):
        raise InputError(f"the {what} {path} already exists; use --overwrite to replace it")

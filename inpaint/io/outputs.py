"""Checking an output before any work: its name, format, folder, size and collisions."""

from __future__ import annotations

import functools
import io
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from ..errors import InputError
from .atomic import drop_temp, new_temp
from .encode import encode, output_format
from .formats import OUTPUT_FORMATS, holds
from .pictures import DeepImage
from .read import check_name


def _probe(mode: str) -> Image.Image | DeepImage:
    """A tiny image of ``mode``, to try the format's writer on."""
    if mode.endswith(";16") and mode.split(";")[0] in ("LA", "RGB", "RGBA"):
        return DeepImage(np.zeros((4, 4, {"LA": 2, "RGB": 3, "RGBA": 4}[mode.split(";")[0]]), np.uint16))
    if mode == "P":
        img = Image.new("P", (4, 4))
        img.putpalette(list(range(256)) * 3)
        return img
    return Image.new(mode, (4, 4))


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (links and ``..`` included; for paths that do
    not exist yet, the same resolved name)."""
    try:
        here = os.path.exists(a), os.path.exists(b)
        if all(here):
            return os.path.samefile(a, b)
        if any(here):  # a file and a name of none (a batch checks each output against its inputs)
            return False
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def check_output(path: str | os.PathLike[str] | None, *, mode: str | None, size: tuple[int, int] | None,
                 inputs: Sequence[tuple[str, str | os.PathLike[str]]] = (),
                 others: Sequence[tuple[str, str | os.PathLike[str]]] = (), force: bool = False,
                 what: str = "output", can_force: bool = True) -> str:
    """Check, before any work, that an image of ``mode`` and ``size`` can be written to ``path``.

    Checks that the name is not empty, the format is known and writable by Pillow in that mode
    without changing the picture's size, the folder exists and is writable, the path is not a
    folder, it is not one of ``inputs`` (``(label, path)`` pairs; allowed with ``force``) and
    not one of ``others`` (other outputs of the same run; never allowed).  ``can_force`` False:
    the command has no ``--force``, and its refusal does not suggest one.  With ``mode`` and
    ``size`` None only the name, format, folder and collisions are checked (before the input
    is read); call it again with them once the image is known.

    Returns
    -------
    str
        The Pillow format name.

    Raises
    ------
    InputError
        With a message naming the problem.
    """
    if path is None or str(path).strip() == "":
        raise InputError(f"the {what} file name is empty")
    check_name(path, what)
    path = Path(path)
    fmt = output_format(path)
    if fmt not in OUTPUT_FORMATS:
        raise InputError(f"cannot write {what} {path}: {fmt} is not a format the commands write "
                         "(use .png for a lossless result, or .jpg, .tif, .webp, .bmp)")
    w, h = size if size is not None else (0, 0)
    limit = holds(fmt).max_side
    if limit is not None and max(w, h) > limit:
        if fmt == "ICO":
            raise InputError(f"cannot write {what} {path}: an ICO icon holds at most {limit}x{limit} pixels and "
                             f"the {w}x{h} result would be shrunk; use .png")
        raise InputError(f"cannot write {what} {path}: {fmt} holds at most {limit} pixels a side and the result "
                         f"is {w}x{h}; use .png or .tif")
    if path.is_dir():
        raise InputError(f"{what} {path} is a folder; give a file name")
    try:
        kind = path.stat().st_mode
    except OSError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind):  # replacing it would cut off a reader or a device
        thing = "a named pipe" if stat.S_ISFIFO(kind) else "a device or socket"
        raise InputError(f"{what} {path} is {thing}, not a file; results are written to files "
                         "(standard output: -o -)")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        if folder.exists():
            raise InputError(f"{folder} is a file, not a folder: the {what} {path} cannot be written in it")
        raise InputError(f"output folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"output folder {folder} is not writable")
    try:
        name_max = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        name_max = 255
    if len(os.fsencode(path.name)) + 16 > name_max:  # the temporary file's name is 16 bytes longer
        raise InputError(f"{what} file name {path.name[:40]}... is too long")
    if mode is not None:  # once per output: a real file in the folder proves it can be written
        try:
            fd, tmp = new_temp(folder, path.name)
        except OSError as exc:
            raise InputError(f"cannot write in the output folder {folder}: {exc.strerror or exc}") from None
        os.close(fd)
        drop_temp(tmp)
    if path.exists() and not os.access(path, os.F_OK):  # pragma: no cover - defensive
        raise InputError(f"{what} {path} cannot be replaced")
    for label, other in others:
        if other is not None and str(other) != "" and same_file(path, other):
            raise InputError(f"{what} {path} and {label} are the same file; give them different names")
    for label, src in inputs:
        if src is not None and same_file(path, src) and not force:
            hint = " (use --force)" if can_force else "; give another name"
            raise InputError(f"the {what} {path} is the {label}; refusing to overwrite it{hint}")
    if mode is None:
        return fmt
    failure = _writer_failure(mode, fmt)
    if failure is not None:
        raise InputError(f"cannot write {what} {path}: Pillow cannot write {mode} images as {fmt} "
                         f"({failure}); use .png")
    return fmt


@functools.cache
def _writer_failure(mode: str, fmt: str) -> str | None:
    """Why Pillow's writer of ``fmt`` fails on a tiny image of ``mode`` (None: it does not), tried
    once a process for each pair: a batch's images share it."""
    try:
        # No warnings.catch_warnings here: its filters are the whole process's, and a photo
        # read on another thread meanwhile would lose its warnings (the writer's only
        # warning, Pillow's deprecation of IM, is the caller's filters' to show or hide).
        encode(_probe(mode), io.BytesIO(), fmt)
    except Exception as exc:  # noqa: BLE001 - any failure of Pillow's writer
        return str(exc)
    return None

"""Atomic writes: a temporary file in the destination folder, then ``os.replace``.

A signal or an error never leaves a partial file: the front ends call :func:`cleanup_temp_files`
when they stop.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterable

from PIL import Image

from ..errors import InputError
from .encode import encode, output_format
from .pictures import DeepImage


_TEMP_FILES: set[str] = set()
_TEMP_LOCK = threading.Lock()
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def new_temp(folder: Path, name: str) -> tuple[int, str]:
    """A temporary file beside the output, registered for :func:`cleanup_temp_files` before a
    signal can interrupt (signals are held while it is created)."""
    block = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS) if block else None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        with _TEMP_LOCK:
            _TEMP_FILES.add(tmp)
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return fd, tmp


def drop_temp(tmp: str) -> None:
    """Remove a temporary file and forget it."""
    try:
        os.unlink(tmp)
    except OSError:
        pass
    with _TEMP_LOCK:
        _TEMP_FILES.discard(tmp)


def cleanup_temp_files() -> None:
    """Remove every temporary file of an unfinished write (after a signal or an error)."""
    with _TEMP_LOCK:
        pending = list(_TEMP_FILES)
    for tmp in pending:
        drop_temp(tmp)


def _target_mode(path: Path) -> int:
    """The mode a replaced file keeps, or 0666 minus the umask for a new one."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def save_images(items: "Iterable[tuple[Image.Image | DeepImage, str | os.PathLike[str], dict]]") -> list[str | None]:
    """Write several images atomically: every one goes to a temporary file first, and they
    replace their destinations only when all are complete.  Returns each one's note (or None).

    Each item is ``(image, path, options)``: options ``plan`` (an
    :class:`~inpaint.io.plan.OutputPlan`, made before the work) and ``mask`` (the changed pixels,
    for a JPEG written back block by block); or, without a plan, ``exif``, ``icc_profile`` and
    ``quality``.
    """
    written: list[tuple[str, Path]] = []
    notes: list[str | None] = []
    try:
        for img, path, opts in items:
            path = Path(path)
            fmt = output_format(path)
            folder = path.parent if str(path.parent) else Path(".")
            if not folder.is_dir():
                raise InputError(f"output folder {folder} does not exist")
            fd, tmp = new_temp(folder, path.name)
            written.append((tmp, path))
            with os.fdopen(fd, "wb") as fh:
                note = _write(img, fh, fmt, opts)
                said = getattr(opts.get("plan"), "notes", ())  # printed before the work already
                notes.append(None if note in said else note)
                fh.flush()
                os.fsync(fh.fileno())  # the data is on disk before the rename makes it visible
            os.chmod(tmp, _target_mode(path))  # mkstemp makes 0600; give the usual permissions
        for tmp, path in written:
            os.replace(tmp, path)
            with _TEMP_LOCK:
                _TEMP_FILES.discard(tmp)
    except BaseException:
        for tmp, _ in written:
            drop_temp(tmp)
        raise
    return notes


def _write(img: "Image.Image | DeepImage", fh: Any, fmt: str, opts: dict) -> str | None:
    """Encode one image by its plan: a JPEG block by block where the plan says so."""
    plan = opts.get("plan")
    if plan is None:
        return encode(img, fh, fmt, {k: opts[k] for k in ("exif", "icc_profile", "quality") if k in opts})
    edit = plan.jpeg_edit
    if edit is not None and isinstance(img, Image.Image) and img.mode in ("RGB", "L"):
        import numpy as np

        from . import jpeg_edit

        mask = opts.get("mask")
        if mask is None:
            mask = np.zeros((img.size[1], img.size[0]), bool)
        try:
            data, _ = jpeg_edit.edit(edit["path"], img, mask, orientation=edit["orientation"],
                                     qtables=edit["qtables"], subsampling=edit["subsampling"],
                                     header=edit.get("header"))
        except Exception as exc:  # noqa: BLE001 - jpeglib could not: encode it again instead
            note = encode(img, fh, fmt, plan.options)
            why = f"the JPEG could not be edited block by block ({type(exc).__name__}: {exc}), so it was encoded " \
                  "again with its own quantisation tables: the pixels outside the mask change slightly"
            return "; ".join(n for n in (why, note) if n)
        fh.write(data)
        return None
    return encode(img, fh, fmt, plan.options)


def save_image(img: "Image.Image | DeepImage", path: "str | os.PathLike[str]", *, exif: Any = None,
               icc_profile: bytes | None = None, quality: int = 95) -> str | None:
    """Write ``img`` to ``path`` atomically; return a note when the format lost something.

    The image goes to a temporary file in the same folder first and replaces ``path`` only
    when complete, so a failure or a signal never leaves a truncated file.
    """
    return save_images([(img, path, {"exif": exif, "icc_profile": icc_profile, "quality": quality})])[0]

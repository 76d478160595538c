"""Atomic writes: a temporary file in the destination folder, then ``os.replace``.

A signal or an error never leaves a partial file: the front ends call :func:`cleanup_temp_files`
when they stop, which also removes the private folders of :func:`new_temp_folder` (where the
command keeps a photo read from standard input).  A process killed outright (SIGKILL, a power
cut) cannot clean up, so temporary files carry a recognisable name,
``.<name>~inpaint.<host>.<pid>.<random>.tmp``, and a later write into the same folder removes
the stale ones (:func:`remove_stale_temps`): those of this host whose process is gone, owned by
this user, untouched for :data:`STALE_AFTER` seconds.  A live process's file is never removed:
its process answers, and its file is fresh while it writes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import socket
import stat
import tempfile
import threading
import time
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PIL import Image

from ..errors import InputError
from .encode import encode, output_format
from .naming import shown
from .pictures import DeepImage

_TEMP_FILES: set[str] = set()
_TEMP_LOCK = threading.Lock()


#: Seconds a dead process's temporary file must be left untouched before a later run removes it.
STALE_AFTER = 10.0
#: The part of a temporary file's name this module recognises: ``~inpaint.<host>.<pid>.``.
_TEMP_NAME = re.compile(r"^\..*~inpaint\.([0-9a-f]{8})\.([0-9]+)\.[A-Za-z0-9_]+\.tmp$")
#: Longest part of the output's name kept in a temporary file's name (bytes), so that the
#: temporary name fits wherever the output's does.
_NAME_BYTES = 160
_CLEANED: set[str] = set()


def _host_tag() -> str:
    return f"{zlib.crc32(socket.gethostname().encode('utf-8', 'replace')):08x}"


def _short(name: str) -> str:
    return os.fsdecode(os.fsencode(name)[:_NAME_BYTES])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # someone else's process: alive
        return True
    return True


def remove_stale_temps(folder: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files a killed run left in ``folder`` (see the module's docstring);
    returns their paths.  Errors are ignored: this is housekeeping."""
    removed: list[str] = []
    host, me, uid = _host_tag(), os.getpid(), getattr(os, "geteuid", lambda: None)()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        m = _TEMP_NAME.match(entry.name)
        if m is None or m.group(1) != host or int(m.group(2)) == me:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            folder = stat.S_ISDIR(st.st_mode)
            if (not (folder or stat.S_ISREG(st.st_mode)) or (uid is not None and st.st_uid != uid)
                    or now - st.st_mtime < STALE_AFTER or _alive(int(m.group(2)))):
                continue
            if folder:
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed.append(entry.path)
        except OSError:
            continue
    return removed


def new_temp(folder: Path, name: str) -> tuple[int, str]:
    """A temporary file beside the output, registered for :func:`cleanup_temp_files` before it
    exists, so that a signal at any moment of its creation leaves no file behind.  (Blocking the
    signals would not do: the kernel then hands them to another thread, a numeric library's, and
    Python still runs its handler in this one.)  The first write into a folder removes the stale
    temporary files of killed runs there (:func:`remove_stale_temps`)."""
    key = os.path.realpath(folder)
    if key not in _CLEANED:
        _CLEANED.add(key)
        remove_stale_temps(folder)
    prefix = f".{_short(name)}~inpaint.{_host_tag()}.{os.getpid()}."
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        # the process id in the name keeps it from any other live process's file
        tmp = os.path.join(folder, prefix + secrets.token_hex(6) + ".tmp")
        with _TEMP_LOCK:
            _TEMP_FILES.add(tmp)
        try:  # a signal raised here stays registered: the file may exist already
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:  # a killed run's, with this process id before
            with _TEMP_LOCK:
                _TEMP_FILES.discard(tmp)
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))


def new_temp_folder(purpose: str, parent: str | os.PathLike[str] | None = None) -> Path:
    """A private folder in ``parent`` (default: the system's temporary folder, ``TMPDIR``),
    registered for :func:`cleanup_temp_files` before it exists, and named like the temporary
    files, so that the folders of killed runs are removed by the next one (:func:`remove_stale_temps`)."""
    parent = tempfile.gettempdir() if parent is None else os.fspath(parent)
    key = os.path.realpath(parent)
    if key not in _CLEANED:
        _CLEANED.add(key)
        remove_stale_temps(parent)
    for _ in range(100):
        folder = os.path.join(parent, f".{purpose}~inpaint.{_host_tag()}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
        with _TEMP_LOCK:
            _TEMP_FILES.add(folder)
        try:
            os.mkdir(folder, 0o700)
            return Path(folder)
        except FileExistsError:
            with _TEMP_LOCK:
                _TEMP_FILES.discard(folder)
    raise FileExistsError(errno.EEXIST, "no free temporary folder name", parent)


def drop_temp(tmp: str) -> None:
    """Remove a temporary file (or folder of :func:`new_temp_folder`) and forget it."""
    try:
        if os.path.isdir(tmp) and not os.path.islink(tmp):
            shutil.rmtree(tmp)
        else:
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


def save_images(items: Iterable[tuple[Image.Image | DeepImage, str | os.PathLike[str], dict]]) -> list[str | None]:
    """Write several images atomically: every one goes to a temporary file first, and they
    replace their destinations only when all are complete.  Returns each one's note (or None).

    Each item is ``(image, path, options)``: options ``plan`` (an
    :class:`~inpaint.io.plan.OutputPlan`, made before the work) and ``mask`` (the changed pixels,
    for a JPEG written back block by block); or, without a plan, ``exif``, ``icc_profile``,
    ``quality`` and ``lossless`` (WebP).  With option ``new`` true the destination must still not
    exist when the file is put in place: a file that appeared meanwhile (another run writing the
    same name) is kept, no output of the call is written (those of new names already put in place
    are taken back), and :class:`~inpaint.errors.InputError` says so.
    """
    written: list[tuple[str, Path]] = []
    notes: list[str | None] = []
    items_seen: list[tuple[Any, Any, dict]] = []
    try:
        for img, path, opts in items:
            items_seen.append((img, path, opts))
            path = Path(path)
            fmt = output_format(path)
            folder = path.parent if str(path.parent) else Path(".")
            if not folder.is_dir():
                raise InputError(f"output folder {folder} does not exist")
            fd, tmp = new_temp(folder, path.name)
            written.append((tmp, path))
            with os.fdopen(fd, "wb") as fh:
                note = _write(img, fh, fmt, opts, folder)
                said = getattr(opts.get("plan"), "notes", ())  # printed before the work already
                notes.append(None if note in said else note)
                fh.flush()
                os.fsync(fh.fileno())  # the data is on disk before the rename makes it visible
            os.chmod(tmp, _target_mode(path))  # created 0600; give the usual permissions
        # The new names first: one that appeared meanwhile takes back those already put in place
        # (new files of this run), so that either every output is written or none is.
        order = sorted(range(len(written)), key=lambda i: not items_seen[i][2].get("new"))
        placed: list[Path] = []
        for i in order:
            tmp, path = written[i]
            new = bool(items_seen[i][2].get("new"))
            try:
                _publish(tmp, path, new)
            except BaseException:
                for done in placed:
                    with contextlib.suppress(OSError):
                        os.unlink(done)
                raise
            if new:
                placed.append(path)
            with _TEMP_LOCK:
                _TEMP_FILES.discard(tmp)
    except BaseException:
        for tmp, _ in written:
            drop_temp(tmp)
        raise
    return notes


def _publish(tmp: str, path: Path, new: bool) -> None:
    """Put the complete temporary file in place: replacing ``path``, or, when ``new``, only if no
    file of that name exists at that moment (a hard link fails on an existing name, atomically;
    where a file system has no hard links, the name is reserved first)."""
    if not new:
        os.replace(tmp, path)
        return
    appeared = InputError(f"the output {shown(path)} appeared while this run worked (another run writing it?): it "
                          "was kept and this result not written; use --overwrite to replace it")
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise appeared from None
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        try:  # no hard links here (FAT, some network shares): reserve the name, then fill it
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            raise appeared from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


#: The errors of a file system without hard links.
_NO_LINKS = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS, errno.EOPNOTSUPP,
             getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


def _write(img: Image.Image | DeepImage, fh: Any, fmt: str, opts: dict, folder: Path | None = None) -> str | None:
    """Encode one image by its plan: a JPEG block by block where the plan says so (its work files
    in ``folder``, the output's, where the output has room)."""
    plan = opts.get("plan")
    if plan is None:
        return encode(img, fh, fmt, {k: opts[k] for k in ("exif", "icc_profile", "quality", "lossless")
                                     if k in opts})
    edit = plan.jpeg_edit
    if edit is not None and isinstance(img, Image.Image) and img.mode in ("RGB", "L"):
        import numpy as np

        from . import jpeg_edit

        mask = opts.get("mask")
        if mask is None:  # no word of what changed: every block is encoded from the image
            mask = np.ones((img.size[1], img.size[0]), bool)
        work = new_temp_folder("jpeg-edit", folder)
        try:
            data, _ = jpeg_edit.edit(edit["path"], img, mask, orientation=edit["orientation"],
                                     header=edit.get("header"), work=work)
        except OSError as exc:
            if exc.errno in _NO_ROOM:  # the disk, not the JPEG: the write fails as any write there would
                raise
            return _encoded_again(img, fh, fmt, plan, exc)
        except Exception as exc:  # noqa: BLE001 - jpeglib could not: encode it again instead
            return _encoded_again(img, fh, fmt, plan, exc)
        finally:
            drop_temp(str(work))
        fh.write(data)
        return None
    return encode(img, fh, fmt, plan.options)


#: The errors of a write that no other encoding would escape (no room, no right to write).
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES}


def _encoded_again(img: Image.Image | DeepImage, fh: Any, fmt: str, plan: Any, exc: Exception) -> str:
    """The JPEG encoded again from the image (its block by block edit failed), and the note saying so."""
    from . import jpeg_edit

    note = encode(img, fh, fmt, plan.options)
    # our own reasons are in a user's words; a library's error text is not for users
    reason = f" ({exc})" if isinstance(exc, jpeg_edit.CannotEdit) else ""
    why = f"the JPEG could not be edited block by block{reason}, so it was encoded again with its own " \
          "quantisation tables: the pixels outside the mask change slightly"
    return "; ".join(n for n in (why, note) if n)


def save_image(img: Image.Image | DeepImage, path: str | os.PathLike[str], *, exif: Any = None,
               icc_profile: bytes | None = None, quality: int = 95) -> str | None:
    """Write ``img`` to ``path`` atomically; return a note when the format lost something.

    The image goes to a temporary file in the same folder first and replaces ``path`` only
    when complete, so a failure or a signal never leaves a truncated file.
    """
    return save_images([(img, path, {"exif": exif, "icc_profile": icc_profile, "quality": quality})])[0]

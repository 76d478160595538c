"""A PNG photo decoded while the ``inpaint`` command loads its own modules.

``inpaint PHOTO.png --mask MASK -o OUT`` spends its first half second importing numpy, pyopencl
and its own modules, work that holds Python's lock only in short turns; Pillow decodes with the
lock released.  So the command, run as a program, starts decoding the photo on a thread of its
own before those imports (:func:`start`), and its reading takes the decoded picture
(:func:`take`) instead of decoding it again.

Only the plain form is guessed from the command line (one image, and options from a short list);
only a PNG file, within Pillow's pixel limit, no animation, with room in memory and no
address-space limit.  The reading checks the file again and keeps every rule and error of its
own (:func:`inpaint.io.read.read_image`'s ``decoded``): whatever is unsure is left to it.  The
thread imports nothing (Pillow's format plugins are loaded first, here), says nothing, and does
not keep the process from ending.
"""

from __future__ import annotations

import os
import stat
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..wholefile import PNG_SIGNATURE, opened_whole

#: Options whose value follows them, and flags, that a plain one-image command may hold: where
#: to write, and the fill's everyday settings (a test holds them to the command's own parser).
_VALUED = ("-o", "--output", "-m", "--mask", "--device", "--backend", "--method", "-p", "--patch", "--seed",
           "--grow", "--blend", "--quality", "--progress", "--profile")
_FLAGS = ("-q", "--quiet", "-y", "--overwrite", "--force", "--stats")

_early: dict[str, Any] = {}


def _image_argument(argv: Sequence[str]) -> str | None:
    """The one image of a plain ``inpaint IMAGE --mask MASK [-o OUT] ...``, else None."""
    image = None
    tokens = iter(argv)
    for token in tokens:
        if token in _VALUED:
            if next(tokens, None) is None:
                return None
        elif token in _FLAGS or token.startswith(tuple(f"{o}=" for o in _VALUED if o.startswith("--"))):
            continue
        elif token.startswith("-") or image is not None:
            return None  # another option, standard input, or a batch: not guessed
        else:
            image = token
    return image


def _mask_missing(argv: Sequence[str]) -> bool:
    """Whether the command's ``--mask`` names no file: its one-line error comes first, and the
    photo need not be decoded for it."""
    for i, token in enumerate(argv):
        value = argv[i + 1] if token in ("-m", "--mask") and i + 1 < len(argv) else \
            token.split("=", 1)[1] if token.startswith("--mask=") else None
        if value is not None and value != "-" and not os.path.isfile(value):
            return True
    return False


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _plain_png(path: str) -> tuple[int, int] | None:
    """``(width, height)`` of a regular PNG file without animation, else None.  Nothing else is
    opened: opening a named pipe waits for a writer."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (replaced by a pipe meanwhile)
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode) or fh.read(8) != PNG_SIGNATURE:
                return None
            size = None
            while True:
                head = fh.read(8)
                if len(head) < 8:
                    return None
                length, kind = struct.unpack(">I", head[:4])[0], head[4:]
                if kind == b"IHDR":
                    size = struct.unpack(">II", fh.read(8))
                    length -= 8
                elif kind in (b"acTL", b"IEND"):
                    return None
                elif kind == b"IDAT":
                    return size
                fh.seek(length + 4, os.SEEK_CUR)
    except (OSError, ValueError, struct.error):
        return None


def _room(pixels: int) -> bool:
    """Whether the decoded photo surely fits: no address-space limit, and the memory available
    holds it many times over."""
    try:
        import resource

        if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
            return False
        with open("/proc/meminfo", encoding="ascii") as fh:
            available = next(int(line.split()[1]) << 10 for line in fh if line.startswith("MemAvailable:"))
    except (ImportError, OSError, ValueError, StopIteration):
        return False
    return pixels * 4 * 8 < available


def start(argv: Sequence[str]) -> None:
    """Start decoding the photo of a plain one-image command on a thread, when it is a PNG file
    that surely can be; nothing otherwise."""
    path = _image_argument(argv)
    size = _plain_png(path) if path is not None and not _mask_missing(argv) else None
    if size is None:
        return
    from PIL import Image

    Image.preinit()  # the PNG plugin, imported here: the thread imports nothing
    if size[0] * size[1] > Image.MAX_IMAGE_PIXELS or not _room(size[0] * size[1]):
        return
    done = threading.Event()

    def decode() -> None:
        try:
            st = os.stat(path)
            img = opened_whole(Path(path), Image.open(path, formats=["PNG"]))
            tiles = list(img.tile)
            img.load()
            _early.update(image=img, tiles=tiles, identity=_identity(st))
        except Exception:  # noqa: BLE001 - anything amiss is the ordinary reading's to find and say
            pass
        finally:
            done.set()

    _early.update(path=path, done=done)
    threading.Thread(target=decode, name="inpaint-decode", daemon=True).start()


def take(path: Any) -> tuple[Any, list] | None:
    """``(picture, its tiles)`` decoded by :func:`start`, once, when ``path`` names the same file,
    unchanged since; else None.  Waits for the decoding to end."""
    done = _early.pop("done", None)
    if done is None:
        return None
    done.wait()
    found, _early_path = dict(_early), _early.get("path")
    _early.clear()
    if "image" not in found:
        return None
    try:
        same = os.path.samefile(str(path), _early_path) and _identity(os.stat(path)) == found["identity"]
    except (OSError, ValueError):
        same = False
    if not same:
        found["image"].close()
        return None
    return found["image"], found["tiles"]

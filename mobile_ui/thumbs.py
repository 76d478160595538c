"""Small previews of photos for the Open and Save dialogs, window-free.

A preview is made once per photo version (path, size and modification time) with Pillow,
decoding JPEGs at a reduced scale (``Image.draft``), turned upright by its EXIF orientation,
and kept as a PNG in a cache folder, so a folder of 12 MP photos is shown from small files
the second time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: The longest side of a preview, in pixels.
SIZE = 192
#: The most previews kept (about 40 KB each): past it, making one removes those shown longest ago.
KEEP = 1000


def cache_name(path: str | os.PathLike[str]) -> str | None:
    """The cache file name of ``path``'s current version (None when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{os.path.abspath(path)}\0{st.st_size}\0{st.st_mtime_ns}\0{SIZE}".encode("utf-8", "surrogateescape")
    return hashlib.sha1(key).hexdigest() + ".png"


def thumbnail(path: str | os.PathLike[str], cache: str | os.PathLike[str]) -> Path | None:
    """The preview of the photo at ``path`` (made now if not cached in ``cache``); None when the
    file is not a picture Pillow can read.

    Parameters
    ----------
    path : path-like
        A photo.
    cache : path-like
        The folder previews are kept in (created if missing).

    Returns
    -------
    pathlib.Path or None
        A PNG at most :data:`SIZE` pixels a side.
    """
    from PIL import Image, ImageOps

    name = cache_name(path)
    if name is None:
        return None
    folder = Path(cache)
    dest = folder / name
    if dest.is_file():
        try:
            os.utime(dest)  # shown now: kept the longest
        except OSError:
            pass
        return dest
    try:
        with Image.open(path) as im:
            im.draft("RGB", (SIZE, SIZE))          # JPEG: decode at 1/2 to 1/8 scale
            im = ImageOps.exif_transpose(im)
            im.thumbnail((SIZE, SIZE))
            small = im.convert("RGBA" if "A" in im.getbands() else "RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    try:
        small.save(tmp, "PNG")
        os.replace(tmp, dest)
    except OSError:
        tmp.unlink(missing_ok=True)
        return None
    prune(folder, KEEP)
    return dest


def prune(cache: str | os.PathLike[str], keep: int) -> None:
    """Keep the ``keep`` previews in ``cache`` shown last: every new version of a photo is a
    preview of its own, so without this the folder only grows.  Errors are ignored."""
    try:
        with os.scandir(cache) as it:
            found = [(e.stat().st_mtime, e.path) for e in it if e.is_file() and e.name.endswith(".png")]
    except OSError:
        return
    for _, path in sorted(found)[:max(len(found) - keep, 0)]:
        try:
            os.unlink(path)
        except OSError:
            pass

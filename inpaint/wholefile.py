"""Opening an image so that Pillow decodes its data in one call, not a block at a time.

Pillow decodes a file a block at a time (64 KB, or one of a PNG's IDAT chunks: 8 KB as libpng
writes them), taking Python's lock between blocks.  Beside a thread that runs Python each block
then waits for the lock: a 12 MP PNG decoded in 1.1 s instead of 0.23 s beside a busy thread.  A
command's photo decodes beside the command's imports, and a batch's next photo beside the fills.
This module imports Pillow only when it opens a file: the command starts decoding with it before
its other modules, and reads its PNG signature before it knows there is a photo.
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Memory :func:`opened_whole` takes beyond the decoded picture, per byte of the file: a PNG's
#: bytes, and the same bytes joined, until it decodes (a JPEG's, once).
EXTRA_BYTES_PER_FILE_BYTE = 2


def _joined_idat(data: bytes) -> bytes | None:
    """A PNG's bytes with its pixel data (the run of IDAT chunks) in one chunk; None where there is
    nothing to join or the chunks do not read plainly (left to Pillow, to decode or to refuse)."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    view = memoryview(data)
    pos, first, last, parts = len(PNG_SIGNATURE), None, None, []
    while pos + 12 <= len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind, end = data[pos + 4:pos + 8], pos + 12 + length
        if end > len(data) or kind == b"acTL":  # truncated, or an animation's frames
            return None
        if kind == b"IDAT":
            if last is not None and last != pos:  # IDAT chunks apart: not a plain file
                return None
            first = pos if first is None else first
            parts.append(view[pos + 8:end - 4])
            last = end
        elif kind == b"IEND":
            break
        pos = end
    if len(parts) < 2:
        return None
    crc = zlib.crc32(b"IDAT")
    for part in parts:
        crc = zlib.crc32(part, crc)
    size = sum(len(part) for part in parts)
    return b"".join((view[:first], struct.pack(">I", size), b"IDAT", *parts, struct.pack(">I", crc), view[last:]))


def opened_whole(path: Path, img: Image.Image) -> Image.Image:
    """``img``, just opened from ``path``, set to decode its data in one call (see the module).

    A PNG whose pixels lie in several IDAT chunks is opened again from its bytes with them joined
    in one (the same pixels and chunks; twice the file's size in memory meanwhile, see
    :data:`EXTRA_BYTES_PER_FILE_BYTE`); a JPEG reads its whole file at once.  Anything else, or a
    file that does not read plainly, is returned as it is, to decode as Pillow would."""
    if img.format == "JPEG":
        img.decodermaxblock = max(img.decodermaxblock, path.stat().st_size)
        return img
    if img.format != "PNG":
        return img
    from PIL import Image

    try:
        joined = _joined_idat(path.read_bytes())
        if joined is None:
            return img
        whole = Image.open(io.BytesIO(joined), formats=["PNG"])
    except Exception:  # noqa: BLE001 - the file as Pillow opened it decides
        return img
    whole.decodermaxblock = len(joined)
    img.close()
    return whole

"""Standard input and output as image files: ``inpaint - --mask m.png -o - < in.jpg > out.jpg``.

The commands work on files: a JPEG written back as JPEG is edited block by block from its input
file, and results are written atomically.  So an input given as ``-`` is first copied from
standard input into a temporary file named with the extension of the format its bytes hold, and
a result going to ``-`` is written to a temporary file and copied to standard output once the
whole result is written (before the line that says so): a run that fails writes nothing there.
While the run goes, everything it prints goes to standard error (standard output holds the image
alone), and its messages name the streams instead of the temporary files.

``-o -`` writes the input's format; ``-o png:-`` (as ImageMagick and vips write it) the format
of that extension.  One run reads at most one file from standard input, and a batch none.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import select
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError

#: The name of standard input or output on the command line.
STREAM = "-"
#: ``FORMAT:-``: standard output in that format (its usual extension, such as ``png`` or ``jpg``).
_TYPED = re.compile(r"([A-Za-z0-9]+):-")
#: What messages call the temporary files that stand for the streams.
STDIN_NAME, STDOUT_NAME = "standard input", "standard output"
#: Bytes of standard input read before its first bytes are checked for an image's signature.
_HEAD = 1 << 16
#: Bytes of standard input in which its image's header is looked for (a TIFF's may be at its end).
_HEADER_MOST = 1 << 24
#: Bytes copied at a time, in and out.
_CHUNK = 1 << 20


class StreamPath(type(Path())):  # type: ignore[misc]
    """A command line's ``-`` or ``FORMAT:-``: standard input or output, not a file.  Every other
    name is a :class:`~pathlib.Path`, also ``./-`` (the file named ``-``), which a plain path
    would fold into ``-``."""


def command_path(text: str | os.PathLike[str]) -> Path:
    """A file name from the command line as a path: a :class:`StreamPath` for ``-`` and
    ``FORMAT:-``, else a plain :class:`~pathlib.Path`."""
    if isinstance(text, Path):
        return text
    return StreamPath(text) if is_stream(text) else Path(text)


def is_stream(value: Any) -> bool:
    """Whether a command-line file name means standard input or output: the text ``-`` or
    ``FORMAT:-`` (not ``./-``), or a :class:`StreamPath`; a plain path is always a file."""
    if isinstance(value, StreamPath):
        return True
    return isinstance(value, str) and (value == STREAM or _TYPED.fullmatch(value) is not None)


def _extension(data_path: Path) -> str:
    """The usual extension of the image format the file's bytes hold, or ``''``.

    Raises
    ------
    InputError
        An image of more pixels than the limit (``--max-pixels``).
    """
    from PIL import Image, UnidentifiedImageError

    from ..io.read import too_large
    from ..io.warnfilters import filtered

    try:
        with filtered("error", Image.DecompressionBombWarning):
            with Image.open(data_path) as img:
                fmt = img.format
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise too_large(f"the image on {STDIN_NAME}", exc) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return ""
    # A phone's JPEG with its previews (MPO) is a JPEG: it is read and written as one.
    preferred = {"JPEG": ".jpg", "MPO": ".jpg", "TIFF": ".tif", "PNG": ".png", "WEBP": ".webp", "BMP": ".bmp",
                 "GIF": ".gif"}
    if fmt in preferred:
        return preferred[fmt]
    return next((ext for ext, name in sorted(Image.registered_extensions().items()) if name == fmt), "")


def _signed(head: bytes) -> bool:
    """Whether ``head`` (the first bytes of a stream) starts as some image format Pillow reads.
    Formats without a signature (TGA, for one) take any bytes, and so cannot tell an image from
    noise: a format counts only when it refuses bytes that are all zero."""
    from PIL import Image

    Image.init()
    blank = bytes(len(head))
    return any(accept is not None and accept(head) and not accept(blank) for accept in
               (accept for _, accept in Image.OPEN.values()))


def _head_pixels(head: bytes, what: str) -> int | None:
    """The number of pixels the image whose file starts with ``head`` declares, or None when
    its header is not all in ``head``.

    Raises
    ------
    InputError
        More pixels than the limit (``--max-pixels``).
    """
    import io

    from PIL import Image

    from ..io.read import too_large
    from ..io.warnfilters import filtered

    try:
        with filtered("error", Image.DecompressionBombWarning):
            with Image.open(io.BytesIO(head)) as img:
                return img.size[0] * img.size[1]
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise too_large(f"the {what} on {STDIN_NAME}", exc) from None
    except Exception:  # noqa: BLE001 - a truncated header makes a decoder raise anything
        return None


class _Renaming:
    """Standard error for the run: the temporary files' names written as the streams they stand for."""

    def __init__(self, stream: Any, names: dict[str, str]):
        self._stream = stream
        self._names = names

    def write(self, text: str) -> int:
        return self._stream.write(_renamed(text, self._names))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _renamed(text: str, names: dict[str, str]) -> str:
    """``text`` with the temporary files' names (also in a file's folder) written as the streams."""
    for path, name in names.items():
        text = text.replace(path, name)
    return text


def _read_stdin(folder: Path, what: str) -> Path:
    """Copy standard input into ``folder``; the copy's path, named with its format's extension.

    At most what an image of ``--max-pixels`` pixels could need is copied (as a file of more is
    refused), bytes that do not start as an image are refused after the first :data:`_HEAD`, and
    an image whose header declares more pixels than the limit as soon as its header is in.
    """
    from PIL import Image

    from ..io.read import file_limit

    stream = sys.stdin
    if stream is None or getattr(stream, "buffer", None) is None:
        raise InputError(f"standard input is closed: there is no {what} to read from '-'")
    if stream.isatty():
        raise InputError(f"the {what} '-' is read from standard input, which is a terminal: redirect a file "
                         "into it (< photo.jpg) or give a file name")
    limit = Image.MAX_IMAGE_PIXELS
    most = file_limit(limit) if limit else None
    spool = folder / "stdin"
    head: bytearray | None = bytearray()  # the first bytes, until the header is in
    look_at = _HEAD
    size = 0
    try:
        with open(spool, "wb") as f:
            while chunk := stream.buffer.read(_CHUNK if head is None else _HEAD):
                f.write(chunk)
                size += len(chunk)
                if most is not None and size > most:
                    raise InputError(f"the {what} on standard input is larger than an image of at most {limit} "
                                     f"pixels could be ({most} bytes); raise the limit with --max-pixels")
                if head is None:
                    continue
                head += chunk
                if len(head) < look_at:
                    continue
                if look_at == _HEAD and not _signed(bytes(head[:16])):
                    raise InputError(f"the {what} on standard input is not an image this tool can read (its first "
                                     f"{len(head)} bytes hold no image format's signature)")
                pixels = _head_pixels(bytes(head), what)
                look_at *= 2  # a header in a longer head (a large profile or preview first) is looked for again
                if pixels is not None or look_at > _HEADER_MOST:
                    head = None
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise InputError(f"no room in the temporary folder {folder.parent} to hold the {what} from standard "
                             f"input ({size} bytes so far); set TMPDIR to a folder with room") from None
        raise InputError(f"cannot keep the {what} from standard input in {folder.parent}: "
                         f"{exc.strerror or exc}") from None
    if size == 0:
        raise InputError(f"standard input is empty: there is no {what} to read from '-'")
    ext = _extension(spool)
    if not ext:
        raise InputError(f"the {what} on standard input ({size} bytes) is not an image this tool can read")
    return spool.rename(spool.with_suffix(ext))


def _stdout_target(folder: Path, value: str, like: Path | None) -> Path:
    from ..io.encode import output_format

    out = sys.stdout
    if out is None or getattr(out, "buffer", None) is None:
        raise InputError("standard output is closed: there is nowhere to write the image of -o -")
    if out.isatty():
        raise InputError("standard output is a terminal: redirect it (> out.jpg), pipe it, or give -o FILE")
    typed = _TYPED.fullmatch(value)
    ext = f".{typed.group(1).lower()}" if typed else (like.suffix.lower() if like is not None and like.suffix
                                                       else ".png")
    target = folder / f"stdout{ext}"
    try:
        output_format(target)
    except InputError:
        raise InputError(f"-o {value}: {typed.group(1) if typed else ext} is not an image format; write it as "
                         "png:-, jpg:-, tif:-, webp:- or bmp:-") from None
    return target


def write_all(stream: Any, data: bytes | memoryview) -> None:
    """Write all of ``data`` to the binary ``stream``.  An unbuffered stream (``PYTHONUNBUFFERED``)
    may take part of it and a non-blocking one none for a moment: the rest is written as the
    stream takes it."""
    view = memoryview(data).cast("B")
    while view:
        try:
            done = stream.write(view)
        except BlockingIOError as exc:  # a buffered writer says how much it took
            done = exc.characters_written
        if not done:
            try:
                fd = stream.fileno()
            except (AttributeError, OSError, ValueError):
                raise OSError(errno.EIO, "standard output takes no more data") from None
            select.select([], [fd], [])
            continue
        view = view[done:]


#: The result a run sends to standard output while its body runs: ``[temporary file, stream]``,
#: emptied once copied (one run a process writes to standard output).
_PENDING: list = []


def deliver(paths: Sequence[Any]) -> None:
    """Copy the run's result to standard output now, if it is among ``paths`` just written: the
    summary printed after it then tells of a finished copy (a full device or a closed pipe is
    the run's error, before any line says it succeeded)."""
    if _PENDING and any(os.fspath(p) == os.fspath(_PENDING[0]) for p in paths):
        target, out = _PENDING
        _PENDING.clear()
        if target.exists():
            _copy_out(target, out)


def _copy_out(source: Path, out: Any) -> None:
    """Copy the finished result to standard output ``out``, whole."""
    out.flush()
    with open(source, "rb") as f:
        while chunk := f.read(_CHUNK):
            write_all(out.buffer, chunk)
    out.buffer.flush()


@contextlib.contextmanager
def standard_streams(inputs: Sequence[tuple[str, Path | None]], output: Path | None,
                     extra_outputs: Sequence[tuple[str, Any]] = ()) -> Iterator[tuple[list[Path | None], Path | None]]:
    """The run's files with ``-`` made temporary files; yields ``(inputs, output)``.

    ``inputs`` are ``(what, path)`` pairs (``path`` None when not given); at most one may be
    ``-``.  ``output`` may be ``-`` or ``FORMAT:-``: the result goes to a temporary file, copied
    to standard output when the body finishes without an error.  ``extra_outputs`` (``(option,
    path)``: ``--save-mapping``, ``--save-seams``) may not be streams.  Without any ``-`` this
    changes nothing.

    Raises
    ------
    InputError
        Two inputs from standard input, a second output to it, a closed or terminal stream, data
        that is no image, an unknown ``FORMAT:-``.
    """
    read = [(what, p) for what, p in inputs if p is not None and is_stream(p)]
    for option, p in extra_outputs:
        if p is not None and is_stream(p):
            raise InputError(f"{option} cannot be standard output ('-'); give a file name")
    if not read and (output is None or not is_stream(output)):
        yield list(p for _, p in inputs), output
        return
    if len(read) > 1:
        raise InputError(f"only one file can come from standard input: the {read[0][0]} and the {read[1][0]} "
                         "are both '-'")
    from ..io.atomic import drop_temp, new_temp_folder

    folder = new_temp_folder("stdio")
    try:
        names: dict[str, str] = {}
        paths = []
        for what, p in inputs:
            if p is not None and is_stream(p):
                p = _read_stdin(folder, what)
                names[str(p)] = STDIN_NAME
            paths.append(p)
        target = None
        if output is not None and is_stream(output):
            like = next((q for (_, p), q in zip(inputs, paths) if p is not None), None)
            target = _stdout_target(folder, os.fspath(output), like)
            names[str(target)] = STDOUT_NAME
        names[str(folder)] = "a temporary folder"
        err, out = sys.stderr, sys.stdout
        sys.stderr = _Renaming(err, names)
        _PENDING[:] = [target, out] if target is not None else []
        try:
            with contextlib.redirect_stdout(sys.stderr) if target is not None else contextlib.nullcontext():
                yield paths, target if target is not None else output
        except Exception as exc:  # its message is printed outside: it names the streams, not the files
            if isinstance(exc, OSError):
                for attr in ("filename", "filename2"):
                    if isinstance(getattr(exc, attr), str):
                        setattr(exc, attr, _renamed(getattr(exc, attr), names))
            else:
                exc.args = tuple(_renamed(a, names) if isinstance(a, str) else a for a in exc.args)
            raise
        finally:
            sys.stderr = err
        if _PENDING:  # not delivered by the body
            _PENDING.clear()
            if target.exists():
                _copy_out(target, out)
    finally:
        _PENDING.clear()
        drop_temp(str(folder))

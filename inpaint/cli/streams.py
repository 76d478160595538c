"""Standard input and output as image files: ``inpaint - --mask m.png -o - < in.jpg > out.jpg``.

The commands work on files: a JPEG written back as JPEG is edited block by block from its input
file, and results are written atomically.  So an input given as ``-`` is first copied from
standard input into a temporary file named with the extension of the format its bytes hold, and
a result going to ``-`` is written to a temporary file and copied to standard output once the
whole run has succeeded: a run that fails writes nothing there.  While the run goes, everything
it prints goes to standard error (standard output holds the image alone), and its messages name
the streams instead of the temporary files.

``-o -`` writes the input's format; ``-o png:-`` (as ImageMagick and vips write it) the format
of that extension.  One run reads at most one file from standard input, and a batch none.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
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


def is_stream(value: Any) -> bool:
    """Whether a command-line file name means standard input or output (``-``, ``png:-``)."""
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    return isinstance(text, str) and (text == STREAM or _TYPED.fullmatch(text) is not None)


def _extension(data_path: Path) -> str:
    """The usual extension of the image format the file's bytes hold, or ``''``."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(data_path) as img:
            fmt = img.format
    except (UnidentifiedImageError, OSError, ValueError):
        return ""
    preferred = {"JPEG": ".jpg", "TIFF": ".tif", "PNG": ".png", "WEBP": ".webp", "BMP": ".bmp", "GIF": ".gif"}
    if fmt in preferred:
        return preferred[fmt]
    return next((ext for ext, name in sorted(Image.registered_extensions().items()) if name == fmt), "")


class _Renaming:
    """Standard error for the run: the temporary files' names written as the streams they stand for."""

    def __init__(self, stream: Any, names: dict[str, str]):
        self._stream = stream
        self._names = names

    def write(self, text: str) -> int:
        for path, name in self._names.items():
            text = text.replace(path, name)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _read_stdin(folder: Path, what: str) -> Path:
    stream = sys.stdin
    if stream is None or getattr(stream, "buffer", None) is None:
        raise InputError(f"standard input is closed: there is no {what} to read from '-'")
    if stream.isatty():
        raise InputError(f"the {what} '-' is read from standard input, which is a terminal: redirect a file "
                         "into it (< photo.jpg) or give a file name")
    spool = folder / "stdin"
    with open(spool, "wb") as f:
        shutil.copyfileobj(stream.buffer, f, 1 << 20)
    if spool.stat().st_size == 0:
        raise InputError(f"standard input is empty: there is no {what} to read from '-'")
    ext = _extension(spool)
    if not ext:
        raise InputError(f"the {what} on standard input ({spool.stat().st_size} bytes) is not an image Pillow "
                         "can read")
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
    folder = Path(tempfile.mkdtemp(prefix="inpaint-stdio-"))
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
        err, out = sys.stderr, sys.stdout
        sys.stderr = _Renaming(err, names)
        try:
            with contextlib.redirect_stdout(sys.stderr) if target is not None else contextlib.nullcontext():
                yield paths, target if target is not None else output
        finally:
            sys.stderr = err
        if target is not None and target.exists():
            data = target.read_bytes()
            out.flush()
            out.buffer.write(data)
            out.buffer.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

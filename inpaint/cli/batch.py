"""Batches for the commands: which files a batch holds, how masks pair with images, and the
loop that runs the files, reports a bad one and carries on.

``inpaint`` and ``inpaint resize`` share these rules, so a folder means the same to both:

* a folder given stands for its image files (:data:`IMAGE_EXTENSIONS`), sorted by name, less
  masks and earlier results (names ending in ``_mask``, ``_removed`` or ``_resized``, unless
  such a file has a mask of its own beside it: then it is a photo named so);
* a file-name pattern (``'photos/*.jpg'``, quoted so that the shell leaves it to the command)
  stands for the image files it matches, sorted by name, less the masks of images it does not
  match (``x_mask.png`` beside ``x.jpg`` for ``'*.png'``): a batch even when it matches one;
* the mask of ``x.jpg`` is ``x_mask.png`` beside it, or ``DIR/x.png`` from a mask folder (any
  image extension, PNG first); for a link, the mask of the file it names is found too;
* results go beside the inputs under a suffixed name, or into an ``-o`` folder under the
  input's own name (for one image too); a batch never takes a result for an input, and leaves
  out an image whose result exists (already done) unless ``--overwrite``.
"""

from __future__ import annotations

import contextlib
import contextvars
import glob
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .. import cancel
from ..errors import BuildFailure, InputError, ReportLost
from ..io.naming import (
    IMAGE_EXTENSIONS,
    MASK_SUFFIX,
    RESULT_SUFFIXES,
    find_mask,
    is_image_name,
    paired_file,
    result_name,
    shown,
)
from .guard import (
    EXIT_BAD_INPUT,
    EXIT_NO_DEVICE,
    error_message,
    exit_code,
    stop_exception,
    thread_error,
)
from .shared import say

#: Image file extensions a batch folder is scanned for.
#: Name endings of the files a folder scan leaves out: masks and results of earlier runs.
SKIPPED_SUFFIXES = (MASK_SUFFIX, *RESULT_SUFFIXES)
#: The characters that make a command-line name a file-name pattern (:mod:`glob`'s).
_PATTERN_CHARS = frozenset("*?[")


def is_pattern(item: str) -> bool:
    """Whether a command-line name is a file-name pattern (``'photos/*.jpg'``): it holds ``*``,
    ``?`` or ``[`` and no file has that very name."""
    return bool(_PATTERN_CHARS & set(item)) and not os.path.lexists(item)


def is_batch(items: Sequence[str]) -> bool:
    """Whether the command's inputs make a batch: several, one folder, or one file-name pattern
    (whatever it matches)."""
    return len(items) > 1 or (len(items) == 1 and (Path(items[0]).is_dir() or is_pattern(items[0])))


def batch_images(items: Sequence[str]) -> list[Path]:
    """The images of a batch: the files given, the image files of the folders given (less masks
    and earlier results, by name), and the image files each pattern matches.

    Raises
    ------
    InputError
        A pattern that matches no image file, or no image at all.
    """
    from .streams import is_stream

    found: list[Path] = []
    for item in items:
        if is_stream(item):
            raise InputError("'-' (standard input) takes one image, not a batch: give the batch's files or folders")
        path = Path(item)
        if is_pattern(item):
            matches = sorted(p for p in map(Path, glob.glob(item, recursive=True)) if p.is_file() and is_image_name(p))
            # the mask of an image the pattern leaves out is no photo (those of its images: see plan_batch)
            stems = {(m.parent, m.stem) for m in matches}
            matches = [m for m in matches if not (_mask_of_another(m) and
                                                  (m.parent, m.stem[:-len(MASK_SUFFIX)]) not in stems)]
            if not matches:
                raise InputError(f"no image file matches {shown(item)} (looked for {', '.join(IMAGE_EXTENSIONS)}); "
                                 "nothing was done")
            found += matches
        elif path.is_dir():
            found += sorted(f for f in path.iterdir() if f.is_file() and is_image_name(f) and not _left_out(f))
        else:
            found.append(path)
    if not found:
        raise InputError(f"no image file in {', '.join(map(shown, items))} (looked for {', '.join(IMAGE_EXTENSIONS)})")
    return found


def _has_own_mask(f: Path) -> bool:
    """Whether ``x_removed.png`` (or another name a batch leaves out) has a mask of its own beside
    it: then it is a photo that happens to be named so."""
    return find_mask(f)[0].is_file()


def _mask_of_another(f: Path) -> bool:
    """Whether ``f`` is ``x_mask.*`` beside an image ``x.*``, with no mask of its own."""
    if not f.stem.endswith(MASK_SUFFIX) or _has_own_mask(f):
        return False
    base = f.stem[:-len(MASK_SUFFIX)]
    return any((f.parent / f"{base}{ext}").is_file() or (f.parent / f"{base}{ext.upper()}").is_file()
               for ext in IMAGE_EXTENSIONS)


def _left_out(f: Path) -> bool:
    """Whether a folder's file is a mask or an earlier result by its name, not a photo: a name
    ending in ``_mask``, ``_removed`` or ``_resized``, without a mask of its own."""
    return f.stem.endswith(SKIPPED_SUFFIXES) and not _has_own_mask(f)


def check_shared(files: Sequence[tuple[str, Any]], out_dir: Path | None) -> None:
    """Check once, before any work, what every image of a batch shares: each file given for all
    of them (``(what, path)``: ``--mask``, ``--protect``, ``--remove``; a folder of masks or None
    is left out), and an existing ``-o`` folder's access; a problem there is one line, not one a
    photo.

    Raises
    ------
    InputError
    """
    from ..io.read import check_name, check_regular

    for what, path in files:
        if path is not None and not Path(path).is_dir():
            check_name(path, what)
            check_regular(path, what)
    if out_dir is not None and out_dir.is_dir() and not os.access(out_dir, os.W_OK | os.X_OK):
        raise InputError(f"output folder {out_dir} is not writable")


def batch_mask(value: str | None, image: Path) -> Path | None:
    """A per-image mask option of a batch (``--protect``, ``--remove``): one file for every image,
    or a folder holding ``DIR/<stem>.<ext>`` for each (:func:`paired_file`); None when not given."""
    if not value:
        return None
    return paired_file(image, Path(value)) if Path(value).is_dir() else Path(value)


def named_folder(output: str | None) -> Path | None:
    """The folder ``-o`` names: an existing folder, or a new one written with a trailing slash
    (``done/``); None for anything else (a file name, standard output, no ``-o``)."""
    from .streams import is_stream

    if output is None or is_stream(output):
        return None
    folder = Path(output)
    if folder.is_dir() or (output.endswith(("/", os.sep)) and not folder.exists()):
        return folder
    if output.endswith(("/", os.sep)):
        raise InputError(f"-o {output} names a folder, but {folder} is a file")
    return None


def output_folder(output: str | None) -> Path | None:
    """A batch's ``-o``: ``None`` (results beside the inputs), an existing folder, or a new one
    named with a trailing slash (``done/``), made by :func:`make_output_folder` once the batch's
    checks have passed."""
    from .streams import is_stream

    if output is None:
        return None
    if is_stream(output):
        raise InputError(f"-o {output} (standard output) takes one image, not a batch: give a folder")
    folder = named_folder(output)
    if folder is None:
        raise InputError(f"with several images, -o must be an existing folder, or a new one ending in '/'; "
                         f"{output} is not")
    return folder


def single_output(image: Path, output: str | None, suffix: str) -> tuple[Path, Path | None]:
    """Where one image's result goes, and the ``-o`` folder to make first (None: none).

    ``-o FILE`` is the file; ``-o DIR/`` (a trailing slash, or an existing folder) puts the result
    where a batch would (:func:`output_for`); without ``-o`` the result goes beside the input.
    """
    from .streams import command_path, is_stream

    folder = None if is_stream(image) else named_folder(output)
    if folder is not None:
        return output_for(image, folder, suffix), folder
    if output is not None:
        return command_path(output), None
    out = output_for(image, None, suffix)
    if not is_stream(image):
        writable_beside(image, out)
    return out, None


def writable_beside(image: Path, out: Path) -> None:
    """Refuse a result named after an input whose format cannot be written (an iPhone's HEIC),
    saying first when the input itself cannot be read: the user named neither the format nor
    the result."""
    from PIL import Image, UnidentifiedImageError

    from ..io import output_format, read_image

    try:
        output_format(out)
        return
    except InputError:
        pass
    try:
        with Image.open(image):
            pass
    except (UnidentifiedImageError, OSError):
        read_image(image)  # raises the input's own error
    raise InputError(f"a result cannot be written as {shown(out.suffix)} (the format of {shown(image.name)}): "
                     f"name one with -o, such as -o {shown(out.with_suffix('.png').name)}")


def make_output_folder(folder: Path | None) -> None:
    """Make a batch's new output folder (and its parents); nothing when it exists or is ``None``."""
    if folder is not None and not folder.is_dir():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(f"cannot make the output folder {folder}: {e.strerror or e}") from e


@contextlib.contextmanager
def made_output_folder(folder: Path | None) -> Iterator[None]:
    """:func:`make_output_folder` for one image's run: a folder it makes is removed again, where
    still empty, when the run fails or is stopped (its checks refused the input, say)."""
    new = folder is not None and not folder.is_dir()
    make_output_folder(folder)
    try:
        yield
    except BaseException:
        if new:
            with contextlib.suppress(OSError):
                folder.rmdir()  # (only an empty folder)
        raise


def output_for(image: Path, folder: Path | None, suffix: str) -> Path:
    """Where a result goes: ``FOLDER/<name>``, or ``<stem><suffix>.<ext>`` beside the input; for
    an image read from standard input (``-``), standard output."""
    from .streams import STREAM, StreamPath, is_stream

    if is_stream(image):
        return StreamPath(STREAM)
    if folder is not None:
        return folder / image.name
    return result_name(image, suffix)


def _identities(path: Path) -> set[Any]:
    """What names one file: its real path (links and ``..`` resolved) and, for an existing file,
    its device and inode (hard links, bind mounts)."""
    found: set[Any] = {os.path.realpath(path)}
    try:
        st = os.stat(path)
        found.add((st.st_dev, st.st_ino))
    except (OSError, ValueError):
        pass
    return found


def _listed(paths: Sequence[Path], limit: int = 3) -> str:
    """A few file names for a note: ``a.png, b.png, ...``."""
    return ", ".join(shown(p.name) for p in paths[:limit]) + (", ..." if len(paths) > limit else "")


def plan_batch(prog: str, jobs: Sequence[tuple[Path, Sequence[Path], Path]], quiet: bool = False, *,
               overwrite: bool = False, own: Sequence[bool] | None = None) -> list[int]:
    """Check a batch before any work; returns the indices of the jobs to run.

    ``jobs`` holds ``(image, other inputs (masks), output)`` for each image.  Every path is
    resolved to the file it names (:func:`os.path.realpath` and the device and inode), so ``x``,
    ``./x``, ``sub/../x`` and links to ``x`` are one file:

    * a file that is another image's mask (by the pairing rule: ``x_mask.png`` beside ``x.png``,
      ``--masks``, ``--mask``, ``--protect``, ``--remove``) is no image of the batch: it is left
      out, and one note says how many were (``inpaint photos/*`` on a folder holding masks);
    * a file that is another image's result (``x_removed.png`` or ``x_resized.png`` beside
      ``x.png``, or the ``-o`` folder's ``x.png``) is no image of the batch either: an output is
      never an input, and one note says how many were left out;
    * an image named twice (the same name, or two names of one file: links) is done once, under
      the name whose mask pairs with it by name (``own``: True for such a job; a plain file
      before a symbolic link, else the first given), and a note says so;
    * a result that would replace any input of the batch (an image or a mask, its own or
      another's), or that two images would share, refuses the whole batch, before anything is
      written (an input is never replaced by a batch, even with ``--force``);
    * an image whose result exists is already done: left out unless ``overwrite``, with a note.

    Raises
    ------
    InputError
        A collision, naming both files.
    """
    n = len(jobs)
    own = list(own) if own is not None else [False] * n
    images = [_identities(image) for image, _, _ in jobs]
    masks = [set().union(*map(_identities, others)) for _, others, _ in jobs]
    outs = [_identities(out) for _, _, out in jobs]
    # what this batch or an earlier run writes for each image: its output, and the results of
    # both commands beside it (``x_removed.png`` is an earlier result even for ``-o FOLDER``)
    results = [outs[j].union(*(_identities(result_name(image, suffix)) for suffix in RESULT_SUFFIXES))
               for j, (image, _, _) in enumerate(jobs)]

    def owners(table: list[set[Any]]) -> dict[Any, list[int]]:
        found: dict[Any, list[int]] = {}
        for j, ids in enumerate(table):
            for k in ids:
                found.setdefault(k, []).append(j)
        return found

    mask_of, result_of = owners(masks), owners(results)

    def others(ids: set[Any], table: dict[Any, list[int]]) -> set[int]:
        return {j for k in ids for j in table.get(k, ())}

    # the mask of an input that is another file, unless that file is this one's mask (a pair of
    # images, each the other's mask, are both filled)
    is_mask = [any(not images[i] & images[j] and not images[j] & masks[i] for j in others(images[i], mask_of))
               for i in range(n)]
    # the result of another image of the batch (never the image's own result: that is a collision)
    # (a file with its own mask by name is a photo named so, not a result: see _has_own_mask)
    is_result = [not is_mask[i] and not own[i] and any(not is_mask[j] and not images[i] & images[j]
                                                       for j in others(images[i], result_of)) for i in range(n)]
    # one file under several names: done once, under its best name
    groups: list[list[int]] = []
    group_of: dict[Any, int] = {}
    for i in range(n):
        if is_mask[i] or is_result[i]:
            continue
        g = next((group_of[k] for k in images[i] if k in group_of), None)
        if g is None:
            g = len(groups)
            groups.append([])
        groups[g].append(i)
        group_of.update(dict.fromkeys(images[i], g))
    keep = []
    for group in groups:
        best = max(group, key=lambda i: (own[i], not jobs[i][0].is_symlink(), -i))
        keep.append(best)
        if not quiet:
            for i in group:
                if i == best:
                    continue
                image, first = jobs[i][0], jobs[best][0]
                same = "" if str(image) == str(first) else f"{shown(first)}, "
                say(f"{prog}: note: {shown(image)} is {same}given twice: it is done once")
    keep.sort()
    if not quiet:
        for count, what in ((sum(is_mask), "mask"), (sum(is_result), "earlier result")):
            if count:
                say(f"{prog}: note: skipped {count} {what}{'s' if count != 1 else ''} of other inputs")
    inputs: dict[Any, tuple[str, Path]] = {}
    for i, (image, masks_of_i, _) in enumerate(jobs):
        if not is_result[i]:
            for k in images[i]:
                inputs.setdefault(k, ("input image", image))
        for other in masks_of_i:
            for k in _identities(other):
                inputs.setdefault(k, ("mask", other))
    taken: dict[Any, Path] = {}
    for i in keep:
        image, _, out = jobs[i]
        hit = next((inputs[k] for k in outs[i] if k in inputs), None)
        if hit is not None:
            raise InputError(f"the result of {shown(image)} would be written to {shown(out)}, which is the "
                             f"{hit[0]} {shown(hit[1])} of this batch; nothing was written (use -o FOLDER)")
        other = next((taken[k] for k in outs[i] if k in taken), None)
        if other is not None:
            raise InputError(f"{shown(other)} and {shown(image)} would both be written to {shown(out)}; nothing was "
                             "written (rename one, or run them separately)")
        taken.update(dict.fromkeys(outs[i], image))
    done = [i for i in keep if not overwrite and os.path.lexists(jobs[i][2]) and not os.path.isdir(jobs[i][2])]
    if done and not quiet:
        say(f"{prog}: note: {len(done)} already done ({_listed([jobs[i][0] for i in done])}): "
            f"{'their results exist' if len(done) != 1 else 'its result exists'}; --overwrite does "
            f"{'them' if len(done) != 1 else 'it'} again")
    skip = set(done)
    return [i for i in keep if i not in skip]


class Told:
    """What a reading thread made, or its error, with the warnings it gave: told, then returned or
    raised, by :meth:`take`, on the thread that takes it (:meth:`ReadAhead.aside`)."""

    def __init__(self, show: Callable[..., None], value: Any = None, error: Exception | None = None,
                 told: list | None = None):
        self._show, self._value, self._error, self._told = show, value, error, told or []

    def take(self) -> Any:
        """The value; its warnings are told first, and its error raised instead of a value."""
        told, self._told = self._told, []
        for args, kwargs in told:
            self._show(*args, **kwargs)
        if self._error is not None:
            raise self._error
        return self._value


class ReadAhead:
    """Reads a one-job batch's images one ahead: while image ``i`` is worked on, image ``i + 1``
    is read on a thread of its own.  What reading it warns is told when its turn comes, where it
    would have been told, and an error is raised then, for that image only.

    One image is read the same way (:meth:`start`), while the OpenCL device is made ready.

    Parameters
    ----------
    read : callable
        ``read(i)``: image ``i``, read (no messages but warnings).
    count : int
        The images of the batch.
    """

    def __init__(self, read: Callable[[int], Any], count: int):
        from concurrent.futures import ThreadPoolExecutor

        self._read, self._count = read, count
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="inpaint-read")
        self._ahead: dict[int, tuple[Any, list]] = {}
        self._kept: dict[int, list] = {}  # reading thread -> the warnings it keeps for later
        self._shows = warnings.showwarning
        warnings.showwarning = self._show

    def _show(self, *args: Any, **kwargs: Any) -> None:
        kept = self._kept.get(threading.get_ident())
        if kept is None:
            self._shows(*args, **kwargs)
        else:
            kept.append((args, kwargs))

    def _reading(self, i: int, told: list) -> Any:
        self._kept[threading.get_ident()] = told
        try:
            return self._read(i)
        finally:
            del self._kept[threading.get_ident()]

    def start(self, i: int) -> None:
        """Start reading image ``i`` now (:meth:`take` waits for it)."""
        if i not in self._ahead:
            told: list = []
            self._ahead[i] = (self._pool.submit(self._reading, i, told), told)

    def failed(self, i: int) -> bool:
        """Whether the reading of image ``i`` has already ended in an error (a file that is not
        an image fails at once: it is told before the device is made ready)."""
        ahead = self._ahead.get(i)
        return ahead is not None and ahead[0].done() and ahead[0].exception() is not None

    def aside(self, part: Callable[[], Any]) -> Told:
        """Run ``part`` (a later part of a read, such as the mask) on the calling thread, keeping
        its value or error and its warnings apart, for the image's job to take after its own checks
        (:meth:`Told.take`)."""
        me = threading.get_ident()
        before = self._kept.get(me)
        told: list = []
        self._kept[me] = told
        try:
            return Told(self._shows, value=part(), told=told)
        except Exception as exc:  # noqa: BLE001 - raised when the job takes it, as if read then
            return Told(self._shows, error=exc, told=told)
        finally:
            if before is not None:
                self._kept[me] = before
            else:
                del self._kept[me]

    def take(self, i: int) -> Any:
        """Image ``i`` (read ahead, else read now), its warnings told; the next starts reading."""
        ahead = self._ahead.pop(i, None)
        if i + 1 < self._count and not cancel.requested():
            told: list = []
            self._ahead[i + 1] = (self._pool.submit(self._reading, i + 1, told), told)
        if ahead is None:
            return self._read(i)
        future, told = ahead
        try:
            return future.result()
        finally:
            for args, kwargs in told:
                self._shows(*args, **kwargs)

    def close(self) -> None:
        """Stop reading ahead (a read under way finishes; its image is forgotten), and show
        warnings as before."""
        for future, _ in self._ahead.values():
            future.cancel()
        self._ahead.clear()
        self._pool.shutdown(wait=False)
        if warnings.showwarning == self._show:
            warnings.showwarning = self._shows


class WriteBehind:
    """The last part of each image of a one-job batch (encoding, writing, its report), run on a
    thread of its own while the next image is read and worked on, one at a time.

    While it is in use standard error keeps the images' order: a line of the main thread first
    waits for the last part under way, whose own lines come first.  On leaving, the last part
    under way finishes (through a stop signal too: an image filled is written and reported, as
    when the parts ran one after the other).
    """

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(1, thread_name_prefix="inpaint-write")
        self._pending: Any = None
        self._stream: Any = None

    def __enter__(self) -> WriteBehind:
        self._stream, sys.stderr = sys.stderr, self
        return self

    def submit(self, last: Callable[[], None]) -> None:
        """Run ``last`` behind, once the one before it has finished."""
        self.settle()
        self._pending = self._pool.submit(contextvars.copy_context().run, last)

    def settle(self) -> None:
        """Wait for the last part under way; raise its error (an error of the batch)."""
        pending = self._pending
        if pending is None:
            return
        try:
            pending.result()
        finally:
            if pending.done():
                self._pending = None

    def write(self, text: str) -> int:
        if threading.current_thread() is threading.main_thread():
            self.settle()
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __exit__(self, *exc: Any) -> None:
        try:
            while self._pending is not None:
                try:
                    self.settle()
                except BaseException:  # a signal while waiting: the write goes on
                    if self._pending is None:  # the last part's own error
                        raise
        finally:
            sys.stderr = self._stream
            self._pool.shutdown(wait=False)


def run_batch(prog: str, images: Sequence[Path], one: Callable[[int, str, Any], Any], *, jobs: int = 1,
              devices: Sequence[Any] = (), quiet: bool = False, verb: str = "done", behind: bool = False) -> int:
    """Run ``one(i, label, device)`` for every image; returns the exit status: 0, or 3 if a file
    failed on its device, else 2 if any failed.

    ``one`` may return a function, the image's last part (its encoding, writing and report):
    with ``behind`` and one job, it runs on a thread of its own while the next image is read
    and worked on (:class:`WriteBehind`), else at once.

    A file whose job fails for bad input, its environment or its device (exit status 2 or 3 by
    :func:`inpaint.cli.guard.exit_code`: unreadable, no mask, an existing output, a full disk,
    not enough memory, threads that cannot start, no device that can run it) is reported in one
    line and skipped; the batch goes on to its summary.  With ``jobs > 1`` the files run on that
    many threads, taking turns on ``devices`` (``None`` for each file when empty); a turn's
    device that cannot compile the kernels hands its files to the next device that can.  A
    summary ends the run, with the throughput over the images done (none when none was); a
    batch left with no image (every one already done) says that there is nothing to do.
    """
    n, t0 = len(images), time.perf_counter()
    if n == 0:
        if not quiet:
            say(f"{prog}: nothing to do: no image of the batch needs work")
        return 0
    failed: list[str] = []
    succeeded: list[int] = []
    device_failed: list[str] = []
    lock = threading.Lock()

    claimed: set[int] = set()
    active: set[int] = set()  # the images pool threads are working on now

    def reported(label: str, i: int, exc: Exception) -> bool:
        """Report a file's failure in one line; False for an error of the batch (a bug)."""
        code = exit_code(exc)
        if code not in (EXIT_BAD_INPUT, EXIT_NO_DEVICE) and not isinstance(exc, ValueError):
            return False
        with lock:
            failed.append(shown(images[i].name))
            if code == EXIT_NO_DEVICE:
                device_failed.append(shown(images[i].name))
        # (outside the lock: on one job, a line waits for the result written behind, which takes it)
        say(f"{prog}: error: {label}: {error_message(exc)}")
        return True

    lost: list[str] = []  # the line said once when an image's report could not be printed

    def finish(i: int, label: str, last: Callable[[], None]) -> None:
        try:
            last()
            with lock:
                succeeded.append(i)
        except ReportLost as exc:
            report_lost(i, label, exc)
        except Exception as exc:  # bad input or environment (a full disk): this file only
            if not reported(label, i, exc):
                raise

    def report_lost(i: int, label: str, exc: ReportLost) -> None:
        """An image written whose report (and the next ones') cannot be printed: done, said once."""
        with lock:
            succeeded.append(i)
            first = not lost
            lost.append(label)
        if first:
            say(f"{prog}: error: {label}: {error_message(exc)}")

    def job(i: int) -> None:
        with lock:  # each image runs once, on a pool thread or, when threads ran out, here
            if i in claimed or cancel.requested():  # after a stop request no image starts
                return
            claimed.add(i)
        label = f"[{i + 1}/{n}] {shown(images[i].name)}"
        turn = devices[i % len(devices)] if devices else None
        try:
            try:
                last = one(i, label, turn)
            except BuildFailure as failure:
                if turn is None:
                    raise
                # The device of this turn cannot compile: the image runs on the next device that can
                # (or, for --backend auto, numpy), as it would without turns.
                from ..cl.runtime import warn_once

                warn_once(f"{str(failure).partition('; ')[0]}; its turns go to the next device")
                last = one(i, label, None)
        except ReportLost as exc:
            report_lost(i, label, exc)
            return
        except Exception as exc:  # bad input, environment or device: this file only
            if not reported(label, i, exc):
                raise
            return
        if writer is not None and last is not None:
            writer.submit(lambda: finish(i, label, last))
        else:
            finish(i, label, last if last is not None else lambda: None)

    def pooled(i: int) -> None:
        active.add(i)
        try:
            job(i)
        finally:
            active.discard(i)

    writer = WriteBehind() if behind and jobs == 1 else None
    if jobs == 1:
        with writer if writer is not None else contextlib.nullcontext():
            for i in range(n):
                job(i)
    else:
        _run_on_threads(jobs, n, pooled, prog, active)
    dt = time.perf_counter() - t0
    if not quiet or failed:
        listed = f" ({', '.join(failed[:5])}{', ...' if len(failed) > 5 else ''})" if failed else ""
        done = len(succeeded)
        rate = f", {done / dt:.1f} images/s" if done and dt > 0 else ""
        say(f"{prog}: {n} image{'s' if n != 1 else ''}: {done} {verb}, {len(failed)} failed{listed}; "
            f"{dt:.1f} s{rate}")
    return EXIT_NO_DEVICE if device_failed else EXIT_BAD_INPUT if failed or lost else 0


def _run_on_threads(jobs: int, n: int, job: Callable[[int], None], prog: str, active: set[int]) -> None:
    """Run ``job(i)`` for every image on ``jobs`` threads.

    The stop signals stay held in every thread of the batch while it runs; the main thread takes
    them itself between waits.  The OpenCL driver may compile in any thread (PoCL compiles with
    LLVM in the process), and a signal handled while it does would make LLVM delete the
    compiler's output and print its own error; and leaving while threads are inside OpenCL
    aborts the process at exit.  So a signal asks every job to stop, the threads finish their
    current step, and only then does the run end with the signal's line and status.
    """
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    held = threading.current_thread() is threading.main_thread() and hasattr(signal, "sigtimedwait")
    stopped: list[int] = []

    def take_signals(timeout: float) -> None:
        if not held:
            return
        signum = signal.sigtimedwait(cancel.STOP_SIGNALS, timeout)
        if signum is not None:
            cancel.request()  # queued images never start, running ones stop at their next step
            if not stopped:
                stopped.append(signum.si_signo)

    with cancel.signals_held() if held else contextlib.nullcontext():
        pool = ThreadPoolExecutor(max_workers=jobs)  # its threads start here, with the signals held
        futures: list[Any] = []
        try:
            for i in range(n):
                try:
                    # in the run's context: a stop request ends the jobs of every thread
                    futures.append(pool.submit(contextvars.copy_context().run, job, i))
                except RuntimeError as exc:
                    if not thread_error(exc):
                        raise
                    # No more threads (a process or memory limit): the images already handed to
                    # threads that started finish there, the rest run here, one at a time.
                    say(f"{prog}: note: not all {jobs} job threads could start (a process or memory limit); "
                          "the other images run one at a time")
                    pool.shutdown(wait=True, cancel_futures=True)
                    break
            pending = set(futures)
            while pending:
                take_signals(0)
                _, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
                pending = {f for f in pending if not f.cancelled()}  # cancelled at a shutdown: never "done"
            take_signals(0)
            if not stopped:
                for done in futures:
                    if not done.cancelled():
                        done.result()
                for i in range(n):  # those no thread took
                    job(i)
                    take_signals(0)
        except BaseException:
            # A batch-stopping error, or a signal that came to the main thread by another way:
            # queued images never start, running ones stop at their next step, results stay.
            while True:  # wait for the running jobs even through a second Ctrl-C: leaving while they
                try:     # run OpenCL calls aborts the process at exit
                    cancel.request()
                    pool.shutdown(wait=False, cancel_futures=True)
                    # Polled: a Thread.join that a signal interrupts can mark a thread that still
                    # runs as finished (CPython 3.11), and an interrupted futures.wait can deadlock.
                    while active:
                        time.sleep(0.01)
                    break
                except BaseException:  # noqa: BLE001 - another signal: they are stopping already
                    continue
            raise
        pool.shutdown(wait=True)
        take_signals(0)
    if stopped:
        raise stop_exception(stopped[0])


def best_devices(backend: str, device: str | None, jobs: int) -> list[str]:
    """For several jobs and no ``--device``: the OpenCL devices of the best kind to take turns on,
    each piece of hardware once (the CPU that two drivers both offer is one device), leaving out
    those that failed to compile; none when only one remains."""
    if jobs == 1 or device is not None or backend == "numpy":
        return []
    from ..cl import runtime as rtmod

    try:
        usable = [t for t in rtmod.preference() if rtmod.cannot_build(t[2]) is None]
    except rtmod.OpenCLUnavailable:
        return []
    if not usable:
        return []
    best = usable[0][2]
    chosen: list[tuple[int, int, Any]] = []
    for t in usable:
        d = t[2]
        if (d.type == best.type and d.platform.name == best.platform.name
                and not any(rtmod.same_hardware(d, c[2]) for c in chosen)):
            chosen.append(t)
    return [f"{pi}:{di}" for pi, di, _ in chosen] if len(chosen) > 1 else []

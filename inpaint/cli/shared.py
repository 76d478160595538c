"""What the commands share: their names, and the options both ``inpaint`` and ``inpaint resize`` take."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator

from ..errors import InputError
from ..methods.options import BACKEND, DEVICE, PROFILE
from .progress import STYLES, clear_bars

#: The most images a batch works on at once (``--jobs``).
MAX_JOBS = 256


class Once(argparse.Action):
    """A file option (a mask, a folder of masks) given at most once and not empty: a second value
    would silently replace the first (a second --protect mask would let the fill copy from what
    the first protects), and an empty one would silently stand for none."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            raise InputError(f"{option_string} is given twice: give it once (one mask can hold every part)")
        if not str(values).strip():
            raise InputError(f"the {option_string} file name is empty")
        setattr(namespace, self.dest, values)

#: The commands besides object removal, and what each does (the usage and the help list them).
COMMANDS = {
    "resize": "content-aware resize by seam carving",
    "select": "write the mask of an object chosen by a box, a loose lasso or taps",
    "bench": "benchmarks: the pipeline beside the paper's Tables 2, 4, 5-8, fill quality (--quality), 'seam', "
             "'integral'; needs the inpaint-bench package",
    "devices": "list OpenCL devices and each profile's effective limits",
    "app": "start the touch app (needs the app extra: Kivy)",
}

def say(line: str) -> None:
    """One message line on standard error, in one write: the lines of a batch's threads never
    share a line (``print`` writes the text and its newline apart); a drawn progress bar makes
    way first."""
    clear_bars()
    sys.stderr.write(line + "\n")


#: Pillow's decompression-bomb guard, the default of ``--max-pixels``.
DEFAULT_MAX_PIXELS = 89_478_485


def cannot_write(exc: OSError, paths: list) -> InputError:
    """The one-line error of a failed atomic write (nothing was left behind): the files it was
    writing and the system's reason, without its error number."""
    from ..io.naming import shown

    names = " and ".join(shown(p) if str(p) != "-" else "standard output" for p in paths)
    return InputError(f"cannot write {names}: {exc.strerror or exc}")


def add_alias(group: argparse._ActionsContainer, old: str, dest: str, **kwargs) -> None:
    """An earlier name of an option, still accepted but left out of ``--help``."""
    group.add_argument(old, dest=dest, help=argparse.SUPPRESS, **kwargs)


def advanced_group(parser: argparse.ArgumentParser, title: str) -> argparse._ArgumentGroup:
    """The ``--help`` section of the options few runs need (internals, limits, measurements)."""
    return parser.add_argument_group(title)


def add_device_options(parser: argparse._ActionsContainer,
                       advanced: argparse._ActionsContainer | None = None) -> None:
    """``--backend`` and ``--device``; ``--profile`` in ``advanced`` (default: ``parser``), as the
    methods declare them (:mod:`inpaint.methods.options`)."""
    advanced = parser if advanced is None else advanced
    parser.add_argument(BACKEND.flag, choices=BACKEND.choices, default=None, help=BACKEND.help)
    parser.add_argument(DEVICE.flag, help=DEVICE.help)
    advanced.add_argument(PROFILE.flag, help=PROFILE.help)


#: The device options, each with its environment variable (:attr:`Option.env`).
DEVICE_OPTIONS = (BACKEND, DEVICE, PROFILE)


def environment_settings(check: bool = True) -> dict[str, tuple[str, str]]:
    """The device options set in the environment: ``{name: (variable, text)}``.

    Raises
    ------
    InputError
        With ``check``: ``INPAINT_BACKEND`` names no backend.
    """
    found = {}
    for option in DEVICE_OPTIONS:
        text = option.from_environment(check)
        if text is not None:
            found[option.name] = (option.env, text)
    return found


def apply_environment(args: argparse.Namespace) -> None:
    """``--backend``, ``--device`` and ``--profile`` left out take their environment variables
    (``INPAINT_BACKEND``, ``INPAINT_DEVICE``, ``INPAINT_PROFILE``), else their defaults; a flag wins
    over its variable.  ``args.environment`` keeps ``{name: (variable, text)}`` of those taken, for
    the messages.  A device from the environment applies to OpenCL runs only: with the numpy
    backend it is left out.

    Raises
    ------
    InputError
        ``INPAINT_BACKEND`` names no backend (and no ``--backend`` overrides it).
    """
    taken = {}
    for option in DEVICE_OPTIONS:
        if getattr(args, option.name, None) is None:
            text = option.from_environment()
            if text is not None:
                setattr(args, option.name, text)
                taken[option.name] = (option.env, text)
    if args.backend is None:
        args.backend = BACKEND.default
    if "device" in taken and args.backend == "numpy":
        args.device = None
        del taken["device"]
    args.environment = taken


def add_run_options(parser: argparse._ActionsContainer, verb: str,
                    advanced: argparse._ActionsContainer | None = None) -> None:
    """``--jobs``, ``--overwrite``, ``--force``, ``--progress`` and ``--quiet``, and ``--max-pixels`` in
    ``advanced`` (default: ``parser``); ``verb`` says what a job does to an image (``'fill'``, ``'resize'``)."""
    advanced = parser if advanced is None else advanced
    parser.add_argument("--jobs", "-j", metavar="N", default=None,
                        help=f"batch: {verb} N images at once, 1 to {MAX_JOBS} (default 1); with several OpenCL "
                             "devices of the best kind, the jobs take turns on them")
    parser.add_argument("--overwrite", "-y", action="store_true",
                        help="replace output files that already exist (without it, an existing output is refused, "
                             "and a batch leaves out the images whose results exist, as already done)")
    parser.add_argument("--force", action="store_true",
                        help="allow the output of a single image to replace its input file (implies --overwrite)")
    advanced.add_argument("--max-pixels", type=int, default=None,
                        help="largest image accepted, in pixels (Pillow's decompression-bomb guard; default "
                             f"{DEFAULT_MAX_PIXELS})")
    parser.add_argument("--progress", choices=STYLES, default="auto",
                        help="progress with the time left: 'bar' (redrawn in place), 'plain' (a line every few "
                             "seconds, for logs), 'none'; 'auto' (default): a bar on a terminal, elsewhere plain "
                             "lines once a job runs long")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress, notes or summary (warnings and errors remain)")
    kept = ("a JPEG keeps its blocks outside the fill exactly" if verb == "fill"
            else "a resized JPEG is encoded again with its own quantisation tables")
    parser.add_argument("--quality", metavar="Q", default=None,
                        help=f"encode a .jpg, .webp or .avif output at quality Q (1-100); by default {kept}, another "
                             "input becomes a JPEG of quality 95, and a lossless WebP stays lossless")


@contextlib.contextmanager
def max_pixels(limit: int | None) -> Iterator[None]:
    """Pillow's decompression-bomb limit set to ``--max-pixels`` for the run, then restored, so it
    never leaks into the caller's process (the app, tests)."""
    from PIL import Image

    before = Image.MAX_IMAGE_PIXELS
    try:
        if limit is not None:
            if limit <= 0:
                raise InputError("--max-pixels must be positive")
            Image.MAX_IMAGE_PIXELS = limit
        yield
    finally:
        Image.MAX_IMAGE_PIXELS = before

"""``inpaint select``: the mask of an object chosen by a box, a loose lasso or taps.

The selection is :mod:`inpaint.select`'s; the mask is written white on black, atomically, and
never over an existing file without ``--overwrite``.  The gesture options are declared here
once: ``inpaint IMAGE --box ...`` and ``inpaint IMAGE --around ...`` select and remove in one
run with the same ones (:func:`add_gesture_options`, :func:`selection`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..io.naming import MASK_SUFFIX, shown
from .shared import cannot_write, max_pixels, say

EXIT_STATUS = ("Exit status: 0 done, 2 bad input or environment (an existing output without --overwrite, a box "
               "outside the image, a full disk...), 130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP).")
#: The rim ``inpaint IMAGE --box/--around`` grows the selection by when ``--grow`` is not given:
#: the selection follows the object's edge, and the pixels blended with it go too.
SELECT_RIM = 3

BOX_HELP = ("select the object inside the box X0,Y0,X1,Y1 (pixel corners, column then row); everything "
            "outside it is background")
AROUND_HELP = ("select the object inside a loose lasso: ROUGH_MASK marks a region around the object (the mask "
               "rule); everything outside it is background")


def add_gesture_options(group: argparse._ActionsContainer) -> None:
    """``--box`` and ``--around``, as ``inpaint select`` and ``inpaint IMAGE`` both take them."""
    group.add_argument("--box", metavar="X0,Y0,X1,Y1", help=BOX_HELP)
    group.add_argument("--around", metavar="ROUGH_MASK", help=AROUND_HELP)


def _numbers(text: str, n: int, option: str, shape: str) -> tuple[float, ...]:
    parts = str(text).replace(" ", "").split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != n or not all(np.isfinite(values)):
        raise InputError(f"{option} must be {shape} (pixels), got {text!r}")
    return values


def parse_box(text: str) -> tuple[float, ...]:
    """``--box X0,Y0,X1,Y1``."""
    return _numbers(text, 4, "--box", "four numbers X0,Y0,X1,Y1")


def parse_point(text: str) -> tuple[float, ...]:
    """``--point X,Y``."""
    return _numbers(text, 2, "--point", "two numbers X,Y")


def selection(rgb: np.ndarray, size: tuple[int, int], box: str | None, around: Path | None,
              points: Sequence[str] = (), tolerance: float | None = None) -> np.ndarray:
    """The object a gesture selects on ``rgb`` (``size`` = (width, height)): ``--box``,
    ``--around`` (read by the mask rule) or ``--point``.

    Raises
    ------
    InputError
        Not exactly one gesture, or a bad one.
    """
    from .. import select as gestures

    given = [name for name, v in (("--box", box), ("--around", around), ("--point", points)) if v]
    if len(given) != 1:
        raise InputError("give one of --box X0,Y0,X1,Y1, --around ROUGH_MASK or --point X,Y"
                         + (f", not {' and '.join(given)}" if given else ""))
    if box:
        return gestures.select_box(rgb, parse_box(box))
    if around:
        from ..io import read_mask

        return gestures.select_around(rgb, read_mask(around, size, "--around mask"))
    return gestures.select_point(rgb, [parse_point(p) for p in points],
                                 tolerance=gestures.TOLERANCE if tolerance is None else tolerance)


def fallback_note() -> str | None:
    """The note where OpenCV is missing (:func:`inpaint.select.fallback_note`)."""
    from .. import select as gestures

    return gestures.fallback_note()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``inpaint select`` options on ``parser``."""
    from ..io import MASK_RULE

    parser.description = ("Select an object in one gesture and write its mask (white on the object, black "
                          "elsewhere) for 'inpaint IMAGE --mask MASK'. " + MASK_RULE + " " + EXIT_STATUS)
    parser.add_argument("image", help="input image")
    gesture = parser.add_mutually_exclusive_group(required=True)
    add_gesture_options(gesture)
    gesture.add_argument("--point", metavar="X,Y", action="append",
                         help="select the object under a tap at X,Y (repeat for more taps: a tap outside the "
                              "selection adds, a tap inside it takes away)")
    parser.add_argument("--tolerance", metavar="T", default=None,
                        help="with --point: how far a colour may be from the tapped one, 0-255 (default 64)")
    parser.add_argument("-o", "--output", help=f"the mask file to write (default: <input>{MASK_SUFFIX}.png beside "
                                               "the input, the mask 'inpaint IMAGE' then finds by itself)")
    parser.add_argument("--overwrite", "-y", action="store_true", help="replace an output file that already exists")
    parser.add_argument("--max-pixels", type=int, default=None,
                        help="largest image accepted, in pixels (Pillow's decompression-bomb guard)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no notes or summary (errors remain)")


def main(argv: Sequence[str], prog: str = "inpaint select") -> int:
    """Run ``inpaint select`` with the command-line arguments ``argv``; returns the exit status.
    Errors are raised and reported by :func:`inpaint.cli.guard.guarded`."""
    parser = argparse.ArgumentParser(prog=prog)
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    with max_pixels(args.max_pixels):
        return _run(args, prog)


def _run(args: argparse.Namespace, prog: str) -> int:
    from PIL import Image

    from .. import io as imageio
    from ..io.naming import check_new

    if str(args.image).strip() == "":
        raise InputError("the input image file name is empty")
    src = Path(args.image)
    if src.is_dir():  # "." or "/" has no name to make the mask's from
        raise InputError(f"image {src} is a folder, not a file")
    out = Path(args.output) if args.output is not None else src.with_name(f"{src.stem}{MASK_SUFFIX}.png")
    if args.output is not None and args.output.strip() == "":
        raise InputError("the output file name (-o) is empty")
    tolerance = None
    if args.tolerance is not None:
        from ..methods.checks import parse_int

        if not args.point:
            raise InputError("--tolerance applies to --point taps")
        tolerance = parse_int(args.tolerance, "--tolerance", 0, 255)
    if args.box:
        parse_box(args.box)     # a malformed box is refused before the image is read
    for p in args.point or ():
        parse_point(p)
    inputs: list[tuple[str, Any]] = [("input image", src)] + ([("--around mask", Path(args.around))]
                                                              if args.around else [])
    imageio.check_output(out, mode=None, size=None, inputs=inputs, what="output", can_force=False)
    check_new(out, args.overwrite)
    pic = imageio.read_image(src)
    imageio.check_output(out, mode="L", size=pic.size, inputs=inputs, can_force=False)
    note = fallback_note()
    if note and not args.quiet:
        say(f"{prog}: note: {note}")
    mask = selection(pic.rgb, pic.size, args.box, Path(args.around) if args.around else None,
                     args.point or (), tolerance)
    fmt = imageio.output_format(out)
    can = imageio.FORMATS.get(fmt)
    notes = []
    if can is not None and can.lossy == "always":  # the rule still reads it back exactly (tested)
        notes.append(f"{fmt} is lossy: the mask's edges come out grey, which inpaint reads back as the same "
                     "mask (brighter than mid-grey is the object) but other editors may not; write .png for an "
                     "exact mask")
    try:
        notes += imageio.save_images([(Image.fromarray(np.where(mask, 255, 0).astype(np.uint8)), out,
                                       {"new": not args.overwrite, "lossless": True})])
    except OSError as exc:
        raise cannot_write(exc, [out]) from None
    if not args.quiet:
        for said in filter(None, notes):
            say(f"{prog}: note: {said}")
        w, h = pic.size
        say(f"{prog}: selected {int(mask.sum())} pixels ({100.0 * mask.mean():.1f} % of the {w}x{h} image) "
            f"-> {shown(out)}")
    return 0

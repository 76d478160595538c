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
from .parser import CommandParser
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


def negative_values_joined(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--box -5,10,...`` and ``--point -0.5,3`` written ``--box=-5,10,...``: argparse
    takes a value that starts with a minus for an option, and would say the option has no value."""
    out: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            out.append(word)
            out.extend(words)
            break
        if word in ("--box", "--point"):
            value = next(words, None)
            if value is not None and value[:1] == "-" and value[1:2] in tuple("0123456789."):
                out.append(f"{word}={value}")
                continue
            out.append(word)
            if value is not None:
                out.append(value)
            continue
        out.append(word)
    return out


def _numbers(text: str, n: int, option: str, shape: str) -> tuple[float, ...]:
    if not str(text).strip():
        raise InputError(f"{option} is empty: give {shape}")
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

    given = [name for name, v in (("--box", box), ("--around", around), ("--point", points or None))
             if v is not None]
    if len(given) != 1:  # (each command's parser already takes one: this is the library's own check)
        raise InputError("give one of --box X0,Y0,X1,Y1, --around ROUGH_MASK or --point X,Y"
                         + (f", not {' and '.join(given)}" if given else ""))
    if box is not None:
        return gestures.select_box(rgb, parse_box(box))
    if around is not None:
        from ..io import read_mask

        return gestures.select_around(rgb, read_mask(around, size, "--around mask"))
    got = gestures.select_point(rgb, [parse_point(p) for p in points],
                                tolerance=gestures.TOLERANCE if tolerance is None else tolerance)
    if got.size - int(got.sum()) < gestures.MIN_OUTSIDE:  # a tap on the backdrop: no mask to fill
        raise InputError("the taps select (nearly) the whole image, the backdrop with the object: tap the object "
                         "itself, lower --tolerance, or give --box or --around")
    return got


def fallback_note() -> str | None:
    """The note where OpenCV is missing (:func:`inpaint.select.fallback_note`)."""
    from .. import select as gestures

    return gestures.fallback_note()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``inpaint select`` options on ``parser``."""
    from ..io import MASK_RULE

    parser.description = ("Select an object in one gesture and write its mask (white on the object, black "
                          "elsewhere) for 'inpaint IMAGE --mask MASK'. " + MASK_RULE + " " + EXIT_STATUS)
    parser.add_argument("image", help="input image ('-': standard input)")
    gesture = parser.add_mutually_exclusive_group(required=True)
    add_gesture_options(gesture)
    gesture.add_argument("--point", metavar="X,Y", action="append",
                         help="select the object under a tap at X,Y (repeat for more taps: a tap outside the "
                              "selection adds, a tap inside it takes away)")
    parser.add_argument("--tolerance", metavar="T", default=None,
                        help="with --point: how far a colour may be from the tapped one, 0-255 (default 64)")
    parser.add_argument("-o", "--output", help=f"the mask file to write (default: <input>{MASK_SUFFIX}.png beside "
                                               "the input, the mask 'inpaint IMAGE' then finds by itself); a "
                                               "folder; or '-', standard output, as PNG")
    parser.add_argument("--overwrite", "-y", action="store_true", help="replace an output file that already exists")
    parser.add_argument("--max-pixels", type=int, default=None,
                        help="largest image accepted, in pixels (Pillow's decompression-bomb guard)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no notes or summary (errors remain)")


def main(argv: Sequence[str], prog: str = "inpaint select") -> int:
    """Run ``inpaint select`` with the command-line arguments ``argv``; returns the exit status.
    Errors are raised and reported by :func:`inpaint.cli.guard.guarded`."""
    parser = CommandParser(prog=prog)
    add_arguments(parser)
    args = parser.parse_args(negative_values_joined(argv))
    with max_pixels(args.max_pixels):
        return _run(args, prog)


def _run(args: argparse.Namespace, prog: str) -> int:
    from .batch import made_output_folder, named_folder
    from .streams import command_path, is_stream, standard_streams

    if str(args.image).strip() == "":
        raise InputError("the input image file name is empty")
    src = command_path(args.image)
    if not is_stream(src) and src.is_dir():  # "." or "/" has no name to make the mask's from
        raise InputError(f"image {src} is a folder, not a file")
    if args.output is not None and args.output.strip() == "":
        raise InputError("the output file name (-o) is empty")
    if args.around is not None and not args.around.strip():
        raise InputError("--around names no file")
    folder = named_folder(args.output)
    if args.output is None and is_stream(src) or args.output == "-":
        out = command_path("png:-")  # a mask: lossless, whatever the photo's format
    elif folder is not None:
        if is_stream(src):
            raise InputError("an image from standard input has no name for its mask in a folder: give -o a file "
                             "name, or '-'")
        out = folder / f"{src.stem}{MASK_SUFFIX}.png"
    else:
        out = command_path(args.output) if args.output is not None else src.with_name(f"{src.stem}{MASK_SUFFIX}.png")
    around = command_path(args.around) if args.around is not None else None
    with standard_streams([("input image", src), ("--around mask", around)], out) as ((src, around), out):
        with made_output_folder(folder):
            return _select_one(args, prog, src, around, out)


def _select_one(args: argparse.Namespace, prog: str, src: Path, around: Path | None, out: Path) -> int:
    from PIL import Image

    from .. import io as imageio
    from ..io.naming import check_new

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
    inputs: list[tuple[str, Any]] = [("input image", src)] + ([("--around mask", around)] if around else [])
    imageio.check_output(out, mode=None, size=None, inputs=inputs, what="output", can_force=False)
    check_new(out, args.overwrite)
    pic = imageio.read_image(src)
    imageio.check_output(out, mode="L", size=pic.size, inputs=inputs, can_force=False)
    note = fallback_note()
    if note and not args.quiet:
        say(f"{prog}: note: {note}")
    mask = selection(pic.rgb, pic.size, args.box, around, args.point or (), tolerance)
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
    from .streams import deliver

    deliver([out])
    if not args.quiet:
        for said in filter(None, notes):
            say(f"{prog}: note: {said}")
        w, h = pic.size
        say(f"{prog}: selected {int(mask.sum())} pixels ({100.0 * mask.mean():.1f} % of the {w}x{h} image) "
            f"-> {shown(out)}")
    return 0

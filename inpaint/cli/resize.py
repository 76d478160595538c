"""``inpaint resize``: content-aware resizing from the command line.

Images and masks are read through :mod:`inpaint.io` (the one mask rule), and the result
is rebuilt from the input at full depth through the carver's source map: seam carving only
moves pixels, so 16-bit, float, alpha and palette images keep their exact values.

The exit status is the guard's (:mod:`inpaint.cli.guard`); nothing is written on bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, InputWarning, SeamError
from ..io import MASK_RULE
from ..io.naming import paired_file, shown
from ..seam.api import ENERGIES, ORDERS
from .guard import EXIT_TABLE
from .parser import CommandParser
from .perimage import ImageRun
from .phases import BUILD, CARVE, CONTEXT, READ, WRITE, Phases
from .shared import (
    MAX_JOBS,
    Once,
    add_device_options,
    add_run_options,
    apply_environment,
    max_pixels,
)
from .streams import command_path

#: Rough carving speed: seconds per pixel visited and per seam (numpy; OpenCL on a 2-core CPU through PoCL).
_SPEED = {"numpy": (7e-8, 5e-4), "opencl": (1.1e-9, 6e-5)}
#: How much longer forward energy visits a pixel (measured on the same machine: 2.2 and 10.5 times).
_FORWARD = {"numpy": 2.2, "opencl": 10.5}
LONG_JOB_SECONDS = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``inpaint resize`` options on ``parser``."""
    parser.description = ("Content-aware resize by seam carving (shrink, enlarge, protect, remove objects). "
                          + MASK_RULE + " " + EXIT_TABLE)
    parser.add_argument("image", nargs="+",
                        help="input image ('-': standard input); or several images or folders, or a quoted pattern "
                             "such as 'photos/*.jpg', for a batch (each resized to the same --width/--height)")
    parser.add_argument("--width", "-W", metavar="W",
                        help="target width in pixels, or a share of the input's such as 50%% (default: the input's)")
    parser.add_argument("--height", "-H", metavar="H",
                        help="target height in pixels, or a share such as 75%% (default: the input's)")
    parser.add_argument("--size", metavar="GEOMETRY",
                        help="target size as ImageMagick writes it: 75%% (both sides), 50%%x100%%, 640x480! "
                             "(exactly), 640x480 (the largest size within it keeping the aspect ratio), 640 or x480")
    parser.add_argument("-o", "--output", help="output image file (default: <input>_resized.<ext> beside the "
                                               "input; standard output for standard input); '-' writes standard "
                                               "output in the input's format, FORMAT:- (png:-, jpg:-, tif:-, "
                                               "webp:-, bmp:-) in that format; for a batch, and for one image, a "
                                               "folder that receives each result under its input's name, made if "
                                               "its name ends in '/' (done/)")
    parser.add_argument("--protect", metavar="MASK", action=Once,
                        help="mask of pixels no seam may cross; for a batch, one mask "
                                                          "for every image, or a folder DIR holding DIR/IMAGE.png")
    parser.add_argument("--remove", metavar="MASK", action=Once,
                        help="mask of an object to remove by carving through it; "
                                                         "the size is then restored unless --no-restore; for a "
                                                         "batch, as for --protect")
    parser.add_argument("--grow", metavar="N", default=None,
                        help="with --remove: grow the object's mask by N pixels first (its rim or halo goes too)")
    parser.add_argument("--no-restore", action="store_true",
                        help="with --remove: keep the smaller size where --width/--height are not given")
    parser.add_argument("--energy", choices=ENERGIES, default="backward", help="energy (default backward)")
    parser.add_argument("--order", choices=ORDERS, default="width-first",
                        help="carving order: the width's seams first, or the height's (default width-first)")
    parser.add_argument("--batch", type=int, metavar="K",
                        help="approximate mode: up to K strip-local seams per pass (much faster)")
    parser.add_argument("--save-seams", metavar="FILE", help="also write the input with the seams drawn over it "
                                                             "(removed: red, inserted: green)")
    parser.add_argument("--allow-large", action="store_true", help="allow enlarging by more than 2x")
    parser.add_argument("--stats", action="store_true",
                        help="print the whole command's time, phase by phase (start-up, reading, OpenCL set-up, "
                             "carving, writing); one image, not a batch")
    add_device_options(parser)
    add_run_options(parser, "resize")


def _seam_picture(original: np.ndarray, seams: np.ndarray) -> np.ndarray:
    pic = original[..., :3].copy() if original.ndim == 3 else np.repeat(original[..., None], 3, axis=2)
    pic[seams > 0] = (255, 0, 0)
    pic[seams < 0] = (0, 255, 0)
    return pic


def _requested(args: argparse.Namespace) -> Callable[[int, int], tuple[int | None, int | None]]:
    """The target size the options ask for, as a function of the input's size (a width or height
    left out stays ``None``: the input's, or restored after ``--remove``)."""
    from .options import length_in_pixels, parse_geometry, parse_length

    if args.size is not None:
        if args.width is not None or args.height is not None:
            raise InputError("give either --size or --width/--height, not both")
        return parse_geometry(args.size)
    w = parse_length(args.width, "--width") if args.width is not None else None
    h = parse_length(args.height, "--height") if args.height is not None else None
    return lambda w0, h0: (length_in_pixels(*w, w0) if w else None, length_in_pixels(*h, h0) if h else None)


def _target_size(args: argparse.Namespace, w0: int, h0: int) -> tuple[int, int]:
    """The largest output size the run can produce (for the output and memory checks)."""
    width, height = args.target(w0, h0)
    for name, v, cur in (("width", width, w0), ("height", height, h0)):
        if v is not None and v > 2 * cur and not args.allow_large:
            asked = f"--size {args.size} makes the {name} {v}, which" if args.size is not None else f"--{name} {v}"
            raise InputError(f"{asked} is more than twice the input's {cur}; pass --allow-large "
                             "to enlarge that much")
    return (width or w0), (height or h0)


def _masks(protect: Path | None, remove: Path | None, radius: int, size: tuple[int, int],
           turned: bool | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    from ..io import read_mask, same_file
    from ..io.mask_rule import INVERTED_HINT, MOSTLY
    from ..masks import covers_everything, grow

    if remove and radius and covers_everything((size[1], size[0]), radius):
        raise InputError(f"--grow {radius} would cover the whole {size[0]}x{size[1]} image from any one pixel of "
                         "the --remove mask; use a smaller --grow")
    if protect and remove and same_file(protect, remove):
        raise InputError("--protect and --remove are the same file: a protected object cannot be removed")
    keep = read_mask(protect, size, "--protect mask", turned) if protect else None
    drop = read_mask(remove, size, "--remove mask", turned) if remove else None
    if drop is not None and drop.mean() > MOSTLY:
        from ..report import format_percent

        warnings.warn(InputWarning(f"the --remove mask covers {format_percent(drop.mean())} of the image "
                                   f"({INVERTED_HINT})"))
    if drop is not None and radius:
        drop = grow(drop, radius)
    if keep is not None and not keep.any():
        warnings.warn(InputWarning(f"the --protect mask {protect} selects no pixel: nothing is protected"))
        keep = None
    if drop is not None and not drop.any():
        warnings.warn(InputWarning(f"the --remove mask {remove} selects no pixel: nothing is removed"))
        drop = None
    if keep is not None and drop is not None:  # (all of it in both: the resize's own error)
        both = keep & drop
        if both.any() and (drop & ~keep).any():
            n = int(both.sum())
            warnings.warn(InputWarning(f"{n} pixel{'s are' if n != 1 else ' is'} in both --protect and --remove: "
                                       "protected pixels stay, so part of the object may remain"))
    return keep, drop


def _estimate(w0: int, h0: int, tw: int, th: int, drop: np.ndarray | None, backend: str,
              order: str, batch: int | None = None, energy: str = "backward") -> tuple[int, float]:
    """(seams, rough seconds) of a run: work (pixels visited) plus a cost per seam.  ``batch``
    seams share one pass over the pixels; forward energy visits them more slowly."""
    seams = abs(tw - w0) + abs(th - h0)
    work = float(_work_curve(w0, h0, tw, th, order)[-1])
    if drop is not None:
        per_row = int(drop.sum(axis=1).max())
        per_col = int(drop.sum(axis=0).max())
        extra = 2 * min(per_row, per_col)  # removed, then (by default) inserted back
        seams += extra
        work += extra * float(w0 * h0)
    per_work, per_seam = _SPEED.get(backend, _SPEED["numpy"])
    per_work *= _FORWARD.get(backend, _FORWARD["numpy"]) if energy == "forward" else 1.0
    return seams, work * per_work / max(batch or 1, 1) + seams * per_seam


#: The command's names for the arguments a seam-carving error names (:meth:`SeamError.worded`).
OPTION_WORDS = {"keep_mask": "the --protect mask", "drop_mask": "the --remove mask", "drop_mask_subject": "",
                "allow_large": "--allow-large"}


def _work_curve(w0: int, h0: int, tw: int, th: int, order: str) -> np.ndarray:
    """Cumulative work after each seam of a resize (no object removal), as the carver does it:
    a removed seam costs the current area; an enlarging step of k seams (at most half the width)
    costs k times the area it starts from.  Turns seams done into a fair fraction for the ETA."""
    costs: list[np.ndarray] = []
    w, h = w0, h0
    for axis in (("width", "height") if order == "width-first" else ("height", "width")):
        cur, other, target = (w, h, tw) if axis == "width" else (h, w, th)
        if target < cur:
            costs.append((cur - np.arange(cur - target, dtype=np.float64)) * other)
        elif target > cur:
            done, size = 0, cur
            while done < target - cur:
                k = min(target - cur - done, max(1, int(size * 0.5)))
                costs.append(np.full(k, float(size) * other))
                done += k
                size += k
        if axis == "width":
            w = target
        else:
            h = target
    if not costs:
        return np.zeros(1)
    return np.concatenate([[0.0], np.cumsum(np.concatenate(costs))])


def _progress_by_work(bar: Any, curve: np.ndarray) -> Any:
    """``progress(done, total)`` reporting the share of the work done (seams late in an
    enlargement cost more than early ones)."""
    last = len(curve) - 1

    def report(done: int, total: int) -> None:
        if total != last or curve[-1] <= 0:
            bar.steps(done, total)
        else:
            bar(curve[min(max(done, 0), last)] / curve[-1])
    return report


def main(argv: Sequence[str], prog: str = "inpaint resize") -> int:
    """Run ``inpaint resize`` with the command-line arguments ``argv``; returns the exit status.
    Errors are raised (:class:`~inpaint.errors.InputError`, ...) and reported by
    :func:`inpaint.cli.guard.guarded`."""
    phases = Phases()  # --stats: the start-up ends here
    parser = CommandParser(prog=prog)
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    apply_environment(args)
    with max_pixels(args.max_pixels):
        return _run(args, phases)


def _run(args: argparse.Namespace, phases: Phases | None = None) -> int:
    from ..io.naming import RESIZED_SUFFIX
    from .batch import (
        batch_images,
        batch_mask,
        best_devices,
        check_shared,
        is_batch,
        made_output_folder,
        make_output_folder,
        output_folder,
        output_for,
        plan_batch,
        run_batch,
        single_output,
    )
    from .options import engine_for, parse_grow, parse_int

    if any(str(item).strip() == "" for item in args.image):
        raise InputError("the input image file name is empty")
    if args.width is None and args.height is None and args.size is None and not args.remove:
        raise InputError("give the target size with --width and/or --height, or --size (or --remove MASK to "
                         "remove an object); without them there is nothing to do")
    args.target = _requested(args)
    if args.batch is not None and args.batch < 1:
        raise InputError(f"--batch must be a positive integer, got {args.batch}")
    if args.output is not None and args.output.strip() == "":
        raise InputError("the output file name (-o) is empty")
    radius = parse_grow(args.grow) if args.grow is not None else 0
    if radius and not args.remove:
        raise InputError("--grow applies to the --remove mask; give --remove MASK")
    if args.no_restore and not args.remove:
        raise InputError("--no-restore applies to the --remove mask; give --remove MASK")
    jobs = parse_int(args.jobs, "--jobs", 1, MAX_JOBS) if args.jobs is not None else 1
    if not is_batch(args.image):
        src = command_path(args.image[0])
        out, out_dir = single_output(src, args.output, RESIZED_SUFFIX)
        with phases.timing(CONTEXT) if args.stats and phases and args.backend != "numpy" else \
                contextlib.nullcontext():
            engine = engine_for(args)
        from .streams import standard_streams

        protect, remove = (command_path(m) if m else None for m in (args.protect, args.remove))
        with standard_streams([("input image", src), ("--protect mask", protect), ("--remove mask", remove)], out,
                              [("--save-seams", args.save_seams)]) as ((src, protect, remove), out):
            with made_output_folder(out_dir):
                _resize_one(args, src, out, protect, remove, radius, engine, seams_file=args.save_seams,
                            phases=phases)
        return 0
    if args.save_seams is not None:
        raise InputError("--save-seams takes one image, not a batch")
    if args.stats:
        raise InputError("--stats takes one image, not a batch")
    images = batch_images(args.image)
    out_dir = output_folder(args.output)
    outs = [output_for(image, out_dir, RESIZED_SUFFIX) for image in images]

    # an image's masks: --protect, --remove, and its x_mask.png, which a folder leaves out too
    keep = plan_batch("inpaint resize", [(image, [m for m in (batch_mask(args.protect, image),
                                                              batch_mask(args.remove, image), paired_file(image, None))
                                                  if m is not None], out)
                                         for image, out in zip(images, outs)], quiet=args.quiet,
                      overwrite=args.overwrite or args.force)
    images, outs = [images[i] for i in keep], [outs[i] for i in keep]
    if not images:
        return run_batch("inpaint resize", [], lambda *_: None, quiet=args.quiet)

    check_shared([("--protect mask", args.protect), ("--remove mask", args.remove)], out_dir)
    engine = engine_for(args)
    make_output_folder(out_dir)

    def one(i: int, label: str, device: Any) -> None:
        _resize_one(args, images[i], outs[i], batch_mask(args.protect, images[i]), batch_mask(args.remove, images[i]),
                    radius, engine if device is None else engine.on(device), label=label, progress=jobs == 1)

    return run_batch("inpaint resize", images, one, jobs=jobs, devices=best_devices(args.backend, args.device, jobs),
                     quiet=args.quiet, verb="resized")


def _resize_one(args: argparse.Namespace, src: Path, out: Path, protect: Path | None, remove: Path | None,
                radius: int, engine: Any, seams_file: str | None = None, label: str | None = None,
                progress: bool = True, phases: Phases | None = None) -> None:
    """Resize one image on ``engine`` (:mod:`inpaint.cl.engine`, resolved by the caller) and write
    the result (and ``--save-seams``); raises on bad input.  With ``phases`` and ``--stats``,
    prints the whole command's time, phase by phase."""
    from PIL import Image

    from .. import io as imageio
    from ..io import check_output
    from ..seam import api
    from .progress import format_seconds

    run = ImageRun("inpaint resize", args, label, phases, progress)
    inputs = [("input image", src)] + [(f"--{k} mask", m) for k, m in (("protect", protect),
                                                                       ("remove", remove)) if m]
    run.check_outputs(out, inputs, seams_file, "--save-seams", extra_force=True)
    phases, timing = run.phases, run.timing
    with timing(READ):
        pic = imageio.read_image(src)
    w0, h0 = pic.size
    tw, th = _target_size(args, w0, h0)
    check_output(out, mode=pic.mode, size=(max(tw, w0), max(th, h0)) if remove else (tw, th))
    from .options import parse_quality

    plan = imageio.plan_output(pic, out, size=(tw, th), quality=parse_quality(args.quality))
    if seams_file:
        check_output(seams_file, mode="RGB", size=(w0, h0), what="--save-seams")
    with timing(READ):  # (a mask that is no good is the one line said: before the output's notes)
        keep, drop = _masks(protect, remove, radius, (w0, h0), pic.source.orientation >= 5)
    run.note("; ".join(plan.notes))  # what the output cannot keep, said before the work
    backend = args.backend
    if backend == "auto":
        from ..cl.runtime import opencl_available

        with timing(CONTEXT):
            backend = "opencl" if opencl_available() else "numpy"
    from ..seam.api import CARVE_BYTES_PER_PIXEL

    need = max(w0 * h0, tw * th, w0 * th, tw * h0) * CARVE_BYTES_PER_PIXEL
    note = imageio.check_memory(need, f"resizing {w0}x{h0} to {tw}x{th}")
    if note:
        warnings.warn(InputWarning(note))
    seams, seconds = _estimate(w0, h0, tw, th, drop, backend, args.order, args.batch, args.energy)
    if seconds >= LONG_JOB_SECONDS:
        warnings.warn(InputWarning(f"{seams} seams through a {w0}x{h0} image ({backend}) may take roughly "
                                   f"{format_seconds(seconds)} (a rough estimate)"))
    if drop is None and (tw, th) == (w0, h0):
        result = imageio.unchanged(pic)
        run.say(f"the image is already {w0}x{h0}: wrote an unchanged copy to {shown(out)}")
        items = [(result, out, {"plan": imageio.plan_output(pic, out, quality=parse_quality(args.quality)),
                                "mask": np.zeros((h0, w0), bool)})]  # a JPEG keeps every block
        if seams_file:
            items.append((Image.fromarray(pic.rgb), seams_file, {}))  # no seam to draw
        with timing(WRITE):
            run.save(_new(items, run.new))
        run.print_phases(lead=False)
        return

    rt = None
    if phases is not None and backend != "numpy":  # opened here to time it; the carver runs on it
        with timing(CONTEXT):
            rt = engine.open()[0]
        if rt is not None:
            engine = engine.with_runtime(rt)
            built = rt.build_seconds
    t0 = time.perf_counter()
    try:
        with run.working("carving") as bar, engine.turn() if backend != "numpy" else contextlib.nullcontext():
            res = api.resize(pic.rgb, *args.target(w0, h0), energy=args.energy, order=args.order,
                             keep_mask=keep, drop_mask=drop, batch=args.batch, backend=args.backend,
                             engine=engine,
                             progress=bar.steps if drop is not None else _progress_by_work(
                                 bar, _work_curve(w0, h0, tw, th, args.order)),
                             return_seams=bool(seams_file), restore=not args.no_restore,
                             allow_large=args.allow_large, return_source=True, return_blends=True)
    except SeamError as exc:  # bad sizes or masks, an impossible protect mask: said with the options
        raise InputError(exc.worded(OPTION_WORDS)) from None
    elapsed = time.perf_counter() - t0
    if phases is not None:
        build = rt.build_seconds - built if rt is not None else 0.0
        if rt is not None:
            phases.add(BUILD, build)
        phases.add(CARVE, elapsed - build)
    out8, seam_map, source, blends = res if seams_file else (res[0], None, *res[1:])
    run.stopped()  # stopped after the work: its result is not written
    with timing(WRITE):
        result, move_note = imageio.apply_moves(pic, out8, source, blends)
        if out8.shape[:2] != (th, tw):  # --remove with --no-restore: narrower than planned
            plan = imageio.plan_output(pic, out, size=(out8.shape[1], out8.shape[0]),
                                       quality=parse_quality(args.quality))
        # at the photo's size (--remove, restored), a JPEG encodes again the blocks that changed
        edits = plan.jpeg_edit is not None and out8.shape == pic.rgb.shape
        changed = (out8 != pic.rgb).any(axis=2) if edits else None
        items = [(result, out, {"plan": plan, "mask": changed})]
        if seam_map is not None:
            items.append((Image.fromarray(_seam_picture(pic.rgb, seam_map)), seams_file, {}))
        notes = run.save(_new(items, run.new))
    run.print_phases(lead=False)
    seams_note = f"--save-seams {shown(seams_file)}: {notes[1]}" if seams_file and len(notes) > 1 and notes[1] else None
    run.note("; ".join(n for n in (move_note, notes[0], seams_note) if n))
    if not args.quiet:
        gone = 0 if drop is None else int((drop & ~keep).sum() if keep is not None else drop.sum())
        removed = f"removed {gone} pixels, " if drop is not None else ""
        compiled = run.compile_words()
        run.say(f"{removed}{w0}x{h0} -> {out8.shape[1]}x{out8.shape[0]} in {elapsed:.3f} s"
                f"{' (' + compiled + ')' if compiled else ''} -> {shown(out)}")


def _new(items: list, new: bool) -> list:
    """The items to write; with ``new``, none replaces a file that appeared meanwhile."""
    return [(img, path, dict(opts, new=new)) for img, path, opts in items]

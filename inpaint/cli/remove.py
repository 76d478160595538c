"""``inpaint IMAGE --mask MASK``: object removal from the command line, one image or a batch.

The image and mask are read through :mod:`inpaint.io` (the one mask rule), the fill runs through
:func:`inpaint.api.inpaint`, and the result is written back into the original picture at full
depth, atomically.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import DISTRIBUTION, __version__
from ..errors import InputError, InputWarning, ReportLost
from ..io.naming import REMOVED_SUFFIX, find_mask, shown
from ..methods import registry
from ..methods.context import RunContext
from ..methods.defaults import DEFAULT_METHOD
from ..report import format_stats
from .batch import (
    ReadAhead,
    Told,
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
from .guard import EXIT_TABLE
from .options import parse_grow, parse_int, parse_quality
from .parser import CommandParser
from .perimage import ImageRun
from .phases import BUILD, CONTEXT, FILL, READ, WRITE, Phases
from .shared import (
    COMMANDS,
    DEVICE_OPTIONS,
    MAX_JOBS,
    Once,
    add_alias,
    add_device_options,
    add_run_options,
    advanced_group,
    apply_environment,
    max_pixels,
    say,
)
from .streams import command_path

USAGE = ("inpaint IMAGE --mask MASK [-o OUT] [options]\n"
         "       inpaint IMAGE... | FOLDER [--masks DIR] [-o FOLDER] [--jobs N] [options]\n"
         "       inpaint --case NAME [-o OUT] [options]\n"
         "       inpaint {" + ",".join(COMMANDS) + "} [options]   (see 'inpaint COMMAND --help')\n"
         "       inpaint --version")

def _flag(key: str, argv: Sequence[str]) -> str:
    """The option of ``key`` as the user wrote it: its earlier name if that is what they typed."""
    option = _OPTIONS[key]
    old = option.old_flag
    if old and any(t == old or t.startswith(old + "=") for t in argv):
        return old
    return option.flag


#: Every method option the command takes, by name, in ``--help`` order (declared by the methods).
_OPTIONS = {o.name: o for o in registry.all_options() if o.flag is not None}


#: Rough fill speed, seconds per masked pixel (multiscale; a method's ``cost`` scales it).  Measured
#: on a 2-core CPU, holes of 0.16 and 1.44 MP: numpy 4.0e-4; OpenCL (PoCL) 1.1-1.4e-5, and
#: Criminisi's 2.8e-5 on a 0.04 MP hole.
_FILL_SECONDS_PER_PIXEL = {"numpy": 4e-4, "opencl": 1.5e-5}
#: A job estimated to take longer than this gets a warning with the estimate.
LONG_JOB_SECONDS = 60.0


def version() -> str:
    """The installed package's version (its metadata), else the package's ``__version__``."""
    try:
        from importlib.metadata import version as _version

        return _version(DISTRIBUTION)
    except Exception:  # noqa: BLE001 - not installed (a bare checkout): PackageNotFoundError
        return __version__


class _Version(argparse.Action):
    """``--version``: the version is looked up (package metadata, slow to import) only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(f"inpaint {version()}\n")  # as argparse's own version action does
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser of the main (object-removal) command."""
    from ..io import MASK_RULE

    p = CommandParser(
        prog="inpaint", usage=USAGE,
        description="Remove an object from a photo: the hole is filled from the rest of the picture by a "
                    "multiscale exemplar fill (default) or the paper's Criminisi pipeline, on OpenCL.",
        epilog=MASK_RULE + " Commands: " + "; ".join(
            f"'inpaint {name}': {desc}" for name, desc in COMMANDS.items()) + ". " + EXIT_TABLE,
    )
    p.add_argument("--version", action=_Version, nargs=0, help="show program's version number and exit")
    p.add_argument("image", nargs="*", help="input image ('-': standard input); or several images or folders, or a "
                                            "quoted pattern such as 'photos/*.jpg', for a batch (see --masks)")
    p.add_argument("--mask", "-m", action=Once,
                   help="mask image of the same size (see the mask rule below; '-': standard "
                                        "input; default: IMAGE_mask.png beside the image, with a note); with "
                                        "several images, the one mask for all of them")
    p.add_argument("--masks", metavar="DIR", action=Once,
                   help="batch: the mask of IMAGE.ext is DIR/IMAGE.png (or another image extension); without "
                        "--masks or --mask, it is IMAGE_mask.png beside the image")
    from .select import add_gesture_options

    add_gesture_options(p)  # --box, --around: select the object instead of --mask
    p.add_argument("--case", help="use a bundled example (image and mask) instead, e.g. walkingman")
    p.add_argument("-o", "--output", help="output image file (default: <input>_removed.<ext> beside the input; "
                                          "<case>_removed.png for --case; standard output for standard input); "
                                          "'-' writes standard output in the input's format, FORMAT:- (png:-, "
                                          "jpg:-, tif:-, webp:-, bmp:-) in that format; for a batch, and for one "
                                          "image, a folder that receives each result under its input's name, made "
                                          "if its name ends in '/' (done/)")
    p.add_argument("--grow", metavar="N", default=None,
                   help="grow the mask by N pixels (at most 10000) before filling, so that an object's rim, halo "
                        "or shadow goes too (default 0; 3 for a selection made with --box or --around)")
    p.add_argument("--protect", metavar="MASK", action=Once,
                   help="mask of pixels the fill must not copy from (another person, a sign, anything that "
                        "should not reappear in the hole); same rule and size as --mask; for a batch, one mask "
                        "for every image, or a folder DIR holding DIR/IMAGE.png")
    p.add_argument("--method", choices=registry.METHOD_NAMES, default=DEFAULT_METHOD,
                   help="; ".join(f"'{m.name}'" + (" (default)" if m.name == DEFAULT_METHOD else "") + f": {m.summary}"
                                  for m in registry.METHODS.values()))
    p._optionals.title = "everyday options"
    tune = p.add_argument_group("tuning the fill")
    advanced = advanced_group(p, "advanced: the paper's pipeline (--method criminisi), devices, limits and "
                                 "measurements")
    add_device_options(p, advanced)
    add_run_options(p, "fill", advanced)
    _add_method_options(tune, advanced)
    advanced.add_argument("--stats", action="store_true",
                          help="print the per-stage timing table (like the paper's Table 2), then the whole "
                               "command's time, phase by phase (start-up, reading, OpenCL set-up and build, fill, "
                               "writing)")
    advanced.add_argument("--save-mapping", metavar="FILE",
                          help="also write a picture of where the fill came from: for criminisi, each target "
                               "patch (red) joined to its source patch (green); for multiscale, each filled pixel "
                               "coloured by the direction (hue) and distance (brightness) of its source")
    return p


def _add_method_options(tune: argparse._ActionsContainer, advanced: argparse._ActionsContainer) -> None:
    """The methods' own options, as their declarations state them (the device options are the
    commands' shared ones)."""
    for option in _OPTIONS.values():
        if option.group == "device":
            continue
        group = tune if option.group == "tune" else advanced
        names = [option.flag] + ([option.short] if option.short else [])
        choices = {"choices": option.choices, "default": None} if option.choices else {}
        group.add_argument(*names, dest=option.name, metavar=option.metavar, default=None, choices=option.choices,
                           help=option.help.replace("{defaults}", registry.defaults_of(option.name)))
        if option.old_flag:
            add_alias(group, option.old_flag, option.name, **choices)


def _method_options(args: argparse.Namespace) -> dict[str, Any]:
    """The chosen method's own options from the command line, parsed once by their declarations
    (unset ones take the method's defaults); the run context's are :func:`_run_context`'s."""
    method = registry.get(args.method)
    argv = getattr(args, "argv", [])
    given = {}
    for name, option in _OPTIONS.items():
        if option.group == "device":  # --backend, --device, --profile: the run context's
            continue
        value = getattr(args, name)
        given[name] = option.parse(value, _flag(name, argv)) if option.early and value is not None else value
    allowed = method.names
    wrong = [_flag(k, argv) for k, v in given.items() if v is not None and k not in allowed]
    if wrong:
        verb = "applies" if len(wrong) == 1 else "apply"
        raise InputError(f"{', '.join(wrong)} only {verb} to another --method; the {method.name} method takes "
                         + ", ".join(_takes(method, [k for k in allowed if k in given])))
    return {k: v if _OPTIONS[k].early else _OPTIONS[k].parse(v, _flag(k, argv))
            for k, v in given.items() if v is not None}


def _takes(method: Any, names: list[str]) -> list[str]:
    """The flags of ``method``'s options ``names`` with the device options' among them: before its
    first option ranked after them."""
    device = [o for o in DEVICE_OPTIONS if o.flag is not None]
    own = [_OPTIONS[k] for k in names]
    at = next((i for i, o in enumerate(own) if o.rank > max(d.rank for d in device)), len(own))
    return [o.flag for o in own[:at] + device + own[at:]]


def _run_context(args: argparse.Namespace, engine: Any, protect: Any = None) -> RunContext:
    """The run context of one image: the engine resolved at the edge (:mod:`inpaint.cl.engine`),
    device stage times only when they are printed, the --protect mask."""
    return RunContext(engine=engine, timings=bool(args.stats), protect=protect)


def _jobs(args: argparse.Namespace) -> list[tuple[Path, Path, Path]]:
    """``(image, mask, output)`` for every image to fill: one for ``IMAGE --mask MASK`` and
    ``--case NAME``, several for a batch.  ``args.own`` gets, for each, whether its mask pairs
    with the image's name as given (not through a link); ``args.out_dir`` the ``-o`` folder to
    make, if any."""
    args.own, args.out_dir = None, None
    if args.case is not None:
        if args.image or args.mask is not None or args.masks is not None:
            raise InputError("give either --case or IMAGE --mask, not both")
        if args.box is not None or args.around is not None:
            raise InputError("--box and --around select the object of a photo you give; --case brings its own mask")
        from ..io.cases import load_case

        try:
            case = load_case(args.case)
        except ValueError as exc:  # an unknown name: the message lists the cases
            raise InputError(str(exc)) from None
        out = command_path(args.output) if args.output is not None else Path(f"{case.name}{REMOVED_SUFFIX}.png")
        return [(case.paths["image"], case.paths["mask"], out)]
    if not args.image:
        raise InputError("no input image given")
    if any(str(item) == "" for item in args.image):
        raise InputError("the input image file name is empty")
    if args.mask is not None and args.masks is not None:
        raise InputError("give either --mask (one mask for every image) or --masks DIR, not both")
    masks = Path(args.masks) if args.masks is not None else None
    if masks is not None and not masks.is_dir():
        raise InputError(f"--masks {masks} is not a folder")
    if args.box is not None or args.around is not None:
        gesture = "--box" if args.box is not None else "--around"
        if args.box is not None and args.around is not None:
            raise InputError("give one of --box X0,Y0,X1,Y1 or --around ROUGH_MASK, not both")
        if args.mask is not None or args.masks is not None:
            raise InputError(f"{gesture} selects the object instead of a mask: give {gesture} or "
                             f"{'--mask' if args.mask is not None else '--masks'}, not both")
        if is_batch(args.image):
            raise InputError(f"{gesture} selects the object of one image, not of a batch: give one image, "
                             "or masks for the batch")
        if args.box is not None:
            from .select import parse_box

            parse_box(args.box)  # a malformed box is refused before the photo is read
        elif not str(args.around).strip():
            raise InputError("--around names no file")
        image = command_path(args.image[0])
        out, args.out_dir = single_output(image, args.output, REMOVED_SUFFIX)
        return [(image, None, out)]
    if not is_batch(args.image):
        from .streams import is_stream

        image = command_path(args.image[0])
        out, args.out_dir = single_output(image, args.output, REMOVED_SUFFIX)
        if args.mask is not None:
            return [(image, command_path(args.mask), out)]
        if is_stream(image):
            raise InputError("--mask is required (the object to remove)")
        mask, via = find_mask(image, masks)
        if masks is None and not mask.is_file() and os.path.lexists(image):  # else: the image's own error
            raise InputError(f"--mask is required (the object to remove): there is no {shown(mask.name)} beside "
                             f"{shown(image)}; or select the object with --box X0,Y0,X1,Y1 or --around ROUGH_MASK")
        if not args.quiet and os.path.lexists(image):  # else the image's own error comes alone
            where = f" (for {shown(via)}, which {shown(image)} names)" if via is not None else ""
            say(f"inpaint: note: the mask is {shown(mask)}{where}")
        return [(image, mask, out)]
    images = batch_images(args.image)
    if args.save_mapping is not None:
        raise InputError("--save-mapping takes one image, not a batch")
    out_dir = output_folder(args.output)
    work, own = [], []
    for image in images:
        mask, via = (Path(args.mask), None) if args.mask is not None else find_mask(image, masks)
        work.append((image, mask, output_for(image, out_dir, REMOVED_SUFFIX)))
        own.append(args.mask is None and via is None and mask.is_file())
    args.own, args.out_dir = own, out_dir
    return work


def _guess_backend(backend: str) -> str:
    if backend != "auto":
        return backend
    from ..cl.runtime import opencl_available

    return "opencl" if opencl_available() else "numpy"


def main(argv: Sequence[str], prog: str = "inpaint") -> int:
    """Run ``inpaint`` (object removal) with the command-line arguments ``argv``; errors are
    raised and reported by :func:`inpaint.cli.guard.guarded`."""
    phases = Phases()  # --stats: the start-up ends here
    parser = build_parser()
    from .select import negative_values_joined

    args = parser.parse_args(negative_values_joined(argv))
    args.argv = list(argv)
    if not args.image and args.mask is None and args.case is None:
        parser.print_usage(sys.stderr)
        raise InputError("no image given: 'inpaint IMAGE --mask MASK -o OUT', or 'inpaint --case walkingman' "
                         "for the bundled example; 'inpaint --help' lists the options")
    apply_environment(args)
    with max_pixels(args.max_pixels):
        return _run(args, phases)


def _run(args: argparse.Namespace, phases: Phases | None = None) -> int:
    options = _method_options(args)
    radius = parse_grow(args.grow) if args.grow is not None else 0
    jobs = parse_int(args.jobs, "--jobs", 1, MAX_JOBS) if args.jobs is not None else 1
    if args.output is not None and args.output.strip() == "":
        raise InputError("the output file name (-o) is empty")
    work = _jobs(args)
    if work[0][1] is None and args.grow is None:  # a selection follows the object's edge: its rim goes too
        from .select import SELECT_RIM

        radius = SELECT_RIM
    if not is_batch(args.image or []):
        from .streams import standard_streams

        image_path, mask_path, out = work[0]
        with standard_streams([("input image", image_path), ("mask", mask_path or _around(args)),
                               ("--protect mask", command_path(args.protect) if args.protect else None)], out,
                              [("--save-mapping", args.save_mapping)]) as ((image_path, mask_path, protect), out):
            if protect is not None:
                args.protect = str(protect)
            if mask_path is not None and args.around is not None:  # the --around mask, read as given
                args.around, mask_path = mask_path, None
            with made_output_folder(args.out_dir):
                _remove_one(args, options, radius, image_path, mask_path, out, phases=phases)
        return 0
    return _remove_batch(args, options, radius, work, jobs)


def _remove_batch(args: argparse.Namespace, options: dict[str, Any], radius: int,
                  work: list[tuple[Path, Path, Path]], jobs: int) -> int:
    """Fill every image of a batch (:func:`inpaint.cli.batch.run_batch`).  One OpenCL context and one
    program build serve all the files a worker fills."""
    from .options import engine_for

    keep = plan_batch("inpaint", [(image, [m for m in (mask, batch_mask(args.protect, image)) if m is not None], out)
                                  for image, mask, out in work], quiet=args.quiet,
                      overwrite=args.overwrite or args.force, own=args.own)
    work = [work[i] for i in keep]
    if not work:
        return run_batch("inpaint", [], lambda *_: None, quiet=args.quiet)
    check_shared([("mask", args.mask), ("--protect mask", args.protect)], args.out_dir)
    engine = engine_for(args)
    make_output_folder(args.out_dir)
    # one job: the next image and its mask are read, and the last result written, while an image is filled
    ahead = ReadAhead(lambda i: _read_pair(work[i][0], work[i][1], ahead), len(work)) if jobs == 1 else None

    def one(i: int, label: str, device: Any) -> Any:
        image, mask, out = work[i]
        return _remove_one(args, options, radius, image, mask, out, label=label, progress=jobs == 1,
                           engine=engine if device is None else engine.on(device),
                           ahead=ahead, index=i, later=ahead is not None)

    try:
        return run_batch("inpaint", [image for image, _, _ in work], one, jobs=jobs,
                         devices=best_devices(args.backend, args.device, jobs), quiet=args.quiet, verb="removed",
                         behind=True)
    finally:
        if ahead is not None:
            ahead.close()


def _read_pair(image_path: Path, mask_path: Path | None, ahead: ReadAhead | None) -> tuple[Any, Told | None]:
    """The picture, and its mask read after it (:meth:`ReadAhead.aside`: taken after the picture's
    own checks) when read ahead; without ``ahead``, the mask is read in its turn (None)."""
    from .. import io as imageio
    from ..io.read import check_name, check_regular
    from . import early

    if mask_path is not None:  # a missing mask is said before the photo is decoded
        for path, what in ((image_path, "image"), (mask_path, "mask")):
            check_name(path, what)
            check_regular(path, what)
    from ..api import FILL_BYTES_PER_PIXEL

    pic = imageio.read_image(image_path, work_bytes_per_pixel=FILL_BYTES_PER_PIXEL, decoded=early.take(image_path))
    if mask_path is None or ahead is None:
        return pic, None
    return pic, ahead.aside(lambda: imageio.read_mask(mask_path, pic.size, turned=_sideways(pic)))


def _remove_one(args: argparse.Namespace, options: dict[str, Any], radius: int, image_path: Path, mask_path: Path,
                out: Path, label: str | None = None, progress: bool = True, phases: Phases | None = None,
                engine: Any = None, ahead: ReadAhead | None = None, index: int = 0, later: bool = False) -> Any:
    """Fill one image and write its result (and --save-mapping); raises on bad input.  With
    ``phases`` (one image, not a batch), ``--stats`` also prints the whole command's time.
    ``engine``: the run's, resolved by a batch before its first image (None: resolved here);
    ``ahead``, ``index``: a batch's reading ahead, and the image's place in it (None for one
    image: it and its mask are read on a thread while the OpenCL device starts); ``later``: the
    writing and the report are returned as a function, for the batch to run behind, instead of
    run here."""
    if ahead is not None or engine is not None:  # a batch's image
        return _remove(args, options, radius, image_path, mask_path, out, label, progress, phases, engine,
                       ahead, index, later)
    own = ReadAhead(lambda _: _read_pair(image_path, mask_path, own), 1)
    try:
        return _remove(args, options, radius, image_path, mask_path, out, label, progress, phases, engine,
                       own, 0, later)
    finally:
        own.close()


def _remove(args: argparse.Namespace, options: dict[str, Any], radius: int, image_path: Path, mask_path: Path,
            out: Path, label: str | None, progress: bool, phases: Phases | None, engine: Any,
            ahead: ReadAhead | None, index: int, later: bool) -> Any:
    """:func:`_remove_one`'s work."""
    from .. import io as imageio
    from ..masks import covers_everything, grow
    from .options import engine_for

    run = ImageRun("inpaint", args, label, phases, progress)
    protect_path = batch_mask(args.protect, image_path)
    sources = [("input image", image_path)] + ([("mask", mask_path)] if mask_path is not None else
                                               [("--around mask", _around(args))] if args.around else [])
    if protect_path is not None:
        sources.append(("--protect mask", protect_path))
    mapping = Path(args.save_mapping) if args.save_mapping is not None else None
    run.check_outputs(out, sources, args.save_mapping, "--save-mapping", mapping)
    phases, timing = run.phases, run.timing
    if ahead is not None:
        ahead.start(index)  # (a batch's: started while the image before it was filled)
    with timing(CONTEXT) if args.backend != "numpy" else contextlib.nullcontext():
        if engine is None:  # one image (a batch resolved its engine before its first image)
            engine = engine_for(args)
        if ahead is not None and index == 0 and not ahead.failed(0):
            # the device starts while the first image is read (a file that is no image is told first)
            engine.ready(profiling=bool(args.stats))
    with timing(READ):
        pic, mask_read = ahead.take(index) if ahead is not None else _read_pair(image_path, mask_path, None)
    w, h = pic.size
    if min(w, h) < 3:
        raise InputError(f"image {image_path} is {w}x{h} pixels: too small to fill (the smallest patch is 3x3)")
    imageio.check_output(out, mode=pic.mode, size=pic.size)
    if radius and covers_everything((h, w), radius):
        raise InputError(f"--grow {radius} would cover the whole {w}x{h} image from any one pixel of the mask: "
                         "there would be nothing to copy from; use a smaller --grow")
    plan = imageio.plan_output(pic, out, quality=parse_quality(args.quality))
    if mapping is not None:
        imageio.check_output(mapping, mode="RGB", size=pic.size, what="--save-mapping")
    if mask_path is None:  # --box or --around: the object is selected here
        from .select import fallback_note, selection

        run.note(fallback_note())
        mask = selection(pic.rgb, pic.size, args.box, _around(args))
        if not mask.any():
            raise InputError("the selection is empty: nothing to remove (draw the box or lasso around the object)")
    else:
        with timing(READ):
            mask = (mask_read.take() if mask_read is not None
                    else imageio.read_mask(mask_path, pic.size, turned=_sideways(pic)))
    drawn = int(mask.sum())
    if radius and mask.any():
        mask = grow(mask, radius)
    name = run.name
    protect = None
    if protect_path is not None:
        with timing(READ):
            protect = _read_protect(protect_path, pic.size, mask, name, _sideways(pic))
    run.note("; ".join(plan.notes))  # what the output cannot keep, said before the work
    new = run.new
    meta = {"plan": plan, "mask": mask, "new": new}
    if not mask.any():
        note = run.save([(imageio.unchanged(pic), out, meta)])[0]
        run.say(f"the mask {shown(mask_path)} selects no pixel: nothing to remove; wrote an unchanged copy to "
                f"{shown(out)}", always=True)
        unused = []  # nothing was filled: nothing to map or to time
        if mapping is not None:
            unused.append(f"--save-mapping: no map was written to {shown(mapping)}, as nothing was filled")
        if args.stats:
            unused.append("--stats: nothing was filled, so there is nothing to time")
        run.note("; ".join(filter(None, [note, *unused])))
        return
    if mask.all():
        raise InputError("the mask covers the whole image: there is nothing to copy from")
    holed = int(mask.sum())
    from ..api import fill_memory

    note = imageio.check_memory(fill_memory(mask.size, holed, _guess_backend(args.backend)),
                                f"filling {holed} pixels of {shown(image_path)} ({pic.size[0]}x{pic.size[1]})")
    if note:
        warnings.warn(InputWarning(f"{name}{note}"))
    _warn_if_long(mask, args, drawn, name, options)
    from ..api import inpaint

    t_fill = time.perf_counter()
    with run.working("filling") as bar, engine.turn(profiling=bool(args.stats)):
        res = inpaint(pic.rgb, mask, method=args.method, progress=bar, token=run.token,
                      context=_run_context(args, engine, protect), **options)
    if phases is not None:
        s = res.stats
        if s.backend != "numpy":
            phases.add(CONTEXT, s.context_seconds)
            phases.add(BUILD, s.build_seconds)
        phases.add(FILL, time.perf_counter() - t_fill - s.context_seconds - s.build_seconds)
    run.stopped()  # stopped after the work: its result is not written

    def write_and_report() -> None:
        with timing(WRITE):
            result, fill_note = imageio.apply_fill(pic, res.image, lambda: res.source_map, mask)
            items = [(result, out, meta)]
            if mapping is not None:
                items.append((registry.get(args.method).mapping(res, mask), mapping, {"new": new}))
            notes = run.save(items)
        run.note("; ".join(n for n in (fill_note, notes[0], _mapping_note(mapping, notes[1:])) if n))
        s = res.stats
        if args.stats:
            try:
                print((f"{label}\n" if label else "") + format_stats(s), flush=True)
                run.print_phases()
            except OSError as exc:  # standard output closed or full: the image is written all the same
                raise ReportLost(exc) from exc
        if not args.quiet:
            extra = (f", the search area widened {s.widened} time{'s' if s.widened != 1 else ''} to find enough "
                     "sources") if s.widened else ""
            grown = f" (the mask grown by {radius} from {drawn})" if radius else ""
            unit = registry.get(s.method).unit
            compiled = run.compile_words()
            run.say(f"removed {int(mask.sum())} pixels{grown} in {s.iterations} {unit}, "
                    f"{s.total_seconds:.3f} s ({s.backend} on {s.device}{extra}{'; ' + compiled if compiled else ''}) "
                    f"-> {shown(out)}")

    if later:
        return write_and_report
    write_and_report()
    return None


def _mapping_note(mapping: Path | None, notes: Sequence[str | None]) -> str | None:
    """What the ``--save-mapping`` file could not keep: its writer's note, or that its format is lossy."""
    if mapping is None:
        return None
    from .. import io as imageio

    said = [n for n in notes if n]
    can = imageio.FORMATS.get(imageio.output_format(mapping))
    if can is not None and can.lossy == "always":
        said.append(f"{imageio.output_format(mapping)} is lossy: the map's colours are not kept exactly (write .png)")
    return f"--save-mapping {shown(mapping)}: {'; '.join(said)}" if said else None


def _around(args: argparse.Namespace) -> Path | None:
    """The ``--around`` rough mask's path, if given."""
    return command_path(args.around) if args.around is not None else None


def _sideways(pic: Any) -> bool:
    """Whether the photo was turned a quarter upright by its EXIF orientation (5 to 8)."""
    return pic.source.orientation >= 5


def _read_protect(path: Path, size: tuple[int, int], mask: Any, name: str, turned: bool | None = None) -> Any:
    """The --protect mask (the one mask rule), with a warning when it protects nothing or
    overlaps the object (the object is filled all the same)."""
    from .. import io as imageio

    protect = imageio.read_mask(path, size, "--protect mask", turned)
    if not protect.any():
        warnings.warn(InputWarning(f"{name}the --protect mask {path} selects no pixel: nothing is protected"))
    both = int((protect & mask).sum())
    if both:
        warnings.warn(InputWarning(
            f"{name}{both} pixel{'s are' if both != 1 else ' is'} in both the mask and --protect: they are filled "
            "all the same (--protect only keeps the fill from copying protected pixels)"))
    return protect


def _warn_if_long(mask: Any, args: argparse.Namespace, drawn: int, name: str = "",
                  options: dict[str, Any] | None = None) -> None:
    """A warning with an estimate for a mask covering most of the image or a long fill; when the
    mask as drawn (``drawn`` pixels, before ``--grow``) marks most of the photo, it says what
    white marks: such a mask is often inverted.  ``name`` leads it (a batch's ``[2/9] b.png: ``);
    ``options``, the method's, weigh the estimate by their costs."""
    from ..io.mask_rule import INVERTED_HINT, MOSTLY
    from ..report import format_percent
    from .progress import format_seconds

    n, total = int(mask.sum()), int(mask.size)
    coverage = n / total
    if coverage < 0.5 and n < 20_000:
        return
    backend = _guess_backend(args.backend)
    method = registry.get(args.method)
    seconds = n * _FILL_SECONDS_PER_PIXEL.get(backend, 6e-4) * method.cost
    for key, value in (options or {}).items():
        cost = method.option(key).cost if key in method.names else None
        seconds *= cost(value) if cost is not None else 1.0
    if coverage >= 0.5:
        hint = f" ({INVERTED_HINT})" if drawn > MOSTLY * total else ""
        warnings.warn(InputWarning(
            f"{name}the mask covers {format_percent(coverage)} of the image{hint}: little is left to copy from, and "
            f"the fill of {n} pixels may take roughly {format_seconds(seconds)} ({backend}; a rough estimate)"))
    elif seconds >= LONG_JOB_SECONDS:
        warnings.warn(InputWarning(
            f"{name}filling {n} pixels may take roughly {format_seconds(seconds)} ({backend}; a rough estimate)"))

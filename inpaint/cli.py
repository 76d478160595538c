"""The ``inpaint`` command: object removal, plus ``resize``, ``bench``, ``devices``, ``app``."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

from .errors import InputError
from .methods import DEFAULT_METHOD, METHODS, OPTIONS, SOURCES
from .profiles import STAGES, ProfileError
from .report import draw_mapping, draw_offsets, format_stats  # noqa: F401 - also the public names here
from .imageio import same_file as _same_file

# subcommand -> module providing add_arguments(parser) and run(args) -> int
SUBCOMMANDS = {
    "resize": ("inpaint.seam.cli", "content-aware resize by seam carving"),
    "bench": ("inpaint_bench.cli", "benchmarks: the pipeline beside the paper's Tables 2, 4, 5-8, fill quality "
                                   "(--quality), 'seam', 'integral'; needs the inpaint-bench package"),
    "devices": ("inpaint.devices", "list OpenCL devices and each profile's effective limits"),
    "app": ("inpaint.app_command", "start the touch app (needs the app extra: Kivy)"),
}

MASK_RULE = ("Mask rule: pixels brighter than mid-grey (> 127) mark the object; for a mask with "
             "transparency, its opaque pixels (alpha > 127) do, so anti-aliased and JPEG masks work.")




def build_parser() -> argparse.ArgumentParser:
    """The parser of the main (object-removal) command."""
    p = argparse.ArgumentParser(
        prog="inpaint",
        description="Remove an object from a photo: the hole is filled from the rest of the picture by a "
                    "multiscale exemplar fill (default) or the paper's Criminisi pipeline, on OpenCL.",
        epilog=MASK_RULE + " Other commands: " + ", ".join(
            f"'inpaint {name}' ({desc})" for name, (_, desc) in SUBCOMMANDS.items())
        + ". Exit status: 0 done (also for an empty mask, which writes an unchanged copy), "
          "2 bad input, 3 OpenCL unavailable.",
    )
    p.add_argument("image", nargs="?", help="input image (omit to use the bundled example given by --case)")
    p.add_argument("--mask", "-m", help="mask image of the same size (see the mask rule below)")
    p.add_argument("--case", help="use a bundled dataset case (image and mask), e.g. walkingman")
    p.add_argument("-o", "--output", help="output image (default: <input>_removed.<ext> beside the input; "
                                          "<case>_removed.png for --case)")
    p.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD,
                   help="'multiscale' (default): coarse-to-fine PatchMatch that blends overlapping patches and "
                        "matches the surrounding tones; 'criminisi': the paper's greedy patch-by-patch fill")
    p.add_argument("--alpha", default=None,
                   help="search factor of Eq. 6: sources come from the object's box grown by alpha times its "
                        "size on each side; 'full' searches the whole image (default: full for multiscale, "
                        "0.05 for criminisi, as in the paper)")
    p.add_argument("--patch", "-p", default=None,
                   help="patch side P, odd and >= 3 (default: 7 for multiscale, 9 for criminisi)")
    p.add_argument("--candidates", default=None,
                   help="multiscale: source patches each patch votes with, 1-8 (default 4); fewer keep more "
                        "texture, more blend more smoothly")
    p.add_argument("--source", choices=SOURCES, default=None,
                   help="criminisi: take sources only from the original picture ('original', default, as in the "
                        "paper) or also from pixels filled earlier ('filled')")
    p.add_argument("--backend", choices=("auto", "opencl", "numpy"), default="auto",
                   help="'auto' uses OpenCL when a device exists and falls back to numpy with a warning")
    p.add_argument("--device", help="OpenCL device: 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of its name "
                                    "(default: PYOPENCL_CTX, then the profile, then the best device)")
    p.add_argument("--profile", help="device profile name or .toml path (e.g. adreno330); see 'inpaint devices'")
    p.add_argument("--partition", help="comma-separated stages to run on the device (others run in numpy): "
                                       + ",".join(STAGES) + "; 'all' or 'none'")
    p.add_argument("--variant", choices=("auto", "local", "global"), default=None,
                   help="findBestPatch kernel: local-memory tiles (paper's Alg. 2) or global memory")
    p.add_argument("--prune", choices=("auto", "on", "off"), default=None,
                   help="findBestPatch stops candidates whose partial SSD passes a sampled bound (same result; "
                        "auto: on CPU devices, where it is faster)")
    p.add_argument("--stats", action="store_true", help="print the per-stage timing table (like the paper's Table 2)")
    p.add_argument("--save-mapping", metavar="FILE",
                   help="also write a picture of where the fill came from: for criminisi, each target patch (red) "
                        "joined to its source patch (green); for multiscale, each filled pixel coloured by the "
                        "direction (hue) and distance (brightness) of its source")
    p.add_argument("--force", action="store_true", help="allow the output to replace the input or mask file")
    p.add_argument("--max-pixels", type=int, default=None,
                   help="largest image accepted, in pixels (Pillow's decompression-bomb guard; default %d)"
                        % 89_478_485)
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar or notes")
    return p


def _method_options(args: argparse.Namespace) -> dict[str, Any]:
    """The chosen method's options from the command line (unset ones take the method's defaults)."""
    given = {"alpha": args.alpha, "patch": args.patch, "backend": args.backend, "device": args.device,
             "profile": args.profile, "candidates": args.candidates, "source": args.source,
             "partition": _parse_partition(args.partition), "variant": args.variant,
             "prune": None if args.prune is None else {"auto": "auto", "on": True, "off": False}[args.prune]}
    allowed = OPTIONS[args.method]
    wrong = [f"--{k}" for k, v in given.items() if v is not None and k not in allowed]
    if wrong:
        raise InputError(f"{', '.join(wrong)} only apply to another --method; the {args.method} method takes "
                         + ", ".join(f"--{k}" for k in allowed if k in given))
    options = {k: v for k, v in given.items() if v is not None}
    if "candidates" in options:
        try:
            options["candidates"] = int(options["candidates"])
        except ValueError:
            raise InputError(f"--candidates must be an integer from 1 to 8, got {args.candidates!r}") from None
    return options


def _error(msg: str, code: int = 2) -> int:
    print(f"inpaint: error: {msg}", file=sys.stderr)
    return code



def _parse_partition(text: str | None) -> list[str] | None:
    if text is None:
        return None
    text = text.strip().lower()
    if text == "all":
        return list(STAGES)
    if text in ("none", ""):
        return []
    stages = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in stages if s not in STAGES]
    if bad:
        raise InputError(f"unknown stage(s) in --partition: {', '.join(bad)}; stages are {', '.join(STAGES)}")
    return stages


class _Progress:
    """A one-line progress bar on stderr (only on a terminal)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.last = -1.0

    def __call__(self, fraction: float) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if fraction < 1.0 and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        filled = int(round(fraction * width))
        sys.stderr.write(f"\rfilling [{'#' * filled}{'.' * (width - filled)}] {fraction * 100:5.1f}%  "
                         f"{now - self.t0:6.2f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.last >= 0:
            sys.stderr.write("\n")


def _remove(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    from PIL import Image

    from . import imageio
    from .pipeline import inpaint
    from .runtime import OpenCLUnavailable

    if args.max_pixels is not None:
        if args.max_pixels <= 0:
            return _error("--max-pixels must be positive")
        Image.MAX_IMAGE_PIXELS = args.max_pixels
    try:
        options = _method_options(args)
        if args.image is None and args.mask is None and args.case is None:
            args.case = "walkingman"
            if not args.quiet:
                print("inpaint: no image given: using the bundled 'walkingman' example", file=sys.stderr)
        if args.case is not None:
            if args.image is not None or args.mask is not None:
                raise InputError("give either --case or IMAGE --mask, not both")
            from .cases import load_case

            case = load_case(args.case)
            image_path, mask_path = case.paths["image"], case.paths["mask"]
            default_out = Path(f"{case.name}_removed.png")
        else:
            if args.image is None:
                raise InputError("no input image given")
            if args.mask is None:
                raise InputError("--mask is required (the object to remove)")
            image_path, mask_path = Path(args.image), Path(args.mask)
            default_out = image_path.with_name(f"{image_path.stem}_removed{image_path.suffix or '.png'}")
        out = Path(args.output) if args.output else default_out
        imageio.output_format(out)
        if args.save_mapping:
            imageio.output_format(args.save_mapping)
        for target in (out, Path(args.save_mapping)) if args.save_mapping else (out,):
            # checked before any work or write, so a bad --save-mapping cannot leave a half-done run
            if not target.parent.is_dir():
                raise InputError(f"output folder {target.parent} does not exist")
        for name, src in (("input image", image_path), ("mask", mask_path)):
            if _same_file(out, src) or out.resolve() == Path(src).resolve():
                if not args.force:
                    raise InputError(f"the output {out} is the {name}; refusing to overwrite it (use --force)")
            if args.save_mapping and (Path(args.save_mapping).resolve() == Path(src).resolve()) and not args.force:
                raise InputError(f"--save-mapping {args.save_mapping} is the {name}; refusing to overwrite it")
        pic = imageio.read_image(image_path)
        mask = imageio.read_mask(mask_path, pic.size)
        if not mask.any():
            try:
                note = imageio.save_image(pic.image, out, exif=pic.exif, icc_profile=pic.icc_profile)
            except OSError as exc:
                return _error(f"cannot write the output: {exc}")
            print(f"inpaint: the mask {mask_path} selects no pixel: nothing to remove; "
                  f"wrote an unchanged copy to {out}", file=sys.stderr)
            if note:
                print(f"inpaint: note: {note}", file=sys.stderr)
            return 0
        bar = _Progress(enabled=sys.stderr.isatty() and not args.quiet)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            try:
                res = inpaint(pic.rgb, mask, method=args.method, progress=bar, **options)
            finally:
                bar.close()
        for w in caught:
            print(f"inpaint: warning: {w.message}", file=sys.stderr)
        result, fill_note = imageio.apply_fill(pic, res.image, res.source_map, mask)
        try:
            note = imageio.save_image(result, out, exif=pic.exif, icc_profile=pic.icc_profile)
            note = "; ".join(n for n in (fill_note, note) if n) or None
            if args.save_mapping:
                if args.method == "criminisi":
                    drawing = draw_mapping(res.image, res.stats.patches, res.stats.patch)
                else:
                    drawing = draw_offsets(res.image, res.source_map, mask)
                imageio.save_image(drawing, args.save_mapping)
        except OSError as exc:  # permission denied, disk full...: the atomic write left nothing behind
            return _error(f"cannot write the output: {exc}")
    except (InputError, ProfileError) as exc:
        return _error(str(exc))
    except OpenCLUnavailable as exc:
        return _error(f"OpenCL is not available: {exc}; or run with --backend numpy", 3)
    if note and not args.quiet:
        print(f"inpaint: note: {note}", file=sys.stderr)
    s = res.stats
    if args.stats:
        print(format_stats(s))
    if not args.quiet:
        extra = f", search area widened {s.widened}x" if s.widened else ""
        unit = "rounds" if getattr(s, "method", "") == "multiscale" else "iterations"
        print(f"inpaint: removed {int(mask.sum())} pixels in {s.iterations} {unit}, "
              f"{s.total_seconds:.3f} s ({s.backend} on {s.device}{extra}) -> {out}", file=sys.stderr)
    return 0


BENCH_HINT = ("'inpaint bench' needs the benchmark package inpaint-bench, which is not installed: "
              "pip install ./bench (from a checkout of inpaint)")


def _bench(argv: Sequence[str]) -> int:
    """``inpaint bench ...``: delegated to the separate inpaint-bench distribution when installed."""
    try:
        module = importlib.import_module("inpaint_bench.cli")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "inpaint_bench":
            return _error(f"'inpaint bench' is unavailable: {exc}")
        return _error(BENCH_HINT)
    return int(module.main(list(argv), prog="inpaint bench") or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``inpaint`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return _bench(argv[1:])
    if argv and argv[0] in SUBCOMMANDS:
        name = argv[0]
        module_name, desc = SUBCOMMANDS[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            return _error(f"'inpaint {name}' is unavailable: {exc}")
        parser = argparse.ArgumentParser(prog=f"inpaint {name}", description=desc)
        module.add_arguments(parser)
        args = parser.parse_args(argv[1:])
        return int(module.run(args) or 0)
    from PIL import Image

    max_pixels = Image.MAX_IMAGE_PIXELS
    try:
        return _remove(argv)
    finally:  # --max-pixels must not leak into the caller's process (the app, tests)
        Image.MAX_IMAGE_PIXELS = max_pixels


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

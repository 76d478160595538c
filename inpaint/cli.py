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
from .profiles import STAGES, ProfileError
from .imageio import same_file as _same_file

# subcommand -> module providing add_arguments(parser) and run(args) -> int
SUBCOMMANDS = {
    "resize": ("inpaint.seam.cli", "content-aware resize by seam carving"),
    "bench": ("inpaint.bench", "benchmark the pipeline (the paper's Tables 2, 4, 5-8)"),
    "devices": ("inpaint.devices", "list OpenCL devices and each profile's effective limits"),
    "app": ("inpaint.app_command", "start the touch app (needs the app extra: Kivy)"),
}

MASK_RULE = ("Mask rule: pixels brighter than mid-grey (> 127) mark the object; for a mask with "
             "transparency, its opaque pixels (alpha > 127) do, so anti-aliased and JPEG masks work.")




def build_parser() -> argparse.ArgumentParser:
    """The parser of the main (object-removal) command."""
    p = argparse.ArgumentParser(
        prog="inpaint",
        description="Remove an object from a photo by Criminisi exemplar-based inpainting (OpenCL).",
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
    p.add_argument("--alpha", default="0.05",
                   help="search factor of Eq. 6: the search area grows by alpha times the object's size on "
                        "each side; 'full' searches the whole image (default 0.05)")
    p.add_argument("--patch", "-p", default="9", help="patch side P, odd and >= 3 (default 9)")
    p.add_argument("--backend", choices=("auto", "opencl", "numpy"), default="auto",
                   help="'auto' uses OpenCL when a device exists and falls back to numpy with a warning")
    p.add_argument("--device", help="OpenCL device: 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of its name "
                                    "(default: PYOPENCL_CTX, then the profile, then the best device)")
    p.add_argument("--profile", help="device profile name or .toml path (e.g. adreno330); see 'inpaint devices'")
    p.add_argument("--partition", help="comma-separated stages to run on the device (others run in numpy): "
                                       + ",".join(STAGES) + "; 'all' or 'none'")
    p.add_argument("--variant", choices=("auto", "local", "global"), default="auto",
                   help="findBestPatch kernel: local-memory tiles (paper's Alg. 2) or global memory")
    p.add_argument("--prune", choices=("auto", "on", "off"), default="auto",
                   help="findBestPatch stops candidates whose partial SSD passes a sampled bound (same result; "
                        "auto: on CPU devices, where it is faster)")
    p.add_argument("--stats", action="store_true", help="print the per-stage timing table (like the paper's Table 2)")
    p.add_argument("--save-mapping", metavar="FILE",
                   help="also write the result with each target patch (red) joined to its source patch (green)")
    p.add_argument("--force", action="store_true", help="allow the output to replace the input or mask file")
    p.add_argument("--max-pixels", type=int, default=None,
                   help="largest image accepted, in pixels (Pillow's decompression-bomb guard; default %d)"
                        % 89_478_485)
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar or notes")
    return p


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


def format_stats(stats: Any) -> str:
    """The per-stage timing table (like the paper's Table 2) as Markdown."""
    from .profiles import STAGES as names

    labels = {
        "grey": "convert RGB to grey",
        "front": "update border of the area to be filled",
        "valid": "mark source pixels to be used",
        "confidence": "update pixel confidence in the filling area",
        "priority": "update pixel priorities in the filling area",
        "ssd": "find the best matching patch",
        "reduce": "best-patch reduction",
        "copy": "update RGB and grey image of the filling patch",
    }
    total_stage = sum(stats.stage_seconds.values()) + stats.transfer_seconds
    lines = [f"backend {stats.backend} on {stats.device}; patch {stats.patch}, alpha "
             f"{'full' if stats.alpha is None else stats.alpha}, search area {stats.search_area}, "
             f"findBestPatch {stats.variant}" + (", pruned" if stats.pruned else "")
             + (f" ({stats.local_mem_bytes} B local memory per work-group)" if stats.local_mem_bytes else ""),
             f"{stats.iterations} iterations, {stats.widened} widened search areas, "
             f"{stats.total_seconds:.3f} s wall",
             "",
             "| stage | where | seconds | % |",
             "|---|---|---:|---:|"]
    for s in names:
        sec = stats.stage_seconds.get(s, 0.0)
        where = "device" if s in stats.device_stages else "host"
        pct = 100 * sec / total_stage if total_stage else 0.0
        lines.append(f"| {labels[s]} | {where} | {sec:.4f} | {pct:.2f} |")
    pct = 100 * stats.transfer_seconds / total_stage if total_stage else 0.0
    lines.append(f"| host<->device transfers and sync | | {stats.transfer_seconds:.4f} | {pct:.2f} |")
    lines.append(f"| **total** | | **{total_stage:.4f}** | 100 |")
    return "\n".join(lines)


def draw_mapping(rgb: Any, patches: Sequence[tuple[int, int, int, int]], patch: int) -> Any:
    """The image with each target patch (red) joined to its source patch (green)."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(rgb).convert("RGB")
    draw = ImageDraw.Draw(img)
    half = patch // 2
    for ty, tx, sy, sx in patches:
        draw.line([(tx, ty), (sx, sy)], fill=(255, 220, 0), width=1)
        draw.rectangle([tx - half, ty - half, tx + half, ty + half], outline=(255, 0, 0))
        draw.rectangle([sx - half, sy - half, sx + half, sy + half], outline=(0, 255, 0))
    return img


def _remove(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    from PIL import Image

    from . import imageio
    from .pipeline import check_patch, inpaint, parse_alpha
    from .runtime import OpenCLUnavailable

    if args.max_pixels is not None:
        if args.max_pixels <= 0:
            return _error("--max-pixels must be positive")
        Image.MAX_IMAGE_PIXELS = args.max_pixels
    try:
        alpha = parse_alpha(args.alpha)
        partition = _parse_partition(args.partition)
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
        patch = check_patch(args.patch, pic.rgb.shape[0], pic.rgb.shape[1])
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
                res = inpaint(pic.rgb, mask, alpha=alpha if alpha is not None else "full", patch=patch,
                              backend=args.backend, device=args.device, profile=args.profile,
                              partition=partition, variant=args.variant,
                              prune={"auto": "auto", "on": True, "off": False}[args.prune], progress=bar)
            finally:
                bar.close()
        for w in caught:
            print(f"inpaint: warning: {w.message}", file=sys.stderr)
        result = imageio.apply_source_map(pic, res.source_map, mask)
        try:
            note = imageio.save_image(result, out, exif=pic.exif, icc_profile=pic.icc_profile)
            if args.save_mapping:
                imageio.save_image(draw_mapping(res.image, res.stats.patches, patch), args.save_mapping)
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
        print(f"inpaint: removed {int(mask.sum())} pixels in {s.iterations} iterations, "
              f"{s.total_seconds:.3f} s ({s.backend} on {s.device}{extra}) -> {out}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``inpaint`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
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

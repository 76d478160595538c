"""``inpaint resize``: content-aware resizing from the command line.

Exit status: 0 done, 2 bad input (nothing written), 3 OpenCL unavailable.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from .api import BACKENDS, ENERGIES, ORDERS

MASK_RULE = ("Masks: pixels brighter than mid-grey (> 127) are marked; for a mask with transparency, "
             "its opaque pixels (alpha > 127) are.")


class _BadInput(Exception):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``inpaint resize`` options on ``parser``."""
    parser.description = ("Content-aware resize by seam carving (shrink, enlarge, protect, remove objects). "
                          + MASK_RULE + " Exit status: 0 done, 2 bad input, 3 OpenCL unavailable.")
    parser.add_argument("image", help="input image")
    parser.add_argument("--width", "-W", type=int, help="target width (default: the input's)")
    parser.add_argument("--height", "-H", type=int, help="target height (default: the input's)")
    parser.add_argument("-o", "--output", help="output image (default: <input>_resized.<ext> beside the input)")
    parser.add_argument("--protect", metavar="MASK", help="mask of pixels no seam may cross")
    parser.add_argument("--remove", metavar="MASK", help="mask of an object to remove by carving through it; "
                                                         "the size is then restored unless --no-restore")
    parser.add_argument("--no-restore", action="store_true",
                        help="with --remove: keep the smaller size where --width/--height are not given")
    parser.add_argument("--energy", choices=ENERGIES, default="backward", help="energy (default backward)")
    parser.add_argument("--order", choices=ORDERS, default="width-first", help="carving order")
    parser.add_argument("--batch", type=int, metavar="K",
                        help="approximate mode: up to K strip-local seams per pass (much faster)")
    parser.add_argument("--save-seams", metavar="FILE", help="also write the input with the seams drawn over it "
                                                             "(removed: red, inserted: green)")
    parser.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="'auto' uses OpenCL when a device exists, else numpy with a warning")
    parser.add_argument("--device", help="OpenCL device: 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of its name")
    parser.add_argument("--profile", help="device profile name or .toml path; see 'inpaint devices'")
    parser.add_argument("--allow-large", action="store_true", help="allow enlarging by more than 2x")
    parser.add_argument("--force", action="store_true", help="allow an output to replace an input file")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress or summary")


def _open(path: str, what: str) -> Any:
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            img.load()
            return ImageOps.exif_transpose(img)
    except FileNotFoundError:
        raise _BadInput(f"{what} {path!r} does not exist") from None
    except UnidentifiedImageError:
        raise _BadInput(f"{what} {path!r} is not an image Pillow can read") from None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise _BadInput(f"{what} {path!r} cannot be read: {exc}") from None


def _mask(path: str, size: tuple[int, int], what: str) -> np.ndarray:
    img = _open(path, what)
    if img.size != size:
        raise _BadInput(f"{what} {path!r} is {img.size[0]}x{img.size[1]} (W x H) but the image is "
                        f"{size[0]}x{size[1]}")
    if img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info:
        return np.asarray(img.convert("RGBA"))[..., 3] > 127
    return np.asarray(img.convert("L")) > 127


def _same(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _format_for(path: str) -> str:
    from PIL import Image

    ext = Path(path).suffix.lower()
    fmt = Image.registered_extensions().get(ext)
    if fmt is None or fmt not in Image.SAVE:
        raise _BadInput(f"cannot write {path!r}: unknown or read-only image format {ext or '(no extension)'!r}")
    return fmt


def _seam_picture(original: np.ndarray, seams: np.ndarray) -> np.ndarray:
    pic = original[..., :3].copy() if original.ndim == 3 else np.repeat(original[..., None], 3, axis=2)
    pic[seams > 0] = (255, 0, 0)
    pic[seams < 0] = (0, 255, 0)
    return pic


def run(args: argparse.Namespace) -> int:
    """Run ``inpaint resize`` with parsed ``args``; returns the exit status."""
    from PIL import Image

    from . import api
    from ..imageio import save_image
    from ..runtime import OpenCLUnavailable

    def fail(msg: str, code: int = 2) -> int:
        print(f"inpaint resize: error: {msg}", file=sys.stderr)
        return code

    try:
        src = args.image
        out = args.output
        if out is None:
            p = Path(src)
            out = str(p.with_name(f"{p.stem}_resized{p.suffix or '.png'}"))
        inputs = [src] + [m for m in (args.protect, args.remove) if m]
        for target in [out] + ([args.save_seams] if args.save_seams else []):
            for i in inputs:
                if _same(target, i) and not args.force:
                    raise _BadInput(f"output {target!r} would replace the input {i!r}; pass --force to allow it")
        if args.save_seams and _same(args.save_seams, out):
            raise _BadInput("--save-seams and the output are the same file")
        _format_for(out)  # refuse an unknown output format before any work
        if args.save_seams:
            _format_for(args.save_seams)
        for name in ("width", "height"):
            v = getattr(args, name)
            if v is not None and v <= 0:
                raise _BadInput(f"--{name} must be a positive integer, got {v}")
        if args.batch is not None and args.batch < 1:
            raise _BadInput(f"--batch must be a positive integer, got {args.batch}")
        img = _open(src, "image")
        w0, h0 = img.size
        for name, v, cur in (("width", args.width, w0), ("height", args.height, h0)):
            if v is not None and v > 2 * cur and not args.allow_large:
                raise _BadInput(f"--{name} {v} is more than twice the input's {cur}; pass --allow-large "
                                "to enlarge that much")
        grey = img.mode in ("L", "I", "I;16", "1")
        alpha = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
        arr = np.asarray(img.convert("RGBA" if alpha else "RGB"))
        keep = _mask(args.protect, (w0, h0), "protect mask") if args.protect else None
        drop = _mask(args.remove, (w0, h0), "remove mask") if args.remove else None
    except _BadInput as exc:
        return fail(str(exc))

    progress = None
    if not args.quiet and sys.stderr.isatty():
        def progress(done: int, total: int) -> None:
            print(f"\rinpaint resize: {done}/{total} seams", end="", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    try:
        result = api.resize(arr, args.width, args.height, energy=args.energy, order=args.order,
                            keep_mask=keep, drop_mask=drop, batch=args.batch, backend=args.backend,
                            device=args.device, profile=args.profile, progress=progress,
                            return_seams=bool(args.save_seams), restore=not args.no_restore,
                            allow_large=args.allow_large)
    except ValueError as exc:  # bad sizes/masks, impossible protect mask, ProfileError
        if progress:
            print(file=sys.stderr)
        return fail(str(exc))
    except OpenCLUnavailable as exc:
        if progress:
            print(file=sys.stderr)
        return fail(str(exc), 3)
    if progress:
        print(file=sys.stderr)
    elapsed = time.perf_counter() - t0
    out_arr, seam_map = result if args.save_seams else (result, None)
    pic = Image.fromarray(out_arr)
    if grey:
        pic = pic.convert("L")
    try:
        save_image(pic, out)
        if seam_map is not None:
            save_image(Image.fromarray(_seam_picture(arr, seam_map)), args.save_seams)
    except OSError as exc:
        return fail(f"cannot write the output: {exc}")
    if not args.quiet:
        print(f"inpaint resize: {w0}x{h0} -> {out_arr.shape[1]}x{out_arr.shape[0]} in {elapsed:.3f} s -> {out}",
              file=sys.stderr)
    return 0

"""A case's fill by two versions of the package, side by side, cropped around the hole and magnified.

Usage::

    git worktree add /tmp/before <commit>
    python tools/before_after.py OUT.png [--case walkingman] [--before /tmp/before] [--zoom 2]

Tiles, left to right: the input, the default fill of the checkout in ``--before`` (run in a
subprocess with ``PYTHONPATH`` set to it), the default fill of this checkout, and the truth.
``docs/quality/walkingman_before_after.png`` compares the version before the sharp fill (d22b926).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
FILL = ("import sys, numpy as np\n"
        "try:\n"
        "    from inpaint.io.cases import load_case\n"
        "    from inpaint.api import inpaint\n"
        "except ImportError:  # a checkout from before the package's method families\n"
        "    from inpaint.cases import load_case\n"
        "    from inpaint.pipeline import inpaint\n"
        "c = load_case(sys.argv[1])\n"
        "np.save(sys.argv[2], inpaint(c.image, c.mask, backend='auto').image)\n")


def fill(checkout: Path, case: str, out: Path) -> np.ndarray:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    subprocess.run([sys.executable, "-W", "ignore", "-c", FILL, case, str(out)], env=env, check=True, cwd=checkout)
    return np.load(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--case", default="walkingman")
    p.add_argument("--before", required=True, help="checkout of the earlier version")
    p.add_argument("--zoom", type=int, default=2)
    p.add_argument("--margin", type=int, default=24)
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from inpaint.io.cases import load_case

    c = load_case(args.case)
    with tempfile.TemporaryDirectory() as tmp:
        before = fill(Path(args.before), args.case, Path(tmp) / "before.npy")
        after = fill(ROOT, args.case, Path(tmp) / "after.npy")
    ys, xs = np.nonzero(c.mask)
    h, w = c.mask.shape
    y0, y1 = max(ys.min() - args.margin, 0), min(ys.max() + 1 + args.margin, h)
    x0, x1 = max(xs.min() - args.margin, 0), min(xs.max() + 1 + args.margin, w)
    tiles = [("input", c.image), ("before", before), ("now", after), ("truth", c.truth)]
    tw, th = (x1 - x0) * args.zoom, (y1 - y0) * args.zoom
    label, gap = 18, 6
    sheet = Image.new("RGB", (len(tiles) * tw + (len(tiles) - 1) * gap, th + label), "white")
    draw = ImageDraw.Draw(sheet)
    for i, (name, img) in enumerate(tiles):
        crop = Image.fromarray(np.ascontiguousarray(img[y0:y1, x0:x1])).resize((tw, th), Image.NEAREST)
        sheet.paste(crop, (i * (tw + gap), label))
        draw.text((i * (tw + gap) + 2, 2), name, fill=(0, 0, 0))
    sheet.save(args.out, optimize=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What ``--protect`` changes on a real object removal, side by side, magnified.

Usage::

    python tools/protect_demo.py OUT.png [--object flag_backdrop] [--box Y0:Y1,X0:X1] [--crop Y0:Y1,X0:X1]

Tiles, left to right: the input with the protected box outlined in green, the default fill,
and the default fill with the box protected (pixels of the box outside the hole).  The
defaults reproduce ``docs/quality/protect_flag_backdrop.png``: the flag beside an astronaut,
with the pale pocket on her sleeve protected so that it is not copied along the shoulder.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

from inpaint.api import inpaint
from inpaint.io import read_mask

ROOT = Path(__file__).resolve().parents[1]


def _box(text: str) -> tuple[slice, slice]:
    rows, cols = (tuple(int(v) for v in part.split(":")) for part in text.split(","))
    return slice(*rows), slice(*cols)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--object", default="flag_backdrop", help="a folder of datasets/objects")
    ap.add_argument("--box", default="322:392,15:58", help="the protected box, rows and columns")
    ap.add_argument("--crop", default="150:512,0:130", help="the part shown")
    ap.add_argument("--zoom", type=int, default=2)
    args = ap.parse_args()
    folder = ROOT / "datasets" / "objects" / args.object
    img = np.asarray(Image.open(folder / "image.png").convert("RGB"))
    mask = read_mask(folder / "mask.png", (img.shape[1], img.shape[0]))
    protect = np.zeros_like(mask)
    protect[_box(args.box)] = True
    protect &= ~mask
    plain = inpaint(img, mask).image
    kept = inpaint(img, mask, protect=protect).image
    shown = img.copy()
    inner = protect.copy()
    inner[1:-1, 1:-1] = protect[:-2, 1:-1] & protect[2:, 1:-1] & protect[1:-1, :-2] & protect[1:-1, 2:]
    shown[protect & ~inner] = (40, 220, 90)
    crop = _box(args.crop)
    gap = np.full((crop[0].stop - crop[0].start, 6, 3), 255, np.uint8)
    sheet = np.concatenate([shown[crop], gap, plain[crop], gap, kept[crop]], axis=1)
    h, w = sheet.shape[:2]
    Image.fromarray(sheet).resize((w * args.zoom, h * args.zoom), Image.NEAREST).save(args.out)


if __name__ == "__main__":
    main()

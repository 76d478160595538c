"""Measure how large one Select tap's region is on real photos, and what the app's size limit
does to it (a tool of the checkout, for docs/TAP_SELECT.md, "Regions too large for an object").

On the twelve photos of ``datasets/objects`` and the four bundled cases, four taps per photo
land on random pixels (seeded) at least half the largest inner distance deep in the object
(``mask.png``, or the pixels the paste changed for a bundled case).  Each tap is selected as the
app selects it (:func:`mobile_ui.masktools.tap_select`, default tolerance) and as the app keeps
it to an object's size (:func:`mobile_ui.masktools.tap_select_plausible`: the tolerance halved
while the region covers more than ``--limit`` of the photo).  Printed: how many taps were over
the limit, how many the halving brought under it, and for both selections the mean IoU with the
object and the mean share of the region that is object.

``--time`` instead times taps on two of the photos enlarged to 4000x3000 (12 MP): one selection,
and the app's tap with the limit (median of 3).

``python tools/tap_region_limit.py [--limit 0.25] [--time]``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ("walkingman", "river", "divingman", "hill")
TAPS = 4


def cases():
    """``(name, image, object mask)`` of every photo measured."""
    from inpaint.io.cases import load_case

    folder = ROOT / "datasets" / "objects"
    for c in json.loads((folder / "index.json").read_text(encoding="utf-8"))["cases"]:
        with Image.open(folder / c["name"] / "image.png") as im:
            image = np.asarray(im.convert("RGB")).copy()
        with Image.open(folder / c["name"] / "mask.png") as im:
            obj = np.asarray(im.convert("L")) > 127
        yield c["name"], image, obj
    for name in BUNDLED:
        c = load_case(name)
        image = np.asarray(c.image)
        yield name, image, (image != np.asarray(c.truth)).any(axis=2)


def taps(obj: np.ndarray, rng: np.random.Generator):
    """``TAPS`` pixels at least half the largest inner distance deep in ``obj``."""
    import cv2

    dist = cv2.distanceTransform(np.pad(obj, 1).astype(np.uint8), cv2.DIST_L2, 5)[1:-1, 1:-1]
    ys, xs = np.nonzero(dist >= 0.5 * dist.max())
    return [(int(ys[i]), int(xs[i])) for i in rng.integers(len(ys), size=TAPS)]


def time_taps() -> None:
    """Seconds per tap on 12 MP photos (see the module's docstring)."""
    import time

    from mobile_ui import masktools

    for case, points in (("fig_bowl", [(40, 40), (270, 400)]), ("nuthatch_bark", [(300, 100), (360, 700)])):
        with Image.open(ROOT / "datasets" / "objects" / case / "image.png") as im:
            src = im.convert("RGB")
        sy, sx = 3000 / src.height, 4000 / src.width
        image = np.asarray(src.resize((4000, 3000), Image.BICUBIC))
        for y, x in points:
            seed = (int(y * sy), int(x * sx))
            t0 = time.perf_counter()
            masktools.tap_select(image, seed, masktools.DEFAULT_TOLERANCE)
            one = time.perf_counter() - t0
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                region, tol = masktools.tap_select_plausible(image, seed, masktools.DEFAULT_TOLERANCE)
                runs.append(time.perf_counter() - t0)
            print(f"{case} at {seed}: one selection {one:.2f} s; the app's tap {np.median(runs):.2f} s "
                  f"(tolerance {tol}, {region.mean():.1%} of the photo)")


def main(argv=None) -> int:
    from mobile_ui import masktools

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limit", type=float, default=masktools.MAX_REGION, help="largest share of the photo")
    p.add_argument("--time", action="store_true", help="time taps on 12 MP photos instead")
    args = p.parse_args(argv)
    if args.time:
        time_taps()
        return 0
    iou = lambda a, b: float((a & b).sum() / max((a | b).sum(), 1))   # noqa: E731
    n = over = brought = 0
    largest = 0.0
    scores = {"default": ([], []), "limited": ([], [])}
    for _name, image, obj in cases():
        largest = max(largest, float(obj.mean()))
        for seed in taps(obj, np.random.default_rng(0)):
            n += 1
            plain = masktools.tap_select(image, seed, masktools.DEFAULT_TOLERANCE)
            limited, _tol = masktools.tap_select_plausible(image, seed, masktools.DEFAULT_TOLERANCE, args.limit)
            if plain.mean() > args.limit:
                over += 1
                brought += limited.mean() <= args.limit
            for key, region in (("default", plain), ("limited", limited)):
                scores[key][0].append(iou(region, obj))
                scores[key][1].append(float((region & obj).sum() / region.sum()))
    print(f"largest object: {largest:.1%} of its photo")
    print(f"limit {args.limit:.0%}: {over} of {n} taps on objects over it; {brought} brought under it by halving")
    for key, (ious, shares) in scores.items():
        print(f"{key}: mean IoU {np.mean(ious):.3f}, mean share of the region on the object {np.mean(shares):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

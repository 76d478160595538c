"""Where the default fill's dark smears come from, on the real object removals.

Usage::

    python tools/dark_fill_sources.py [--cases dog_window,spoon_saucer] [--seeds 0,1,2]
                                      [--grow N] [--levels] [--backend opencl]
                                      [--set MODULE.NAME=VALUE ...] [--option NAME=VALUE ...]

A hole pixel counts as *dark* when its grey level (the mean of r, g and b) lies more than 25
below the mean of the known pixels in the 61x61 window around it.  For each photo of
``datasets/objects/`` and seed it prints the share of the hole that is dark and, for the dark
pixels beside all hole pixels, what the source map (``result.source_map``: the original pixel
that the best-matching patch copies there) says of their sources: the share within 3 px of the
hole (the object's rim or halo just outside the mask), their median distance to the hole, the
share within 3 px of a strong edge (a grey-level gradient among the top tenth of the known
pixels within 60 px of the hole), how much darker than that window the source itself is, and
the median difference between the fill and the source it copies (small: copied, not blended or
spread by the correction).  ``--grow N`` fills with the mask grown by N px (what ``inpaint
--grow N`` does; the dark share is still counted on the given mask).  ``--levels`` also prints
the dark pixels after each level, counted on the level's fill scaled up: where the dark area is
laid down.  ``--set`` and ``--option`` change a module constant or pass an option to the fill,
as for ``tools/quality_steps.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from inpaint_bench import quality  # noqa: E402

#: A dark pixel lies this many grey levels below the mean of the known pixels around it.
DARK = 25
#: Side of the window whose known pixels give that mean.
WINDOW = 61


def grey(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32).mean(axis=-1)


def surroundings(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean grey level of the known pixels in the window around each pixel."""
    known = (~mask).astype(np.float32)
    total = cv2.blur(grey(image) * known, (WINDOW, WINDOW))
    return total / np.maximum(cv2.blur(known, (WINDOW, WINDOW)), 1e-6)


def dark(fill: np.ndarray, mask: np.ndarray, around: np.ndarray) -> np.ndarray:
    return mask & (grey(fill) < around - DARK)


def sources_report(image: np.ndarray, mask: np.ndarray, fill: np.ndarray, smap: np.ndarray,
                   around: np.ndarray) -> dict[str, dict[str, float]]:
    """The source statistics of the dark hole pixels and of all of them."""
    to_hole = cv2.distanceTransform((~mask).astype(np.uint8), cv2.DIST_L2, 5)
    g = grey(image)
    step = np.hypot(cv2.Sobel(g, -1, 1, 0), cv2.Sobel(g, -1, 0, 1)) / 8
    strong = step > np.percentile(step[~mask & (to_hole <= 60)], 90)
    near_edge = cv2.dilate(strong.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool)
    is_dark = dark(fill, mask, around)
    out = {}
    for name, sel in (("dark", is_dark), ("all", mask)):
        ys, xs = np.nonzero(sel & (smap[..., 0] >= 0))
        if len(ys) == 0:
            continue
        sy, sx = smap[ys, xs, 0], smap[ys, xs, 1]
        out[name] = {"pixels": len(ys),
                     "within 3 px of the hole": float(np.mean(to_hole[sy, sx] <= 3.5)),
                     "median distance to the hole": float(np.median(to_hole[sy, sx])),
                     "within 3 px of a strong edge": float(np.mean(near_edge[sy, sx])),
                     "source below its surroundings": float(np.median(around[ys, xs] - g[sy, sx])),
                     "median |fill - source|": float(np.median(np.abs(grey(fill)[ys, xs] - g[sy, sx])))}
    return out


def level_counts(image: np.ndarray, fill_mask: np.ndarray, mask: np.ndarray, around: np.ndarray,
                 backend: str, seed: int, options: dict) -> list[tuple[int, int]]:
    """(level, dark pixels) after the last round of each level."""
    from inpaint.api import start

    job = start(image, fill_mask, backend=backend, seed=seed, **options)
    counts: list[tuple[int, int]] = []
    while not job.done:
        job.step()
        level = getattr(getattr(job, "_part", None), "_level", None)  # the level the step ran at
        count = int(dark(job.image, mask, around).sum())
        if counts and counts[-1][0] == level:
            counts[-1] = (level, count)
        else:
            counts.append((level, count))
    return counts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default="dog_window,pedestal_hilltop,tripod_grass,spoon_saucer,nuthatch_bark")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--grow", type=int, default=0)
    p.add_argument("--levels", action="store_true")
    p.add_argument("--backend", default="opencl")
    quality.add_fill_overrides(p)
    args = p.parse_args()
    options = quality.fill_overrides(args)
    from inpaint.api import inpaint
    from inpaint.masks import grow

    shares = []
    for case in quality.load_object_cases(quality.find_objects_root(), args.cases):
        image, mask = np.array(case.image), np.array(case.mask)
        fill_mask = grow(mask, args.grow) if args.grow else mask
        around = surroundings(image, mask)
        case_shares = []
        for seed in (int(s) for s in args.seeds.split(",")):
            res = inpaint(image, fill_mask, backend=args.backend, seed=seed, **options)
            report = sources_report(image, mask, res.image, np.asarray(res.source_map), around)
            share = report.get("dark", {}).get("pixels", 0) / int(mask.sum())
            case_shares.append(share)
            print(f"{case.name} seed {seed}: dark {share:.3f} of {int(mask.sum())} hole pixels")
            for name, row in report.items():
                print(f"  {name:4s} " + "; ".join(f"{k} {v:.3g}" for k, v in row.items() if k != "pixels"))
            if args.levels:
                counts = level_counts(image, fill_mask, mask, around, args.backend, seed, options)
                print("  dark after each level: " + ", ".join(f"level {lv} {n}" for lv, n in counts))
        shares.append(statistics.fmean(case_shares))
        print(f"{case.name}: mean dark share {shares[-1]:.3f}")
    print(f"mean dark share over the photos: {statistics.fmean(shares):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

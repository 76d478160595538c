"""Does a consensus of seeds pick better fills?

For each case of a split: N seeds' fills, each seed's scores, and the fill each selector picks:
the medoid (the fill with the least summed mean absolute difference to the others over the hole's
box, at full, 1/4 and 1/8 size); the fill nearest a diffusion fill (OpenCV's Telea or
Navier-Stokes), alone or added to the medoid's sum; seed 0; and the lowest SWD in hindsight.  Prints each
selector's means.  Run from the checkout's root, with ``inpaint`` importable::

    python bench/results/h200/quality_probes/medoid.py tune N OUT.json ['{"adapt": "on"}']
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path.cwd() / "bench"))

from inpaint.api import inpaint
from inpaint_bench import quality


def box_down(img: np.ndarray, f: int) -> np.ndarray:
    h, w = img.shape[0] // f * f, img.shape[1] // f * f
    return img[:h, :w].reshape(h // f, f, w // f, f, -1).mean(axis=(1, 3))


def picks_of(fills: list[np.ndarray], mask: np.ndarray, image: np.ndarray) -> dict[str, int]:
    import cv2

    smooth = {name: cv2.inpaint(image, mask.astype(np.uint8) * 255, 5, flag).astype(np.float64)
              for name, flag in (("telea", cv2.INPAINT_TELEA), ("ns", cv2.INPAINT_NS))}
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    picks = {}
    for f in (1, 4, 8):
        crops = [box_down(fill[y0:y1, x0:x1], f) for fill in fills]
        inside = box_down(mask[y0:y1, x0:x1, None].astype(float), f)[..., 0] > 0
        dist = np.array([[np.abs(a[inside] - b[inside]).mean() for b in crops] for a in crops])
        picks[f"medoid{f}"] = int(np.argmin(dist.sum(1)))
        for name, fill in smooth.items():  # nearest the diffusion fill; that and the medoid's sum
            ref = box_down(fill[y0:y1, x0:x1], f)
            near = np.array([np.abs(c[inside] - ref[inside]).mean() for c in crops])
            picks[f"{name}{f}"] = int(np.argmin(near))
            picks[f"mix{name}{f}"] = int(np.argmin(near * len(crops) + dist.sum(1)))
    return picks


def main() -> None:
    split, n, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    options = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    rows = {}
    for entry in quality.case_index(quality.find_quality_root()):
        if entry.split != split:
            continue
        case = quality.load_entry(entry)
        image, mask = np.array(case.image), np.array(case.mask)
        fills, scores = [], []
        for seed in range(n):
            res = inpaint(image, mask, backend="opencl", seed=seed, **options)
            fills.append(res.image.astype(np.float64))
            scores.append(quality.score(res.image, case.truth, case.mask))
        picks = picks_of(fills, mask, image) | {"seed0": 0, "best_swd": int(np.argmin([s["swd"] for s in scores]))}
        rows[case.name] = {"scores": scores, "picks": picks}
        print(case.name, picks, [round(s["swd"], 2) for s in scores], flush=True)
    out.write_text(json.dumps(rows))
    for key in next(iter(rows.values()))["picks"]:
        chosen = [r["scores"][r["picks"][key]] for r in rows.values()]
        print(f"{key:10s} coarse SSIM {statistics.fmean(s['coarse_ssim'] for s in chosen):.4f} "
              f"SWD {statistics.fmean(s['swd'] for s in chosen):.3f} "
              f"detail {statistics.median(s['detail'] for s in chosen):.2f}")
    cs = statistics.fmean(statistics.fmean(s["coarse_ssim"] for s in r["scores"]) for r in rows.values())
    swd = statistics.fmean(statistics.fmean(s["swd"] for s in r["scores"]) for r in rows.values())
    print(f"{'mean seed':10s} coarse SSIM {cs:.4f} SWD {swd:.3f}")


if __name__ == "__main__":
    main()

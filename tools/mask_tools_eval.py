"""Measure the app's mask tools on the bundled cases, for bench/results/app/mask_tools.md (a tool of the checkout).

Every bundled case was made by pasting a cut-out onto a photo, so both the object (the
pixels the paste changed, ``image != truth``) and the clean photo (``truth.png``) are known.

1. **Tap-to-select.**  A simulated user taps the object with the app's Select tool (add
   mode): each tap goes to the deepest point of the part of the object not selected yet, and a
   tap that selects more background than object is undone, as a user would.  Reported: the
   IoU of the selection with the object, after ``--taps`` taps, for a few tolerances, with and
   without GrabCut on top (``inpaint.masks.refine_grabcut``, needs OpenCV).
2. **Removal.**  The default fill with masks drawn tightly (the object less its rim, as a quick
   brush stroke gives), the same masks grown (``inpaint.masks.grow``), and the tap selection
   (grown by 2 px, as the app's Grow slider does): error against ``truth.png`` around the
   object, and before/after crops.

``python tools/mask_tools_eval.py docs/screenshots`` writes the crops and prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from inpaint.api import inpaint
from inpaint.io.cases import load_case
from inpaint.masks import grabcut_available, grow
from mobile_ui.masktools import DEFAULT_TOLERANCE, refine, tap_select

CASES = ("walkingman", "river", "divingman", "hill")
TOLERANCES = (16, 32, 48, 64)


def erode(mask: np.ndarray, r: int) -> np.ndarray:
    return ~grow(~mask, r)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


def deepest(missing: np.ndarray) -> tuple[int, int] | None:
    """The pixel of ``missing`` farthest from its outside (peeling layers with grow)."""
    if not missing.any():
        return None
    core = missing
    while True:
        inner = erode(core, 1)
        if not inner.any():
            break
        core = inner
    ys, xs = np.nonzero(core)
    i = len(ys) // 2
    return int(ys[i]), int(xs[i])


def simulate_taps(image, obj, tol, taps, record=None):
    """The app's Select tool (add mode) tapped up to ``taps`` times, as a careful user would:
    each tap goes to the deepest point of the object not selected yet; a tap that selects more
    background than object is undone and tried again at half the tolerance (a point where even
    tolerance 4 leaks is given up).  ``record`` (a list) receives each kept tap's (seed, tolerance)."""
    sel = np.zeros(obj.shape, bool)
    given_up = np.zeros(obj.shape, bool)
    kept = 0
    while kept < taps:
        seed = deepest(obj & ~sel & ~given_up)
        if seed is None:
            break
        t = tol
        while True:
            region = tap_select(image, seed, t)
            new = region & ~sel
            if (new & ~obj).sum() <= (new & obj).sum():
                sel |= region
                kept += 1
                if record is not None:
                    record.append((seed, t))
                break
            if t <= 4:
                given_up |= _disc_at(obj.shape, seed, 3)
                break
            t = t // 2
    return sel, kept


def _disc_at(shape, yx, r):
    m = np.zeros(shape, bool)
    m[yx] = True
    return grow(m, r)


def fill(image, mask, backend):
    return np.asarray(inpaint(image, mask, backend=backend).image)


def errors(result, truth, area):
    d = np.abs(result.astype(np.float64) - truth.astype(np.float64))[area]
    mse = float((d ** 2).mean())
    return {"mae": float(d.mean()), "psnr": float(10 * np.log10(255.0 ** 2 / max(mse, 1e-9)))}


def crop_box(obj, margin=14):
    rows, cols = np.flatnonzero(obj.any(1)), np.flatnonzero(obj.any(0))
    h, w = obj.shape
    y0, y1 = max(rows[0] - margin, 0), min(rows[-1] + margin + 1, h)
    x0, x1 = max(cols[0] - margin, 0), min(cols[-1] + margin + 1, w)
    if x1 - x0 > 4 * (y1 - y0):                # the long thin wire: a readable stretch of it
        cx = (x0 + x1) // 2
        x0, x1 = cx - 80, cx + 80
    return y0, y1, x0, x1


def outline(img, mask, colour=(255, 40, 60)):
    out = img.copy()
    edge = mask & ~erode(mask, 1)
    out[edge] = colour
    return out


def sheet(panels, box, scale, path):
    """The panels side by side (stacked for a wide, flat crop), each under its title."""
    y0, y1, x0, x1 = box
    tiles = [(t, Image.fromarray(np.ascontiguousarray(p[y0:y1, x0:x1]))) for t, p in panels]
    tw, th = (x1 - x0) * scale, (y1 - y0) * scale
    stack = tw > 3 * th
    n = len(tiles)
    size = (tw, n * (th + 22)) if stack else (n * (tw + 6) - 6, th + 22)
    out = Image.new("RGB", size, (255, 255, 255))
    d = ImageDraw.Draw(out)
    for i, (title, tile) in enumerate(tiles):
        x, y = (0, i * (th + 22)) if stack else (i * (tw + 6), 0)
        out.paste(tile.resize((tw, th), Image.NEAREST), (x, y + 22))
        d.text((x + 4, y + 4), title, fill=(0, 0, 0))
    out.save(path, optimize=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path, nargs="?", help="folder for the crops (none: numbers only)")
    p.add_argument("--taps", default="1,3,6", help="tap counts to report (the last one is used for the fills)")
    p.add_argument("--rim", type=int, default=2, help="pixels of the object's rim the tight mask misses")
    p.add_argument("--backend", default="auto")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    tap_counts = [int(t) for t in args.taps.split(",")]
    has_gc = grabcut_available()
    report = {"select": {}, "fill": {}, "grabcut": has_gc}
    cases = {n: load_case(n) for n in CASES}
    objects = {n: (np.asarray(c.image) != np.asarray(c.truth)).any(axis=2) for n, c in cases.items()}

    # 1. Selection IoU, mean over the cases, per tolerance and tap count.
    sel_of = {}
    for tol in TOLERANCES:
        for taps in tap_counts:
            for name, case in cases.items():
                image, obj = np.asarray(case.image), objects[name]
                t0 = time.perf_counter()
                sel, kept = simulate_taps(image, obj, tol, taps)
                row = {"iou": iou(sel, obj), "taps": kept, "seconds_per_tap": (time.perf_counter() - t0) / max(kept, 1),
                       "recall": float((sel & obj).sum() / obj.sum()),
                       "precision": float((sel & obj).sum() / max(sel.sum(), 1))}
                if has_gc:
                    t0 = time.perf_counter()
                    gc = refine(image, sel)
                    row.update(grabcut_seconds=time.perf_counter() - t0, iou_grabcut=iou(gc, obj),
                               recall_grabcut=float((gc & obj).sum() / obj.sum()),
                               precision_grabcut=float((gc & obj).sum() / max(gc.sum(), 1)))
                    sel_of[(name, tol, taps, "gc")] = gc
                sel_of[(name, tol, taps)] = sel
                report["select"].setdefault(name, {}).setdefault(str(tol), {})[str(taps)] = row
    print("### Tap-to-select: mean IoU with the object over the four cases"
          + (" (selection / after Refine, GrabCut)" if has_gc else "") + "\n")
    print("| tolerance | " + " | ".join(f"{t} tap{'s' if t > 1 else ''}" for t in tap_counts) + " |")
    print("|---" * (len(tap_counts) + 1) + "|")
    for tol in TOLERANCES:
        cells = []
        for taps in tap_counts:
            rows = [report["select"][n][str(tol)][str(taps)] for n in CASES]
            cell = f"{np.mean([r['iou'] for r in rows]):.3f}"
            if has_gc:
                cell += f" / {np.mean([r['iou_grabcut'] for r in rows]):.3f}"
            cells.append(cell)
        mark = " (default)" if tol == DEFAULT_TOLERANCE else ""
        print(f"| {tol}{mark} | " + " | ".join(cells) + " |")

    taps = tap_counts[-1]
    tol = DEFAULT_TOLERANCE
    print(f"\n### Per case, tolerance {tol}, {taps} taps\n")
    print("| case | object px | IoU | recall | precision | s per tap |"
          + (" IoU after Refine | recall | precision | Refine s |" if has_gc else ""))
    print("|---" * (6 + (4 if has_gc else 0)) + "|")
    for name in CASES:
        r = report["select"][name][str(tol)][str(taps)]
        line = (f"| {name} | {int(objects[name].sum())} | {r['iou']:.3f} | {r['recall']:.3f} | {r['precision']:.3f} "
                f"| {r['seconds_per_tap']:.3f} |")
        if has_gc:
            line += (f" {r['iou_grabcut']:.3f} | {r['recall_grabcut']:.3f} | {r['precision_grabcut']:.3f} "
                     f"| {r['grabcut_seconds']:.2f} |")
        print(line)

    # 2. Removal quality with each mask.
    print("\n### Removal: PSNR (dB) / mean absolute error against truth.png, over the object grown by 8 px\n")
    variants = ["tight", "tight, grow 2", "tight, grow 4", "taps, grow 2"]
    if has_gc:
        variants.append("taps + Refine, grow 2")
    variants.append("dataset mask")
    print("| case | " + " | ".join(variants) + " |")
    print("|---" * (len(variants) + 1) + "|")
    for name, case in cases.items():
        image, truth, given = np.asarray(case.image), np.asarray(case.truth), np.asarray(case.mask)
        obj = objects[name]
        tight = erode(obj, args.rim)
        masks = {"tight": tight, "tight, grow 2": grow(tight, 2), "tight, grow 4": grow(tight, 4),
                 "taps, grow 2": grow(sel_of[(name, tol, taps)], 2)}
        if has_gc:
            masks["taps + Refine, grow 2"] = grow(sel_of[(name, tol, taps, "gc")], 2)
        masks["dataset mask"] = given
        area = grow(obj, 8)
        results, cells = {}, []
        for v, m in masks.items():
            results[v] = fill(image, m, args.backend)
            e = errors(results[v], truth, area)
            e.update(mask_px=int(m.sum()), misses_object_px=int((obj & ~m).sum()))
            report["fill"].setdefault(name, {})[v] = e
            cells.append(f"{e['psnr']:.1f} / {e['mae']:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            box = crop_box(obj)
            scale = 3 if (box[1] - box[0]) < 60 else 2 if (box[1] - box[0]) < 200 else 1
            best = "taps + Refine, grow 2" if has_gc else "taps, grow 2"
            sheet([("tight mask", outline(image, tight)),
                   ("fill: tight", results["tight"]),
                   ("fill: tight, grow 2", results["tight, grow 2"]),
                   (best, outline(image, masks[best])),
                   ("fill: " + best, results[best]),
                   ("truth", truth)], box, scale, args.out / f"masktools-{name}.png")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())

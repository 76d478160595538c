"""Measure tap-to-select against true object masks (a tool of the checkout, for docs/TAP_SELECT.md).

Three tap selections are compared: the colour range of earlier versions (``colour``:
:func:`mobile_ui.masktools.tap_select_colour`), the object-aware tap (``object``:
:func:`inpaint.tapselect.select_object`, which the app's tap uses where OpenCV is installed),
and the tap of :func:`inpaint.select.select_point` (``select``: a box grown from the tap's
colour region, cut by GrabCut, on the selection so far).  Two gestures of :mod:`inpaint.select`
are measured too: a lasso (:func:`~inpaint.select.select_around`) and a box
(:func:`~inpaint.select.select_box`).

The truth
---------
* ``bundled``: the four bundled cases (``datasets/<case>``) were made by pasting a cut-out
  onto a photo; the object is exactly the pixels the paste changed (``image != truth``).
* ``objects``: the twelve real photos of ``datasets/objects``.  Their ``mask.png`` holds a
  rim (3-4 px) and, for the fig, its shadow, so the truth here is rebuilt from the outlines
  of ``tools/build_object_cases.py`` without the rim: the hand-placed polygons (points a few
  source pixels outside the object's edge, i.e. within about 1-2 output pixels), reduced to
  the case's size the same way; the fig without its shadow.  The wooden bird is a colour
  matte that needs the source photo, so its truth is ``mask.png`` eroded by its rim (a
  closing of the outline).  Two more objects come from the outlines of the same script on
  the same images: the astronaut (``flag_backdrop``'s image) and the cameraman
  (``tripod_grass``'s image).

Cases are split once, by a fixed rule and before any tuning: ``tune`` (the bundled cases and
every other object case, in ``index.json`` order) and ``held-out`` (the rest, and the two
extra objects).  Only ``tune`` was looked at while choosing the method's constants.

The simulated user
------------------
Each tap goes to a point deep inside the part of the object not selected yet: a random
pixel (seeded) among those at least ``DEPTH`` of the largest distance to its outline.  A tap
that adds more background than object is undone and tried again at half the tolerance (a
user lowering the slider); below 4 that spot is given up, and after ``PATIENCE`` (10) spots
given up in a row the user stops.  Both selections get the same
user, the same seeds and the default tolerance of each.  With ``--subtract`` the user of
:func:`inpaint.select.select_point` also takes away: where the selection holds more background
than it misses of the object, the tap goes deep inside that background (a tap inside the
selection), kept only if it takes away more background than object.

The gestures' user: a lasso is the object's outline grown by a random 10-40 px (seeded), the
margin wandering by up to a third of itself (smooth noise); a box is the object's bounding box
grown by a random 5-20 % of its size on each side (seeded).

``python tools/tap_select_eval.py [--set tune|held-out|all] [--methods colour,object,select]
[--only taps,lasso,box] [--no-gestures] [--seeds N] [--subtract] [--json FILE]`` prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from build_object_cases import (  # noqa: E402
    CASES as OBJECT_CASES,
    OBJECTS,
    fill_small_holes,
    out_size,
    polygons_mask,
    reduce_mask,
)

from inpaint import select as gesture  # noqa: E402
from inpaint.io.cases import load_case  # noqa: E402
from inpaint.tapselect import select_object  # noqa: E402
from mobile_ui import masktools  # noqa: E402

BUNDLED = ("walkingman", "river", "divingman", "hill")
#: Extra objects outlined on the images of these cases: (name, case, outline).
EXTRA = (("astronaut", "flag_backdrop", "astronaut"), ("cameraman", "tripod_grass", "cameraman"))
#: A tap lands on a pixel at least this fraction of the deepest distance inside the missing part.
DEPTH = 0.5
#: The user stops after this many spots in a row given up (a selection that takes more background
#: than object at every tolerance); without it a failing method could keep the user tapping for hours.
PATIENCE = 10
#: Set by ``--subtract``: the user also taps inside the selection to take background away.
SUBTRACT = False
SEEDS = (0, 1, 2)


def load_rgb(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), np.uint8).copy()


def outline_truth(case: dict, objects: list[str]) -> np.ndarray:
    """The union of ``objects``' polygons, reduced to the case's size, without the rim."""
    w, h = out_size(case["crop"], case["long"])
    x1, y1 = case["crop"][2], case["crop"][3]
    src = np.zeros((y1, x1), bool)
    for name in objects:
        src |= polygons_mask((x1, y1), OBJECTS[name]["polygons"])
    return fill_small_holes(reduce_mask(src, case["crop"], (w, h)))


def load_sets() -> dict[str, list[tuple[str, np.ndarray, np.ndarray]]]:
    """``{"tune": [(name, image, truth), ...], "held-out": [...]}``."""
    sets = {"tune": [], "held-out": []}
    for name in BUNDLED:
        c = load_case(name)
        image = np.asarray(c.image)
        sets["tune"].append((name, image, (image != np.asarray(c.truth)).any(axis=2)))
    order = [c["name"] for c in json.loads((ROOT / "datasets/objects/index.json").read_text())["cases"]]
    by_name = {c["name"]: c for c in OBJECT_CASES}
    for i, name in enumerate(order):
        case, folder = by_name[name], ROOT / "datasets/objects" / name
        image = load_rgb(folder / "image.png")
        objects = ["fig" if o == "fig_shadow" else o for o in case["objects"]]
        if all("polygons" in OBJECTS[o] and "matte" not in OBJECTS[o] for o in objects):
            truth = outline_truth(case, objects)
        else:
            drawn = load_rgb(folder / "mask.png")[..., 0] > 127
            truth = ~masktools.grow(~drawn, case["rim"])
        sets["tune" if i % 2 == 0 else "held-out"].append((name, image, truth))
    for name, case_name, outline in EXTRA:
        image = load_rgb(ROOT / "datasets/objects" / case_name / "image.png")
        sets["held-out"].append((name, image, outline_truth(by_name[case_name], [outline])))
    return sets


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


def tap_point(missing: np.ndarray, rng: np.random.Generator) -> tuple[int, int] | None:
    """A random pixel deep inside ``missing`` (at least DEPTH of its largest inner distance)."""
    if not missing.any():
        return None
    dist = ndimage.distance_transform_edt(np.pad(missing, 1))[1:-1, 1:-1]
    ys, xs = np.nonzero(dist >= DEPTH * dist.max())
    i = int(rng.integers(len(ys)))
    return int(ys[i]), int(xs[i])


def simulate(select, image, obj, tolerance, taps, seed, stateful=False):
    """The user above; returns the selection after each kept tap and the seconds each call took.
    A ``stateful`` select takes the selection so far and returns the new one.  With
    ``SUBTRACT`` (and a stateful select), a tap goes where the selection is most wrong: into the
    background it took where that is larger than the object it misses (a tap that takes away)."""
    rng = np.random.default_rng(seed)
    sel = np.zeros(obj.shape, bool)
    given_up = np.zeros(obj.shape, bool)
    after, seconds = [], []
    failures = 0
    while len(after) < taps and failures < PATIENCE:
        over = sel & ~obj & ~given_up
        missing = obj & ~sel & ~given_up
        away = SUBTRACT and stateful and over.sum() > missing.sum()
        yx = tap_point(over if away else missing, rng)
        if yx is None:
            break
        t = tolerance
        while True:
            t0 = time.perf_counter()
            region = select(image, yx, t, sel) if stateful else select(image, yx, t)
            seconds.append(time.perf_counter() - t0)
            new = region if away else sel | region
            changed = new ^ sel
            if (changed & (new != obj)).sum() <= (changed & (new == obj)).sum():
                sel = new
                after.append(sel)
                failures = 0
                break
            if t <= 4:
                y, x = yx
                given_up[max(y - 3, 0):y + 4, max(x - 3, 0):x + 4] = True
                failures += 1
                break
            t = t // 2
    while len(after) < taps:          # nothing left to tap: the selection stays
        after.append(sel)
    return after, seconds


def tap_gesture(image, yx, tolerance, selection):
    """One tap of :func:`inpaint.select.select_point` on the selection so far."""
    return gesture.select_point(image, [(yx[1], yx[0])], selection=selection, tolerance=tolerance, grabcut=True)


METHODS = {
    "colour": (masktools.tap_select_colour, masktools.COLOUR_TOLERANCE),
    "object": (partial(select_object, grabcut=True), masktools.OBJECT_TOLERANCE),
    "select": (tap_gesture, gesture.TOLERANCE),
}
#: Methods that take the selection so far (a tap inside it subtracts).
STATEFUL = {"select"}


def lasso_of(obj: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A loose lasso around ``obj``: its outline grown by a random 10-40 px, the margin
    wandering by up to a third of itself along the way (smooth noise), filled."""
    h, w = obj.shape
    margin = rng.uniform(10, 40)
    dist = ndimage.distance_transform_edt(~obj)
    coarse = rng.uniform(-1, 1, (max(h // 40, 2), max(w // 40, 2)))
    wobble = ndimage.zoom(coarse, (h / coarse.shape[0], w / coarse.shape[1]), order=3)[:h, :w]
    wobble = np.pad(wobble, ((0, h - wobble.shape[0]), (0, w - wobble.shape[1])), mode="edge")
    return ndimage.binary_fill_holes(dist <= margin * (1 + wobble / 3)) | obj


def box_of(obj: np.ndarray, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """A box over ``obj``: its bounding box grown by a random 5-20 % of its size on each side
    (each side its own share), kept inside the image; ``(x0, y0, x1, y1)``."""
    h, w = obj.shape
    rows, cols = np.flatnonzero(obj.any(axis=1)), np.flatnonzero(obj.any(axis=0))
    bh, bw = rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1
    g = rng.uniform(0.05, 0.20, 4)
    return (max(int(cols[0] - g[0] * bw), 0), max(int(rows[0] - g[1] * bh), 0),
            min(int(cols[-1] + 1 + g[2] * bw), w), min(int(rows[-1] + 1 + g[3] * bh), h))


def evaluate_gestures(cases, gestures=("lasso", "box")):
    """``{(case, gesture): {"iou": mean, "s": median seconds}}`` over the seeded users."""
    rows = {}
    for name, image, obj in cases:
        for g in gestures:
            ious, secs = [], []
            for seed in SEEDS:
                rng = np.random.default_rng(seed)
                t0 = time.perf_counter()
                if g == "lasso":
                    sel = gesture.select_around(image, lasso_of(obj, rng), grabcut=True)
                else:
                    sel = gesture.select_box(image, box_of(obj, rng), grabcut=True)
                secs.append(time.perf_counter() - t0)
                ious.append(iou(sel, obj))
            rows[(name, g)] = {"iou": float(np.mean(ious)), "s": float(np.median(secs))}
    return rows


def evaluate(cases, methods, taps=(1, 3)):
    rows = {}
    for name, image, obj in cases:
        for m in methods:
            select, tol = METHODS[m]
            ious = {t: [] for t in taps}
            secs = []
            for seed in SEEDS:
                after, seconds = simulate(select, image, obj, tol, max(taps), seed, stateful=m in STATEFUL)
                for t in taps:
                    ious[t].append(iou(after[t - 1], obj))
                secs += seconds
            rows[(name, m)] = {t: float(np.mean(v)) for t, v in ious.items()} | {"s": float(np.median(secs))}
    return rows


def time_12mp(case: str = "dog_window", runs: int = 5) -> dict[str, list[float]]:
    """Seconds per selection on a 4000x3000 photo: ``case``'s image and truth enlarged (bicubic,
    the truth nearest), one seeded user's lasso, box and tap, each ``runs`` times."""
    sets = load_sets()
    image, obj = next((i, o) for n, i, o in sets["tune"] + sets["held-out"] if n == case)
    big = np.asarray(Image.fromarray(image).resize((4000, 3000), Image.BICUBIC))
    truth = np.asarray(Image.fromarray(obj).resize((4000, 3000), Image.NEAREST))
    rng = np.random.default_rng(0)
    lasso = np.asarray(Image.fromarray(lasso_of(obj, rng)).resize((4000, 3000), Image.NEAREST))
    sy, sx = 3000 / obj.shape[0], 4000 / obj.shape[1]
    x0, y0, x1, y1 = box_of(obj, rng)
    box = (int(x0 * sx), int(y0 * sy), int(x1 * sx), int(y1 * sy))
    ty, tx = tap_point(obj, rng)
    tap = [(int(tx * sx), int(ty * sy))]
    calls = {"lasso": lambda: gesture.select_around(big, lasso),
             "box": lambda: gesture.select_box(big, box),
             "tap": lambda: gesture.select_point(big, tap)}
    seconds = {}
    for name, call in calls.items():
        seconds[name] = []
        for _ in range(runs):
            t0 = time.perf_counter()
            sel = call()
            seconds[name].append(time.perf_counter() - t0)
        seconds[name + " IoU"] = [iou(sel, truth)]
    return seconds


def main(argv=None) -> int:
    global SEEDS, SUBTRACT
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", choices=("tune", "held-out", "all"), default="all")
    p.add_argument("--methods", default="colour,object,select")
    p.add_argument("--gestures", action=argparse.BooleanOptionalAction, default=True,
                   help="also measure a lasso and a box (inpaint.select)")
    p.add_argument("--only", default="taps,lasso,box",
                   help="what to measure, any of taps, lasso, box (default all three)")
    p.add_argument("--seeds", type=int, default=len(SEEDS),
                   help=f"simulated users per case (seeds 0..N-1; default {len(SEEDS)})")
    p.add_argument("--subtract", action="store_true",
                   help="the taps' user also takes away: a tap inside the selection where it took more "
                        "background than it misses of the object")
    p.add_argument("--json", type=Path)
    p.add_argument("--time", action="store_true",
                   help="only time a lasso, a box and a tap on a 4000x3000 photo (dog_window enlarged)")
    args = p.parse_args(argv)
    SEEDS = tuple(range(args.seeds))
    SUBTRACT = args.subtract
    if args.time:
        for name, values in time_12mp().items():
            if name.endswith("IoU"):
                print(f"{name}: {values[0]:.3f}")
            else:
                print(f"{name}: median {np.median(values):.3f} s, max {max(values):.3f} s "
                      f"({', '.join(f'{v:.3f}' for v in values)})")
        return 0
    sets = load_sets()
    methods = args.methods.split(",")
    only = set(args.only.split(","))
    if not only or only - {"taps", "lasso", "box"}:
        p.error(f"--only takes taps, lasso and box, got {args.only!r}")
    gestures = tuple(g for g in ("lasso", "box") if g in only and args.gestures)
    names = ("tune", "held-out") if args.set == "all" else (args.set,)
    report = {}
    for s in names:
        report[s] = {}
        if "taps" in only:
            _tap_table(sets[s], s, methods, report[s])
        if gestures:
            _gesture_table(sets[s], s, gestures, report[s])
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


def _tap_table(cases, s, methods, report):
    """Measure the taps of ``methods`` on ``cases`` (set ``s``), print their table, fill ``report``."""
    rows = evaluate(cases, methods)
    report |= {f"{n}/{m}": r for (n, m), r in rows.items()}
    print(f"\n### {s}: IoU with the object (mean of {len(SEEDS)} seeded users), median seconds per tap\n")
    print("| case | object px | " + " | ".join(f"{m}: 1 tap | {m}: 3 taps | {m}: s/tap" for m in methods) + " |")
    print("|---" * (2 + 3 * len(methods)) + "|")
    for name, _, obj in cases:
        cells = []
        for m in methods:
            r = rows[(name, m)]
            cells += [f"{r[1]:.3f}", f"{r[3]:.3f}", f"{r['s']:.3f}"]
        print(f"| {name} | {int(obj.sum())} | " + " | ".join(cells) + " |")
    cells = []
    for m in methods:
        rs = [rows[(n, m)] for n, _, _ in cases]
        cells += [f"**{np.mean([r[1] for r in rs]):.3f}**", f"**{np.mean([r[3] for r in rs]):.3f}**",
                  f"{np.median([r['s'] for r in rs]):.3f}"]
    print("| mean | | " + " | ".join(cells) + " |")


def _gesture_table(cases, s, gestures, report):
    """Measure ``gestures`` (lasso, box) on ``cases`` (set ``s``), print their table, fill ``report``."""
    rows = evaluate_gestures(cases, gestures)
    report |= {f"{n}/{g}": r for (n, g), r in rows.items()}
    print(f"\n### {s}: IoU with the object of {' and '.join('a ' + g for g in gestures)} "
          f"(mean of {len(SEEDS)} seeded users), median seconds per selection\n")
    print("| case | " + " | ".join(f"{g} | {g} s" for g in gestures) + " |")
    print("|---" * (1 + 2 * len(gestures)) + "|")
    for name, _, _ in cases:
        print(f"| {name} | " + " | ".join(f"{rows[(name, g)]['iou']:.3f} | {rows[(name, g)]['s']:.3f}"
                                          for g in gestures) + " |")
    means = [np.mean([rows[(n, g)]["iou"] for n, _, _ in cases]) for g in gestures]
    print("| mean | " + " | ".join(f"**{m:.3f}** | " for m in means) + "|")


if __name__ == "__main__":
    sys.exit(main())

"""Contact sheets of the real object removals under several settings of the default fill, for
judging by eye what an option changes.

Usage::

    python tools/object_option_sheets.py OUT_DIR [--seeds 0,1,2] [--cases all] [--truth]
                                         [--config NAME:OPTION=VALUE,OPTION=VALUE ...]

For each photo of ``datasets/objects/``: the input with the hole outlined, then one row per
configuration (``default``, the fill's defaults, first), one tile per seed, each cropped around
the hole and magnified 2x as ``inpaint bench --objects`` does.  Written as JPEG
(``OUT_DIR/options_<case>.jpg``).  With ``--truth``, the tuning cases of ``datasets/quality/``
that ``--cases`` names instead (never the held-out ones), each row led by the truth.  ``grow=N``
in a configuration is no option of the fill: that row fills the mask grown by N px, as
``inpaint --grow N`` does, and outlines it (the crop stays the given hole's).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from inpaint_bench import quality  # noqa: E402


def _config(text: str) -> tuple[str, dict]:
    name, _, items = text.partition(":")
    options = {}
    for item in filter(None, items.split(",")):
        key, value = item.split("=", 1)
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key] = value
    return name, options


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--cases", default="all")
    p.add_argument("--config", action="append", default=[], metavar="NAME:OPTION=VALUE,...")
    p.add_argument("--backend", default="opencl")
    p.add_argument("--quality", type=int, default=80, help="JPEG quality")
    p.add_argument("--truth", action="store_true",
                   help="the tuning cases of datasets/quality that --cases names, each row led by the truth")
    args = p.parse_args()
    from inpaint.api import inpaint
    from inpaint.masks import grow

    configs = [("default", {})] + [_config(c) for c in args.config]
    seeds = [int(s) for s in args.seeds.split(",")]
    quality.SHEET_COLUMNS = len(seeds) + 1
    args.out.mkdir(parents=True, exist_ok=True)
    if args.truth:
        index = quality.case_index(ROOT / "datasets" / "quality")
        cases = [quality.load_entry(e) for e in quality.select_cases(args.cases, index) if e.split == "tune"]
    else:
        cases = quality.load_object_cases(ROOT / "datasets" / "objects", args.cases)
    lead = "truth" if args.truth else "input"
    for case in cases:
        box = quality.crop_box(case.mask)
        shown = case.truth if args.truth else case.image
        tiles = []
        for name, options in configs:
            fill = dict(options)
            mask = grow(np.array(case.mask), fill.pop("grow", 0))
            label = [lead, "hole outlined in red"] if not tiles else [name, f"({lead})"]
            tiles.append((label, quality._zoom(quality.outline_hole(shown, mask), box)))
            for seed in seeds:
                res = inpaint(np.array(case.image), mask, backend=args.backend, seed=seed, **fill)
                tiles.append(([name, f"seed {seed}"], quality._zoom(res.image, box)))
        png = quality._sheet(tiles, args.out / f"options_{case.name}.png")
        with Image.open(png) as im:
            im.convert("RGB").save(png.with_suffix(".jpg"), quality=args.quality, optimize=True)
        png.unlink()
        print(png.with_suffix(".jpg"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

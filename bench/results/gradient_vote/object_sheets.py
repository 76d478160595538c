"""Sheets of the real object removals: the input, then the default and ``--vote gradients`` at seeds
0, 1 and 2, cropped around the hole and magnified 2x (PNG and JPEG).
Usage: ``python object_sheets.py OUT_DIR [NAMES]`` from the checkout's root."""

import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path.cwd() / "bench"))
from inpaint.api import inpaint
from inpaint_bench import quality as q

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
q.SHEET_COLUMNS = 4
for case in q.load_object_cases(q.find_objects_root(), sys.argv[2] if len(sys.argv) > 2 else "all"):
    box = q.crop_box(case.mask)
    tiles = [(["input", case.name], q._zoom(q.outline_hole(case.image, case.mask), box))]
    for vote, label in (("colours", "default"), ("gradients", "gradients")):
        if vote == "gradients":
            tiles.append((["(below: gradients)", ""], q._zoom(case.image, box) * 0 + 255))
        for seed in (0, 1, 2):
            t0 = time.time()
            image = inpaint(np.array(case.image), np.array(case.mask), backend="opencl", seed=seed, vote=vote).image
            tiles.append(([f"{label} seed {seed}", f"{time.time() - t0:.1f} s"], q._zoom(image, box)))
    png = q._sheet(tiles, out / f"{case.name}.png")
    Image.open(png).convert("RGB").save(out / f"{case.name}.jpg", quality=80)
    print(case.name, case.image.shape, flush=True)

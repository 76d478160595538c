"""A round's PatchMatch iterations in one launch, up to P passes of a work-group (0: never), on
WalkingMan and a 512x384 photo in-process, the settings taking turns in blocks of 10 fills.

Needs ``fused_iterations.patch`` (beside this file) applied to the tree: the change measured, not
kept.  Usage: ``python passes.py DEVICE CYCLES`` from the repository root.
"""

import statistics
import sys
import time

import numpy as np
from PIL import Image

from inpaint import api
from inpaint.io.cases import load_case
from inpaint.methods.multiscale import opencl as mcl

DEV = sys.argv[1]
walkingman = load_case("walkingman")
photo = np.asarray(Image.open("datasets/walkingman/image.png").convert("RGB"))
small = np.asarray(Image.fromarray(photo[40:232, 60:316]).resize((512, 384)))
hole = np.zeros((384, 512), bool)
hole[150:210, 200:280] = True
cases = {"walkingman": (walkingman.image, walkingman.mask), "512x384": (small, hole)}
settings = [0, 1, 2, 4, 8]
times: dict = {(c, p): [] for c in cases for p in settings}
outputs = {}
for p in settings:
    mcl.ITERATION_PASSES = p
    for c, (image, mask) in cases.items():
        for _ in range(3):
            outputs[(c, p)] = api.inpaint(image, mask, device=DEV).image.tobytes()
for _ in range(int(sys.argv[2])):
    for p in settings:
        mcl.ITERATION_PASSES = p
        for c, (image, mask) in cases.items():
            for _ in range(10):
                t = time.perf_counter()
                api.inpaint(image, mask, device=DEV)
                times[(c, p)].append((time.perf_counter() - t) * 1e3)
for c in cases:
    print(c, "same output for every setting:", len({outputs[(c, p)] for p in settings}) == 1)
    for p in settings:
        v = times[(c, p)]
        print(f"  passes {p}: median {statistics.median(v):.2f} ms, p25 {np.percentile(v, 25):.2f}, "
              f"p75 {np.percentile(v, 75):.2f}")

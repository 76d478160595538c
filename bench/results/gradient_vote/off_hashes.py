"""Hashes of the default fill (OpenCL) on a few truth cases and seeds: run from two checkouts to show
that their default fills are the same.  Usage: ``python off_hashes.py`` from the checkout's root."""

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path.cwd() / "bench"))
import inpaint
from inpaint.api import inpaint as fill
from inpaint_bench import quality

print(inpaint.__file__)
names = ("walkingman", "gravel_blob", "siding_blob", "saucer_rim", "person_hill")
for entry in quality.case_index(quality.find_quality_root()):
    if entry.name in names:
        case = quality.load_entry(entry)
        for seed in (0, 3):
            image = fill(np.array(case.image), np.array(case.mask), backend="opencl", seed=seed).image
            print(case.name, seed, hashlib.sha256(image.tobytes()).hexdigest()[:16])

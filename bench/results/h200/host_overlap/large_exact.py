"""Large holes on a device against numpy: fills whose corrections run in tiles on a GPU.

Usage from the repository root: ``python bench/results/h200/host_overlap/large_exact.py DEVICE``.
A 900x700 crop of the Hill case's photo with a 47,000-pixel hole (an ellipse and parts at two
edges), seeds 0 and 3, with a protected band, and with ``vote="gradients"``; prints each fill's
hashes and whether the device's equal numpy's.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

from inpaint.api import inpaint
from inpaint.io.cases import load_case


def digest(res) -> str:
    return hashlib.sha256(res.image.tobytes() + res.source_map.tobytes()).hexdigest()[:16]


def main() -> None:
    device = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
    photo = load_case("hill").image
    reps = (-(-700 // photo.shape[0]), -(-900 // photo.shape[1]), 1)
    img = np.ascontiguousarray(np.tile(photo, reps)[:700, :900])
    yy, xx = np.mgrid[:700, :900]
    mask = ((yy - 330) / 110.0) ** 2 + ((xx - 450) / 120.0) ** 2 <= 1
    mask[660:, 100:260] = True
    mask[200:320, :40] = True
    protect = np.zeros_like(mask)
    protect[180:190, 300:620] = True
    runs = [dict(seed=0), dict(seed=3), dict(seed=0, protect=protect), dict(seed=0, vote="gradients")]
    same = 0
    for kw in runs:
        a = inpaint(img, mask, backend="numpy", **kw)
        b = inpaint(img, mask, backend="opencl", device=device, **kw)
        ok = digest(a) == digest(b)
        same += ok
        print({k: v for k, v in kw.items() if k != "protect"}, "protect" in kw, int(mask.sum()), "px:",
              digest(a), digest(b), "identical" if ok else "DIFFER", flush=True)
    print(f"{same} of {len(runs)} identical")


if __name__ == "__main__":
    main()

"""Could worker processes lift the batch? The 60-photo batch split in K folders, K whole commands at once."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

tmp = Path(tempfile.mkdtemp())
batch = tmp / "batch"
batch.mkdir()
src = Image.open("datasets/walkingman/image.png").convert("RGB")
rng = np.random.default_rng(0)
for i in range(60):
    x, y = int(rng.integers(0, max(1, src.width - 256))), int(rng.integers(0, max(1, src.height - 192)))
    src.crop((x, y, x + min(256, src.width - x), y + min(192, src.height - y))).resize((512, 384)).save(
        batch / f"p{i:02d}.png"
    )
    m = np.zeros((384, 512), np.uint8)
    cy, cx = int(rng.integers(80, 300)), int(rng.integers(80, 430))
    m[cy - 30 : cy + 30, cx - 40 : cx + 40] = 255
    Image.fromarray(m).save(batch / f"p{i:02d}_mask.png")
subprocess.run(
    [sys.executable, "-m", "inpaint", str(batch / "p00.png"), "-o", str(tmp / "warm.png"), "-q", "--device", "NVIDIA"],
    check=True,
)
for k in (1, 2, 3, 4, 6):
    for rep in range(2):
        parts = []
        for j in range(k):
            d = tmp / f"k{k}_{rep}_{j}"
            d.mkdir()
            for i in range(j, 60, k):
                for suffix in ("", "_mask"):
                    (d / f"p{i:02d}{suffix}.png").symlink_to(batch / f"p{i:02d}{suffix}.png")
            parts.append(d)
        t = time.perf_counter()
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "inpaint", str(d), "-o", str(d) + "_out/", "-q", "--device", "NVIDIA"]
            )
            for d in parts
        ]
        rcs = [p.wait() for p in procs]
        took = time.perf_counter() - t
        print(f"{k} processes: {60 / took:.1f} images/s ({took:.2f} s) rcs {set(rcs)}", flush=True)

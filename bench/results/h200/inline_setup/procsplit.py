"""Could worker processes lift the batch? The 60-photo batch split in K folders, K whole commands at once."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import make_batch

tmp = Path(tempfile.mkdtemp())
batch = make_batch(tmp / "batch", Path("datasets/walkingman/image.png"), 60)
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

"""Does the batch's reading and writing slow the fill through the interpreter lock, and does a shorter
switch interval help? Whole 60-photo batch commands, with the interval set before the command runs."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tools")
from gpu_speed import make_batch

tmp = Path(tempfile.mkdtemp())
batch = make_batch(tmp / "batch", Path("datasets/walkingman/image.png"), 60)
RUN = (
    "import sys; sys.setswitchinterval(float(sys.argv[1])); from inpaint.cli import main; sys.exit(main(sys.argv[2:]))"
)
subprocess.run(
    [sys.executable, "-m", "inpaint", str(batch / "p00.png"), "-o", str(tmp / "warm.png"), "-q", "--device", "NVIDIA"],
    check=True,
)
res = {}
for rep in range(4):
    for interval in ("0.005", "0.001", "0.0002"):
        for jobs in ("1", "4"):
            dest = tmp / f"o_{rep}_{interval}_{jobs}"
            t = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    RUN,
                    interval,
                    str(batch),
                    "-o",
                    str(dest) + "/",
                    "-q",
                    "--device",
                    "NVIDIA",
                    "--jobs",
                    jobs,
                ],
                check=True,
            )
            res.setdefault((interval, jobs), []).append(round(60 / (time.perf_counter() - t), 1))
for k, v in res.items():
    print(f"switch interval {k[0]} s, --jobs {k[1]}: {v} images/s")

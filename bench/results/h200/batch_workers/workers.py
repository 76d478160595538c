"""Would worker processes make a batch of small photos faster on one GPU?  A measurement, not a feature.

``python bench/results/h200/batch_workers/workers.py compare`` (repository root, OpenCL device
``NVIDIA``): 60 photos of 512x384 (``tools/command_speed.py``'s batch), the ``inpaint`` batch
command with ``--jobs 1`` and ``--jobs 4`` against a stand-in for a batch on N worker processes
(``workers.py N SRC DST DEVICE``): one process imports the package, then forks N workers before any
OpenCL context exists; each worker reads its share of the photos (Pillow), fills them
(``inpaint.api.inpaint``) and writes them (``inpaint.io.encode.write_png``), with none of the
command's checks.  Three rounds, whole processes timed; then, with ``VERBOSE=1``, each worker's
first photo (its own OpenCL context and program load) and its later photos.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def workers(n_proc: int, src: Path, dst: Path, device: str) -> None:
    """Fill every photo of ``src`` (``NAME.png`` with ``NAME_mask.png``) into ``dst`` on ``n_proc`` forked workers."""
    t0 = time.perf_counter()
    import numpy as np
    from PIL import Image

    from inpaint import api
    from inpaint.io.encode import write_png

    t_import = time.perf_counter() - t0
    names = sorted(p.name for p in src.iterdir() if not p.name.endswith("_mask.png"))
    dst.mkdir(parents=True, exist_ok=True)

    def work(part: list[str]) -> None:
        times = []
        for name in part:
            t = time.perf_counter()
            image = np.asarray(Image.open(src / name).convert("RGB"))
            mask = np.asarray(Image.open(src / (name[:-4] + "_mask.png"))) > 127
            res = api.inpaint(image, mask, device=device, timings=False)
            with open(dst / ("." + name), "wb") as fh:
                write_png(fh, res.image)
            os.replace(dst / ("." + name), dst / name)
            times.append(time.perf_counter() - t)
        if os.environ.get("VERBOSE"):
            print(f"worker {os.getpid()}: import {t_import:.2f} s, first photo {times[0]:.3f} s, then median "
                  f"{statistics.median(times[1:]) * 1000:.1f} ms, {sum(times):.2f} s in all", flush=True)

    if n_proc == 1:
        work(names)
        return
    kids = []
    for k in range(n_proc):
        pid = os.fork()
        if pid == 0:
            try:
                work(names[k::n_proc])
            finally:
                os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)


def compare() -> None:
    sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "tools")]
    from command_speed import make_batch

    batch = Path("/tmp/batch_workers")
    if not batch.exists():
        make_batch(batch, 60)
    py, me = sys.executable, __file__

    def rate(argv: list[str]) -> float:
        t = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[-500:])
        return 60 / (time.perf_counter() - t)

    command = [py, "-m", "inpaint", str(batch), "-q", "--device", "NVIDIA"]
    rate(command + ["-o", "/tmp/batch_workers_warm/", "--overwrite"])  # the kernel cache
    rates: dict[str, list[float]] = {}
    for r in range(3):
        rates.setdefault("command --jobs 1", []).append(rate(command + ["-o", f"/tmp/bw_c{r}/"]))
        rates.setdefault("command --jobs 4", []).append(rate(command + ["-o", f"/tmp/bw_j{r}/", "--jobs", "4"]))
        for n in (1, 2, 4, 8):
            rates.setdefault(f"{n} forked workers", []).append(
                rate([py, me, str(n), str(batch), f"/tmp/bw_p{n}_{r}", "NVIDIA"]))
    for name, values in rates.items():
        print(f"{name}: median {statistics.median(values):.1f} images/s {[round(v, 1) for v in values]}", flush=True)
    for n in (4, 8):
        print(subprocess.run([py, me, str(n), str(batch), f"/tmp/bw_v{n}", "NVIDIA"], env=dict(os.environ, VERBOSE="1"),
                             capture_output=True, text=True).stdout)


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare()
    else:
        workers(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])

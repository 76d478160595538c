"""A whole command on one photo, two trees taking turns: ``python cmd12.py PREVIOUS_TREE THIS_TREE PHOTO MASK``.

Each tree runs ``inpaint PHOTO --mask MASK -o OUT --overwrite -q`` as a fresh process with
``PYTHONPATH`` on it: one warm-up (the kernel caches), then four rounds; prints the wall times,
their medians and the outputs' hashes.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    previous, new, photo, mask = sys.argv[1:5]
    trees = {"previous": previous, "new": new}
    out = Path(tempfile.mkdtemp())

    def run(tree: str, dest: Path) -> float:
        env = dict(os.environ, PYTHONPATH=tree)
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "inpaint", photo, "--mask", mask, "-o", str(dest), "--overwrite",
                               "-q"], env=env, cwd=out, capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr)
        return time.perf_counter() - t

    for name, tree in trees.items():
        run(tree, out / f"warm_{name}.png")
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(4):
        for name, tree in trees.items():
            times[name].append(run(tree, out / f"{name}.png"))
    for name, runs in times.items():
        digest = hashlib.sha256((out / f"{name}.png").read_bytes()).hexdigest()[:12]
        print(f"{name}: {[round(x, 2) for x in runs]} s, median {statistics.median(runs):.2f} s, output {digest}")


if __name__ == "__main__":
    main()

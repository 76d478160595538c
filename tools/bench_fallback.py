"""How much slower the numpy fallback is than OpenCL, as whole commands on the bundled examples.

Usage: ``python tools/bench_fallback.py [REPEAT]`` (default 3).  Runs ``inpaint --case NAME`` with
``--backend opencl`` (after one warm-up run, so the kernels come from the cache) and ``--backend
numpy`` REPEAT times each, alternating, and prints a Markdown table of the medians and their
ratio.  The outputs are compared byte for byte.
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = ("walkingman", "river", "divingman", "hill")


def run(case: str, backend: str, out: Path) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "inpaint.cli", "--case", case, "--backend", backend, "-o", str(out),
                    "--overwrite", "-q"], check=True)
    return time.perf_counter() - t


def main() -> None:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            cl_out, np_out = Path(tmp, f"{case}_cl.png"), Path(tmp, f"{case}_np.png")
            run(case, "opencl", cl_out)  # warm-up: the kernels compiled or loaded once
            times: dict[str, list[float]] = {"opencl": [], "numpy": []}
            for _ in range(repeat):
                times["opencl"].append(run(case, "opencl", cl_out))
                times["numpy"].append(run(case, "numpy", np_out))
            same = cl_out.read_bytes() == np_out.read_bytes()
            cl_s, np_s = statistics.median(times["opencl"]), statistics.median(times["numpy"])
            rows.append(f"| {case} | {cl_s:.2f} | {np_s:.2f} | {np_s / cl_s:.0f}x | {'yes' if same else 'NO'} |")
    print(f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
          f"medians of {repeat} whole commands each")
    print()
    print("| case | OpenCL (s) | numpy (s) | numpy / OpenCL | same file |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

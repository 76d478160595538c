"""What the start-up floor is made of: fresh ``python -c`` processes, each one step further.

Usage: ``python tools/startup_floor.py [REPEATS]`` (default 7).  Times, interleaved, a bare
interpreter, the imports every command needs (numpy, pyopencl, Pillow), listing the OpenCL
platforms, and creating a context on the first NVIDIA GPU and on PoCL (where present); prints
the medians as a Markdown table.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

IMPORTS = "import numpy, pyopencl as cl, PIL.Image"
STEPS = {
    "`pass`": "pass",
    "`import numpy, pyopencl, PIL.Image`": IMPORTS,
    "the same and `cl.get_platforms()`": IMPORTS + "; cl.get_platforms()",
    "the same and a context on the NVIDIA GPU": "NVIDIA",
    "the same and a context on PoCL": "Portable",
}
#: A context on the first platform whose name holds the step's word; exit status 3 when none does.
CONTEXT = IMPORTS + """
p = [p for p in cl.get_platforms() if {!r} in p.name]
if not p:
    raise SystemExit(3)
cl.Context(p[0].get_devices())"""


def main() -> int:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    times: dict[str, list[float]] = {k: [] for k in STEPS}
    absent = set()
    for _ in range(reps):
        for name, code in STEPS.items():
            if name in absent:
                continue
            if code in ("NVIDIA", "Portable"):
                code = CONTEXT.format(code)
            t = time.perf_counter()
            status = subprocess.run([sys.executable, "-c", code]).returncode
            times[name].append(time.perf_counter() - t)
            if status == 3:
                absent.add(name)
            elif status:
                raise SystemExit(f"{name} failed with status {status}")
    print("| step | median |\n|---|---:|")
    for name, v in times.items():
        print(f"| {name} | {'no such platform' if name in absent else f'{statistics.median(v) * 1e3:.0f} ms'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``inpaint bench startup``: whole commands as a user runs them, side by side with the floor.

Every command runs as a fresh process, ``--repeat`` times, interleaved with the others, and is
timed from start to exit.  The *floor* is the least any OpenCL command must spend: starting
Python, importing numpy, pyopencl and Pillow, and creating an OpenCL context on the device.
The report gives each command's median and its median above the floor.  With ``--cold`` the
first run of every command also runs with empty kernel caches (PoCL's and the NVIDIA
driver's), as on a fresh install.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .common import child_failed, cpu_name, described, md_table, result_file

FLOOR = ("import numpy, pyopencl as cl, PIL.Image\n"
         "from inpaint.cl.runtime import select_device\n"
         "cl.Context([select_device()])\n")


def commands(out_dir: Path) -> dict[str, list[str]]:
    """The timed commands: the default fill, the paper's settings, and a seam-carving resize."""
    inpaint = [sys.executable, "-m", "inpaint"]
    from inpaint.io.cases import load_case

    photo = load_case("walkingman").paths["truth"]
    return {
        "floor": [sys.executable, "-c", FLOOR],
        "inpaint --case walkingman (default fill)": inpaint + ["--case", "walkingman", "-q", "-y", "-o",
                                                               str(out_dir / "a.png")],
        "inpaint --case walkingman --method criminisi --alpha 0.05 --patch 17":
            inpaint + ["--case", "walkingman", "-q", "--method", "criminisi", "--alpha", "0.05", "--patch", "17",
                       "-y", "-o", str(out_dir / "b.png")],
        "inpaint resize (512x384 photo, 100 seams narrower)":
            inpaint + ["resize", str(photo), "--width", "412", "-q", "-y", "-o", str(out_dir / "c.png")],
    }


def _run(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise child_failed(argv, proc.returncode, proc.stderr)
    return dt


def main(argv: Sequence[str] | None = None, prog: str = "inpaint bench startup") -> int:
    """Time the commands; print Markdown, optionally write JSON."""
    p = argparse.ArgumentParser(prog=prog, description=described(__doc__))
    p.add_argument("--repeat", type=int, default=5, help="runs per command (default 5); medians are reported")
    p.add_argument("--cold", action="store_true", help="also time one run of each command with empty kernel caches")
    p.add_argument("--json", metavar="FILE", type=result_file(), help="write every time as JSON")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp)
        cmds = commands(out_dir)
        env = dict(os.environ)
        cold: dict[str, float] = {}
        if args.cold:
            for name, cmd in cmds.items():
                with tempfile.TemporaryDirectory() as cache:
                    cold_env = dict(env, POCL_CACHE_DIR=cache, CUDA_CACHE_PATH=cache, PYOPENCL_NO_CACHE="1")
                    cold[name] = _run(cmd, cold_env)
        for cmd in cmds.values():  # one untimed warm-up each: kernel caches filled
            _run(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.repeat):
            for name, cmd in cmds.items():
                times[name].append(_run(cmd, env))
    floor = statistics.median(times["floor"])
    rows = []
    for name, ts in times.items():
        med = statistics.median(ts)
        rows.append([name, f"{med:.3f} s", f"{min(ts):.3f} s", "—" if name == "floor" else f"{med - floor:+.3f} s",
                     f"{cold[name]:.3f} s" if name in cold else "—"])
    print(f"# {prog}\n")
    print(f"Machine: {cpu_name() or 'unknown CPU'}, {os.cpu_count()} logical cores; Python "
          f"{sys.version.split()[0]}. Each command is a fresh process; median of {args.repeat} runs, "
          "interleaved, after one warm-up run each.\n")
    print(md_table(["command", "median", "min", "above the floor (medians)", "first run, empty kernel caches"],
                   rows, "lrrrr"))
    print("\nThe floor: `python -c` importing numpy, pyopencl and Pillow and creating an OpenCL context.")
    if args.json:
        Path(args.json).write_text(json.dumps({"times_s": times, "cold_s": cold, "floor_s": floor,
                                               "machine": cpu_name()}, indent=1))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

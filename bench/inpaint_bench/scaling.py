"""``inpaint bench scaling``: the default fill's time and peak memory against the photo's size.

A bundled photo is scaled (Lanczos) to each size in ``--megapixels`` and given a smooth blob
hole covering ``--hole`` of it (3 % by default, a typical object), then removed by the whole
command, ``inpaint PHOTO --mask MASK -o OUT``, as a fresh process.  Reported per size: the
command's wall time, the fill's own time (what ``--stats`` reports), and the process's peak
resident memory, also per input pixel.  ``--plots DIR`` draws both against megapixels
(matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from inpaint.cl import BACKENDS
from inpaint.methods.options import BACKEND

from .common import child_failed, cpu_name, described, md_table, result_file

SIZES = (0.2, 0.5, 1, 2, 4, 8, 12, 24)
#: The memory budget the report checks: this many bytes per input pixel plus a fixed base.
MEMORY_PER_PIXEL, MEMORY_BASE = 24, 400 * 2 ** 20


def make_case(mp: float, hole: float, folder: Path) -> tuple[Path, Path, int]:
    """A photo of ``mp`` megapixels (4:3) with an elliptic hole of ``hole`` of its area."""
    from PIL import Image

    from inpaint.io.cases import load_case

    src = Image.open(load_case("divingman").paths["truth"]).convert("RGB")
    w = int(round((mp * 1e6 * 4 / 3) ** 0.5))
    h = int(round(w * 3 / 4))
    photo = src.resize((w, h), Image.LANCZOS)
    yy, xx = np.mgrid[0:h, 0:w]
    ry = (hole * h * w / np.pi * 1.25) ** 0.5  # an ellipse 1.25 times as tall as wide
    rx = ry / 1.25
    mask = ((yy - 0.45 * h) / ry) ** 2 + ((xx - 0.55 * w) / rx) ** 2 <= 1
    ppath, mpath = folder / f"photo_{mp:g}.png", folder / f"mask_{mp:g}.png"
    photo.save(ppath, compress_level=1)
    Image.fromarray((mask * 255).astype(np.uint8)).save(mpath)
    return ppath, mpath, w * h


def run_command(argv: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS in bytes (of that process alone) and stderr of one run."""
    with tempfile.TemporaryFile("w+") as log:  # a file, not a pipe: the child never blocks on it
        t = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
        dt = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        err = log.read()
    if proc.returncode != 0:
        raise child_failed(argv, proc.returncode, err)
    return dt, int(usage.ru_maxrss) * 1024, err


def main(argv: Sequence[str] | None = None, prog: str = "inpaint bench scaling") -> int:
    """Measure every size; print Markdown, optionally write JSON and plots."""
    p = argparse.ArgumentParser(prog=prog, description=described(__doc__))
    p.add_argument("--megapixels", default=",".join(f"{s:g}" for s in SIZES),
                   help="comma-separated sizes (default %(default)s)")
    p.add_argument("--hole", type=float, default=0.03, help="hole as a fraction of the photo (default 0.03)")
    p.add_argument("--backend", default=BACKEND.from_environment() or BACKEND.default, choices=BACKENDS,
                   help=f"default: {BACKEND.env}, else auto")
    p.add_argument("--device", help="OpenCL device (see inpaint --device)")
    p.add_argument("--json", metavar="FILE", type=result_file(), help="write the measurements as JSON")
    p.add_argument("--plots", metavar="DIR", help="write time and memory against megapixels (needs matplotlib)")
    args = p.parse_args(argv)
    try:
        sizes = [float(s) for s in args.megapixels.split(",") if s.strip()]
    except ValueError:
        p.error(f"--megapixels must be numbers, got {args.megapixels!r}")
    if not sizes or min(sizes) <= 0 or not 0 < args.hole < 0.5:
        p.error("sizes must be positive and --hole between 0 and 0.5")
    rows, data = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        extra = ["--backend", args.backend] + (["--device", args.device] if args.device else [])
        warm = make_case(0.2, args.hole, folder)
        run_command([sys.executable, "-m", "inpaint", str(warm[0]), "--mask", str(warm[1]), "-o",
                     str(folder / "warm.png"), "--stats", *extra])  # kernel caches filled
        for mp in sizes:
            photo, mask, pixels = make_case(mp, args.hole, folder)
            out = folder / f"out_{mp:g}.png"
            wall, peak, err = run_command([sys.executable, "-m", "inpaint", str(photo), "--mask", str(mask), "-o",
                                           str(out), "--stats", *extra])
            found = re.search(r"removed (\d+) pixels in \d+ \w+, ([0-9.]+) s", err)
            fill = float(found.group(2)) if found else float("nan")
            data.append({"megapixels": pixels / 1e6, "pixels": pixels, "wall_s": wall, "fill_s": fill,
                         "peak_rss_bytes": peak, "bytes_per_pixel": peak / pixels})
            limit = MEMORY_PER_PIXEL * pixels + MEMORY_BASE
            rows.append([f"{pixels / 1e6:.2f}", f"{wall:.2f} s", f"{fill:.2f} s", f"{peak / 2 ** 20:.0f} MiB",
                         f"{peak / pixels:.1f}", f"{limit / 2 ** 20:.0f} MiB", "yes" if peak <= limit else "**no**"])
            if os.environ.get("INPAINT_BENCH_LOG") or sys.stderr.isatty():
                print(f"{prog}: {pixels / 1e6:.1f} MP done", file=sys.stderr)
    print(f"# {prog}\n")
    print(f"Machine: {cpu_name() or 'unknown CPU'}, {os.cpu_count()} logical cores. A photo scaled to each size "
          f"with a {args.hole:.0%} elliptic hole, removed by the default fill as a whole command "
          f"(`inpaint PHOTO --mask MASK -o OUT`, backend {args.backend}).\n")
    print(md_table(["megapixels", "whole command", "fill (in-process)", "peak memory", "bytes per pixel",
                    f"budget ({MEMORY_PER_PIXEL} B/px + {MEMORY_BASE // 2 ** 20} MiB)", "within"], rows, "rrrrrrl"))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": cpu_name(), "hole": args.hole, "rows": data}, indent=1))
    if args.plots:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("note: --plots needs matplotlib: pip install 'inpaint-bench[plot]'", file=sys.stderr)
            return 0
        folder = Path(args.plots)
        folder.mkdir(parents=True, exist_ok=True)
        mps = [d["megapixels"] for d in data]
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        a.plot(mps, [d["wall_s"] for d in data], "o-", label="whole command")
        a.plot(mps, [d["fill_s"] for d in data], "s-", label="fill")
        a.set_xlabel("megapixels"), a.set_ylabel("seconds"), a.legend(), a.grid(alpha=0.3)
        b.plot(mps, [d["peak_rss_bytes"] / 2 ** 20 for d in data], "o-")
        b.set_xlabel("megapixels"), b.set_ylabel("peak memory (MiB)"), b.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(folder / "scaling.png", dpi=110)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""What writing a JPEG block by block adds to the whole command, against plain JPEG and PNG outputs.

For one JPEG photo and a 3 % elliptic hole (the hole of ``inpaint bench scaling``), each round
runs the default command three times, interleaved, as a user runs it::

    inpaint PHOTO.jpg --mask MASK.png -o OUT.jpg                 # block by block (the default)
    inpaint PHOTO.jpg --mask MASK.png -o OUT.jpg --quality 95    # a plain quality-95 encode
    inpaint PHOTO.jpg --mask MASK.png -o OUT.png

and then times, in-process, the write alone (plan + save, as the command does it) for the same
three outputs.  It prints the machine, the medians and every run.

Usage: python tools/bench_jpeg_write.py PHOTO.jpg [ROUNDS] [IN_PROCESS_REPEATS]
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

from inpaint import io as imageio


def _mask(h: int, w: int, hole: float = 0.03) -> np.ndarray:
    yy, xx = np.ogrid[0:h, 0:w]
    ry = (hole * h * w / np.pi * 1.25) ** 0.5  # as inpaint_bench.scaling.make_case
    rx = ry / 1.25
    return ((yy - 0.45 * h) / ry) ** 2 + ((xx - 0.55 * w) / rx) ** 2 <= 1


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv: list[str]) -> int:
    photo = Path(argv[0])
    rounds = int(argv[1]) if len(argv) > 1 else 5
    reps = int(argv[2]) if len(argv) > 2 else 7
    pic = imageio.read_image(photo)
    h, w = pic.rgb.shape[:2]
    mask = _mask(h, w)
    print(f"machine: {_cpu()}, {os.cpu_count()} logical cores, Python {platform.python_version()}; "
          f"load average at start {os.getloadavg()[0]:.2f}")
    print(f"photo: {photo.name}, {w}x{h} ({w * h / 1e6:.1f} MP), hole {mask.mean():.2%}")
    with tempfile.TemporaryDirectory(prefix="bench-jpeg-") as tmp:
        folder = Path(tmp)
        mpath = folder / "mask.png"
        Image.fromarray((mask * 255).astype(np.uint8)).save(mpath)
        base = [sys.executable, "-m", "inpaint", str(photo), "--mask", str(mpath), "--quiet", "-y"]
        cases = {"block by block": ["-o", str(folder / "a.jpg")],
                 "--quality 95": ["-o", str(folder / "b.jpg"), "--quality", "95"],
                 "PNG": ["-o", str(folder / "c.png")]}
        subprocess.run(base + cases["PNG"], check=True)  # warm-up: kernel cache, page cache
        whole: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(rounds):
            for name, extra in cases.items():
                t = time.perf_counter()
                subprocess.run(base + extra, check=True)
                whole[name].append(time.perf_counter() - t)
        # the write alone, as the command does it: plan before the work, save after it
        filled = pic.rgb.copy()
        filled[mask] = (40, 120, 60)
        result = Image.fromarray(filled)
        writes: dict[str, list[float]] = {k: [] for k in cases}
        quality = {"block by block": None, "--quality 95": 95, "PNG": None}
        outs = {"block by block": folder / "w.jpg", "--quality 95": folder / "wq.jpg", "PNG": folder / "w.png"}
        for _ in range(reps):
            for name in cases:
                t = time.perf_counter()
                plan = imageio.plan_output(pic, outs[name], quality=quality[name])
                imageio.save_images([(result, outs[name], {"plan": plan, "mask": mask})])
                writes[name].append(time.perf_counter() - t)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    floor = statistics.median(whole["--quality 95"])
    print("\n| output | whole command, median | runs | write in-process, median | runs |")
    print("|---|---:|---|---:|---|")
    for name in cases:
        print(f"| {name} | {statistics.median(whole[name]):.2f} s | "
              f"{', '.join(f'{x:.2f}' for x in whole[name])} | {statistics.median(writes[name]):.3f} s | "
              f"{', '.join(f'{x:.3f}' for x in writes[name])} |")
    extra = statistics.median(whole["block by block"]) - floor
    print(f"\nblock by block against --quality 95: {extra:+.2f} s ({100 * extra / floor:+.1f} % of the command); "
          f"in-process write: "
          f"{statistics.median(writes['block by block']) - statistics.median(writes['--quality 95']):+.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

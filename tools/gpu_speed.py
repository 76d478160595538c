"""The default fill's speed on a device, this tree against an earlier one, in one run.

Usage: ``python tools/gpu_speed.py OUT_DIR BASE_TREE [DEVICE]`` from the repository root.
BASE_TREE is a copy of an earlier version (``git archive REV | tar -x -C BASE_TREE``); DEVICE is
as for ``--device`` (default: ``NVIDIA``).  Each measure runs both trees in turn, in fresh
processes with ``PYTHONPATH`` on one tree or the other, on the same warm machine:

* WalkingMan in-process: ``inpaint(image, mask, backend="opencl")``, one warm-up, then 30 fills
  (median and minimum), three rounds;
* a 12 MP photo (4000x3000, 3 % elliptic hole, as ``inpaint bench scaling``) in-process, median
  of 5 after a warm-up;
* the same photo as a whole command (``inpaint PHOTO --mask MASK -o OUT -q --device DEVICE``),
  five runs each, alternating, with the bare Python + OpenCL start as the floor;
* a batch of 60 photos of 512x384 with their masks as a whole command, and with ``--jobs 4``.

Writes OUT_DIR/speed.json and OUT_DIR/speed.md.  ``SPEED_QUICK=1`` runs a small version of each
measure (to check the script on a CPU); ``SPEED_ONLY=walkingman`` runs WalkingMan alone, over
``SPEED_ROUNDS`` rounds (default 3; on a CPU device, say ``pthread``).  Output pixels are compared between the trees.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

INPROCESS = r"""
import json, statistics, sys, time
import numpy as np
from PIL import Image
from inpaint.api import inpaint
img = np.asarray(Image.open(sys.argv[1]).convert("RGB"))
mask = np.asarray(Image.open(sys.argv[2]).convert("L")) > 127
kw = dict(backend="opencl", device=sys.argv[4])
res = inpaint(img, mask, **kw)
ts = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); res = inpaint(img, mask, **kw); ts.append(time.perf_counter() - t)
print(json.dumps({"median": statistics.median(ts), "min": min(ts), "all": ts,
                  "checksum": int(res.image.astype(np.int64).sum())}))
"""

FLOOR = ("import pyopencl as cl, sys; p=[d for pl in cl.get_platforms() for d in pl.get_devices() "
         "if sys.argv[1].lower() in d.name.lower() or sys.argv[1].lower() in pl.name.lower()][0]; "
         "cl.CommandQueue(cl.Context([p]))")


def env_for(tree: Path) -> dict:
    """The environment of a child that imports ``inpaint`` from ``tree`` (and nothing of the other)."""
    env = dict(os.environ)
    here = Path.cwd().resolve()
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != here]
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(tree / "bench"), *rest])
    env.pop("INPAINT_BACKEND", None)
    return env


def inprocess(tree: Path, image: Path, mask: Path, reps: int, device: str) -> dict:
    out = subprocess.run([sys.executable, "-c", INPROCESS, str(image), str(mask), str(reps), device],
                         env=env_for(tree), capture_output=True, text=True, cwd=tree, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def wall(argv: list[str], env: dict, cwd: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - t
    if proc.returncode:
        raise RuntimeError(f"{argv}: {proc.stderr}")
    return took


def main() -> None:
    out, base = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    device = sys.argv[3] if len(sys.argv) > 3 else "NVIDIA"
    here = Path.cwd().resolve()
    quick = bool(os.environ.get("SPEED_QUICK"))
    rounds, reps, mp, count = (1, 2, 1, 6) if quick else (int(os.environ.get("SPEED_ROUNDS", "3")), 30, 12, 60)
    walkingman_only = os.environ.get("SPEED_ONLY") == "walkingman"
    trees = {"base": base, "new": here}
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"device": device, "python": sys.version.split()[0]}
    lines = [f"# Speed on {device}: this tree (new) against {base.name} (base)", ""]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sys.path[:0] = [str(here), str(here / "bench")]
        from inpaint_bench.scaling import make_case
        photo, pmask, _ = make_case(mp, 0.03, tmp) if not walkingman_only else (None, None, None)

        wm = here / "datasets" / "walkingman"
        rows = []
        for rnd in range(rounds):
            for name, tree in trees.items():
                r = inprocess(tree, wm / "image.png", wm / "mask.png", reps, device)
                rows.append({"round": rnd, "tree": name, **r})
        report["walkingman"] = rows
        lines += ["## WalkingMan in-process (ms)", "", "| round | base median / min | new median / min |",
                  "|---|---|---|"]
        for rnd in range(rounds):
            b = next(r for r in rows if r["round"] == rnd and r["tree"] == "base")
            n = next(r for r in rows if r["round"] == rnd and r["tree"] == "new")
            lines.append(f"| {rnd + 1} | {1e3 * b['median']:.1f} / {1e3 * b['min']:.1f} | "
                         f"{1e3 * n['median']:.1f} / {1e3 * n['min']:.1f} |")
        medians = {t: statistics.median(r["median"] for r in rows if r["tree"] == t) for t in trees}
        lines += ["", f"Medians of the rounds' medians: base {1e3 * medians['base']:.1f} ms, new "
                      f"{1e3 * medians['new']:.1f} ms ({medians['new'] / medians['base']:.2f}×).", ""]
        if walkingman_only:
            return finish(out, report, lines)

        big = {name: inprocess(tree, photo, pmask, min(reps, 5), device) for name, tree in trees.items()}
        report["12mp_inprocess"] = big
        lines += [f"## {mp} MP in-process (s, median)", "",
                  f"base {big['base']['median']:.3f}, new {big['new']['median']:.3f}", ""]

        cmd_times: dict = {"base": [], "new": [], "floor": []}
        for i in range(min(reps, 5)):
            for name, tree in trees.items():
                cmd_times[name].append(wall([sys.executable, "-m", "inpaint", str(photo), "--mask", str(pmask),
                                             "-o", str(tmp / f"{name}_{i}.png"), "-q", "--device", device],
                                            env_for(tree), tree))
            cmd_times["floor"].append(wall([sys.executable, "-c", FLOOR, device], env_for(here), here))
        same = np.array_equal(np.asarray(Image.open(tmp / "base_0.png")), np.asarray(Image.open(tmp / "new_0.png")))
        report["12mp_command"] = {**cmd_times, "identical": same}
        lines += [f"## {mp} MP whole command (s, median)", "",
                  f"base {statistics.median(cmd_times['base']):.3f}, new {statistics.median(cmd_times['new']):.3f}, "
                  f"floor (Python + OpenCL context) {statistics.median(cmd_times['floor']):.3f}; "
                  f"outputs identical: {same}", ""]

        batch = make_batch(tmp / "batch", wm / "image.png", count)
        rates: dict = {}
        for jobs in (1, 4):
            for name, tree in trees.items():
                dest = tmp / f"out_{name}_{jobs}"
                try:
                    took = wall([sys.executable, "-m", "inpaint", str(batch), "-o", str(dest) + "/", "-q",
                                 "--device", device, "--jobs", str(jobs)], env_for(tree), tree)
                    rates[f"{name}_jobs{jobs}"] = count / took
                except RuntimeError as exc:  # a driver that aborts: say so, measure the rest
                    rates[f"{name}_jobs{jobs}"] = f"failed: {str(exc)[-300:]}"
        report["batch_60x512x384_images_per_s"] = rates
        lines += [f"## {count} photos of 512x384, whole command (images/s)", "",
                  *[f"- {k}: {v:.1f}" if isinstance(v, float) else f"- {k}: {v}" for k, v in rates.items()], ""]

    finish(out, report, lines)


def make_batch(folder: Path, photo: Path, count: int) -> Path:
    """``count`` photos of 512x384 cut from ``photo`` at seeded places, each with a 80x60 hole's
    mask (``pNN.png``, ``pNN_mask.png``), in the new folder ``folder``; returns it."""
    src = Image.open(photo).convert("RGB")
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(count):
        x, y = int(rng.integers(0, max(1, src.width - 256))), int(rng.integers(0, max(1, src.height - 192)))
        tile = src.crop((x, y, x + min(256, src.width - x), y + min(192, src.height - y))).resize((512, 384))
        tile.save(folder / f"p{i:02d}.png")
        m = np.zeros((384, 512), np.uint8)
        cy, cx = int(rng.integers(80, 300)), int(rng.integers(80, 430))
        m[cy - 30:cy + 30, cx - 40:cx + 40] = 255
        Image.fromarray(m).save(folder / f"p{i:02d}_mask.png")
    return folder


def finish(out: Path, report: dict, lines: list[str]) -> None:
    (out / "speed.json").write_text(json.dumps(report, indent=1))
    (out / "speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

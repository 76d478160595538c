"""Whole ``inpaint`` commands as a user times them, this tree against an earlier one, in one run.

Usage: ``python tools/command_speed.py OUT_DIR BASE_TREE [DEVICE]`` from the repository root.
BASE_TREE is a copy of an earlier version (``git archive REV | tar -x -C BASE_TREE``); DEVICE is
as for ``--device`` (default: ``NVIDIA``).  The trees take turns, in fresh processes with
``PYTHONPATH`` on one tree or the other, so that both meet the same machine:

* a 12 MP photo (4000x3000, 3 % elliptic hole, as ``inpaint bench scaling``) and the bundled
  WalkingMan, each as ``inpaint PHOTO --mask MASK -o OUT -q --device DEVICE``, ``REPS`` runs each
  (median), with the bare Python + OpenCL context as the floor;
* a batch of ``COUNT`` photos of 512x384 with their masks, ``--jobs 1`` and ``--jobs 4``, ``BATCH_REPS``
  runs each (images per second of the median run).

Each tree first runs every command once, untimed, with Python writing its bytecode caches (as an
installed package has them: pip compiles at install) and the kernel cache filled, so the timed runs
measure what a user's second and later commands take.

``REPS`` (5), ``BATCH_REPS`` (1), ``COUNT`` (60) and ``MP`` (12) are read from the environment.
Writes OUT_DIR/command_speed.json and OUT_DIR/command_speed.md; the outputs of the two trees are
compared pixel by pixel (and the batch's file by file).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from gpu_speed import make_batch  # (this folder's: the same batch as it measures)
from PIL import Image

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
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    return env


def wall(argv: list[str], env: dict, cwd: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - t
    if proc.returncode:
        raise RuntimeError(f"{argv}: {proc.stderr[-500:]}")
    return took


def same_pictures(a: Path, b: Path) -> bool:
    return np.array_equal(np.asarray(Image.open(a)), np.asarray(Image.open(b)))


def main() -> None:
    out, base = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    device = sys.argv[3] if len(sys.argv) > 3 else "NVIDIA"
    reps = int(os.environ.get("REPS", "5"))
    batch_reps = int(os.environ.get("BATCH_REPS", "1"))
    count = int(os.environ.get("COUNT", "60"))
    mp = int(os.environ.get("MP", "12"))
    here = Path.cwd().resolve()
    trees = {"base": base, "new": here}
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {"device": device, "python": sys.version.split()[0], "machine": platform.processor() or
                    platform.machine(), "cpus": os.cpu_count(), "reps": reps, "date": time.strftime("%Y-%m-%d %H:%M")}
    lines = [f"# Whole commands on {device}: this tree (new) against {base.name} (base)", ""]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sys.path[:0] = [str(here), str(here / "bench")]
        from inpaint_bench.scaling import make_case

        photo, pmask, _ = make_case(mp, 0.03, tmp)
        wm = here / "datasets" / "walkingman"
        cases = {f"{mp} MP": (photo, pmask), "WalkingMan": (wm / "image.png", wm / "mask.png")}
        lines += ["| command | base (s, median) | new (s, median) | new / base | outputs identical |",
                  "|---|---|---|---|---|"]
        for key, (label, (image, mask)) in enumerate(cases.items()):
            for name, tree in trees.items():  # bytecode and kernel caches, as after a first run
                wall([sys.executable, "-m", "inpaint", str(image), "--mask", str(mask),
                      "-o", str(tmp / f"{key}_{name}_warm.png"), "-q", "--device", device], env_for(tree), tree)
            times: dict = {"base": [], "new": []}
            for i in range(reps):
                for name, tree in trees.items():
                    times[name].append(wall([sys.executable, "-m", "inpaint", str(image), "--mask", str(mask),
                                             "-o", str(tmp / f"{key}_{name}_{i}.png"), "-q", "--device", device],
                                            env_for(tree), tree))
            same = same_pictures(tmp / f"{key}_base_0.png", tmp / f"{key}_new_0.png")
            b, n = statistics.median(times["base"]), statistics.median(times["new"])
            report[label] = {**times, "identical": same}
            lines.append(f"| {label} | {b:.3f} | {n:.3f} | {n / b:.2f} | {same} |")
        floor = [wall([sys.executable, "-c", FLOOR, device], env_for(here), here) for _ in range(reps)]
        report["floor"] = floor
        lines += ["", f"Floor (Python + pyopencl + a context and queue): {statistics.median(floor):.3f} s", ""]

        batch = tmp / "batch"
        make_batch(batch, Path("datasets") / "walkingman" / "image.png", count)
        rates: dict = {}
        lines += [f"## {count} photos of 512x384, whole command (images/s, median of {batch_reps})", "",
                  "| jobs | base | new | outputs identical |", "|---|---|---|---|"]
        for jobs in (1, 4):
            runs: dict = {"base": [], "new": []}
            for r in range(batch_reps):
                for name, tree in trees.items():
                    dest = tmp / f"out_{name}_{jobs}_{r}"
                    try:
                        took = wall([sys.executable, "-m", "inpaint", str(batch), "-o", str(dest) + "/", "-q",
                                     "--device", device, "--jobs", str(jobs)], env_for(tree), tree)
                        runs[name].append(count / took)
                    except RuntimeError as exc:  # a driver that aborts: say so, measure the rest
                        runs[name].append(f"failed: {str(exc)[-300:]}")
            done = [tmp / f"out_{name}_{jobs}_0" for name in trees]
            same = all(d.is_dir() for d in done) and all(
                same_pictures(done[0] / f.name, done[1] / f.name) for f in sorted(done[0].iterdir()))
            rates[jobs] = {**runs, "identical": same}

            def shown(values: list) -> str:
                numbers = [v for v in values if isinstance(v, float)]
                failed = len(values) - len(numbers)
                return (f"{statistics.median(numbers):.1f}" if numbers else "") + (f" ({failed} failed)" if failed
                                                                                    else "")
            lines.append(f"| {jobs} | {shown(runs['base'])} | {shown(runs['new'])} | {same} |")
        report["batch_images_per_s"] = rates

    (out / "command_speed.json").write_text(json.dumps(report, indent=1))
    (out / "command_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

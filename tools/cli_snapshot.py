"""Snapshot the command line's behaviour, to show that a refactoring changes nothing.

Runs ``inpaint`` and ``inpaint resize`` on the paper's cases, a few quality cases and small
generated pictures, with many option sets (both methods, both backends, ``--stats``,
``--save-mapping``, old flag names, batches, bad options, ``--help``), and records for each run
its exit status, its standard output and error with timings masked, and a hash of every file it
wrote.  Record once on the commit before the change, then compare after each step::

    python tools/cli_snapshot.py record /tmp/before.json
    python tools/cli_snapshot.py compare /tmp/before.json     # exit 1 and a diff on any change

``--only SUBSTRING`` runs the runs whose name contains it.  Two runs at a time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
PAPER = ["walkingman", "river", "divingman", "hill"]
QUALITY = ["bowl_rim", "bottle_cork", "brick_stroke"]  # the smallest masks of the quality set


def _quality(name: str) -> list[str]:
    d = ROOT / "datasets" / "quality" / name
    return [str(d / "truth.png"), "--mask", str(d / "mask.png")]


def _make_inputs(folder: Path) -> None:
    """Small pictures, their masks and a protect mask, the same every time (seeded)."""
    rng = np.random.default_rng(30)
    batch = folder / "batch"
    batch.mkdir()
    for i, (w, h) in enumerate(((48, 40), (41, 37), (56, 30))):
        y, x = np.mgrid[:h, :w]
        img = np.stack([(x * 5 + i * 20) % 256, (y * 7) % 256, ((x + y) * 3) % 256], -1)
        img = img + rng.integers(0, 20, (h, w, 3))
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(batch / f"pic{i}.png")
        m = np.zeros((h, w), np.uint8)
        m[h // 3:h // 3 + 7, w // 3:w // 3 + 9] = 255
        Image.fromarray(m).save(batch / f"pic{i}_mask.png")
    small = Image.open(batch / "pic0.png")
    small.save(folder / "small.png")
    shutil.copy(batch / "pic0_mask.png", folder / "small_mask.png")
    p = np.zeros((40, 48), np.uint8)
    p[:, 40:] = 255
    Image.fromarray(p).save(folder / "protect.png")
    grey = np.asarray(small.convert("L")).astype(np.uint16) * 257
    Image.fromarray(grey).save(folder / "grey16.png")
    empty = np.zeros((40, 48), np.uint8)
    Image.fromarray(empty).save(folder / "empty_mask.png")


def runs() -> dict[str, list[str]]:
    """Name -> the command's arguments (``{out}`` is the run's output folder, ``{in}`` the inputs')."""
    r: dict[str, list[str]] = {
        "help": ["--help"], "resize-help": ["resize", "--help"], "devices-help": ["devices", "--help"],
        "version": ["--version"], "no-args": [],
    }
    for case in PAPER:
        r[f"paper-{case}-default-opencl"] = ["--case", case, "-o", "{out}/o.png", "--backend", "opencl"]
    for case in ("walkingman", "river"):
        r[f"paper-{case}-criminisi-numpy"] = ["--case", case, "-o", "{out}/o.png", "--backend", "numpy",
                                              "--method", "criminisi"]
    r["paper-walkingman-criminisi-opencl-stats"] = ["--case", "walkingman", "-o", "{out}/o.png", "--backend",
                                                    "opencl", "--method", "criminisi", "--stats"]
    r["paper-river-default-opencl-stats"] = ["--case", "river", "-o", "{out}/o.png", "--backend", "opencl", "--stats"]
    r["paper-walkingman-mapping-multiscale"] = ["--case", "walkingman", "-o", "{out}/o.png", "--backend", "opencl",
                                                "--save-mapping", "{out}/map.png"]
    r["paper-river-mapping-criminisi-numpy"] = ["--case", "river", "-o", "{out}/o.png", "--backend", "numpy",
                                                "--method", "criminisi", "--save-mapping", "{out}/map.png"]
    for case in QUALITY:
        r[f"quality-{case}-default-opencl"] = _quality(case) + ["-o", "{out}/o.png", "--backend", "opencl"]
    r["quality-bowl_rim-default-numpy-stats"] = _quality("bowl_rim") + ["-o", "{out}/o.png", "--backend", "numpy",
                                                                        "--stats"]
    r["quality-bottle_cork-criminisi-opencl-options"] = _quality("bottle_cork") + [
        "-o", "{out}/o.png", "--backend", "opencl", "--method", "criminisi", "--patch", "7", "--search-area", "0.1",
        "--fill-loop", "host", "--early-exit", "off", "--search-memory", "global", "--stats"]
    r["quality-bottle_cork-criminisi-old-flags"] = _quality("bottle_cork") + [
        "-o", "{out}/o.png", "--backend", "opencl", "--method", "criminisi", "--alpha", "0.1", "--loop", "host",
        "--prune", "on", "--variant", "local", "--partition", "coprocess"]
    r["quality-brick_stroke-blend3"] = _quality("brick_stroke") + ["-o", "{out}/o.png", "--backend", "opencl",
                                                                   "--blend", "3", "--stats"]
    r["quality-brick_stroke-candidates2-alpha"] = _quality("brick_stroke") + [
        "-o", "{out}/o.png", "--backend", "opencl", "--candidates", "2", "--alpha", "full", "--patch", "5"]
    # small generated pictures, numpy for most
    small = ["{in}/small.png", "--mask", "{in}/small_mask.png", "-o", "{out}/o.png"]
    r["small-default-numpy"] = small + ["--backend", "numpy"]
    r["small-criminisi-numpy-stats"] = small + ["--backend", "numpy", "--method", "criminisi", "--stats"]
    r["small-criminisi-source-filled"] = small + ["--backend", "numpy", "--method", "criminisi", "--source",
                                                  "filled", "--device-stages", "ssd,reduce"]
    r["small-protect-grow"] = small + ["--backend", "numpy", "--protect", "{in}/protect.png", "--grow", "2"]
    r["small-auto-quiet"] = small + ["--quiet"]
    r["small-empty-mask"] = ["{in}/small.png", "--mask", "{in}/empty_mask.png", "-o", "{out}/o.png"]
    r["small-grey16"] = ["{in}/grey16.png", "--mask", "{in}/small_mask.png", "-o", "{out}/o.png", "--backend",
                         "numpy", "--method", "criminisi"]
    r["small-jpeg-out"] = small[:-1] + ["{out}/o.jpg", "--backend", "numpy"]
    r["batch-numpy"] = ["{in}/batch", "-o", "{out}", "--backend", "numpy"]
    r["batch-criminisi-jobs2-quiet"] = ["{in}/batch", "-o", "{out}", "--method", "criminisi", "--jobs", "2", "-q"]
    r["batch-opencl-one-mask"] = ["{in}/batch/pic0.png", "{in}/batch/pic2.png", "--mask", "{in}/small_mask.png",
                                  "-o", "{out}", "--backend", "opencl"]
    # bad options
    bad = {"blend-9": ["--blend", "9"], "blend-x": ["--blend", "x"], "candidates-0": ["--candidates", "0"],
           "method-foo": ["--method", "foo"], "patch-4": ["--patch", "4"], "alpha-neg": ["--search-area", "-1"],
           "source-multiscale": ["--source", "filled"], "prune-multiscale": ["--prune", "on"],
           "blend-criminisi": ["--method", "criminisi", "--blend", "2"],
           "partition-bad": ["--method", "criminisi", "--device-stages", "nosuch"],
           "device-none": ["--device", "nosuchdevice"], "numpy-device": ["--backend", "numpy", "--device", "cpu"],
           "profile-none": ["--profile", "nosuchprofile"], "backend-bad": ["--backend", "cuda"],
           "loop-bad": ["--method", "criminisi", "--fill-loop", "x"], "grow-bad": ["--grow", "-3"],
           "jobs-bad": ["--jobs", "0"], "quality-bad": ["--quality", "101"],
           "loop-device-numpy": ["--method", "criminisi", "--fill-loop", "device", "--backend", "numpy"]}
    for name, extra in bad.items():
        r[f"bad-{name}"] = small + extra
    r["bad-no-mask"] = ["{in}/small.png", "-o", "{out}/o.png"]
    r["bad-case"] = ["--case", "nosuch"]
    r["bad-mapping-batch"] = ["{in}/batch", "-o", "{out}", "--save-mapping", "{out}/m.png"]
    r["bad-missing-image"] = ["{in}/nosuch.png", "--mask", "{in}/small_mask.png"]
    # resize
    r["resize-walkingman-opencl-stats"] = ["resize", ROOT.as_posix() + "/datasets/walkingman/image.png", "--width",
                                           "480", "-o", "{out}/o.png", "--backend", "opencl", "--stats"]
    r["resize-small-numpy"] = ["resize", "{in}/small.png", "--size", "40x40!", "-o", "{out}/o.png", "--backend",
                               "numpy", "--save-seams", "{out}/seams.png"]
    r["resize-small-remove"] = ["resize", "{in}/small.png", "--remove", "{in}/small_mask.png", "--protect",
                                "{in}/protect.png", "-o", "{out}/o.png", "--backend", "numpy", "--stats"]
    r["resize-small-remove-only"] = ["resize", "{in}/small.png", "--remove", "{in}/small_mask.png", "--grow", "1",
                                     "-o", "{out}/o.png", "--backend", "numpy", "--no-restore"]
    r["resize-small-same"] = ["resize", "{in}/small.png", "--width", "100%", "-o", "{out}/o.png"]
    r["resize-grey16-enlarge"] = ["resize", "{in}/grey16.png", "--height", "50", "-o", "{out}/o.png",
                                  "--backend", "numpy", "--energy", "forward"]
    r["resize-batch"] = ["resize", "{in}/batch", "--width", "30", "-o", "{out}", "--backend", "numpy"]
    r["resize-batch-opencl-jobs2"] = ["resize", "{in}/batch", "--height", "25", "-o", "{out}", "--jobs", "2",
                                      "--backend", "opencl", "--quiet"]
    rbad = {"nothing": [], "width-0": ["--width", "0"], "size-bad": ["--size", "axb"],
            "grow-no-remove": ["--width", "30", "--grow", "2"], "big": ["--width", "200"],
            "device-none": ["--width", "30", "--device", "nosuchdevice"],
            "profile-none": ["--width", "30", "--profile", "nosuchprofile"],
            "same-masks": ["--remove", "{in}/protect.png", "--protect", "{in}/protect.png"],
            "batch-stats": ["--width", "30", "--stats"]}
    for name, extra in rbad.items():
        src = "{in}/batch" if name == "batch-stats" else "{in}/small.png"
        r[f"resize-bad-{name}"] = ["resize", src, "-o", "{out}/" + ("" if name == "batch-stats" else "o.png")] + extra
    return r


_TIME = re.compile(r"\d+(?:\.\d+)?(?::\d+)*\s?(?:ms|s)\b")
_RATE = re.compile(r"\d+(?:\.\d+)? images/s")
_DECIMAL = re.compile(r"\d+\.\d+")


def mask_timings(text: str, folders: dict[str, str]) -> str:
    """The text with times, progress lines and the run's folders replaced by fixed marks."""
    for path, mark in folders.items():
        text = text.replace(path, mark)
    lines = []
    for line in text.replace("\r", "\n").split("\n"):
        if "elapsed" in line or "compiling the OpenCL kernels" in line:  # progress; a first build
            continue
        line = _RATE.sub("<r> images/s", _TIME.sub("<t>", line))
        if line.startswith("|"):  # a timing table's row: seconds and shares
            line = _DECIMAL.sub("<n>", line)
        lines.append(line)
    return "\n".join(lines)


def run_one(name: str, argv: list[str], inputs: Path) -> dict:
    out = Path(tempfile.mkdtemp(prefix="snap-out-"))
    try:
        args = [a.replace("{out}", str(out)).replace("{in}", str(inputs)) for a in argv]
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
        p = subprocess.run([sys.executable, "-m", "inpaint", *args], cwd=out, env=env, capture_output=True,
                           text=True, timeout=600)
        folders = {str(out): "<out>", str(inputs): "<in>", str(ROOT): "<root>"}
        files = {}
        for f in sorted(out.rglob("*")):
            if f.is_file():
                files[str(f.relative_to(out))] = hashlib.sha256(f.read_bytes()).hexdigest()[:16]
        return {"rc": p.returncode, "stdout": mask_timings(p.stdout, folders),
                "stderr": mask_timings(p.stderr, folders), "files": files}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def snapshot(only: str | None) -> dict:
    inputs = Path(tempfile.mkdtemp(prefix="snap-in-"))
    try:
        _make_inputs(inputs)
        todo = {k: v for k, v in runs().items() if only is None or only in k}
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            futures = {k: pool.submit(run_one, k, v, inputs) for k, v in todo.items()}
            return {k: f.result() for k, f in futures.items()}
    finally:
        shutil.rmtree(inputs, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("file")
    ap.add_argument("--only")
    a = ap.parse_args()
    snap = snapshot(a.only)
    if a.mode == "record":
        Path(a.file).write_text(json.dumps(snap, indent=1, sort_keys=True))
        print(f"recorded {len(snap)} runs in {a.file}")
        return 0
    before = json.loads(Path(a.file).read_text())
    bad = 0
    for name, now in snap.items():
        if name not in before:
            print(f"{name}: not in the recording")
            bad += 1
            continue
        if now != before[name]:
            bad += 1
            print(f"== {name} differs")
            for key in ("rc", "files"):
                if now[key] != before[name][key]:
                    print(f"  {key}: {before[name][key]} -> {now[key]}")
            for key in ("stdout", "stderr"):
                if now[key] != before[name][key]:
                    sys.stdout.writelines(difflib.unified_diff(before[name][key].splitlines(True),
                                                               now[key].splitlines(True), key, key))
                    print()
    print(f"{len(snap) - bad} of {len(snap)} runs identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Seam-carving benchmark: ours (OpenCL exact, OpenCL batch, numpy) against liblqr and ``seam-carving``.

Run ``inpaint bench seam`` or ``python -m inpaint_bench.seam`` (Markdown on stdout, ``--json FILE``
for the raw numbers).  Each case is ``HxW:SEAMS`` (remove SEAMS vertical seams from an H x W image).
Competitors, each skipped with a note when missing:

* ImageMagick ``convert in.png -liquid-rescale WxH! out.png`` (liblqr), timed as a whole
  process, and net of a plain ``convert in.png out.png`` (process start and PNG I/O), beside
  ours as a whole process too (``inpaint resize in.png -W W -o out.png``);
* the ``seam-carving`` PyPI package (numba), in-process, after a warm-up call.

Ours is timed in-process (the image already decoded), after a warm-up call that builds
the kernels, and as a whole command (a fresh process: start-up, decoding and encoding included,
the kernel cache warm).  Repeats of all columns are interleaved, so a noisy machine slows all of
them alike; the tables report medians.  The input is a real photo (the CC0 "coffee"
image of scikit-image, bundled as ``data/coffee.jpg``, or ``--image``) resized to each case.

Needs only numpy, Pillow and pyopencl: ``--ours-only --sizes 4320x7680:1`` is the run
for a big GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .common import child_failed, cpu_name, described, result_file

DEFAULT_SIZES = "224x320:100,853x1280:400"
PHOTO = Path(__file__).resolve().parent / "data" / "coffee.jpg"


def _parse_sizes(text: str) -> list[tuple[int, int, int]]:
    cases = []
    for part in text.split(","):
        try:
            hw, n = part.split(":")
            h, w = (int(v) for v in hw.lower().split("x"))
            n = int(n)
        except ValueError:
            raise argparse.ArgumentTypeError(f"size {part!r} is not HxW:SEAMS (e.g. 224x320:100)") from None
        if h < 3 or w < 3 or not 0 < n < w:
            raise argparse.ArgumentTypeError(f"size {part!r}: need H, W >= 3 and 0 < SEAMS < W")
        cases.append((h, w, n))
    return cases


def _photo(path: str | None, h: int, w: int) -> tuple[np.ndarray, str]:
    from PIL import Image

    src = Path(path) if path else PHOTO
    if path or src.exists():  # a photo asked for is read, or its error said
        from inpaint.io import read_image  # the product's reader: upright, any mode, clear errors

        rgb = read_image(src).rgb
        return np.asarray(Image.fromarray(rgb).resize((w, h), Image.LANCZOS)), src.name
    rng = np.random.default_rng(0)  # fallback: smooth noise (the note says so)
    small = rng.integers(0, 256, (max(2, h // 16), max(2, w // 16), 3), dtype=np.uint8)
    return np.asarray(Image.fromarray(small).resize((w, h), Image.BICUBIC)), "synthetic (photo missing)"


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


class Column:
    """One contender: a name, a setup note, and a timed call.

    Ours also has ``one``: the same call removing a single seam (setup, transfers and one
    seam), timed alongside, so ``(T(n) - T(1)) / (n - 1)`` is the time per seam without
    setup; and ``stages``: a call returning device seconds per kernel stage.
    """

    def __init__(self, key: str, label: str, fn: Callable[[], float] | None, note: str = "",
                 one: Callable[[], float] | None = None, stages: Callable[[], dict[str, float]] | None = None):
        self.key, self.label, self.fn, self.note = key, label, fn, note
        self.one, self.stages = one, stages
        self.times: list[float] = []
        self.one_times: list[float] = []


def _time(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _convert() -> tuple[str | None, str]:
    exe = shutil.which("convert")
    for cand in ("/usr/bin/convert", exe):
        if not cand or not os.path.exists(cand):
            continue
        try:
            out = subprocess.run([cand, "-version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        if "ImageMagick" not in out:
            continue
        cfg = subprocess.run([cand, "-list", "configure"], capture_output=True, text=True, timeout=30).stdout
        if "lqr" not in (out + cfg):
            return None, f"{cand} has no liblqr delegate"
        return cand, out.splitlines()[0]
    return None, "ImageMagick 'convert' not found (apt-get install imagemagick)"


def _columns(args: argparse.Namespace, img: np.ndarray, n: int, tmp: Path, rt: Any, notes: list[str]) -> list[Column]:
    from inpaint.seam import resize

    h, w = img.shape[:2]
    cols: list[Column] = []
    if rt is not None:
        from inpaint.seam import api
        from inpaint.seam.opencl import OpenCLCarver

        def ours(dp: str, batch: int | None, seams: int = n, stages: dict[str, float] | None = None,
                 tiles: tuple[int, int] | None = None) -> float:
            def make(_rt: Any, mode: str) -> OpenCLCarver:
                carver = OpenCLCarver(rt, mode, dp=dp)
                if tiles:
                    carver.tile_t, carver.tile_w = tiles
                carver.stage_seconds = stages
                return carver

            orig = api._opencl_carver  # the benchmark's runtime, with a chosen cost-table strategy
            api._opencl_carver = make
            try:
                return _time(lambda: resize(img, w - seams, h, batch=batch, backend="opencl"))
            finally:
                api._opencl_carver = orig

        def stages(dp: str, batch: int | None, tiles: tuple[int, int] | None = None) -> dict[str, float]:
            sec: dict[str, float] = {}
            ours(dp, batch, stages=sec, tiles=tiles)
            return sec

        for dp in args.dp:
            label = "ours OpenCL exact" + ("" if dp == "auto" else f" ({dp})")
            cols.append(Column(f"opencl_exact_{dp}", label, lambda dp=dp: ours(dp, None),
                               one=lambda dp=dp: ours(dp, None, 1), stages=lambda dp=dp: stages(dp, None)))
        for tt, tw in args.tiles:
            cols.append(Column(f"opencl_exact_tiled_{tt}x{tw}", f"ours OpenCL exact (tiled, TILE_T={tt}, TILE_W={tw})",
                               lambda t=(tt, tw): ours("tiled", None, tiles=t),
                               one=lambda t=(tt, tw): ours("tiled", None, 1, tiles=t),
                               stages=lambda t=(tt, tw): stages("tiled", None, t)))
        cols.append(Column("opencl_batch", f"ours OpenCL batch K={args.batch}", lambda: ours("auto", args.batch),
                           one=lambda: ours("auto", args.batch, 1), stages=lambda: stages("auto", args.batch)))
    from PIL import Image

    src = tmp / f"in_{h}x{w}.png"
    Image.fromarray(img).save(src)
    if rt is not None:
        ours_out = tmp / "ours.png"
        command = [sys.executable, "-m", "inpaint", "resize", str(src), "-W", str(w - n), "-o", str(ours_out),
                   "-q", "--backend", "opencl"] + (["--device", args.device] if args.device else []) + (
                   ["--profile", args.profile] if args.profile else [])

        def run_command() -> None:
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                raise child_failed(command[2:], done.returncode, done.stderr)

        def whole_command() -> float:
            ours_out.unlink(missing_ok=True)
            return _time(run_command)

        cols.append(Column("ours_command", "ours OpenCL exact, whole command (process)", whole_command,
                           "inpaint resize IN.png -W W -o OUT.png: start-up, decoding, carving, encoding"))
    if h * w <= args.numpy_max_pixels:
        cols.append(Column("numpy", "ours numpy (reference)",
                           lambda: _time(lambda: resize(img, w - n, h, backend="numpy"))))
    else:
        notes.append(f"numpy reference skipped for {h}x{w} (over --numpy-max-pixels)")
    if args.ours_only:
        return cols
    conv, what = _convert()
    if conv:
        dst = tmp / "out.png"
        cmd = [conv, str(src), "-liquid-rescale", f"{w - n}x{h}!", str(dst)]
        base = [conv, str(src), str(dst)]
        cols.append(Column("liblqr", "ImageMagick -liquid-rescale (process)",
                           lambda: _time(lambda: subprocess.run(cmd, check=True, capture_output=True)),
                           what))
        cols.append(Column("convert_io", "convert without resize (process, I/O)",
                           lambda: _time(lambda: subprocess.run(base, check=True, capture_output=True))))
    else:
        notes.append(f"liblqr column skipped: {what}")
    try:
        import seam_carving  # type: ignore[import-not-found]

        seam_carving.resize(img[:32, :32], (28, 32))  # numba warm-up
        cols.append(Column("seam_carving", "seam-carving (PyPI)",
                           lambda: _time(lambda: seam_carving.resize(img, (w - n, h), energy_mode="backward",
                                                                     order="width-first"))))
    except ImportError:
        notes.append("seam-carving column skipped: package not installed (pip install seam-carving)")
    return cols


def run_case(args: argparse.Namespace, h: int, w: int, n: int, rt: Any, notes: list[str]) -> dict[str, Any]:
    img, source = _photo(args.image, h, w)
    with tempfile.TemporaryDirectory(prefix="seam-bench-") as tmpdir:
        cols = _columns(args, img, n, Path(tmpdir), rt, notes)
        for c in cols:  # warm-up: kernel builds, caches, JIT
            if c.key not in ("numpy", "liblqr", "convert_io", "seam_carving"):
                c.fn()
        for rep in range(args.repeats):
            for c in cols:
                if c.key in ("numpy", "seam_carving") and rep >= args.slow_repeats:
                    continue
                c.times.append(c.fn())
                if c.one is not None and n > 1:
                    c.one_times.append(c.one())
        profiles = {c.key: c.stages() for c in cols if c.stages is not None}
    res = {"height": h, "width": w, "seams": n, "source": source, "columns": {}}
    for c in cols:
        entry = {"label": c.label, "median_s": _median(c.times), "times_s": c.times, "note": c.note}
        if c.one_times:
            entry["one_seam_median_s"] = _median(c.one_times)
            entry["one_seam_times_s"] = c.one_times
            entry["per_seam_marginal_s"] = (entry["median_s"] - entry["one_seam_median_s"]) / (n - 1)
        if c.key in profiles:
            entry["device_s_per_stage"] = profiles[c.key]
        res["columns"][c.key] = entry
    cc = res["columns"]
    if "liblqr" in cc and "convert_io" in cc:
        net = max(cc["liblqr"]["median_s"] - cc["convert_io"]["median_s"], 1e-9)
        cc["liblqr_net"] = {"label": "liblqr net of I/O", "median_s": net, "times_s": [], "note": ""}
    return res


def _markdown(results: list[dict[str, Any]], meta: dict[str, Any], notes: list[str]) -> str:
    lines = [f"Machine: {meta['machine']}; OpenCL device: {meta['device']}; repeats: {meta['repeats']} "
             f"(medians)", ""]
    for r in results:
        cc = r["columns"]
        lines.append(f"### {r['height']}x{r['width']} (HxW) minus {r['seams']} vertical seams ({r['source']})")
        lines.append("")
        ref_key = "liblqr_net" if "liblqr_net" in cc else None
        lines.append("| contender | median | per seam | vs liblqr (process) | vs liblqr (net) |")
        lines.append("|---|---:|---:|---:|---:|")
        for c in cc.values():
            t = c["median_s"]
            if t is None:
                continue
            vs_p = f"{cc['liblqr']['median_s'] / t:.2f}x" if "liblqr" in cc else "-"
            vs_n = f"{cc[ref_key]['median_s'] / t:.2f}x" if ref_key else "-"
            lines.append(f"| {c['label']} | {t * 1e3:.1f} ms | {t / r['seams'] * 1e3:.3f} ms | {vs_p} | {vs_n} |")
        lines.append("")
        ours = [c for c in cc.values() if "per_seam_marginal_s" in c or "device_s_per_stage" in c]
        if ours:
            lines.append("Ours without setup: 'marginal' = (T(n seams) - T(1 seam)) / (n - 1), side by side "
                         "(it also drops the shorter download of a narrower result); 'seam loop' = wall time "
                         "from the first energy pass to the last seam, one profiled run; 'device' = kernel "
                         "time from OpenCL events, by stage, same run.")
            lines.append("")
            lines.append("| contender | 1 seam (setup + 1) | per seam, marginal | seam loop per seam | "
                         "device per seam | device by stage (ms per seam) |")
            lines.append("|---|---:|---:|---:|---:|---|")
            for c in ours:
                one = c.get("one_seam_median_s")
                marg = c.get("per_seam_marginal_s")
                st = dict(c.get("device_s_per_stage") or {})
                loop = st.pop("loop wall", None)
                dev = sum(st.values())
                n = r["seams"]
                by = ", ".join(f"{k} {v / n * 1e3:.3f}" for k, v in st.items())
                lines.append(f"| {c['label']} | {'-' if one is None else f'{one * 1e3:.1f} ms'} | "
                             f"{'-' if marg is None else f'{marg * 1e3:.3f} ms'} | "
                             f"{'-' if loop is None else f'{loop / n * 1e3:.3f} ms'} | "
                             f"{dev / n * 1e3:.3f} ms | {by} |")
            lines.append("")
    if notes:
        lines.append("Notes: " + "; ".join(dict.fromkeys(notes)))
    lines.append("'vs liblqr' = liblqr time / contender time (> 1: we are faster).")
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str = "python -m inpaint_bench.seam") -> int:
    """Run the benchmark; returns the exit status."""
    p = argparse.ArgumentParser(prog=prog, description=described(__doc__, first_line=True))
    p.add_argument("--sizes", type=_parse_sizes, default=_parse_sizes(DEFAULT_SIZES),
                   help=f"comma-separated HxW:SEAMS cases (default {DEFAULT_SIZES})")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per column (default 5)")
    p.add_argument("--slow-repeats", type=int, default=1,
                   help="repeats for the slow columns, numpy and seam-carving (default 1)")
    p.add_argument("--batch", type=int, default=32, help="K for the batch column (default 32)")
    p.add_argument("--dp", default="auto", help="comma-separated cost-table strategies for the exact column: "
                                                "auto, rows, update, walk, tiled (default auto)")
    p.add_argument("--tiles", default="", help="extra exact columns with the tiled cost table at these "
                                               "TILE_TxTILE_W sizes, comma-separated (e.g. 32x64,64x128)")
    p.add_argument("--ours-only", action="store_true", help="skip ImageMagick and seam-carving")
    p.add_argument("--numpy-max-pixels", type=int, default=2_000_000,
                   help="skip the numpy reference above this many pixels (default 2e6)")
    p.add_argument("--image", help="photo to resize into each case (default: bundled coffee.jpg)")
    from inpaint.methods.options import DEVICE, PROFILE

    p.add_argument("--device", default=DEVICE.from_environment(),
                   help=f"OpenCL device (see 'inpaint devices'; default: {DEVICE.env})")
    p.add_argument("--profile", default=PROFILE.from_environment(), help=f"device profile (default: {PROFILE.env})")
    p.add_argument("--json", metavar="FILE", type=result_file(), help="also write the raw results as JSON")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.slow_repeats < 1:
        p.error("--repeats and --slow-repeats must be at least 1")
    args.dp = [d.strip() for d in args.dp.split(",") if d.strip()]
    try:
        args.tiles = [tuple(int(v) for v in t.lower().split("x")) for t in args.tiles.split(",") if t.strip()]
    except ValueError:
        p.error(f"--tiles: expected TxW pairs such as 32x64, got {args.tiles!r}")
    if any(len(t) != 2 or min(t) < 1 for t in args.tiles):
        p.error("--tiles: expected positive TxW pairs such as 32x64")
    from inpaint.seam.opencl import DP_CHOICES

    bad = [d for d in args.dp if d not in DP_CHOICES]
    if bad:
        p.error(f"--dp: unknown {', '.join(bad)}; allowed: {', '.join(DP_CHOICES)}")
    notes: list[str] = []
    rt = None
    from inpaint.cl.runtime import explicit_choice, get_runtime, opencl_available

    named = explicit_choice(args.device) or args.profile is not None
    try:
        if opencl_available() or named:
            rt = get_runtime(device=args.device, profile=args.profile)
        else:
            notes.append("OpenCL columns skipped: no OpenCL device")
    except Exception as exc:
        if named:  # a device or profile named is never replaced (its error, as the other benchmarks')
            raise
        notes.append(f"OpenCL columns skipped: {exc}")
    meta = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                       f"{platform.system()} {platform.release()}",
            "device": rt.name if rt is not None else "none", "repeats": args.repeats,
            "command": " ".join([prog] + list(sys.argv[1:] if argv is None else argv))}
    cpu = cpu_name()
    if cpu:
        meta["machine"] = f"{cpu}, {os.cpu_count()} CPUs"
    results = [run_case(args, h, w, n, rt, notes) for h, w, n in args.sizes]
    print(_markdown(results, meta, notes))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"meta": meta, "results": results, "notes": notes}, fh, indent=2)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

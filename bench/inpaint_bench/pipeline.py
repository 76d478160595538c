"""``inpaint bench``: the pipeline's benchmark, beside the paper's Tables 2, 4 and 5-9.

Modes (combine freely; with none of ``--grid/--table2/--table4/--profiles/--partitions``
the default benchmark runs):

* default: numpy vs OpenCL (every device) for the default fill and for the paper's pipeline at
  alpha = 0.05 / P = 17 and full search / P = 9 (``--quick``: without the full search),
  with the ratio and the speed targets of ``targets.toml`` (e.g. WalkingMan in < 0.25 s and
  < 3 s on PoCL; 5x the paper's Adreno 330 at alpha = 0.05 / P = 17).
* ``--grid``: alpha x P x device x {local, global} plus the numpy serial baseline (Tables
  5-8), the search area per alpha, PSNR and SSIM inside the object's bounding box.
* ``--table2``: per-stage breakdown of one run per backend/device.
* ``--table4``: local memory per work-group of the built findBestPatch kernels.
* ``--profiles`` / ``--partitions``: time per device profile and per host/device split.
* ``--quality``: fill quality against ground truth, ours beside classical inpainting
  libraries (:mod:`inpaint_bench.quality`; runs alone); ``--objects``: contact sheets of
  real object removals without truth (the same module; runs alone).

``--prune`` picks findBestPatch's pruning (:class:`inpaint.methods.criminisi.opencl.FindBestPatch`); ``both``
times pruned and unpruned side by side in the default benchmark.

Timing: each configuration gets one untimed warm-up first (it builds the kernels; in the
grid the warm-up of a (case, device, variant, P) is one run at alpha = 0.05, which builds
the same programs), then ``--repeat`` timed runs.  All configurations of a table are
interleaved inside the repeat loop (repeat 1: every cell, repeat 2: every cell, ...) so
that a noisy, shared machine slows all of them alike; medians are reported.  The time is
the wall time of one :func:`inpaint.api.inpaint` call (set-up, all iterations,
final read-back), kernel compilation excluded.

Runs with numpy, Pillow and pyopencl only; matplotlib is optional (``--plots``).
"""

from __future__ import annotations

import argparse
import csv
import functools
import inspect
import json
import math
import os
import statistics
import sys
import time
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from inpaint.cl import BACKENDS
from inpaint.errors import InputError
from inpaint.methods.options import BACKEND

from .common import PAPER_CASES, md_table, result_file
from .devices import Dev, find_devices, machine_info
from .metrics import bbox as _bbox, box_psnr as psnr, box_ssim as ssim

ALPHAS = ("full", "2", "1", "0.5", "0.2", "0.05")
PATCHES = (9, 13, 17)
VARIANTS = ("local", "global")
QUICK_ALPHAS = ("full", "0.05")
QUICK_PATCHES = (9, 17)
NUMPY_DEFAULT_ALPHAS = ("0.5", "0.05")

# --- the paper's figures (Wang et al.: Tables 4 and 5) -----------------------------------------
#: Table 5 (WalkingMan, seconds): alpha -> (search area, CPU-only, GPU no local, GPU local), P = 9/13/17.
PAPER_TABLE5 = {
    "full": ("512x384", (23.26, 22.48, 23.68), (20.37, 19.66, 19.15), (12.18, 11.59, 11.12)),
    "2": ("382x384", (18.08, 16.97, 18.30), (16.32, 14.93, 14.52), (9.31, 8.82, 8.42)),
    "1": ("234x311", (13.37, 9.91, 9.74), (8.17, 7.80, 7.61), (5.34, 4.69, 4.94)),
    "0.5": ("156x248", (11.27, 9.80, 8.20), (5.29, 4.24, 3.95), (3.93, 2.93, 2.43)),
    "0.2": ("109x176", (7.13, 5.20, 3.79), (2.95, 2.25, 1.90), (2.26, 1.59, 1.33)),
    "0.05": ("86x139", (6.02, 4.73, 3.85), (2.12, 1.65, 1.45), (2.04, 1.52, 1.25)),
}
#: Table 4: local memory per work-group of the local-memory findBestPatch.
PAPER_TABLE4 = {9: 1672, 13: 2952, 17: 4616}

PLOT_HINT = "install with pip install 'inpaint-bench[plot]' (pip install './bench[plot]' from a checkout)"

#: Where the speed targets live (data, not code): see :func:`load_targets`.
TARGETS_FILE = Path(__file__).resolve().parent / "targets.toml"


def load_targets(path: Path = TARGETS_FILE) -> list[dict[str, Any]]:
    """The speed targets of ``targets.toml``: a list of dicts with ``device`` (``'pocl'`` or
    ``'h200'``), ``alpha`` (label), ``patch``, optional ``cases``, and either ``limit_s`` or
    ``paper_s`` (seconds per case) with ``speedup``."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    with open(path, "rb") as fh:
        targets = tomllib.load(fh)["target"]
    for t in targets:
        t["alpha"] = _alpha_label(t.get("alpha", DEFAULT_FILL))
        t["patch"] = int(t.get("patch", 0))
        if ("limit_s" in t) == ("paper_s" in t and "speedup" in t):
            raise ValueError(f"{path}: a target needs either limit_s or paper_s with speedup: {t}")
    return targets


# --- small helpers -----------------------------------------------------------------------------
#: The label of the library's default fill where an alpha label goes (with patch 0).
DEFAULT_FILL = "default"


def _alpha_label(alpha: Any) -> str:
    if str(alpha).lower() == DEFAULT_FILL:
        return DEFAULT_FILL
    if alpha is None or str(alpha).lower() == "full":
        return "full"
    v = float(alpha)
    return f"{v:g}"


def _alpha_arg(label: str) -> Any:
    return "full" if label == "full" else float(label)


def _fmt_s(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x < 0.1:
        return f"{x * 1000:.1f} ms"
    return f"{x:.3f} s"


def _fmt_num(x: float | None, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.{digits}f}"


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


class Case:
    """What the benchmark needs of a test case (loaded by name or from a folder)."""

    def __init__(self, name: str, image: np.ndarray, mask: np.ndarray, truth: np.ndarray | None):
        self.name = name
        self.image = np.ascontiguousarray(image[..., :3])
        self.mask = np.asarray(mask, bool)
        self.truth = truth


def _case_from_dir(path: Path) -> Case:
    """A case folder read through the product's edge layer (:mod:`inpaint.io`): the same
    8-bit view and the same mask rule as the ``inpaint`` command."""
    from inpaint.io import read_image, read_mask

    pic = read_image(path / "image.png")
    mask = read_mask(path / "mask.png", pic.size)
    truth = read_image(path / "truth.png").rgb if (path / "truth.png").is_file() else None
    if truth is not None and truth.shape != pic.rgb.shape:
        raise ValueError(f"{path}: truth.png is {truth.shape[1]}x{truth.shape[0]}, image.png "
                         f"{pic.size[0]}x{pic.size[1]}")
    return Case(path.name, pic.rgb, mask, truth)


def _known_cases() -> list[str]:
    try:
        from inpaint.io.cases import case_names

        return list(case_names())
    except Exception:  # noqa: BLE001 - cases module or index missing: fall back to the paper's names
        return ["walkingman", "river", "divingman", "hill"]


def resolve_cases(spec: str, notes: list[str]) -> list[Case]:
    """``spec``: a case name, ``all``, a comma-separated list, or a folder with image/mask(/truth).png.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid ones).
    """
    names = _known_cases()
    out: list[Case] = []
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if any(s.lower() == "all" for s in items):
        items = names
    for item in items:
        path = Path(item)
        if path.is_dir() and (path / "image.png").is_file() and (path / "mask.png").is_file():
            out.append(_case_from_dir(path))
            continue
        key = item.lower()
        if key not in names:
            raise ValueError(f"unknown case {item!r}; valid names: {', '.join(names)}, all "
                             "(or a folder holding image.png, mask.png and optionally truth.png)")
        try:
            from inpaint.io.cases import load_case

            c = load_case(key)
            out.append(Case(c.name, c.image, c.mask, c.truth))
        except Exception as exc:  # noqa: BLE001 - a case not (yet) in the data set is skipped
            notes.append(f"case {key} is not available ({exc}); skipped")
    return out


# --- quality ------------------------------------------------------------------------------------
@functools.cache
def _criminisi() -> dict[str, Any]:
    """``method='criminisi'`` where ``inpaint()`` has several methods: these tables time the paper's pipeline."""
    from inpaint.api import inpaint

    return {"method": "criminisi"} if "method" in inspect.signature(inpaint).parameters else {}


@functools.cache
def _criminisi_options() -> tuple[str, ...]:
    try:
        from inpaint.methods.registry import OPTIONS
    except ImportError:
        return ()
    return tuple(OPTIONS.get("criminisi", ()))


# --- measuring ----------------------------------------------------------------------------------
class Job:
    """One benchmark configuration: a case and the keyword arguments of ``inpaint``."""

    def __init__(self, kind: str, case: Case, dev: Dev | None, alpha: str, patch: int,
                 variant: str = "auto", profile: str | None = None, partition: Sequence[str] | None = None,
                 partition_label: str | None = None, prune: Any = "auto"):
        self.kind, self.case, self.dev = kind, case, dev
        self.alpha, self.patch, self.variant, self.prune = alpha, patch, variant, prune
        self.profile, self.partition, self.partition_label = profile, partition, partition_label
        self.times: list[float] = []
        self.stats: Any = None
        self.image: np.ndarray | None = None
        self.error: str | None = None

    @property
    def backend(self) -> str:
        return "numpy" if self.dev is None else "opencl"

    @property
    def device_label(self) -> str:
        return "numpy (host)" if self.dev is None else self.dev.short

    @property
    def is_default_fill(self) -> bool:
        """The library's default fill (``alpha == DEFAULT_FILL``), not the paper's pipeline."""
        return self.alpha == DEFAULT_FILL

    def kwargs(self, alpha: str | None = None) -> dict[str, Any]:
        # (the tables give each device stage's time: a device's runs are profiled)
        if self.is_default_fill:
            on = {"device": self.dev.spec, "timings": True} if self.dev is not None else {}
            return {"backend": self.backend, **on}
        kw: dict[str, Any] = {**_criminisi(), "alpha": _alpha_arg(alpha or self.alpha), "patch": self.patch,
                              "backend": self.backend}
        if self.dev is not None:
            kw.update(device=self.dev.spec, timings=True, variant=self.variant, profile=self.profile,
                      partition=self.partition, prune=self.prune)
            if self.kind == "table2" and "loop" in _criminisi_options():
                # Table 2 times each stage: the host-driven loop runs them one by one (the
                # device-resident loop runs stages 2, 4 and 5 as one kernel).
                kw["loop"] = "host"
        return kw

    def warm_key(self) -> tuple:
        return (id(self.case), self.backend, self.dev.spec if self.dev else None, self.variant, self.prune,
                self.patch, self.profile, tuple(self.partition) if self.partition is not None else None)

    def run_once(self) -> float:
        from inpaint.api import inpaint

        t = time.perf_counter()
        res = inpaint(self.case.image, self.case.mask, **self.kwargs())
        dt = time.perf_counter() - t
        if self.stats is None:
            self.stats, self.image = res.stats, res.image
        return dt

    @property
    def median(self) -> float:
        return _median(self.times)

    @property
    def area(self) -> str:
        if self.stats is None:
            return "—"
        x0, y0, x1, y1 = self.stats.search_area
        return f"{x1 - x0}x{y1 - y0}"

    def quality(self) -> tuple[float, float]:
        if self.image is None or self.case.truth is None:
            return float("nan"), float("nan")
        box = _bbox(self.case.mask)
        return psnr(self.image, self.case.truth, box), ssim(self.image, self.case.truth, box)

    def row(self) -> dict[str, Any]:
        p, s = self.quality()
        st = self.stats
        return {
            "kind": self.kind, "case": self.case.name, "backend": self.backend,
            "device": self.dev.name if self.dev else "host (numpy)",
            "device_spec": self.dev.spec if self.dev else "",
            "variant": getattr(st, "variant", st.method if st else self.variant) if st else self.variant,
            "pruned": getattr(st, "pruned", None) if st else None,
            "alpha": self.alpha, "patch": self.patch, "profile": self.profile or "",
            "partition": self.partition_label or ("all" if self.dev else "none"),
            "search_area": self.area, "runs": len(self.times),
            "median_s": self.median if self.times else None,
            "min_s": min(self.times) if self.times else None,
            "times_s": list(self.times),
            "iterations": st.iterations if st else None, "widened": st.widened if st else None,
            "local_mem_bytes": getattr(st, "local_mem_bytes", None) if st else None,
            "psnr_db": None if math.isnan(p) else (p if math.isfinite(p) else "inf"),
            "ssim": None if math.isnan(s) else s,
            "error": self.error or "",
        }


def measure(jobs: Sequence[Job], repeat: int, warm: dict[tuple, str] | None = None,
            log: Any = None, numpy_repeat: int | None = None) -> None:
    """Warm up every configuration once, then time all jobs interleaved ``repeat`` times.

    ``warm`` maps a warm key to the alpha its warm-up runs at (default: the job's own alpha).
    numpy jobs get no warm-up (nothing to build) and at most ``numpy_repeat`` timed runs.
    Errors (e.g. a profile the device cannot meet) are recorded on the job, not raised.
    Progress goes to ``log`` (default: the current ``sys.stderr``) when it is a terminal.
    """
    log = sys.stderr if log is None else log
    done: set[tuple] = set()
    for job in jobs:
        key = job.warm_key()
        if key in done or job.dev is None:
            continue
        done.add(key)
        alpha = (warm or {}).get(key, job.alpha)
        try:
            from inpaint.api import inpaint

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                inpaint(job.case.image, job.case.mask, **job.kwargs(alpha))
        except Exception as exc:  # noqa: BLE001 - reported per job
            for j in jobs:
                if j.warm_key() == key:
                    j.error = f"{type(exc).__name__}: {exc}"
    nrep = repeat if numpy_repeat is None else min(repeat, numpy_repeat)
    total = sum(repeat if j.dev is not None else nrep for j in jobs if not j.error)
    n = 0
    t0 = time.perf_counter()
    for r in range(repeat):
        for job in jobs:
            if job.error or (job.dev is None and r >= nrep):
                continue
            try:
                job.times.append(job.run_once())
            except Exception as exc:  # noqa: BLE001
                job.error = f"{type(exc).__name__}: {exc}"
            n += 1
            if log is not None and log.isatty():
                log.write(f"\rbench: {n}/{total} runs, {time.perf_counter() - t0:.0f} s")
                log.flush()
    if log is not None and log.isatty() and total:
        log.write("\n")


# --- the modes ----------------------------------------------------------------------------------
def _verdict(value: float | None, limit: float) -> str:
    if value is None or math.isnan(value):
        return "not measured"
    return "**met**" if value < limit else "**missed**"


def default_benchmark(cases: Sequence[Case], devs: Sequence[Dev], args: argparse.Namespace,
                      out: dict[str, Any]) -> tuple[str, list[Job]]:
    """numpy vs OpenCL for the default fill and for the paper's pipeline at (0.05, 17) and
    (full, 9), per case and device, and the targets."""
    # --quick: the default fill and the paper's pipeline at (0.05, 17), without its slow full search
    configs = [(DEFAULT_FILL, 0), ("0.05", 17)] if args.quick else [(DEFAULT_FILL, 0), ("0.05", 17), ("full", 9)]
    jobs: list[Job] = []
    for case in cases:
        for alpha, patch in configs:
            if not args.no_numpy:
                jobs.append(Job("default", case, None, alpha, patch))
            for d in devs:
                for prune in _prunes(args) if alpha != DEFAULT_FILL else ["auto"]:
                    jobs.append(Job("default", case, d, alpha, patch, variant=args.variant, prune=prune))
    measure(jobs, args.repeat, {j.warm_key(): "0.05" for j in jobs}, numpy_repeat=args.numpy_repeat)
    out["rows"].extend(j.row() for j in jobs)
    lines = ["## Default benchmark: numpy vs OpenCL", "",
             f"Median of {args.repeat} run(s) per configuration"
             + (f" ({min(args.repeat, args.numpy_repeat)} for numpy)" if args.numpy_repeat else "")
             + ", wall time of one `inpaint()` call, "
             "kernel build excluded (one untimed warm-up per configuration), configurations interleaved.", ""]
    rows = []
    for case in cases:
        for alpha, patch in configs:
            sel = [j for j in jobs if j.case is case and j.alpha == alpha and j.patch == patch]
            ref = next((j for j in sel if j.dev is None), None)
            for j in sel:
                if j.error:
                    rows.append([case.name, alpha, patch, j.device_label, "—", "—", "—", "—", "—",
                                 "error: " + j.error])
                    continue
                ratio = (ref.median / j.median) if ref is not None and j.dev is not None and ref.times else None
                rows.append([case.name, alpha, patch or "—", j.device_label, _variant_label(j),
                             j.area, _fmt_s(j.median), _fmt_s(min(j.times)) if j.times else "—",
                             (_fmt_num(ratio, 1) + "×") if ratio else "—",
                             j.stats.iterations if j.stats else ""])
    lines.append(md_table(["case", "α", "P", "backend / device", "findBestPatch", "search area", "median",
                            "min", "speed-up vs numpy (medians)", "iterations"], rows, "lllllrrrrr"))
    lines += ["", f"α = {DEFAULT_FILL}: the library's default fill (the multiscale method with its default "
                  "options; 'iterations' counts its rounds). The other rows time the paper's Criminisi pipeline."]
    lines.append("")
    lines.append(targets_section(jobs, out))
    return "\n".join(lines), jobs


def _prunes(args: argparse.Namespace) -> list[Any]:
    """``--prune`` as the ``prune`` arguments to time: both means pruned and unpruned side by side."""
    return {"auto": ["auto"], "on": [True], "off": [False], "both": [True, False]}[getattr(args, "prune", "auto")]


def _variant_label(job: Job) -> str:
    """findBestPatch as run, e.g. ``'local 8x8, pruned'`` (for the default fill: its method)."""
    if job.stats is None:
        return ""
    if job.is_default_fill:
        return job.stats.method
    return job.stats.variant + (", pruned" if job.stats.pruned else "")


def _best_time(jobs: Iterable[Job], case: str, alpha: str, patch: int, pred) -> tuple[float | None, Job | None]:
    best = None
    for j in jobs:
        if j.case.name == case and j.alpha == alpha and j.patch == patch and j.dev is not None \
                and pred(j.dev) and j.times and not j.error:
            if best is None or j.median < best.median:
                best = j
    return (best.median if best else None), best


def _target_devices() -> dict[str, Any]:
    return {"pocl": lambda d: d.is_pocl, "h200": lambda d: d.is_h200}


def _device_name(kind: str) -> str:
    return {"pocl": "PoCL", "h200": "H200"}.get(kind, kind)


def targets_section(jobs: Sequence[Job], out: dict[str, Any],
                    targets: Sequence[dict[str, Any]] | None = None) -> str:
    """Verdicts for every target (``targets.toml``) whose cell was measured."""
    targets = load_targets() if targets is None else targets
    rows = []
    cases = sorted({j.case.name for j in jobs}, key=lambda n: PAPER_CASES.index(n) if n in PAPER_CASES else 99)
    preds = _target_devices()

    def add(label: str, value: float | None, limit: float, job: Job | None, ref: str) -> None:
        if value is None:
            return
        verdict = _verdict(value, limit)
        var = f" ({_variant_label(job)})" if job is not None and job.stats else ""
        rows.append([label, _fmt_s(value) + var, "< " + _fmt_s(limit), ref, verdict])
        out["targets"].append({"target": label, "measured_s": value, "limit_s": limit, "reference": ref,
                               "met": value < limit, "device": job.dev.name if job and job.dev else ""})

    for name in cases:
        for t in targets:
            if name not in t.get("cases", PAPER_CASES):
                continue
            alpha, patch = t["alpha"], t["patch"]
            where = {"full": f"full P={patch:d}", DEFAULT_FILL: "default fill"}.get(alpha, f"α={alpha} P={patch}")
            cell = f"{name} {where} on {_device_name(t['device'])}"
            if "limit_s" in t:
                limit = float(t["limit_s"])
                label, ref = f"{cell} < {_fmt_s(limit)}", "fixed limit"
            else:
                paper = t["paper_s"].get(name)
                if paper is None:
                    continue
                limit = paper / t["speedup"]
                label = f"{cell}: {t['speedup']:g}× {t.get('paper_short', t['paper'])}"
                ref = f"{t['paper']}: {paper:g} s / {t['speedup']:g}"
            v, j = _best_time(jobs, name, alpha, patch, preds[t["device"]])
            add(label, v, limit, j, ref)
    if not rows:
        return "No target applies to the measured cells."
    return "### Targets\n\n" + md_table(["target", "measured (median)", "limit", "from", "verdict"], rows,
                                         "lrrll")


def grid_benchmark(cases: Sequence[Case], devs: Sequence[Dev], args: argparse.Namespace,
                   out: dict[str, Any]) -> tuple[str, list[Job]]:
    """Tables 5-8: alpha x P x device x variant, plus the numpy baseline."""
    alphas = _list_arg(args.alphas, QUICK_ALPHAS if args.quick else ALPHAS, _alpha_label)
    patches = _list_arg(args.patches, QUICK_PATCHES if args.quick else PATCHES, int)
    variants = [args.variant] if args.variant in VARIANTS else list(VARIANTS)
    jobs: list[Job] = []
    warm: dict[tuple, str] = {}
    for case in cases:
        for alpha in alphas:
            for patch in patches:
                if not args.no_numpy and (args.numpy_all or alpha in NUMPY_DEFAULT_ALPHAS):
                    jobs.append(Job("grid", case, None, alpha, patch))
                for d in devs:
                    for v in variants:
                        jobs.append(Job("grid", case, d, alpha, patch, variant=v, prune=_prunes(args)[0]))
        cheapest = "0.05" if "0.05" in alphas else alphas[-1]
        for j in jobs:
            if j.case is case:
                warm[j.warm_key()] = cheapest
    measure(jobs, args.repeat, warm, numpy_repeat=args.numpy_repeat)
    out["rows"].extend(j.row() for j in jobs)
    parts = [f"## Grid (Tables 5-8): median of {args.repeat} run(s)"
             + (f" ({min(args.repeat, args.numpy_repeat)} for numpy)" if args.numpy_repeat else "")
             + ", seconds; PSNR/SSIM inside the object's bounding box against truth.png", ""]
    for case in cases:
        parts.append(f"### {case.name} ({case.image.shape[1]}x{case.image.shape[0]}, object "
                     f"{_bbox_size(case.mask)})")
        parts.append("")
        header = ["α", "search area (ours)"]
        paper = case.name == "walkingman"
        if paper:
            header.append("search area (paper)")
        cols: list[tuple[str, Any]] = []
        if not args.no_numpy:
            cols.append(("numpy", lambda j: j.dev is None))
        for d in devs:
            for v in variants:
                cols.append((f"{d.short} {v}", (lambda dd, vv: lambda j: j.dev is dd and j.variant == vv)(d, v)))
        for label, _ in cols:
            header.append(f"{label} P=" + "/".join(str(p) for p in patches))
        if paper:
            header += ["paper CPU-only", "paper GPU global", "paper GPU local"]
        header += ["PSNR dB P=" + "/".join(str(p) for p in patches), "SSIM P=" + "/".join(str(p) for p in patches)]
        rows = []
        for alpha in alphas:
            cj = [j for j in jobs if j.case is case and j.alpha == alpha]
            area = next((j.area for j in cj if j.stats is not None), "—")
            row: list[Any] = [alpha, area]
            if paper:
                row.append(PAPER_TABLE5.get(alpha, ("—",))[0])
            for _, pred in cols:
                vals = []
                for p in patches:
                    j = next((j for j in cj if j.patch == p and pred(j)), None)
                    vals.append("—" if j is None or not j.times else ("err" if j.error else f"{j.median:.3f}"))
                row.append(" / ".join(vals))
            if paper:
                ref = PAPER_TABLE5.get(alpha)
                idx = [PATCHES.index(p) if p in PATCHES else None for p in patches]
                for col in (1, 2, 3):
                    row.append(" / ".join("—" if ref is None or i is None else f"{ref[col][i]:.2f}" for i in idx))
            q_p, q_s = [], []
            for p in patches:
                j = next((j for j in cj if j.patch == p and j.stats is not None), None)
                a, b = j.quality() if j else (float("nan"), float("nan"))
                q_p.append(_fmt_num(a, 2))
                q_s.append(_fmt_num(b, 3))
            row += [" / ".join(q_p), " / ".join(q_s)]
            rows.append(row)
        parts.append(md_table(header, rows, "l" + "r" * (len(header) - 1)))
        wid = sorted({(j.alpha, j.patch, j.stats.widened, j.stats.iterations) for j in jobs
                      if j.case is case and j.stats is not None and j.stats.widened},
                     key=lambda t: (ALPHAS.index(t[0]) if t[0] in ALPHAS else 99, t[1]))
        if wid:
            parts.append("\nSearch area widened (no valid candidate inside it): " + "; ".join(
                f"α={a} P={p}: {w} of {n} iterations" for a, p, w, n in wid))
        errs = [j for j in jobs if j.case is case and j.error]
        for j in errs:
            parts.append(f"\n- error: {j.device_label} {j.variant} α={j.alpha} P={j.patch}: {j.error}")
        parts.append("")
    parts.append(targets_section(jobs, out))
    return "\n".join(parts), jobs


def _bbox_size(mask: np.ndarray) -> str:
    x0, y0, x1, y1 = _bbox(mask)
    return f"{x1 - x0}x{y1 - y0}"


def _check_fill_values(args: argparse.Namespace) -> None:
    """Refuse, before any run, an alpha or a patch size the Criminisi method would refuse (its own
    checks and messages), and a list of them that names none."""
    from inpaint.methods import registry

    method = registry.get("criminisi")
    for text, name, conv in ((args.alphas, "alpha", _alpha_label), (args.patches, "patch", int)):
        values = _list_arg(text, (), conv)
        if text is not None and not values:
            raise InputError(f"--{name}{'es' if name == 'patch' else 's'} names no value")
        for value in values:
            if value != DEFAULT_FILL:
                method.option(name).check(_alpha_arg(value) if name == "alpha" else value)
    if args.alpha is not None and _alpha_label(args.alpha) != DEFAULT_FILL:
        method.option("alpha").check(_alpha_arg(_alpha_label(args.alpha)))
    if args.patch is not None:
        method.option("patch").check(int(args.patch))


def _list_arg(text: str | None, default: Sequence[Any], conv) -> list[Any]:
    if not text:
        return [conv(x) for x in default]
    return [conv(x.strip()) for x in text.split(",") if x.strip()]


def table2(cases: Sequence[Case], devs: Sequence[Dev], args: argparse.Namespace, out: dict[str, Any]) -> str:
    """Per-stage breakdown of one (warmed-up) run per backend/device."""
    from inpaint.report import format_stats

    alpha = _alpha_label(args.alpha or "full")
    patch = int(args.patch or 9)
    parts = [f"## Table 2: per-stage breakdown (α={alpha}, P={patch}, one run after a warm-up)", "",
             "Paper (one CPU core, WalkingMan, full search, 9x9, serial): 87.0 s total, "
             "findBestPatch 84.4 s (97.0 %).", ""]
    for case in cases:
        jobs = ([] if args.no_numpy else [Job("table2", case, None, alpha, patch)]) + \
               [Job("table2", case, d, alpha, patch, variant=args.variant, prune=_prunes(args)[0]) for d in devs]
        measure(jobs, 1)
        for j in jobs:
            parts.append(f"### {case.name}: {j.device_label}")
            parts.append("")
            if j.error or j.stats is None:
                parts.append(f"error: {j.error}")
            else:
                parts.append(format_stats(j.stats))
                r = j.row()
                r["stage_seconds"] = dict(j.stats.stage_seconds)
                r["transfer_seconds"] = j.stats.transfer_seconds
                out["table2"].append(r)
            parts.append("")
    return "\n".join(parts)


def table4(devs: Sequence[Dev], out: dict[str, Any]) -> str:
    """Local memory per work-group of the built findBestPatch kernels."""
    parts = ["## Table 4: local memory per work-group of findBestPatch (bytes)", ""]
    if not devs:
        return "\n".join(parts + ["No OpenCL device: nothing to build."])
    from inpaint.cl.runtime import get_runtime
    from inpaint.methods.criminisi.opencl import FindBestPatch

    rows = []
    for d in devs:
        rt = get_runtime(d.spec)
        for p in PATCHES:
            try:
                loc = rt.work_group_info(FindBestPatch(rt, p, "local").knl)["local_mem_size"]
            except Exception as exc:  # noqa: BLE001
                loc = f"error: {exc}"
            try:
                glo = rt.work_group_info(FindBestPatch(rt, p, "global").knl)["local_mem_size"]
            except Exception as exc:  # noqa: BLE001
                glo = f"error: {exc}"
            formula = FindBestPatch.local_bytes(p)
            rows.append([d.short, f"{p}x{p}", p + 7, loc, formula, PAPER_TABLE4[p], glo,
                         "yes" if loc == PAPER_TABLE4[p] else "no"])
            out["table4"].append({"device": d.name, "patch": p, "local_variant_bytes": loc,
                                  "formula_bytes": formula, "paper_bytes": PAPER_TABLE4[p],
                                  "global_variant_bytes": glo})
    parts.append(md_table(["device", "patch", "window P+7", "local kernel (built)", "(P+7)²·4 + P²·4 + P²·4",
                            "paper", "global kernel (built)", "= paper"], rows, "llrrrrrl"))
    return "\n".join(parts)


def _partitions() -> dict[str, Any]:
    """The named partitions of the pipeline, and findBestPatch alone on the device."""
    from inpaint.methods.criminisi.stages import PARTITIONS

    return {**PARTITIONS, "ssd": ("ssd",)}


def profiles_partitions(cases: Sequence[Case], devs: Sequence[Dev], args: argparse.Namespace,
                        out: dict[str, Any]) -> str:
    """Time per device profile and per host/device split."""
    from inpaint.cl.profiles import available_profiles

    alpha = _alpha_label(args.alpha or "0.05")
    patch = int(args.patch or 17)
    jobs: list[Job] = []
    for case in cases:
        for d in devs:
            if args.profiles:
                for prof in available_profiles():
                    jobs.append(Job("profile", case, d, alpha, patch, profile=prof, variant=args.variant,
                                    prune=_prunes(args)[0]))
            if args.partitions:
                for label, part in _partitions().items():
                    jobs.append(Job("partition", case, d, alpha, patch, partition=part,
                                    partition_label=label, variant=args.variant, prune=_prunes(args)[0]))
    measure(jobs, args.repeat)
    out["rows"].extend(j.row() for j in jobs)
    parts = []
    if args.profiles:
        rows = []
        for j in (j for j in jobs if j.kind == "profile"):
            rows.append([j.case.name, j.device_label, j.profile, j.stats.variant if j.stats else "—",
                         j.stats.local_mem_bytes if j.stats else "—",
                         ",".join(j.stats.device_stages) if j.stats else "—",
                         "failed: " + j.error if j.error else _fmt_s(j.median)])
        parts += [f"## Device profiles (α={alpha}, P={patch}, median of {args.repeat})", "",
                  md_table(["case", "device", "profile", "findBestPatch", "local B", "device stages", "median"],
                            rows, "llllrll"), ""]
    if args.partitions:
        rows = []
        for j in (j for j in jobs if j.kind == "partition"):
            rows.append([j.case.name, j.device_label, j.partition_label,
                         ",".join(j.stats.device_stages) if j.stats and j.stats.device_stages else "(none)",
                         _fmt_s(j.stats.transfer_seconds) if j.stats else "—",
                         "failed: " + j.error if j.error else _fmt_s(j.median)])
        parts += [f"## Host/device partitions (α={alpha}, P={patch}, median of {args.repeat})", "",
                  md_table(["case", "device", "partition", "stages on device", "transfers", "median"],
                            rows, "llllrr"), ""]
    return "\n".join(parts)


# --- outputs ------------------------------------------------------------------------------------
def write_plots(jobs: Sequence[Job], directory: Path) -> str:
    """Fig. 11 (time vs alpha per patch size) and Fig. 14 (local vs global) as PNGs."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return f"note: plots skipped: matplotlib is not installed ({PLOT_HINT})"
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    timed = [j for j in jobs if j.times and j.dev is not None]
    for case in sorted({j.case.name for j in timed}):
        cj = [j for j in timed if j.case.name == case]
        alphas = [a for a in ALPHAS if any(j.alpha == a for j in cj)]
        patches = sorted({j.patch for j in cj})
        for dev in sorted({j.dev.spec for j in cj}):
            dj = [j for j in cj if j.dev.spec == dev]
            short = dj[0].dev.short
            fig, ax = plt.subplots(figsize=(5, 3.5))
            for p in patches:
                ys = []
                for a in alphas:
                    m = [j.median for j in dj if j.alpha == a and j.patch == p and j.variant == "local"]
                    ys.append(m[0] if m else float("nan"))
                ax.plot(alphas, ys, marker="o", label=f"{p}x{p}")
            ax.set_xlabel("α"), ax.set_ylabel("seconds"), ax.set_title(f"{case}: {short}, local memory")
            ax.legend()
            fig.tight_layout()
            path = directory / f"fig11_{case}_{dev.replace(':', '-')}.png"
            fig.savefig(path, dpi=80)
            plt.close(fig)
            written.append(path)
            fig, ax = plt.subplots(figsize=(5, 3.5))
            for p in patches:
                for v, style in (("local", "-"), ("global", "--")):
                    ys = []
                    for a in alphas:
                        m = [j.median for j in dj if j.alpha == a and j.patch == p and j.variant == v]
                        ys.append(m[0] if m else float("nan"))
                    ax.plot(alphas, ys, style, marker="o", label=f"{p}x{p} {v}")
            ax.set_xlabel("α"), ax.set_ylabel("seconds"), ax.set_title(f"{case}: {short}, local vs global")
            ax.legend(fontsize=7)
            fig.tight_layout()
            path = directory / f"fig14_{case}_{dev.replace(':', '-')}.png"
            fig.savefig(path, dpi=80)
            plt.close(fig)
            written.append(path)
    return "plots: " + (", ".join(str(p) for p in written) if written else "nothing to plot (no OpenCL cells)")


def contact_sheet(jobs: Sequence[Job], path: Path, height: int = 160) -> str:
    """original | mask | result | best-patch mapping, one row per case (Pillow only)."""
    from PIL import Image

    from inpaint.report import draw_mapping

    rows = []
    seen: dict[str, Job] = {}
    ordered = sorted(jobs, key=lambda j: j.dev is None)  # prefer an OpenCL result
    for pref in (("0.05", 17), None):
        for j in ordered:
            if j.stats is None or j.image is None or j.case.name in seen:
                continue
            if pref is None or (j.alpha, j.patch) == pref:
                seen[j.case.name] = j
    for j in seen.values():
        case = j.case
        tiles = [Image.fromarray(case.image), Image.fromarray((case.mask * 255).astype(np.uint8)).convert("RGB"),
                 Image.fromarray(j.image), draw_mapping(j.image, j.stats.patches, j.patch)]
        w, h = tiles[0].size
        tw = max(1, round(w * height / h))
        rows.append([t.resize((tw, height), Image.LANCZOS if t is not tiles[1] else Image.NEAREST) for t in tiles])
    if not rows:
        return "note: contact sheet skipped: no result to show"
    gap = 4
    width = max(sum(t.size[0] for t in r) + gap * (len(r) - 1) for r in rows)
    sheet = Image.new("RGB", (width, len(rows) * (height + gap) - gap), (255, 255, 255))
    for i, r in enumerate(rows):
        x = 0
        for t in r:
            sheet.paste(t, (x, i * (height + gap)))
            x += t.size[0] + gap
    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = "JPEG" if path.suffix.lower() in (".jpg", ".jpeg") else "PNG"
    sheet.save(path, fmt, **({"quality": 85} if fmt == "JPEG" else {"optimize": True}))
    labels = ", ".join(f"{n} (α={j.alpha}, P={j.patch}, {j.device_label})" for n, j in seen.items())
    return f"contact sheet (original | mask | result | mapping): {path}: {labels}"


CSV_FIELDS = ("kind", "case", "backend", "device", "device_spec", "variant", "pruned", "alpha", "patch", "profile",
              "partition", "search_area", "runs", "median_s", "min_s", "iterations", "widened",
              "local_mem_bytes", "psnr_db", "ssim", "error")


def write_csv(rows: Sequence[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


# --- command ------------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``inpaint bench``."""
    parser.description = ("Benchmark the fill beside the paper's tables. With no mode option: numpy vs OpenCL "
                          "for the default fill and for the paper's pipeline at alpha=0.05/P=17 and full/P=9 "
                          "(--quick: without full/P=9) on walkingman, judged against the speed targets.")
    parser.add_argument("--case", default="walkingman",
                        help="case name, comma-separated names, 'all', or a folder with image.png, mask.png "
                             "(and truth.png); default walkingman")
    parser.add_argument("--grid", action="store_true", help="Tables 5-8: alpha x P x device x local/global + numpy")
    parser.add_argument("--table2", action="store_true", help="per-stage breakdown per backend/device")
    parser.add_argument("--table4", action="store_true", help="local memory per work-group of the built kernels")
    parser.add_argument("--profiles", action="store_true", help="time per device profile")
    parser.add_argument("--partitions", action="store_true", help="time per host/device partition")
    parser.add_argument("--quick", action="store_true",
                        help="a short run: alone, the default benchmark without its full-search row and with one "
                             "timed run each (unless --repeat); with --grid, only alpha in {full, 0.05} and "
                             "P in {9, 17}")
    parser.add_argument("--alphas", help="grid: comma-separated alphas, the paper's name for the command's "
                                         "--search-area (overrides the default/--quick list)")
    parser.add_argument("--patches", help="grid: comma-separated patch sizes")
    parser.add_argument("--alpha", help="alpha for --table2 (default full) and --profiles/--partitions (default 0.05)")
    parser.add_argument("--patch", help="patch for --table2 (default 9) and --profiles/--partitions (default 17)")
    parser.add_argument("--variant", choices=("auto", "local", "global"), default="auto",
                        help="the paper's pipeline: findBestPatch variant (grid default: both local and global)")
    parser.add_argument("--prune", choices=("auto", "on", "off", "both"), default="auto",
                        help="the paper's pipeline: findBestPatch pruning against a sampled bound (auto: on CPU "
                             "devices); "
                             "both: time pruned and unpruned side by side (default benchmark only)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per configuration (median; default 3; 1 with --quality, --objects or "
                             "--quick alone)")
    parser.add_argument("--numpy-repeat", type=int, default=None,
                        help="at most this many timed numpy runs per cell (numpy full search is slow)")
    parser.add_argument("--numpy-all", action="store_true",
                        help="grid: numpy baseline in every cell (default: only alpha 0.05 and 0.5)")
    parser.add_argument("--no-numpy", action="store_true", help="skip the numpy baseline")
    parser.add_argument("--device", help="restrict to one OpenCL device ('P:D', 'gpu', 'cpu' or part of a name); "
                                         "with --quality, passed to every configuration")
    parser.add_argument("--json", metavar="FILE", type=result_file(), help="write every measurement as JSON")
    parser.add_argument("--csv", metavar="FILE", type=result_file(), help="write every timed cell as CSV")
    parser.add_argument("--plots", metavar="DIR", help="write Fig. 11/14-style plots (needs matplotlib)")
    parser.add_argument("--contact-sheet", metavar="FILE", type=result_file(".png", ".jpg", ".jpeg"),
                        help="write original | mask | result | mapping per case (PNG or JPEG)")
    from .peers import PEERS  # the names only: no peer library is imported

    q = parser.add_argument_group(
        "fill quality", "--quality compares our configurations with classical inpainting libraries on a truth "
                        "set; --objects runs them on real object removals without truth and writes contact sheets "
                        "(each runs alone; peers come from the compare extra: pip install './bench[compare]')")
    q.add_argument("--quality", action="store_true",
                   help="fill quality: SSIM, PSNR, coarse SSIM, SWD and detail per case and method beside controls "
                        "(the truth shifted and blurred), summaries, the acceptance rule per configuration, contact "
                        "sheets")
    q.add_argument("--objects", nargs="?", const=True, metavar="DIR",
                   help="real object removals without truth: run our configurations and the peers on each case "
                        "of DIR (default: datasets/objects of the checkout; DIR/index.json lists {name, "
                        "description}, DIR/NAME/ holds image.png and mask.png) and write one contact sheet per "
                        "case and index.md into --sheets; only times, no metrics")
    q.add_argument("--cases", default="all",
                   help="cases: all, tune, holdout, a category (paper, thin, texture, structure, smooth, border, "
                        "object) or names, comma-separated (default all); with --objects: all or names")
    q.add_argument("--configs", help="our configurations from quality_configs.toml, comma-separated (default all)")
    q.add_argument("--peers", default="all",
                   help="peers: all, none or names (" + ", ".join(PEERS) + "); missing libraries are "
                        "skipped with a note")
    q.add_argument("--backend", choices=BACKENDS, default=BACKEND.from_environment() or BACKEND.default,
                   help=f"backend of our configurations (default: {BACKEND.env}, else auto)")
    q.add_argument("--sheets", metavar="DIR",
                   help="write one contact sheet per case (PNG) into DIR (required with --objects, which also "
                        "writes DIR/index.md)")
    q.add_argument("--quality-data", metavar="DIR",
                   help="folder of the quality truth set (with index.json; default: datasets/quality of the checkout)")


def _error(msg: str) -> int:
    print(f"inpaint bench: error: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run the selected benchmark modes; Markdown on stdout.  Returns the exit status."""
    any_mode = args.grid or args.table2 or args.table4 or args.profiles or args.partitions
    if getattr(args, "quality", False) or getattr(args, "objects", None) is not None:
        if any_mode or args.contact_sheet or args.plots or args.csv:
            return _error("--quality and --objects run alone (not with --grid, --table2, --table4, --profiles, "
                          "--partitions, --contact-sheet, --plots or --csv)")
        from .quality import run_quality

        return run_quality(args)
    if getattr(args, "sheets", None) or getattr(args, "configs", None):
        return _error("--sheets and --configs belong to --quality or --objects")
    if args.quick and (args.table2 or args.table4 or args.profiles or args.partitions) and not args.grid:
        return _error("--quick shortens the default benchmark or --grid; --table2, --table4, --profiles and "
                      "--partitions have no quick form")
    if args.repeat is None:
        args.repeat = 1 if args.quick and not args.grid else 3
    if args.repeat < 1 or (args.numpy_repeat is not None and args.numpy_repeat < 1):
        return _error("--repeat and --numpy-repeat must be at least 1")
    if args.prune == "both" and any_mode:
        return _error("--prune both applies to the default benchmark only")
    notes: list[str] = []
    try:
        cases = resolve_cases(args.case, notes)
        _check_fill_values(args)
    except (ValueError, InputError) as exc:
        return _error(str(exc))
    if not cases:
        return _error("no case could be loaded: " + "; ".join(notes))
    from inpaint.cl.runtime import OpenCLUnavailable

    try:
        devs = find_devices(args.device, notes)
    except OpenCLUnavailable as exc:
        return _error(str(exc))
    t0 = time.perf_counter()
    out: dict[str, Any] = {"command": "inpaint bench " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["bench"]
                           else "inpaint bench", "machine": machine_info(devs), "repeat": args.repeat,
                           "rows": [], "targets": [], "table2": [], "table4": [], "notes": notes}
    m = out["machine"]
    head = ["# inpaint bench", "",
            f"Machine: {m['cpu']}, {m['cores']} logical cores; Python {m['python']}, numpy {m['numpy']}"
            + (f", pyopencl {m['pyopencl']}" if "pyopencl" in m else "") + f"; {m['os']}."]
    for d in devs:
        head.append(f"- OpenCL device {d.spec}: {d.label}, {d.version}, driver {d.driver}, "
                    f"{d.compute_units} compute units, {d.local_mem} B local memory")
    sections = []
    grid_jobs: list[Job] = []
    default_jobs: list[Job] = []
    try:
        if not any_mode:
            text, default_jobs = default_benchmark(cases, devs, args, out)
            sections.append(text)
        if args.grid:
            text, grid_jobs = grid_benchmark(cases, devs, args, out)
            sections.append(text)
        if args.table2:
            sections.append(table2(cases, devs, args, out))
        if args.table4:
            sections.append(table4(devs, out))
        if args.profiles or args.partitions:
            if devs:
                sections.append(profiles_partitions(cases, devs, args, out))
            else:
                notes.append("--profiles/--partitions need an OpenCL device: skipped")
    except ValueError as exc:
        return _error(str(exc))
    extra = []
    all_jobs = grid_jobs + default_jobs
    if args.plots:
        extra.append(write_plots(grid_jobs, Path(args.plots)))
    if args.contact_sheet:
        if not all_jobs:  # only --table2/--table4/...: run one configuration per case
            all_jobs = []
            for case in cases:
                j = Job("sheet", case, devs[0] if devs else None, "0.05", 17)
                try:
                    j.run_once()
                    all_jobs.append(j)
                except Exception as exc:  # noqa: BLE001
                    notes.append(f"contact sheet: {case.name}: {exc}")
        extra.append(contact_sheet(all_jobs, Path(args.contact_sheet)))
    out["elapsed_s"] = time.perf_counter() - t0
    try:
        m["load_average_at_end"] = os.getloadavg()
    except (OSError, AttributeError):
        m["load_average_at_end"] = None
    text = "\n".join(head) + "\n\n" + "\n\n".join(sections)
    if notes:
        text += "\n\nNotes:\n" + "\n".join(f"- {n}" for n in notes)
    if extra:
        text += "\n\n" + "\n".join(f"- {e}" for e in extra)
    text += f"\n\nBenchmark time: {out['elapsed_s']:.1f} s"
    loads = [m.get("load_average_at_start"), m.get("load_average_at_end")]
    if all(loads):
        text += ("; load average (1/5/15 min) at start " + "/".join(f"{x:.2f}" for x in loads[0])
                 + ", at end " + "/".join(f"{x:.2f}" for x in loads[1]))
    text += "\n"
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")
    if args.csv:
        write_csv(out["rows"] + out["table2"], Path(args.csv))
    return 0

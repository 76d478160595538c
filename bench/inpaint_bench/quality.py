"""``inpaint bench --quality``: fill quality of our configurations beside classical inpainting libraries.

Truth set: the paper's four cases (``datasets/<name>/``: ``image.png``, ``truth.png``,
``mask.png``; category ``paper``, split ``tune``) and the cases of ``datasets/quality/``
(``index.json`` lists ``{name, category, split}``; each folder holds ``truth.png`` and
``mask.png``; the input is the truth with the hole's pixels set to 0).  Mask rule: a pixel
brighter than 127 is hole.

Methods: our configurations (``quality_configs.toml``: keyword arguments of
:func:`inpaint.pipeline.inpaint`, with the command's ``--backend`` and ``--device`` added)
and the peers of :mod:`inpaint_bench.peers` that are installed.  Every result must keep
the pixels outside the hole exactly; a result that does not is reported as an error.

Metrics (:mod:`inpaint_bench.metrics`): SSIM around the hole, PSNR over the hole, the
detail ratio, and the wall time of one call (median of ``--repeat``; each method gets one
untimed warm-up call on a small synthetic image first, which builds OpenCL kernels).

Output: Markdown on stdout (per-case SSIM, summaries for all cases, the tune and holdout
splits and each category, and whether each of our configurations matches the best peer),
``--json FILE`` with every number, ``--sheets DIR`` with one contact sheet per case.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from . import metrics
from .common import md_table
from .peers import INSTALL_HINT, PEERS, available_peers

CONFIGS_FILE = Path(__file__).resolve().parent / "quality_configs.toml"
#: The paper's cases (in ``datasets/``), their category and split.
PAPER_CASES = ("walkingman", "river", "divingman", "hill")
PAPER_CATEGORY, PAPER_SPLIT = "paper", "tune"
SPLITS = ("tune", "holdout")
#: "Within WITHIN of the per-case best peer (or better)"; a configuration should be so on SHARE of the cases.
WITHIN = 0.01
SHARE = 0.60
#: Contact sheets: margin around the hole's bounding box, largest crop side, magnification, tiles per row.
SHEET_MARGIN, SHEET_MAX_SIDE, SHEET_ZOOM, SHEET_COLUMNS = 24, 400, 2, 4


# --- configurations ------------------------------------------------------------------------------
def load_configs(path: Path = CONFIGS_FILE) -> dict[str, dict[str, Any]]:
    """Our configurations: name -> keyword arguments of ``inpaint()``, in the file's order."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    bad = [k for k, v in data.items() if not isinstance(v, dict)]
    if bad:
        raise ValueError(f"{path}: every top-level entry must be a table of inpaint() arguments: {', '.join(bad)}")
    return {k: dict(v) for k, v in data.items()}


# --- the truth set -------------------------------------------------------------------------------
@dataclass
class TruthCase:
    """One case: the input (hole destroyed or object present), the truth and the hole."""

    name: str
    category: str
    split: str
    image: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)

    @property
    def size(self) -> tuple[int, int]:
        return int(self.image.shape[1]), int(self.image.shape[0])

    @property
    def hole_pixels(self) -> int:
        return int(self.mask.sum())


@dataclass(frozen=True)
class CaseEntry:
    """An index entry: where a case is and how it is grouped (loaded by :func:`load_entry`)."""

    name: str
    category: str
    split: str
    folder: Path | None  # None: a paper case, loaded through inpaint.cases


def find_quality_root(explicit: str | Path | None = None) -> Path | None:
    """The folder of the quality truth set (holding ``index.json``), or None if none is found.

    Looked for in ``explicit`` (``--quality-data``), ``$INPAINT_QUALITY_DATA``,
    ``./datasets/quality``, the source checkout this package sits in, and the installed
    ``inpaint`` package's datasets.
    """
    if explicit is not None:
        return Path(explicit) if (Path(explicit) / "index.json").is_file() else None
    candidates = []
    if os.environ.get("INPAINT_QUALITY_DATA"):
        candidates.append(Path(os.environ["INPAINT_QUALITY_DATA"]))
    candidates += [Path.cwd() / "datasets" / "quality",
                   Path(__file__).resolve().parents[2] / "datasets" / "quality"]
    try:
        from inpaint.resources import data_dir

        candidates.append(Path(data_dir("datasets")) / "quality")
    except Exception:  # noqa: BLE001 - no installed data: the other places still count
        pass
    for c in candidates:
        if (c / "index.json").is_file():
            return c
    return None


def case_index(root: Path | None) -> list[CaseEntry]:
    """The paper's cases, then those of ``root/index.json``."""
    entries = [CaseEntry(n, PAPER_CATEGORY, PAPER_SPLIT, None) for n in PAPER_CASES]
    if root is None:
        return entries
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    for c in index["cases"]:
        entries.append(CaseEntry(str(c["name"]), str(c["category"]), str(c["split"]), root / str(c["name"])))
    return entries


def select_cases(spec: str, index: Sequence[CaseEntry]) -> list[CaseEntry]:
    """``spec``: comma-separated ``all``, a split (``tune``, ``holdout``), a category (``paper``,
    ``thin``, ...) or case names; the union, in the index's order.

    Raises
    ------
    ValueError
        For a word that is none of these (the message lists the valid ones).
    """
    words = [w.strip().lower() for w in spec.split(",") if w.strip()]
    if not words:
        raise ValueError("--cases is empty")
    categories = sorted({e.category for e in index})
    chosen: set[str] = set()
    for w in words:
        if w == "all":
            hit = [e.name for e in index]
        elif w in SPLITS:
            hit = [e.name for e in index if e.split == w]
        elif w in categories:
            hit = [e.name for e in index if e.category == w]
        else:
            hit = [e.name for e in index if e.name == w]
        if not hit:
            raise ValueError(f"--cases: {w!r} is not a case, category or split; valid: all, {', '.join(SPLITS)}, "
                             f"categories {', '.join(categories)}, or case names: "
                             + ", ".join(e.name for e in index))
        chosen.update(hit)
    return [e for e in index if e.name in chosen]


def load_quality_case(folder: Path, category: str = "", split: str = "") -> TruthCase:
    """A case of ``datasets/quality``: the input is ``truth.png`` with the hole's pixels set to 0.

    The PNGs are checked against the sha256 sums of ``manifest.json`` where it has them.
    """
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    for fname, want in manifest.get("sha256", {}).items():
        got = hashlib.sha256((folder / fname).read_bytes()).hexdigest()
        if got != want:
            raise ValueError(f"{folder / fname} is corrupt: sha256 {got}, manifest.json says {want}")
    from inpaint.imageio import read_image, read_mask  # the product's reader and its one mask rule

    truth = read_image(folder / "truth.png").rgb
    mask = read_mask(folder / "mask.png", (truth.shape[1], truth.shape[0]))
    image = truth.copy()
    image[mask] = 0
    for a in (image, truth, mask):
        a.setflags(write=False)
    return TruthCase(folder.name, category or manifest.get("category", ""), split or manifest.get("split", ""),
                     image, truth, mask)


def load_entry(entry: CaseEntry) -> TruthCase:
    """Load one index entry (a paper case through :func:`inpaint.cases.load_case`)."""
    if entry.folder is None:
        from inpaint.cases import load_case

        c = load_case(entry.name)
        return TruthCase(entry.name, entry.category, entry.split, c.image, c.truth, c.mask)
    return load_quality_case(entry.folder, entry.category, entry.split)


# --- methods -------------------------------------------------------------------------------------
@dataclass
class Method:
    """A contender: ``fill(image, mask)`` returns the (H, W, 3) uint8 result (and, for ours, stats)."""

    name: str
    kind: str  # "ours" or "peer"
    label: str
    fill: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, Any]]
    kwargs: dict[str, Any] = field(default_factory=dict)


def ours_method(name: str, kwargs: dict[str, Any], backend: str, device: str | None) -> Method:
    """One of our configurations, its keyword arguments passed through to ``inpaint()``."""
    kw = dict(kwargs)
    kw["backend"] = backend
    if device is not None:
        kw["device"] = device

    def fill(image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, Any]:
        import inpaint.pipeline as pipeline  # looked up per call

        res = pipeline.inpaint(image, mask, **kw)
        return res.image, res.stats

    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "library defaults"
    return Method(name, "ours", f"ours: {args}", fill, kw)


def peer_method(peer: Any) -> Method:
    return Method(peer.name, "peer", peer.label, lambda image, mask: (peer.fill(image, mask), None),
                  {"library": peer.library})


def check_result(method: str, image: np.ndarray, mask: np.ndarray, result: Any) -> np.ndarray:
    """The result as (H, W, 3) uint8; AssertionError if it changed a pixel outside the hole."""
    out = np.asarray(result)
    assert out.shape == image.shape and out.dtype == np.uint8, \
        f"{method} returned {out.shape} {out.dtype}, expected {image.shape} uint8"
    changed = int((out[~mask] != image[~mask]).any(axis=-1).sum())
    assert changed == 0, f"{method} changed {changed} pixels outside the hole"
    return out


def _warm_image() -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:64, 0:64]
    img = np.stack([(xx * 5) % 256, (yy * 7) % 256, ((xx + yy) * 3) % 256], -1).astype(np.uint8)
    mask = np.zeros((64, 64), bool)
    mask[27:37, 27:37] = True
    img[mask] = 0
    return img, mask


# --- measuring -----------------------------------------------------------------------------------
def measure(cases: Sequence[TruthCase], methods: Sequence[Method], repeat: int, notes: list[str],
            log: Any = sys.stderr) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, dict[str, np.ndarray]]]:
    """Run every method on every case; returns (numbers[case][method], images[case][method])."""
    numbers: dict[str, dict[str, dict[str, Any]]] = {}
    images: dict[str, dict[str, np.ndarray]] = {}
    seen_warnings: dict[str, None] = {}

    def call(m: Method, image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, Any]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m.fill(np.array(image), np.array(mask))  # writable copies: a method may work in place
        for w in caught:
            seen_warnings[f"{m.name}: {w.message}"] = None
        return out

    wimg, wmask = _warm_image()
    for m in methods:  # builds kernels, loads libraries, JIT
        try:
            call(m, wimg, wmask)
        except Exception as exc:  # noqa: BLE001 - reported again per case if it persists
            notes.append(f"{m.name}: warm-up failed: {type(exc).__name__}: {exc}")
    total = len(cases) * len(methods)
    n = 0
    t0 = time.perf_counter()
    for case in cases:
        numbers[case.name], images[case.name] = {}, {}
        for m in methods:
            n += 1
            if log is not None and log.isatty():
                log.write(f"\rquality: {n}/{total} {case.name}: {m.name}{' ' * 20}")
                log.flush()
            entry: dict[str, Any] = {}
            try:
                times, result, stats = [], None, None
                for r in range(repeat):
                    t = time.perf_counter()
                    out, st = call(m, case.image, case.mask)
                    times.append(time.perf_counter() - t)
                    if r == 0:
                        result, stats = check_result(m.name, case.image, case.mask, out), st
                entry.update(
                    ssim=metrics.hole_ssim(result, case.truth, case.mask),
                    psnr_db=metrics.hole_psnr(result, case.truth, case.mask),
                    detail=metrics.detail_ratio(result, case.truth, case.mask),
                    time_s=statistics.median(times), times_s=times)
                if stats is not None:
                    entry.update(backend=stats.backend, device=stats.device,
                                 iterations=getattr(stats, "iterations", None))
                images[case.name][m.name] = result
            except Exception as exc:  # noqa: BLE001 - one failing method must not stop the others
                entry["error"] = f"{type(exc).__name__}: {exc}"
            numbers[case.name][m.name] = entry
    if log is not None and log.isatty() and total:
        log.write(f"\rquality: {total} runs in {time.perf_counter() - t0:.0f} s{' ' * 40}\n")
    notes.extend(seen_warnings)
    return numbers, images


# --- summaries -----------------------------------------------------------------------------------
def best_peer_per_case(numbers: dict[str, dict[str, dict[str, Any]]],
                       peers: Sequence[str]) -> dict[str, tuple[str, float] | None]:
    """case -> (peer, SSIM) of the peer with the highest SSIM there, or None without a peer result."""
    out: dict[str, tuple[str, float] | None] = {}
    for case, per in numbers.items():
        scored = [(per[p]["ssim"], p) for p in peers if "ssim" in per.get(p, {})]
        out[case] = (max(scored)[1], max(scored)[0]) if scored else None
    return out


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if v is not None and not math.isnan(v)]


def summarise(numbers: dict[str, dict[str, dict[str, Any]]], case_names: Sequence[str], methods: Sequence[str],
              best: dict[str, tuple[str, float] | None]) -> dict[str, dict[str, Any]]:
    """Per method over ``case_names``: cases, mean SSIM, mean PSNR, median detail, within, median time."""
    out = {}
    for m in methods:
        rows = [numbers[c][m] for c in case_names if "ssim" in numbers[c].get(m, {})]
        within = [c for c in case_names if "ssim" in numbers[c].get(m, {}) and best.get(c) is not None
                  and numbers[c][m]["ssim"] >= best[c][1] - WITHIN]
        judged = [c for c in case_names if "ssim" in numbers[c].get(m, {}) and best.get(c) is not None]
        ssims = _finite([r["ssim"] for r in rows])
        out[m] = {
            "cases": len(rows),
            "errors": sum(1 for c in case_names if "error" in numbers[c].get(m, {})),
            "mean_ssim": statistics.fmean(ssims) if ssims else None,
            "mean_psnr_db": statistics.fmean(_finite([r["psnr_db"] for r in rows])) if rows else None,
            "median_detail": statistics.median(_finite([r["detail"] for r in rows])) if rows else None,
            "within_best_peer": len(within),
            "judged": len(judged),
            "median_time_s": statistics.median([r["time_s"] for r in rows]) if rows else None,
        }
    return out


def verdicts(summary: dict[str, dict[str, Any]], ours: Sequence[str], peers: Sequence[str]) -> dict[str, Any]:
    """The best single peer (highest mean SSIM) and, per config, the two yes/no answers."""
    scored = [(summary[p]["mean_ssim"], p) for p in peers if summary[p]["mean_ssim"] is not None]
    if not scored:
        return {"best_peer": None, "best_peer_mean_ssim": None, "configs": {}}
    best_mean, best = max(scored)
    configs = {}
    for m in ours:
        s = summary[m]
        share = s["within_best_peer"] / s["judged"] if s["judged"] else None
        configs[m] = {
            "mean_ssim": s["mean_ssim"],
            "mean_ssim_at_least_best_peer": s["mean_ssim"] is not None and s["mean_ssim"] >= best_mean,
            "within_share": share,
            "within_on_share": share is not None and share >= SHARE,
        }
    return {"best_peer": best, "best_peer_mean_ssim": best_mean, "configs": configs}


# --- report --------------------------------------------------------------------------------------
def _f(x: Any, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def _cases(n: int) -> str:
    return f"{n} case" + ("" if n == 1 else "s")


def _t(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 0.1 else f"{x:.2f} s"


def _summary_table(summary: dict[str, dict[str, Any]], methods: Sequence[Method]) -> str:
    rows = []
    for m in methods:
        s = summary[m.name]
        within = f"{s['within_best_peer']}/{s['judged']}" if s["judged"] else "—"
        rows.append([m.name + (" (ours)" if m.kind == "ours" else ""), s["cases"], _f(s["mean_ssim"], 3),
                     _f(s["mean_psnr_db"], 2), _f(s["median_detail"], 2), within, _t(s["median_time_s"])]
                    + [s["errors"] or ""])
    return md_table(["method", "cases", "mean SSIM", "mean PSNR dB", "median detail",
                     f"within {WITHIN} of best peer", "median time", "errors"], rows, "lrrrrrrr")


def _verdict_table(groups: dict[str, dict[str, Any]], n_cases: dict[str, int]) -> str:
    rows = []
    for group, v in groups.items():
        if v["best_peer"] is None:
            continue
        for m, c in v["configs"].items():
            rows.append([m, f"{group} ({n_cases[group]})", _f(c["mean_ssim"], 3),
                         f"{v['best_peer']} {v['best_peer_mean_ssim']:.3f}",
                         "**yes**" if c["mean_ssim_at_least_best_peer"] else "no",
                         "—" if c["within_share"] is None else f"{100 * c['within_share']:.0f} %",
                         "**yes**" if c["within_on_share"] else "no"])
    if not rows:
        return "No peer was measured: nothing to compare with."
    return md_table(["config", "cases", "mean SSIM", "best single peer (mean SSIM)", "mean ≥ best peer's",
                     f"within {WITHIN} of the per-case best peer", f"on ≥ {100 * SHARE:.0f} % of cases"],
                    rows, "llrllrl")


def markdown(report: dict[str, Any], cases: Sequence[TruthCase], methods: Sequence[Method]) -> str:
    m = report["machine"]
    numbers, best = report["numbers"], report["best_peer_per_case"]
    lines = ["# inpaint bench --quality", "",
             f"Machine: {m['cpu']}, {m['cores']} logical cores; Python {m['python']}, numpy {m['numpy']}"
             + (f", pyopencl {m['pyopencl']}" if "pyopencl" in m else "") + f"; {m['os']}."]
    for d in m.get("devices", []):
        lines.append(f"- OpenCL device {d['spec']}: {'GPU' if d['gpu'] else 'CPU'} {d['name']} ({d['platform']}), "
                     f"{d['opencl']}, driver {d['driver']}, {d['compute_units']} compute units")
    if report["ours_ran_on"]:
        lines.append("- ours ran on: " + "; ".join(report["ours_ran_on"]))
    lines += ["", f"Truth set: {_cases(len(cases))}. Methods:"]
    for meth in methods:
        lines.append(f"- `{meth.name}`: {meth.label}")
    if report["peers_missing"]:
        lines.append(f"\nPeers not installed (skipped): {', '.join(report['peers_missing'])} ({INSTALL_HINT}).")
    lines += ["", "## SSIM per case", "",
              f"SSIM over the hole's bounding box grown by {metrics.SSIM_GROW} px; **bold**: the best peer on that "
              "case.", ""]
    rows = []
    for c in cases:
        per = numbers[c.name]
        row: list[Any] = [c.name, c.category, c.split, c.hole_pixels]
        for meth in methods:
            e = per.get(meth.name, {})
            if "error" in e:
                row.append("error")
            elif best.get(c.name) and best[c.name][0] == meth.name:
                row.append(f"**{e['ssim']:.3f}**")
            else:
                row.append(_f(e.get("ssim"), 3))
        rows.append(row)
    lines.append(md_table(["case", "category", "split", "hole px"] + [meth.name for meth in methods], rows,
                          "lllr" + "r" * len(methods)))
    lines += ["", "## Summary", ""]
    for group, title in (("all", "All cases"), ("tune", "Tune split"), ("holdout", "Holdout split")):
        n = report["group_sizes"].get(group, 0)
        if not n:
            continue
        lines += [f"### {title} ({_cases(n)})", "", _summary_table(report["summary"][group], methods), ""]
    cats = [g for g in report["summary"] if g.startswith("category:")]
    if cats:
        lines += ["### Per category", ""]
        for g in cats:
            lines += [f"#### {g.split(':', 1)[1]} ({_cases(report['group_sizes'][g])})", "",
                      _summary_table(report["summary"][g], methods), ""]
    lines += ["## Ours against the best single peer", ""]
    v_all = report["verdicts"].get("all", {})
    if v_all.get("best_peer"):
        lines.append(f"Best single peer over all cases (highest mean SSIM): **{v_all['best_peer']}** "
                     f"({v_all['best_peer_mean_ssim']:.3f}).")
        lines.append("")
    lines += [_verdict_table(report["verdicts"], report["group_sizes"]), "",
              "Metrics: SSIM = scikit-image's structural_similarity (Gaussian 11x11 window, σ = 1.5, population "
              "covariance, per colour channel) over the hole's bounding box grown by 8 px; PSNR over the hole's "
              f"pixels (RGB, peak 255, capped at {metrics.PSNR_CAP:g} dB); detail = mean gradient magnitude of the "
              "mean of RGB over the hole eroded by 2 px, fill / truth (1.0 = as much detail as the truth; "
              "diffusion fills score about 0.3); time = wall time of one call"
              + (f", median of {report['repeat']}" if report["repeat"] > 1 else "") + ", after a warm-up call."]
    if report["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in report["notes"]]
    if report.get("sheets"):
        lines += ["", f"Contact sheets: {report['sheets']} ({len(cases)} PNG files)."]
    lines += ["", f"Benchmark time: {report['elapsed_s']:.1f} s"]
    return "\n".join(lines) + "\n"


# --- contact sheets ------------------------------------------------------------------------------
def crop_box(mask: np.ndarray, margin: int = SHEET_MARGIN, max_side: int = SHEET_MAX_SIDE) -> tuple[int, int, int, int]:
    """The hole's bounding box plus ``margin``, clipped, and at most ``max_side`` per side, centred on the hole."""
    h, w = mask.shape
    x0, y0, x1, y1 = metrics.bbox(mask)

    def axis(lo: int, hi: int, size: int) -> tuple[int, int]:
        a, b = max(0, lo - margin), min(size, hi + margin)
        if b - a > max_side:
            centre = (lo + hi) / 2
            a = int(round(centre - max_side / 2))
            a = min(max(a, 0), size - max_side)
            b = a + max_side
        return a, b

    x0, x1 = axis(x0, x1, w)
    y0, y1 = axis(y0, y1, h)
    return x0, y0, x1, y1


def _font(size: int = 14) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def contact_sheet(case: TruthCase, images: dict[str, np.ndarray], numbers: dict[str, dict[str, Any]],
                  methods: Sequence[Method], path: Path) -> Path:
    """input | truth | each method, cropped around the hole, magnified 2x (nearest), labelled with SSIM."""
    from PIL import Image, ImageDraw

    x0, y0, x1, y1 = crop_box(case.mask)
    tiles = [("input", case.image), ("truth", case.truth)]
    for m in methods:
        e = numbers.get(m.name, {})
        if m.name in images:
            tiles.append((f"{m.name}  SSIM {e['ssim']:.3f}", images[m.name]))
        else:
            tiles.append((f"{m.name}: error", np.full_like(case.image, 128)))
    font = _font()
    label_h, gap = 20, 6
    tw, th = (x1 - x0) * SHEET_ZOOM, (y1 - y0) * SHEET_ZOOM
    cols = min(SHEET_COLUMNS, len(tiles))
    nrows = -(-len(tiles) // cols)
    sheet = Image.new("RGB", (cols * tw + (cols - 1) * gap, nrows * (th + label_h) + (nrows - 1) * gap),
                      (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    for i, (label, img) in enumerate(tiles):
        r, c = divmod(i, cols)
        x, y = c * (tw + gap), r * (th + label_h + gap)
        crop = Image.fromarray(np.ascontiguousarray(img[y0:y1, x0:x1])).resize((tw, th), Image.NEAREST)
        sheet.paste(crop, (x, y + label_h))
        draw.text((x + 2, y + 2), label, fill=(0, 0, 0), font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, "PNG", optimize=True)
    return path


# --- machine -------------------------------------------------------------------------------------
def machine(device: str | None, backend: str, notes: list[str]) -> dict[str, Any]:
    from .pipeline import find_devices, machine_info

    devs: list[Any] = []
    if backend != "numpy":
        scratch: list[str] = []
        try:
            devs = find_devices(device, scratch)
        except Exception as exc:  # noqa: BLE001 - the run itself reports a bad --device
            scratch.append(f"OpenCL devices not listed: {exc}")
        notes.extend(n for n in scratch if "GPU columns" not in n)
    return machine_info(devs)


# --- command -------------------------------------------------------------------------------------
def _error(msg: str) -> int:
    print(f"inpaint bench: error: {msg}", file=sys.stderr)
    return 2


def run_quality(args: argparse.Namespace) -> int:
    """``inpaint bench --quality``: options as :func:`inpaint_bench.pipeline.add_arguments` defines them."""
    repeat = args.repeat if args.repeat is not None else 1
    if repeat < 1:
        return _error("--repeat must be at least 1")
    notes: list[str] = []
    root = find_quality_root(args.quality_data)
    if args.quality_data is not None and root is None:
        return _error(f"--quality-data {args.quality_data}: no index.json there")
    missing_set = ("the quality truth set (datasets/quality) was not found: only the paper's cases are available "
                   "(run from a checkout, or pass --quality-data DIR)")
    if root is None:
        notes.append(missing_set)
    try:
        try:
            entries = select_cases(args.cases, case_index(root))
        except ValueError as exc:
            raise ValueError(f"{exc}; {missing_set}" if root is None else str(exc)) from None
        configs = load_configs()
        names = [c.strip() for c in (args.configs or ",".join(configs)).split(",") if c.strip()]
        bad = [n for n in names if n not in configs]
        if bad:
            raise ValueError(f"unknown configuration(s) {', '.join(bad)}; defined in {CONFIGS_FILE.name}: "
                             + ", ".join(configs))
        peer_spec = (args.peers or "all").strip().lower()
        peer_names = list(PEERS) if peer_spec == "all" else [] if peer_spec == "none" else \
            [p.strip() for p in peer_spec.split(",") if p.strip()]
        peers, missing = available_peers(peer_names)
        cases = [load_entry(e) for e in entries]
    except (ValueError, OSError) as exc:
        return _error(str(exc))
    t0 = time.perf_counter()
    methods = [ours_method(n, configs[n], args.backend, args.device) for n in names] + \
              [peer_method(p) for p in peers]
    info = machine(args.device, args.backend, notes)
    numbers, images = measure(cases, methods, repeat, notes)
    peer_names_run = [p.name for p in peers]
    best = best_peer_per_case(numbers, peer_names_run)
    groups: dict[str, list[str]] = {"all": [c.name for c in cases]}
    for s in SPLITS:
        groups[s] = [c.name for c in cases if c.split == s]
    for cat in dict.fromkeys(c.category for c in cases):
        groups[f"category:{cat}"] = [c.name for c in cases if c.category == cat]
    summary = {g: summarise(numbers, names_, [m.name for m in methods], best) for g, names_ in groups.items()}
    verdict = {g: verdicts(summary[g], names, peer_names_run) for g in ("all", *SPLITS) if groups[g]}
    ran_on = sorted({f"{e['backend']} on {e['device']}" for per in numbers.values() for e in per.values()
                     if "backend" in e})
    for m in methods:
        errs = [(c, numbers[c][m.name]["error"]) for c in numbers if "error" in numbers[c].get(m.name, {})]
        if errs:
            notes.append(f"{m.name} failed on {len(errs)} case(s), e.g. {errs[0][0]}: {errs[0][1]}")
    report: dict[str, Any] = {
        "command": ("inpaint bench " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["bench"]
                    else "inpaint bench --quality"),
        "machine": info, "repeat": repeat, "backend": args.backend, "device": args.device,
        "methods": [{"name": m.name, "kind": m.kind, "label": m.label,
                     "kwargs" if m.kind == "ours" else "details": m.kwargs} for m in methods],
        "peers_missing": missing,
        "cases": [{"name": c.name, "category": c.category, "split": c.split, "width": c.size[0],
                   "height": c.size[1], "hole_pixels": c.hole_pixels} for c in cases],
        "numbers": numbers, "best_peer_per_case": best, "group_sizes": {g: len(v) for g, v in groups.items()},
        "summary": summary, "verdicts": verdict, "ours_ran_on": ran_on, "notes": notes,
        "metrics": {"ssim": "skimage structural_similarity, gaussian 11x11, sigma 1.5, population covariance, "
                            f"colour, over the hole's bbox grown by {metrics.SSIM_GROW} px",
                    "psnr": f"over the hole's RGB values, peak 255, capped at {metrics.PSNR_CAP:g} dB",
                    "detail": "mean |grad| (central differences, mean of RGB) over the hole eroded by 2 px, "
                              "fill / truth",
                    "within": WITHIN, "share": SHARE},
    }
    if args.sheets:
        for c in cases:
            contact_sheet(c, images[c.name], numbers[c.name], methods, Path(args.sheets) / f"{c.name}.png")
        report["sheets"] = str(args.sheets)
    report["elapsed_s"] = time.perf_counter() - t0
    print(markdown(report, cases, methods))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    return 0

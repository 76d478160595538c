"""``inpaint bench --quality``: fill quality of our configurations beside classical inpainting libraries.

Truth set: the paper's four cases (``datasets/<name>/``: ``image.png``, ``truth.png``,
``mask.png``; category ``paper``, split ``tune``) and the cases of ``datasets/quality/``
(``index.json`` lists ``{name, category, split}``; each folder holds ``truth.png`` and
``mask.png``; the input is the truth with the hole's pixels set to 0).  Mask rule: a pixel
brighter than 127 is hole.

Methods: our configurations (``quality_configs.toml``: keyword arguments of
:func:`inpaint.api.inpaint`, with the command's ``--backend`` and ``--device`` added)
and the peers of :mod:`inpaint_bench.peers` that are installed.  Every result must keep
the pixels outside the hole exactly; a result that does not is reported as an error.
Controls (:data:`inpaint_bench.metrics.CONTROLS`: the truth shifted by 4 and 8 px, and
blurred with sigma 2 and 4) are scored like the methods and shown in every table, so that
a reader sees what each metric rewards; they are neither peers nor ours and are not timed.

Metrics (:data:`METRICS`, from :mod:`inpaint_bench.metrics`): SSIM around the hole, PSNR
over the hole (both reward blur), coarse SSIM (SSIM after the same low-pass of fill and
truth: is the content right, whatever its sharpness), SWD (sliced Wasserstein distance
between the fill's and the truth's 7x7 patches: texture as a distribution) and the detail
ratio; and the wall time of one call
(median of ``--repeat``; each method gets one untimed warm-up call on a small synthetic
image first, which builds OpenCL kernels).

Acceptance rule (:data:`RULES`), per configuration and group (all cases, tune, holdout):
(a) median detail in :data:`DETAIL_BAND`; (b) the lowest mean SWD of all methods measured
(the peers and our configurations whose method is in :data:`SWD_RIVAL_METHODS`); (c) SWD
at or below the per-case best peer's on at least :data:`SWD_WIN_SHARE` of the cases;
(d) mean SSIM at least that of the best single peer (the highest mean SSIM).

Output: Markdown on stdout (per-case SSIM, SWD and detail, summaries for all cases, the
tune and holdout splits and each category, and the acceptance rule per configuration),
``--json FILE`` with every number, ``--sheets DIR`` with one contact sheet per case.

``inpaint bench --objects [DIR] --sheets OUT`` (:func:`run_objects`): real object removals
without truth (``datasets/objects``: ``index.json`` lists ``{name, description}``, each
folder holds ``image.png`` and ``mask.png``).  Every method runs on each case, its known
pixels are checked, and ``OUT`` gets one contact sheet per case and ``index.md``; with no
truth there are only times.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib
import json
import math
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import metrics
from .common import PAPER_CASES, md_table
from .peers import INSTALL_HINT, PEERS, available_peers

CONFIGS_FILE = Path(__file__).resolve().parent / "quality_configs.toml"
#: The paper's cases (in ``datasets/``), their category and split.
PAPER_CATEGORY, PAPER_SPLIT = "paper", "tune"
SPLITS = ("tune", "holdout")
#: The metrics of a fill against its truth: keys of the JSON numbers, in table order.
METRICS = ("ssim", "psnr_db", "coarse_ssim", "swd", "detail")
METRIC_NAMES = {"ssim": "SSIM", "psnr_db": "PSNR", "coarse_ssim": "coarse SSIM", "swd": "SWD", "detail": "detail"}


def _log_distance(detail: float) -> float:
    return abs(math.log(detail)) if 0 < detail < math.inf else math.inf


#: Per metric, how far a value is from ideal (lower is better): the one ordering behind "best peer
#: on a case" and "wins".  Detail: |log(detail)|, so twice the truth's detail is as far off as half.
BADNESS: dict[str, Callable[[float], float]] = {"ssim": lambda v: -v, "psnr_db": lambda v: -v,
                                                 "coarse_ssim": lambda v: -v, "swd": lambda v: v,
                                                 "detail": _log_distance}
#: Acceptance rule (a): the median detail ratio lies in this closed band (also the summaries'
#: "detail in band" count).
DETAIL_BAND = (0.8, 1.25)
#: Rule (b): a configuration's mean SWD must be the lowest of the peers and of our other
#: configurations whose ``method`` is one of these (the paper's method is the baseline to beat;
#: the other multiscale configurations are variants of the candidate, not rivals).
SWD_RIVAL_METHODS = ("criminisi",)
#: Rule (c): SWD at or below the per-case best peer's on at least this share of the cases.
SWD_WIN_SHARE = 0.5
#: The four rules (keys of each configuration's ``rules`` in the JSON verdicts) and their column titles.
RULES = {
    "detail_in_band": "(a) detail in band",
    "lowest_mean_swd": "(b) lowest SWD",
    "swd_wins_on_share": f"(c) SWD wins ≥ {100 * SWD_WIN_SHARE:.0f} %",
    "ssim_at_least_best_peer": "(d) SSIM ≥ best peer",
}
#: Contact sheets: margin around the hole's bounding box, largest crop side, magnification, tiles per row.
SHEET_MARGIN, SHEET_MAX_SIDE, SHEET_ZOOM, SHEET_COLUMNS = 24, 400, 2, 4
#: Object sheets: colour of the hole's outline on the input tile.
OUTLINE_RGB = (255, 0, 0)


def in_band(detail: float | None) -> bool:
    """Whether a detail ratio lies in :data:`DETAIL_BAND` (ends included)."""
    return detail is not None and DETAIL_BAND[0] <= detail <= DETAIL_BAND[1]


# --- the tools' fill overrides ------------------------------------------------------------------
def add_fill_overrides(parser: argparse.ArgumentParser) -> None:
    """Add a tool's ``--set MODULE.NAME=VALUE`` (a module constant changed before the fills) and
    ``--option NAME=VALUE`` (a keyword argument of every fill), each repeatable: see
    :func:`fill_overrides`."""
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE", type=_assignment)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", type=_assignment)


def _assignment(text: str) -> str:
    """``text`` as given, where it is ``NAME=VALUE`` (argparse says so in one line otherwise)."""
    if "=" not in text or not text.partition("=")[0]:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return text


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def fill_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Make the ``--set`` changes of :func:`add_fill_overrides` and return the ``--option`` keyword
    arguments.  A value is the Python literal it spells (``0``, ``0.5``, ``'full'``, ``(3, 4)``),
    or else its text."""
    for item in args.set:
        target, value = item.split("=", 1)
        module, name = target.rsplit(".", 1)
        setattr(importlib.import_module(module), name, _literal(value))
    return {k: _literal(v) for k, v in (o.split("=", 1) for o in args.option)}


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
class _Picture:
    """What every case offers: its size and the pixels of its hole (from ``image`` and ``mask``)."""

    image: np.ndarray
    mask: np.ndarray

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return int(self.image.shape[1]), int(self.image.shape[0])

    @property
    def hole_pixels(self) -> int:
        """Pixels to fill."""
        return int(self.mask.sum())


@dataclass
class TruthCase(_Picture):
    """One case: the input (hole destroyed or object present), the truth and the hole."""

    name: str
    category: str
    split: str
    image: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class CaseEntry:
    """An index entry: where a case is and how it is grouped (loaded by :func:`load_entry`)."""

    name: str
    category: str
    split: str
    folder: Path | None  # None: a paper case, loaded through inpaint.io.cases


def _find_data(folder: str, env: str, explicit: str | Path | None) -> Path | None:
    """``datasets/<folder>`` (holding ``index.json``): ``explicit``, ``$<env>``, ``./datasets``, the
    source checkout this package sits in, then the installed ``inpaint`` package's datasets."""
    if explicit is not None:
        return Path(explicit) if (Path(explicit) / "index.json").is_file() else None
    candidates = []
    if os.environ.get(env):
        candidates.append(Path(os.environ[env]))
    candidates += [Path.cwd() / "datasets" / folder, Path(__file__).resolve().parents[2] / "datasets" / folder]
    try:
        from inpaint.resources import data_dir

        candidates.append(Path(data_dir("datasets")) / folder)
    except Exception:  # noqa: BLE001 - no installed data: the other places still count
        pass
    for c in candidates:
        if (c / "index.json").is_file():
            return c
    return None


def find_quality_root(explicit: str | Path | None = None) -> Path | None:
    """The folder of the quality truth set (holding ``index.json``), or None if none is found.

    Looked for in ``explicit`` (``--quality-data``), ``$INPAINT_QUALITY_DATA``,
    ``./datasets/quality``, the source checkout this package sits in, and the installed
    ``inpaint`` package's datasets.
    """
    return _find_data("quality", "INPAINT_QUALITY_DATA", explicit)


def find_objects_root(explicit: str | Path | None = None) -> Path | None:
    """The folder of the object removals (holding ``index.json``), or None if none is found.

    Looked for like :func:`find_quality_root`: ``explicit`` (``--objects DIR``),
    ``$INPAINT_OBJECTS_DATA``, ``./datasets/objects``, the source checkout, the installed datasets.
    """
    return _find_data("objects", "INPAINT_OBJECTS_DATA", explicit)


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
    from inpaint.io import read_image, read_mask  # the product's reader and its one mask rule

    truth = read_image(folder / "truth.png").rgb
    mask = read_mask(folder / "mask.png", (truth.shape[1], truth.shape[0]))
    image = truth.copy()
    image[mask] = 0
    for a in (image, truth, mask):
        a.setflags(write=False)
    return TruthCase(folder.name, category or manifest.get("category", ""), split or manifest.get("split", ""),
                     image, truth, mask)


def load_entry(entry: CaseEntry) -> TruthCase:
    """Load one index entry (a paper case through :func:`inpaint.io.cases.load_case`)."""
    if entry.folder is None:
        from inpaint.io.cases import load_case

        c = load_case(entry.name)
        return TruthCase(entry.name, entry.category, entry.split, c.image, c.truth, c.mask)
    return load_quality_case(entry.folder, entry.category, entry.split)


# --- real object removals (no truth) -------------------------------------------------------------
@dataclass
class ObjectCase(_Picture):
    """A real object removal: the photo with the object, the hole over it, and no truth."""

    name: str
    description: str
    image: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)
    truth: None = None


def load_object_cases(root: Path, spec: str = "all") -> list[ObjectCase]:
    """The cases of ``root/index.json`` (``{"cases": [{"name", "description"}, ...]}``) that
    ``spec`` names (comma-separated names, or ``all``), each from ``root/<name>/image.png`` and
    ``mask.png`` (read by the product's reader and its one mask rule).

    Raises
    ------
    ValueError
        For an unknown name or a mask without hole pixels; :class:`inpaint.errors.InputError`
        (a ValueError) for an unreadable image or a mask of another size.
    """
    from inpaint.io import read_image, read_mask

    listed = json.loads((root / "index.json").read_text(encoding="utf-8"))["cases"]
    names = [str(c["name"]) for c in listed]
    words = [w.strip() for w in spec.split(",") if w.strip()]
    bad = [w for w in words if w != "all" and w not in names]
    if bad or not words:
        raise ValueError(f"--cases {spec!r}: with --objects, 'all' or names of {root / 'index.json'}: "
                         + ", ".join(names))
    cases = []
    for c in listed:
        name = str(c["name"])
        if "all" not in words and name not in words:
            continue
        image = read_image(root / name / "image.png").rgb
        mask = read_mask(root / name / "mask.png", (image.shape[1], image.shape[0]))
        if not mask.any():
            raise ValueError(f"{root / name / 'mask.png'} marks no pixel as hole")
        for a in (image, mask):
            a.setflags(write=False)
        cases.append(ObjectCase(name, str(c.get("description", "")), image, mask))
    return cases


# --- methods -------------------------------------------------------------------------------------
@dataclass
class Method:
    """A contender: ``fill(image, mask)`` returns the (H, W, 3) uint8 result (and, for ours, stats).

    A control (kind ``"control"``) has no ``fill``: its result is :func:`inpaint_bench.metrics.control_fill`
    of ``control`` on the case's truth.
    """

    name: str
    kind: str  # "ours", "peer" or "control"
    label: str
    fill: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, Any]] | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    control: tuple[str, float] | None = None


def ours_method(name: str, kwargs: dict[str, Any], backend: str, device: str | None) -> Method:
    """One of our configurations, its keyword arguments passed through to ``inpaint()``."""
    kw = dict(kwargs)
    kw["backend"] = backend
    if device is not None:
        kw["device"] = device

    def fill(image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, Any]:
        import inpaint.api as api  # looked up per call

        res = api.inpaint(image, mask, **kw)
        return res.image, res.stats

    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "library defaults"
    return Method(name, "ours", f"ours: {args}", fill, kw)


def peer_method(peer: Any) -> Method:
    """A peer of :mod:`inpaint_bench.peers` as a contender."""
    return Method(peer.name, "peer", peer.label, lambda image, mask: (peer.fill(image, mask), None),
                  {"library": peer.library})


def control_methods() -> list[Method]:
    """The controls of :data:`inpaint_bench.metrics.CONTROLS`, in their order."""
    what = {"shift": "the truth shifted right by {:g} px (sharp, misplaced)",
            "blur": "the truth blurred with a Gaussian of sigma {:g} px (right place, smooth)"}
    return [Method(name, "control", "control: " + what[kind].format(amount), None, control=(kind, amount))
            for name, (kind, amount) in metrics.CONTROLS.items()]


def swd_rivals(configs: dict[str, dict[str, Any]]) -> list[str]:
    """Our configurations whose ``method`` (or the library's default one) is in :data:`SWD_RIVAL_METHODS`."""
    from inpaint.methods.defaults import DEFAULT_METHOD

    return [n for n, kw in configs.items() if kw.get("method", DEFAULT_METHOD) in SWD_RIVAL_METHODS]


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
def score(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """Every metric of :data:`METRICS` of ``result`` against ``truth``."""
    return {"ssim": metrics.hole_ssim(result, truth, mask), "psnr_db": metrics.hole_psnr(result, truth, mask),
            "coarse_ssim": metrics.coarse_ssim(result, truth, mask), "swd": metrics.swd(result, truth, mask),
            "detail": metrics.detail_ratio(result, truth, mask)}


def measure(cases: Sequence[TruthCase | ObjectCase], methods: Sequence[Method], repeat: int, notes: list[str],
            log: Any = sys.stderr) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, dict[str, np.ndarray]]]:
    """Run every method on every case; returns (numbers[case][method], images[case][method]).

    A case with a truth gets the metrics of :func:`score`; one without (an object removal) only
    times.  Controls need a truth and are not timed.
    """
    numbers: dict[str, dict[str, dict[str, Any]]] = {}
    images: dict[str, dict[str, np.ndarray]] = {}
    seen_warnings: dict[str, None] = {}

    def call(m: Method, image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, Any]:
        assert m.fill is not None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m.fill(np.array(image), np.array(mask))  # writable copies: a method may work in place
        for w in caught:
            seen_warnings[f"{m.name}: {w.message}"] = None
        return out

    wimg, wmask = _warm_image()
    for m in methods:  # builds kernels, loads libraries, JIT
        if m.fill is None:
            continue
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
            if m.control is not None and case.truth is None:
                continue
            if log is not None and log.isatty():
                log.write(f"\rquality: {n}/{total} {case.name}: {m.name}{' ' * 20}")
                log.flush()
            entry: dict[str, Any] = {}
            try:
                if m.control is not None:
                    result = metrics.control_fill(*m.control, case.image, case.truth, case.mask)
                else:
                    times, result, stats = [], None, None
                    for r in range(repeat):
                        t = time.perf_counter()
                        out, st = call(m, case.image, case.mask)
                        times.append(time.perf_counter() - t)
                        if r == 0:
                            result, stats = check_result(m.name, case.image, case.mask, out), st
                    entry.update(time_s=statistics.median(times), times_s=times)
                    if stats is not None:
                        entry.update(backend=stats.backend, device=stats.device,
                                     iterations=getattr(stats, "iterations", None))
                if case.truth is not None:
                    entry.update(score(result, case.truth, case.mask))
                images[case.name][m.name] = result
            except Exception as exc:  # noqa: BLE001 - one failing method must not stop the others
                entry["error"] = f"{type(exc).__name__}: {exc}"
            numbers[case.name][m.name] = entry
    if log is not None and log.isatty() and total:
        log.write(f"\rquality: {total} runs in {time.perf_counter() - t0:.0f} s{' ' * 40}\n")
    notes.extend(seen_warnings)
    return numbers, images


# --- summaries -----------------------------------------------------------------------------------
def _finite(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None and not math.isnan(v)]


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def best_peers(numbers: dict[str, dict[str, dict[str, Any]]],
               peers: Sequence[str]) -> dict[str, dict[str, tuple[str, float]]]:
    """case -> metric -> (peer, value) of the peer best on that metric there (by :data:`BADNESS`;
    a tie goes to the peer listed first); a metric no peer has a value for is left out."""
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for case, per in numbers.items():
        out[case] = {}
        for k in METRICS:
            scored = [(BADNESS[k](per[p][k]), i, p) for i, p in enumerate(peers) if _finite([per.get(p, {}).get(k)])]
            if scored:
                p = min(scored)[2]
                out[case][k] = (p, per[p][k])
    return out


def _wins(value: float, metric: str, best: dict[str, tuple[str, float]]) -> bool:
    """Whether ``value`` is at least as good as the best peer's on ``metric``."""
    return metric in best and BADNESS[metric](value) <= BADNESS[metric](best[metric][1])


def summarise(numbers: dict[str, dict[str, dict[str, Any]]], case_names: Sequence[str], methods: Sequence[str],
              ours: Sequence[str], best: dict[str, dict[str, tuple[str, float]]]) -> dict[str, dict[str, Any]]:
    """Per method over ``case_names``: cases, errors, mean SSIM, mean PSNR, mean coarse SSIM, mean SWD,
    median detail, the
    number of cases with detail in :data:`DETAIL_BAND`, median time; for ``ours`` also the number of
    cases with a peer result (``judged``) and, per metric, of those where it is at least as good as
    the best peer there (``wins``)."""
    out = {}
    for m in methods:
        done = [c for c in case_names if "ssim" in numbers[c].get(m, {})]
        col = {k: _finite([numbers[c][m].get(k) for c in done]) for k in (*METRICS, "time_s")}
        s: dict[str, Any] = {
            "cases": len(done),
            "errors": sum(1 for c in case_names if "error" in numbers[c].get(m, {})),
            "mean_ssim": _mean(col["ssim"]),
            "mean_psnr_db": _mean(col["psnr_db"]),
            "mean_coarse_ssim": _mean(col["coarse_ssim"]),
            "mean_swd": _mean(col["swd"]),
            "median_detail": _median(col["detail"]),
            "detail_in_band": sum(1 for d in col["detail"] if in_band(d)),
            "median_time_s": _median(col["time_s"]),
        }
        if m in ours:
            judged = [c for c in done if best.get(c)]
            s["judged"] = len(judged)
            s["wins"] = {k: sum(1 for c in judged if _wins(numbers[c][m][k], k, best[c])) for k in METRICS}
        out[m] = s
    return out


def verdicts(summary: dict[str, dict[str, Any]], ours: Sequence[str], peers: Sequence[str],
             rivals: Sequence[str] = ()) -> dict[str, Any]:
    """The acceptance rule (:data:`RULES`) for each of ``ours`` over one group's ``summary``.

    Parameters
    ----------
    summary : dict
        :func:`summarise` of the group.
    ours, peers : sequence of str
        Our configurations and the peers measured.
    rivals : sequence of str
        Our configurations that count in rule (b) beside the peers (:func:`swd_rivals`); a
        configuration is never its own rival.

    Returns
    -------
    dict
        ``best_peer`` and ``best_peer_mean_ssim`` (the peer with the highest mean SSIM; None
        without peers), and ``configs``: per configuration its numbers, the lowest rival mean SWD,
        ``rules`` (rule -> True / False, None where there is no peer to judge by) and
        ``accepted`` (all four True).
    """
    by_ssim = [(summary[p]["mean_ssim"], p) for p in peers if summary[p]["mean_ssim"] is not None]
    best_mean, best = max(by_ssim, key=lambda t: t[0]) if by_ssim else (None, None)
    configs = {}
    for m in ours:
        s = summary[m]
        others = [(summary[r]["mean_swd"], r) for r in (*peers, *rivals)
                  if r != m and summary[r]["mean_swd"] is not None]
        low_swd, low = min(others, key=lambda t: t[0]) if others else (None, None)
        share = s["wins"]["swd"] / s["judged"] if s["judged"] else None
        rules = {
            "detail_in_band": in_band(s["median_detail"]),
            "lowest_mean_swd": s["mean_swd"] is not None and (low_swd is None or s["mean_swd"] <= low_swd),
            "swd_wins_on_share": None if share is None else share >= SWD_WIN_SHARE,
            "ssim_at_least_best_peer": (None if best_mean is None
                                        else s["mean_ssim"] is not None and s["mean_ssim"] >= best_mean),
        }
        configs[m] = {"median_detail": s["median_detail"], "mean_swd": s["mean_swd"], "lowest_rival": low,
                      "lowest_rival_mean_swd": low_swd, "swd_wins": s["wins"]["swd"], "judged": s["judged"],
                      "swd_win_share": share, "mean_ssim": s["mean_ssim"], "rules": rules,
                      "accepted": all(v is True for v in rules.values())}
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


def _yes(x: bool | None) -> str:
    return "—" if x is None else "**yes**" if x else "no"


#: Digits of each metric in the tables.
DIGITS = {"ssim": 3, "psnr_db": 2, "coarse_ssim": 3, "swd": 2, "detail": 2}


def _method_title(m: Method) -> str:
    return m.name + {"ours": " (ours)", "control": " (control)"}.get(m.kind, "")


def _per_case_table(cases: Sequence[TruthCase], methods: Sequence[Method], numbers: dict[str, Any],
                    best: dict[str, dict[str, tuple[str, float]]], metric: str, lead: bool) -> str:
    rows = []
    for c in cases:
        per = numbers[c.name]
        row: list[Any] = [c.name] + ([c.category, c.split, c.hole_pixels] if lead else [])
        for meth in methods:
            e = per.get(meth.name, {})
            text = "error" if "error" in e else _f(e.get(metric), DIGITS[metric])
            if best[c.name].get(metric, ("",))[0] == meth.name:
                text = f"**{text}**"
            row.append(text)
        rows.append(row)
    header = ["case"] + (["category", "split", "hole px"] if lead else []) + [m.name for m in methods]
    return md_table(header, rows, ("lllr" if lead else "l") + "r" * len(methods))


def _summary_table(summary: dict[str, dict[str, Any]], methods: Sequence[Method]) -> str:
    rows = []
    for m in methods:
        s = summary[m.name]
        wins = " / ".join(str(s["wins"][k]) for k in METRICS) + f" of {s['judged']}" \
            if m.kind == "ours" and s["judged"] else ""
        rows.append([_method_title(m), s["cases"], _f(s["mean_ssim"], 3), _f(s["mean_psnr_db"], 2),
                     _f(s["mean_coarse_ssim"], 3), _f(s["mean_swd"], 2), _f(s["median_detail"], 2),
                     s["detail_in_band"], wins, _t(s["median_time_s"]) if m.kind != "control" else "",
                     s["errors"] or ""])
    return md_table(["method", "cases", "mean SSIM (favours blur)", "mean PSNR dB (favours blur)",
                     "mean coarse SSIM", "mean SWD", "median detail",
                     f"detail in [{DETAIL_BAND[0]:g}, {DETAIL_BAND[1]:g}]",
                     "wins vs best peer: " + " / ".join(METRIC_NAMES[k] for k in METRICS), "median time", "errors"],
                    rows, "lrrrrrrrrrr")


def _verdict_table(groups: dict[str, dict[str, Any]], n_cases: dict[str, int]) -> str:
    rows = []
    for group, v in groups.items():
        for m, c in v["configs"].items():
            r = c["rules"]
            rows.append([m, f"{group} ({n_cases[group]})",
                         _f(c["median_detail"], 2), _yes(r["detail_in_band"]),
                         _f(c["mean_swd"], 2),
                         f"{c['lowest_rival']} {c['lowest_rival_mean_swd']:.2f}" if c["lowest_rival"] else "—",
                         _yes(r["lowest_mean_swd"]),
                         f"{c['swd_wins']}/{c['judged']}" if c["judged"] else "—", _yes(r["swd_wins_on_share"]),
                         _f(c["mean_ssim"], 3),
                         f"{v['best_peer']} {v['best_peer_mean_ssim']:.3f}" if v["best_peer"] else "—",
                         _yes(r["ssim_at_least_best_peer"]), _yes(c["accepted"])])
    return md_table(["config", "cases", "median detail", RULES["detail_in_band"], "mean SWD",
                     "lowest other (mean SWD)", RULES["lowest_mean_swd"], "SWD wins",
                     RULES["swd_wins_on_share"], "mean SSIM", "best single peer (mean SSIM)",
                     RULES["ssim_at_least_best_peer"], "all four"], rows, "llrlrllrlrlll")


def _machine_lines(report: dict[str, Any]) -> list[str]:
    m = report["machine"]
    lines = [f"Machine: {m['cpu']}, {m['cores']} logical cores; Python {m['python']}, numpy {m['numpy']}"
             + (f", pyopencl {m['pyopencl']}" if "pyopencl" in m else "") + f"; {m['os']}."]
    for d in m.get("devices", []):
        lines.append(f"- OpenCL device {d['spec']}: {'GPU' if d['gpu'] else 'CPU'} {d['name']} ({d['platform']}), "
                     f"{d['opencl']}, driver {d['driver']}, {d['compute_units']} compute units")
    if report["ours_ran_on"]:
        lines.append("- ours ran on: " + "; ".join(report["ours_ran_on"]))
    return lines


def _method_lines(report: dict[str, Any], methods: Sequence[Method]) -> list[str]:
    lines = [f"- `{meth.name}`: {meth.label}" for meth in methods]
    if report["peers_missing"]:
        lines.append(f"\nPeers not installed (skipped): {', '.join(report['peers_missing'])} ({INSTALL_HINT}).")
    return lines


def markdown(report: dict[str, Any], cases: Sequence[TruthCase], methods: Sequence[Method]) -> str:
    """The Markdown report of :func:`run_quality`."""
    numbers, best = report["numbers"], report["best_peer_per_case"]
    lines = ["# inpaint bench --quality", ""] + _machine_lines(report)
    lines += ["", f"Truth set: {_cases(len(cases))}. Methods:"] + _method_lines(report, methods)
    lines += ["", "Controls are the truth itself, moved or blurred: not methods, but what each metric makes of a "
              "sharp fill in the wrong place and of a smooth fill in the right one.",
              "", "## SSIM per case", "",
              f"SSIM over the hole's bounding box grown by {metrics.SSIM_GROW} px (higher is better); **bold**: the "
              "best peer on that case.", "", _per_case_table(cases, methods, numbers, best, "ssim", True),
              "", "## SWD per case", "",
              f"Sliced Wasserstein distance between the {metrics.SWD_PATCH}x{metrics.SWD_PATCH} patches of the fill "
              "and of the truth (lower is better); "
              "**bold**: the best peer on that case.", "",
              _per_case_table(cases, methods, numbers, best, "swd", False),
              "", "## Coarse SSIM per case", "",
              f"SSIM after the same Gaussian low-pass (σ = {metrics.COARSE_SIGMA:g} px) of fill and truth, over the "
              f"hole's bounding box grown by {metrics.SSIM_GROW} px (higher is better): is the content right, however "
              "sharp; **bold**: the best peer on that case.", "",
              _per_case_table(cases, methods, numbers, best, "coarse_ssim", False),
              "", "## Detail per case", "",
              "Detail ratio, fill / truth (1.0 is best); **bold**: the peer nearest 1 on that case.", "",
              _per_case_table(cases, methods, numbers, best, "detail", False),
              "", "## Summary", "",
              "Wins: for each of our configurations, the cases where it is at least as good as the best peer on "
              "that case (SSIM, PSNR and coarse SSIM at least the highest, SWD at most the lowest, |log detail| at "
              "most the smallest).", ""]
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
    lines += ["## Acceptance", "",
              "A configuration is accepted on a group of cases when it meets all four rules:",
              f"- (a) its median detail lies in [{DETAIL_BAND[0]:g}, {DETAIL_BAND[1]:g}];",
              "- (b) its mean SWD is the lowest of all methods measured: the peers and our other configurations "
              f"whose method is {' or '.join(SWD_RIVAL_METHODS)} (controls do not count);",
              f"- (c) its SWD is at or below the best peer's on at least {100 * SWD_WIN_SHARE:.0f} % of the cases "
              "(SWD wins);",
              "- (d) its mean SSIM is at least the best single peer's (the peer with the highest mean SSIM).", ""]
    if not report["peers_run"]:
        lines += ["No peer was measured: rules (c) and (d) cannot be judged.", ""]
    lines += [_verdict_table(report["verdicts"], report["group_sizes"]), "",
              "Metrics: SSIM = scikit-image's structural_similarity (Gaussian 11x11 window, σ = 1.5, population "
              "covariance, per colour channel) over the hole's bounding box grown by 8 px; PSNR over the hole's "
              f"pixels (RGB, peak 255, capped at {metrics.PSNR_CAP:g} dB), both favour blur; coarse SSIM = "
              f"structural_similarity with its defaults ({metrics.COARSE_WINDOW}x{metrics.COARSE_WINDOW} uniform "
              "window, sample covariance, per colour channel) of fill and truth after the same Gaussian low-pass "
              f"(σ = {metrics.COARSE_SIGMA:g} px per channel, mirrored borders), over the same box (a sharp and a "
              "blurred fill of the right content low-pass alike; wrong content or a broken line loses); "
              "SWD = sliced Wasserstein-1 distance "
              f"(grey levels) between the {metrics.SWD_PATCH}x{metrics.SWD_PATCH} RGB patches centred in the hole "
              f"eroded by {metrics.SWD_ERODE} px, fill against truth, over {metrics.SWD_DIRECTIONS} fixed random "
              "directions (it compares textures as distributions, so a sharp texture in the wrong place scores "
              "well and a blur badly); detail = mean gradient magnitude of the mean of RGB over the hole eroded "
              f"by {metrics.DETAIL_ERODE} px, fill / truth (1.0 = as much detail as the truth; diffusion fills "
              "score about 0.3); time "
              "= wall time of one call" + (f", median of {report['repeat']}" if report["repeat"] > 1 else "")
              + ", after a warm-up call."]
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


def _zoom(img: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """``img`` cropped to ``box`` and magnified :data:`SHEET_ZOOM` times (nearest neighbour)."""
    x0, y0, x1, y1 = box
    return np.repeat(np.repeat(img[y0:y1, x0:x1], SHEET_ZOOM, axis=0), SHEET_ZOOM, axis=1)


def outline_hole(rgb: np.ndarray, mask: np.ndarray, width: int = 1) -> np.ndarray:
    """``rgb`` with a line of :data:`OUTLINE_RGB`, ``width`` px wide, just outside the hole (the
    hole's own pixels stay visible)."""
    grown = np.asarray(mask, bool).copy()
    for _ in range(width):  # 4-neighbour dilation; the image border is not hole
        g = grown.copy()
        g[1:] |= grown[:-1]
        g[:-1] |= grown[1:]
        g[:, 1:] |= grown[:, :-1]
        g[:, :-1] |= grown[:, 1:]
        grown = g
    out = np.array(rgb, np.uint8, copy=True)
    out[grown & ~mask] = OUTLINE_RGB
    return out


def _sheet(tiles: Sequence[tuple[Sequence[str], np.ndarray]], path: Path) -> Path:
    """Tiles (label lines, picture) in rows of :data:`SHEET_COLUMNS`, each cell as wide as its picture
    or its longest label line, whichever is wider; written as PNG."""
    from PIL import Image, ImageDraw

    font = _font()
    measure_draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line_h, gap = 17, 8
    label_h = line_h * max(len(lines) for lines, _ in tiles) + 4
    th = max(img.shape[0] for _, img in tiles)
    cw = max(max(img.shape[1] for _, img in tiles),
             max(int(measure_draw.textlength(t, font=font)) + 6 for lines, _ in tiles for t in lines))
    cols = min(SHEET_COLUMNS, len(tiles))
    nrows = -(-len(tiles) // cols)
    sheet = Image.new("RGB", (cols * cw + (cols - 1) * gap, nrows * (th + label_h) + (nrows - 1) * gap),
                      (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    for i, (lines, img) in enumerate(tiles):
        r, c = divmod(i, cols)
        x, y = c * (cw + gap), r * (th + label_h + gap)
        sheet.paste(Image.fromarray(np.ascontiguousarray(img)), (x, y + label_h))
        for j, text in enumerate(lines):
            draw.text((x + 2, y + 2 + j * line_h), text, fill=(0, 0, 0), font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path, "PNG", optimize=True)
    return path


def _error_tile(case: TruthCase | ObjectCase, box: tuple[int, int, int, int]) -> np.ndarray:
    return _zoom(np.full_like(case.image, 128), box)


def contact_sheet(case: TruthCase, images: dict[str, np.ndarray], numbers: dict[str, dict[str, Any]],
                  methods: Sequence[Method], path: Path) -> Path:
    """input | truth | each method (controls left out), cropped around the hole, magnified 2x
    (nearest), labelled with coarse SSIM, SWD, detail and SSIM."""
    box = crop_box(case.mask)
    tiles: list[tuple[Sequence[str], np.ndarray]] = [(["input"], _zoom(case.image, box)),
                                                     (["truth"], _zoom(case.truth, box))]
    for m in methods:
        if m.kind == "control":
            continue
        e = numbers.get(m.name, {})
        if m.name in images:
            tiles.append(([m.name, f"coarse SSIM {e['coarse_ssim']:.3f}  SWD {e['swd']:.2f}  "
                                   f"detail {e['detail']:.2f}  SSIM {e['ssim']:.3f}"],
                          _zoom(images[m.name], box)))
        else:
            tiles.append(([m.name, "error"], _error_tile(case, box)))
    return _sheet(tiles, path)


def object_sheet(case: ObjectCase, images: dict[str, np.ndarray], numbers: dict[str, dict[str, Any]],
                 methods: Sequence[Method], path: Path) -> Path:
    """input with the hole outlined in red | each method, cropped around the hole, magnified 2x
    (nearest), labelled with the method's name and time."""
    box = crop_box(case.mask)
    tiles: list[tuple[Sequence[str], np.ndarray]] = [
        (["input", "hole outlined in red"], _zoom(outline_hole(case.image, case.mask), box))]
    for m in methods:
        e = numbers.get(m.name, {})
        if m.name in images:
            tiles.append(([m.name, _t(e.get("time_s"))], _zoom(images[m.name], box)))
        else:
            tiles.append(([m.name, "error"], _error_tile(case, box)))
    return _sheet(tiles, path)


# --- machine -------------------------------------------------------------------------------------
def machine(device: str | None, backend: str, notes: list[str]) -> dict[str, Any]:
    from .devices import find_devices, machine_info

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


def _contenders(args: argparse.Namespace) -> tuple[dict[str, dict[str, Any]], list[str], list[Any], list[str]]:
    """(configurations, the names ``--configs`` picks, installed peers ``--peers`` picks, missing peers).

    Raises
    ------
    ValueError
        For an unknown configuration or peer.
    """
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
    return configs, names, peers, missing


def _ran_on(numbers: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    return sorted({f"{e['backend']} on {e['device']}" for per in numbers.values() for e in per.values()
                   if "backend" in e})


def _failures(numbers: dict[str, dict[str, dict[str, Any]]], methods: Sequence[Method], notes: list[str]) -> None:
    for m in methods:
        errs = [(c, numbers[c][m.name]["error"]) for c in numbers if "error" in numbers[c].get(m.name, {})]
        if errs:
            notes.append(f"{m.name} failed on {len(errs)} case(s), e.g. {errs[0][0]}: {errs[0][1]}")


def _command(mode: str) -> str:
    return "inpaint bench " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["bench"] else f"inpaint bench {mode}"


def _methods_json(methods: Sequence[Method]) -> list[dict[str, Any]]:
    out = []
    for m in methods:
        d: dict[str, Any] = {"name": m.name, "kind": m.kind, "label": m.label}
        if m.kind == "ours":
            d["kwargs"] = m.kwargs
        elif m.kind == "peer":
            d["details"] = m.kwargs
        else:
            d["control"] = list(m.control or ())
        out.append(d)
    return out


def _write_json(path: str | None, report: dict[str, Any]) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")


def run_quality(args: argparse.Namespace) -> int:
    """``inpaint bench --quality``: options as :func:`inpaint_bench.pipeline.add_arguments` defines them."""
    if getattr(args, "objects", None) is not None:
        return run_objects(args)
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
        configs, names, peers, missing = _contenders(args)
        cases = [load_entry(e) for e in entries]
    except (ValueError, OSError) as exc:
        return _error(str(exc))
    t0 = time.perf_counter()
    methods = [ours_method(n, configs[n], args.backend, args.device) for n in names] + \
              [peer_method(p) for p in peers] + control_methods()
    info = machine(args.device, args.backend, notes)
    numbers, images = measure(cases, methods, repeat, notes)
    peer_names_run = [p.name for p in peers]
    rivals = [n for n in swd_rivals(configs) if n in names]
    best = best_peers(numbers, peer_names_run)
    groups: dict[str, list[str]] = {"all": [c.name for c in cases]}
    for s in SPLITS:
        groups[s] = [c.name for c in cases if c.split == s]
    for cat in dict.fromkeys(c.category for c in cases):
        groups[f"category:{cat}"] = [c.name for c in cases if c.category == cat]
    summary = {g: summarise(numbers, names_, [m.name for m in methods], names, best) for g, names_ in groups.items()}
    verdict = {g: verdicts(summary[g], names, peer_names_run, rivals) for g in ("all", *SPLITS) if groups[g]}
    _failures(numbers, methods, notes)
    report: dict[str, Any] = {
        "command": _command("--quality"), "machine": info, "repeat": repeat, "backend": args.backend,
        "device": args.device, "methods": _methods_json(methods), "peers_run": peer_names_run, "peers_missing": missing,
        "cases": [{"name": c.name, "category": c.category, "split": c.split, "width": c.size[0],
                   "height": c.size[1], "hole_pixels": c.hole_pixels} for c in cases],
        "numbers": numbers, "best_peer_per_case": best, "group_sizes": {g: len(v) for g, v in groups.items()},
        "summary": summary, "verdicts": verdict, "ours_ran_on": _ran_on(numbers), "notes": notes,
        "metrics": {"ssim": "skimage structural_similarity, gaussian 11x11, sigma 1.5, population covariance, "
                            f"colour, over the hole's bbox grown by {metrics.SSIM_GROW} px",
                    "psnr": f"over the hole's RGB values, peak 255, capped at {metrics.PSNR_CAP:g} dB",
                    "coarse_ssim": f"skimage structural_similarity with its defaults ({metrics.COARSE_WINDOW}x"
                                   f"{metrics.COARSE_WINDOW} uniform window, sample covariance), colour, data range "
                                   f"255, of fill and truth after the same Gaussian low-pass (sigma "
                                   f"{metrics.COARSE_SIGMA:g} px per channel, reflect borders), over the hole's bbox "
                                   f"grown by {metrics.SSIM_GROW} px",
                    "swd": f"sliced Wasserstein-1 distance between the {metrics.SWD_PATCH}x{metrics.SWD_PATCH} RGB "
                           f"patches centred in the hole eroded by {metrics.SWD_ERODE} px, fill vs truth, "
                           f"{metrics.SWD_DIRECTIONS} directions (seed {metrics.SWD_SEED})",
                    "detail": "mean |grad| (central differences, mean of RGB) over the hole eroded by 2 px, "
                              "fill / truth"},
        "rules": {"rules": RULES, "detail_band": DETAIL_BAND, "swd_rival_methods": SWD_RIVAL_METHODS,
                  "swd_rivals": rivals, "swd_win_share": SWD_WIN_SHARE},
    }
    if args.sheets:
        for c in cases:
            contact_sheet(c, images[c.name], numbers[c.name], methods, Path(args.sheets) / f"{c.name}.png")
        report["sheets"] = str(args.sheets)
    report["elapsed_s"] = time.perf_counter() - t0
    print(markdown(report, cases, methods))
    _write_json(args.json, report)
    return 0


def objects_markdown(report: dict[str, Any], cases: Sequence[ObjectCase], methods: Sequence[Method],
                     relative: bool = False) -> str:
    """The Markdown of :func:`run_objects`; ``relative``: links to the sheets relative to their folder
    (for its ``index.md``)."""
    lines = ["# inpaint bench --objects", ""] + _machine_lines(report)
    lines += ["", f"Object removals: {_cases(len(cases))} from {report['objects']} (no truth: no metrics, only "
              "times). Methods:"] + _method_lines(report, methods)
    lines += ["", "Each sheet: the input with the hole outlined in red, then every method's fill, cropped around the "
              f"hole and magnified {SHEET_ZOOM}x, labelled with the wall time of one call"
              + (f" (median of {report['repeat']})" if report["repeat"] > 1 else "") + ".", ""]
    folder = Path(".") if relative else Path(report["sheets"])
    lines.append(md_table(["case", "description", "size", "hole px", "sheet"],
                          [[c.name, c.description or "—", f"{c.size[0]}x{c.size[1]}", c.hole_pixels,
                            f"[{c.name}.png]({(folder / (c.name + '.png')).as_posix()})"] for c in cases], "lllrl"))
    lines += ["", "## Time per call", ""]
    rows = []
    for c in cases:
        per = report["numbers"][c.name]
        rows.append([c.name] + ["error" if "error" in per.get(m.name, {}) else _t(per.get(m.name, {}).get("time_s"))
                                for m in methods])
    lines.append(md_table(["case"] + [_method_title(m) for m in methods], rows))
    if report["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in report["notes"]]
    lines += ["", f"Benchmark time: {report['elapsed_s']:.1f} s"]
    return "\n".join(lines) + "\n"


def run_objects(args: argparse.Namespace) -> int:
    """``inpaint bench --objects [DIR] --sheets OUT``: our configurations and the peers on real object
    removals without truth; one contact sheet per case and ``OUT/index.md``, times on stdout."""
    if args.quality:
        return _error("--objects and --quality run separately")
    if not args.sheets:
        return _error("--objects writes contact sheets: give --sheets DIR")
    if args.quality_data is not None:
        return _error("--quality-data belongs to --quality; give the objects' folder as --objects DIR")
    repeat = args.repeat if args.repeat is not None else 1
    if repeat < 1:
        return _error("--repeat must be at least 1")
    explicit = None if args.objects is True else args.objects
    root = find_objects_root(explicit)
    if root is None:
        return _error(f"--objects {explicit}: no index.json there" if explicit is not None else
                      "the object removals (datasets/objects with index.json) were not found: run from a checkout, "
                      "or pass --objects DIR")
    try:
        configs, names, peers, missing = _contenders(args)
        cases = load_object_cases(root, args.cases)
    except (ValueError, OSError) as exc:
        return _error(str(exc))
    notes: list[str] = []
    t0 = time.perf_counter()
    methods = [ours_method(n, configs[n], args.backend, args.device) for n in names] + \
              [peer_method(p) for p in peers]
    info = machine(args.device, args.backend, notes)
    numbers, images = measure(cases, methods, repeat, notes)
    _failures(numbers, methods, notes)
    out = Path(args.sheets)
    for c in cases:
        object_sheet(c, images[c.name], numbers[c.name], methods, out / f"{c.name}.png")
    report: dict[str, Any] = {
        "command": _command("--objects"), "machine": info, "repeat": repeat, "backend": args.backend,
        "device": args.device, "objects": str(root), "sheets": str(out), "methods": _methods_json(methods),
        "peers_missing": missing,
        "cases": [{"name": c.name, "description": c.description, "width": c.size[0], "height": c.size[1],
                   "hole_pixels": c.hole_pixels} for c in cases],
        "numbers": numbers, "ours_ran_on": _ran_on(numbers), "notes": notes,
        "elapsed_s": time.perf_counter() - t0,
    }
    (out / "index.md").write_text(objects_markdown(report, cases, methods, relative=True), encoding="utf-8")
    print(objects_markdown(report, cases, methods))
    _write_json(args.json, report)
    return 0

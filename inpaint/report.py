"""Human-readable reports of a fill: the per-stage timing table and the patch mapping picture.

Used by the ``inpaint`` command (``--stats``, ``--save-mapping``) and by the benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["STEP_LABELS", "format_stats", "format_phases", "draw_mapping", "draw_offsets", "format_percent",
           "format_seconds", "seconds_left"]

#: What each step of the multiscale fill does.
STEP_LABELS = {
    "onion": "first fill: peel the hole from its edge inwards, each pixel copying its best match",
    "patchmatch": "PatchMatch: find each patch's most similar source patches",
    "vote": "voting: the best-matching patches decide each pixel",
    "poisson": "gradient-domain correction: carry the surrounding tones in",
    "levels": "image pyramid: halve the photo, carry each level's fill to the next",
}


def format_percent(fraction: float) -> str:
    """``fraction`` as a percentage that never reads as all or nothing when it is not.

    Whole percents, with as many decimals as it takes (up to three) for a share short of 1 not
    to print as ``100%`` and a share above 0 not to print as ``0%``: ``0.998`` -> ``'99.8%'``,
    ``0.8`` -> ``'80%'``, ``1.0`` -> ``'100%'``.  Values above 1 (a zoom of 250 %) print whole.
    """
    pct = float(fraction) * 100.0
    for decimals in range(4):
        text = f"{pct:.{decimals}f}"
        if (float(text) == 100.0 and pct < 100.0) or (float(text) == 0.0 and pct > 0.0):
            continue
        return f"{text}%"
    return f"{pct:.3f}%"


def format_seconds(seconds: float) -> str:
    """``75`` -> ``'1:15'``, ``3725`` -> ``'1:02:05'``; days for absurd values."""
    if seconds != seconds or seconds < 0:  # NaN
        return "?"
    s = int(round(seconds))
    if s >= 86400 * 2:
        return f"{s / 86400:.0f} days"
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def seconds_left(elapsed: float, fraction: float) -> float | None:
    """Seconds left at the pace so far, or None before there is a pace to go by.

    Every progress display (the command's bar, the app's status line) estimates with this.
    """
    if fraction <= 0.005 or elapsed < 0.2:
        return None
    return max(elapsed * (1.0 - fraction) / fraction, 0.0)


def _rows(stats: Any, names: Sequence[str], labels: dict, where: Any) -> list[str]:
    total = sum(stats.stage_seconds.values()) + stats.transfer_seconds
    rows = []
    timed = getattr(stats, "timed", True)
    for s in names:
        sec = stats.stage_seconds.get(s, 0.0)
        pct = 100 * sec / total if total else 0.0
        if where(s) == "device" and not timed:
            rows.append(f"| {labels[s]} | device | not measured | |")
            continue
        rows.append(f"| {labels[s]} | {where(s)} | {sec:.4f} | {pct:.2f} |")
    pct = 100 * stats.transfer_seconds / total if total else 0.0
    rows.append(f"| host<->device transfers and sync | | {stats.transfer_seconds:.4f} | {pct:.2f} |")
    rows.append(f"| **total** | | **{total:.4f}** | 100 |")
    return rows


def _build_note(stats: Any) -> str:
    build = getattr(stats, "build_seconds", 0.0)
    return f" (of which {build:.3f} s building or loading the OpenCL program)" if build else ""


def format_stats(stats: Any) -> str:
    """The time spent per step as a Markdown table (for the Criminisi pipeline, like the
    paper's Table 2)."""
    alpha = "full" if stats.alpha is None else stats.alpha
    head = ["", "| stage | where | seconds | % |", "|---|---|---:|---:|"]
    if getattr(stats, "method", "criminisi") == "multiscale":
        from .methods.multiscale.job import STEPS

        where = "device" if stats.backend == "opencl" else "host"
        levels = " > ".join(f"{w}x{h}" for w, h in stats.levels)
        lines = [f"multiscale fill, backend {stats.backend} on {stats.device}; patch {stats.patch}, "
                 f"{stats.candidates} candidate{'s' if stats.candidates != 1 else ''}, alpha {alpha}, "
                 f"search area {stats.search_area}; "
                 f"levels {levels}",
                 f"{stats.iterations} rounds, {stats.widened} widened search areas, {stats.total_seconds:.3f} s wall"
                 + _build_note(stats)]
        return "\n".join(lines + head + _rows(stats, STEPS, STEP_LABELS, lambda s: where))
    from .methods.criminisi.stages import LABELS as STAGE_LABELS, NAMES as names

    lines = [f"Criminisi fill, backend {stats.backend} on {stats.device}; patch {stats.patch}, alpha {alpha}, "
             f"sources {stats.source}, search area {stats.search_area}, "
             f"findBestPatch {stats.variant}" + (", pruned" if stats.pruned else "")
             + (f" ({stats.local_mem_bytes} B local memory per work-group)" if stats.local_mem_bytes else ""),
             f"{stats.iterations} iterations, {stats.widened} widened search areas, "
             f"{stats.total_seconds:.3f} s wall" + _build_note(stats)
             + ("; device-resident loop (stages 2, 4 and 5 run as one kernel, booked under priority; the end "
                "of stage 7 runs with stage 8, under copy)"
                if getattr(stats, "loop", "host") == "device" else "")]

    def where(stage: str) -> str:
        return "device" if stage in stats.device_stages else "host"

    return "\n".join(lines + head + _rows(stats, names, STAGE_LABELS, where))


def format_phases(rows: Sequence[tuple[str, float]], wall: float, start: str, other: str) -> str:
    """A whole command's time as a Markdown table: each phase's wall time in ``rows``
    (``(name, seconds)``), then ``other`` (the wall minus them), then the total.

    Every time is rounded to the millisecond and "other" is taken from the rounded values, so
    the printed rows add up to the printed wall exactly."""
    ms = [(name, int(round(sec * 1000))) for name, sec in rows]
    total = int(round(wall * 1000))
    ms.append((other, total - sum(m for _, m in ms)))
    lines = ["", f"whole command: {total / 1000:.3f} s wall, from {start} until this table",
             "| phase | seconds | % |", "|---|---:|---:|"]
    for name, m in ms:
        pct = 100 * m / total if total else 0.0
        lines.append(f"| {name} | {m / 1000:.3f} | {pct:.1f} |")
    lines.append(f"| **total** | **{total / 1000:.3f}** | 100 |")
    return "\n".join(lines)


def draw_mapping(rgb: Any, patches: Sequence[tuple[int, int, int, int]], patch: int) -> Any:
    """The image with each target patch (red) joined to its source patch (green), as a PIL image."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(rgb).convert("RGB")
    draw = ImageDraw.Draw(img)
    half = patch // 2
    for ty, tx, sy, sx in patches:
        draw.line([(tx, ty), (sx, sy)], fill=(255, 220, 0), width=1)
        draw.rectangle([tx - half, ty - half, tx + half, ty + half], outline=(255, 0, 0))
        draw.rectangle([sx - half, sy - half, sx + half, sy + half], outline=(0, 255, 0))
    return img


def draw_offsets(rgb: Any, source_map: Any, mask: Any) -> Any:
    """The image with every filled pixel coloured by where its source lies (hue: direction,
    brightness: distance) and the rest dimmed, as a PIL image.  Regions of one colour were
    copied as one piece; many small specks mean many small pieces."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(rgb)
    mask = np.asarray(mask, bool)
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    dy = source_map[ys, xs, 0].astype(np.float64) - ys
    dx = source_map[ys, xs, 1].astype(np.float64) - xs
    dist = np.hypot(dy, dx)
    hsv = np.zeros((h, w, 3), np.uint8)
    hsv[ys, xs, 0] = (((np.arctan2(dy, dx) / (2 * np.pi)) % 1.0) * 255).astype(np.uint8)
    hsv[ys, xs, 1] = 255
    hsv[ys, xs, 2] = (64 + 191 * dist / max(dist.max(initial=0.0), 1.0)).astype(np.uint8)
    out = np.asarray(Image.fromarray(hsv, "HSV").convert("RGB")).copy()
    grey = rgb.astype(np.uint16).mean(axis=2, keepdims=True).astype(np.uint8) // 2
    out[~mask] = np.repeat(grey, 3, axis=2)[~mask]
    return Image.fromarray(out)

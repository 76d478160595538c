"""Human-readable reports of a fill: the per-stage timing table and the whole command's phases.

Used by the ``inpaint`` command (``--stats``) and by the benchmarks.  Each method's rows come
from its method object (:mod:`inpaint.methods.registry`); the mapping pictures are in
:mod:`inpaint.drawing` (a method object's ``mapping``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .drawing import draw_mapping, draw_offsets
from .methods import registry

__all__ = ["format_stats", "format_phases", "draw_mapping", "draw_offsets", "format_percent", "format_seconds",
           "seconds_left"]


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


def format_stats(stats: Any) -> str:
    """The time spent per step as a Markdown table, with the method's headline above it (for the
    Criminisi pipeline, like the paper's Table 2)."""
    method = registry.get(stats.method)
    head = ["", "| stage | where | seconds | % |", "|---|---|---:|---:|"]
    return "\n".join(method.headline(stats) + head
                     + _rows(stats, method.steps, method.labels, lambda s: method.where(stats, s)))


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

"""The multiscale method as the front ends see it: one :class:`~inpaint.methods.options.Method`."""

from __future__ import annotations

from typing import Any

from ...drawing import draw_offsets
from ..options import Method, build_note
from .options import OPTIONS
from .steps import LABELS, STEPS


def _job() -> type:
    from .job import MultiscaleInpainter

    return MultiscaleInpainter


def _headline(stats: Any) -> list[str]:
    alpha = "full" if stats.alpha is None else stats.alpha
    levels = " > ".join(f"{w}x{h}" for w, h in stats.levels)
    apart = [f"{stats.groups} groups of the hole lie far apart: filled one after the other (the levels and "
             "search area above are the largest's)"] if stats.groups > 1 else []
    lines = getattr(stats, "lines", 0)
    apart += [f"{lines} straight line{'s' if lines != 1 else ''} continued across the hole before the fill"] \
        if lines else []
    return [f"multiscale fill, backend {stats.backend} on {stats.device}; patch {stats.patch}, "
            f"blend {stats.candidates}, search area {alpha} {stats.search_area}; levels {levels}",
            f"{stats.iterations} rounds, {stats.widened} widened search areas, {stats.total_seconds:.3f} s wall"
            + build_note(stats)] + apart


METHOD = Method(
    name="multiscale",
    summary="coarse-to-fine PatchMatch in which the best-matching patches give each pixel its texture, so "
            "texture stays sharp, with the surrounding tones carried in",
    options=OPTIONS, load_job=_job, steps=STEPS, labels=LABELS, unit="rounds", cost=1.0, headline=_headline,
    where=lambda stats, step: "device" if stats.backend == "opencl" else "host",
    mapping=lambda result, mask: draw_offsets(result.image, result.source_map, mask))

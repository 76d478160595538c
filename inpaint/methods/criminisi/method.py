"""The Criminisi method as the front ends see it: one :class:`~inpaint.methods.options.Method`."""

from __future__ import annotations

from typing import Any

from ...drawing import draw_mapping
from ..options import Method, build_note
from .options import OPTIONS
from .stages import LABELS, NAMES


def _job() -> type:
    from .job import Inpainter

    return Inpainter


def _headline(stats: Any) -> list[str]:
    alpha = "full" if stats.alpha is None else stats.alpha
    return [f"Criminisi fill, backend {stats.backend} on {stats.device}; patch {stats.patch}, "
            f"sources {stats.source}, search area {alpha} {stats.search_area}, "
            f"findBestPatch {stats.variant}" + (", pruned" if stats.pruned else "")
            + (f" ({stats.local_mem_bytes} B local memory per work-group)" if stats.local_mem_bytes else ""),
            f"{stats.iterations} iterations, {stats.widened} widened search areas, "
            f"{stats.total_seconds:.3f} s wall" + build_note(stats)
            + ("; device-resident loop (stages 2, 4 and 5 run as one kernel, booked under priority; the end "
               "of stage 7 runs with stage 8, under copy)"
               if getattr(stats, "loop", "host") == "device" else "")]


METHOD = Method(
    name="criminisi", summary="the paper's greedy patch-by-patch fill", options=OPTIONS, load_job=_job,
    steps=NAMES, labels=LABELS, unit="iterations", cost=2.0, headline=_headline,
    where=lambda stats, step: "device" if step in stats.device_stages else "host",
    mapping=lambda result, mask: draw_mapping(result.image, result.stats.patches, result.stats.patch))

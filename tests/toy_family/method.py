"""The toy method as the front ends see it: one :class:`~inpaint.methods.options.Method`."""

from __future__ import annotations

from typing import Any

from ...drawing import draw_offsets
from ..options import Method
from .options import OPTIONS


def _job() -> type:
    from .job import ToyJob

    return ToyJob


def _headline(stats: Any) -> list[str]:
    return [f"toy fill on {stats.device}", f"{stats.iterations} layers, {stats.total_seconds:.3f} s wall"]


METHOD = Method(
    name="toy", summary="every hole pixel copies its nearest known pixel", options=OPTIONS, load_job=_job,
    steps=("peel",), labels={"peel": "peel the hole, each pixel copying a known neighbour"}, unit="layers",
    cost=0.1, headline=_headline, where=lambda stats, step: "host",
    mapping=lambda result, mask: draw_offsets(result.image, result.source_map, mask), backends=("numpy",))

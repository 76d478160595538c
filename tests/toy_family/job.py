"""The toy job: the hole is peeled from its edge inwards, one layer a step, each pixel copying
the pixel above, left, right or below it (the first of them known) and so, in the end, a known one."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..base import FillStats, Job
from .options import Options

#: Neighbours a pixel may copy, in the order they are tried: (row, col) offsets.
NEIGHBOURS = ((-1, 0), (0, -1), (0, 1), (1, 0))


@dataclasses.dataclass
class ToyStats(FillStats):
    """What a toy run did: ``iterations`` counts layers."""

    method: str = "toy"
    stage_seconds: dict = dataclasses.field(default_factory=lambda: {"peel": 0.0})


class ToyJob(Job):
    """Fill the hole layer by layer from its edge, each pixel a copy of a known neighbour."""

    Options = Options
    Stats = ToyStats

    def prepare(self) -> list[int]:
        sources = ~self.mask if self.protect is None else ~self.mask & ~self.protect
        if not sources.any():
            raise self.no_sources(1)
        h, w = self.mask.shape
        self._image, self._known = self.rgb.copy(), sources
        self._src = np.full((h, w, 2), -1, np.int32)
        self._layers = []
        filled = sources.copy()
        while (self.mask & ~filled).any():
            taken = np.full((h, w, 2), -1, np.int32)
            for dy, dx in NEIGHBOURS:  # the first neighbour filled so far of every hole pixel
                near = np.pad(filled, 1)[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] & self.mask & ~filled
                ys, xs = np.nonzero(near & (taken[..., 0] < 0))
                taken[ys, xs] = np.stack([ys + dy, xs + dx], axis=1)
            ys, xs = np.nonzero(taken[..., 0] >= 0)
            if not len(ys):  # the rest of the hole is walled in by protected pixels
                raise self.no_sources(1)
            self._layers.append((ys, xs, taken[ys, xs]))
            filled[ys, xs] = True
        return [len(ys) for ys, _, _ in self._layers]

    def run_step(self, index: int) -> None:
        ys, xs, near = self._layers[index]
        self._image[ys, xs] = self._image[near[:, 0], near[:, 1]]
        # the neighbour copied is known, or was filled from a known pixel: its origin is the source
        origin = np.where(self._known[near[:, 0], near[:, 1], None], near, self._src[near[:, 0], near[:, 1]])
        self._src[ys, xs] = origin

    def step_name(self, index: int) -> str:
        return "peel"

    def current(self) -> np.ndarray:
        return self._image.copy()

    def source_map(self):
        src = self._src.copy()
        return lambda: src

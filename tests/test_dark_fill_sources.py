"""``tools/dark_fill_sources.py``: which hole pixels it counts as dark, and what it says of their
sources, on a picture made so that every answer is known by hand."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import tool_module

pytest.importorskip("cv2")

def _tool():
    return tool_module("dark_fill_sources")


def test_dark_pixels_and_their_sources():
    tool = _tool()
    h, w = 97, 131
    image = np.full((h, w, 3), 150, np.uint8)
    image[:, 100:104] = 40  # a dark stripe, far from the hole, with strong edges on both sides
    mask = np.zeros((h, w), bool)
    mask[40:57, 30:51] = True
    fill = image.copy()
    smap = np.full((h, w, 2), -1, np.int32)
    ys, xs = np.nonzero(mask)
    smap[ys, xs, 0], smap[ys, xs, 1] = ys, 10  # light sources, 20 px from the hole
    dark_rows = slice(40, 45)  # the hole's top five rows copy the stripe
    fill[dark_rows, 30:51] = 40
    smap[dark_rows, 30:51, 1] = 101
    around = tool.surroundings(image, mask)
    assert np.allclose(around[mask], 150, atol=0.5)  # the known pixels' mean, the stripe too far to count
    found = tool.dark(fill, mask, around)
    assert found.sum() == 5 * 21 and found[dark_rows, 30:51].all()
    report = tool.sources_report(image, mask, fill, smap, around)
    dark, every = report["dark"], report["all"]
    assert dark["pixels"] == 5 * 21 and every["pixels"] == mask.sum()
    assert dark["within 3 px of the hole"] == 0 and every["within 3 px of the hole"] == 0
    assert dark["median distance to the hole"] == pytest.approx(51, abs=1.5)
    assert dark["within 3 px of a strong edge"] == 1
    assert every["within 3 px of a strong edge"] == pytest.approx(5 / 17)
    assert dark["source below its surroundings"] == pytest.approx(110, abs=0.5)
    assert dark["median |fill - source|"] == 0

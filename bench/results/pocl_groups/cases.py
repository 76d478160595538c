"""The twelve cases of these measurements: the four of the paper's set and eight truth cases."""

import numpy as np
from PIL import Image

from inpaint.io.cases import load_case

CASES = ["walkingman", "river", "hill", "divingman", "quality/sky_blob", "quality/wire_tower",
         "quality/tower_ridges", "quality/bowl_rim", "quality/grass_blob", "quality/bark_blob",
         "quality/wall_gradient", "quality/brick_stroke"]


def load(name):
    """``(image, mask)`` of a case: a paper case by name, a truth case's truth and mask."""
    if "/" not in name:
        case = load_case(name)
        return case.image, case.mask
    image = np.asarray(Image.open(f"datasets/{name}/truth.png").convert("RGB"))
    return image, np.asarray(Image.open(f"datasets/{name}/mask.png").convert("L")) > 127

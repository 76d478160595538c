"""The multiscale fill's steps, as its statistics and timing table name them, and their weights in its progress."""

from __future__ import annotations

#: The steps, in the order of the timing table.
STEPS = ("onion", "patchmatch", "vote", "poisson", "levels")

#: What each step does, in the timing table.
LABELS = {
    "onion": "first fill: peel the hole from its edge inwards, each pixel copying its best match",
    "patchmatch": "PatchMatch: find each patch's most similar source patches",
    "vote": "voting: each hole pixel from what the covering patches copy",
    "poisson": "gradient-domain correction: carry the surrounding tones in",
    "levels": "image pyramid: halve the photo, carry each level's fill to the next",
}

#: What a round costs, to weigh the job's progress by: a fixed part, in hole pixels, and the cost of
#: a pixel of the photo's own level against a coarser level's (its short search), by backend.
#: Measured on a 2-core CPU (PoCL and numpy) with holes of 0.04 and 0.16 MP: OpenCL 5 ms a round
#: and 3.0 us a pixel, 2.0 us at the photo's level; numpy 0.15 s and 180 us, 47 us.
ROUND_COST = {True: (1700, 0.66), False: (830, 0.26)}


def round_weights(rounds: list[tuple[int, int]], pixels: list[int], device: bool) -> list[float]:
    """Each round's weight in the job's progress: ``rounds`` as (level, round), ``pixels`` the hole's
    pixels at each level, ``device`` whether the fill runs on OpenCL.  The time left is estimated
    at the pace of the rounds done, so a round's weight is its share of the time."""
    fixed, finest = ROUND_COST[device]
    return [fixed + pixels[lv] * (finest if lv == 0 and len(pixels) > 1 else 1.0) for lv, _ in rounds]


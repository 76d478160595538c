"""The multiscale fill's steps, as its statistics and timing table name them."""

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

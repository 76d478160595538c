"""The multiscale method's options, each declared once (see :mod:`inpaint.methods.options`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InputError
from ..base import options_type
from ..checks import check_choice, parse_int
from ..defaults import MAX_CANDIDATES, MAX_SEED
from ..options import ALPHA, PATCH, Option

#: Candidates each patch keeps by default: 1 keeps texture as sharp as its source.
DEFAULT_CANDIDATES = 1
#: The largest weight of the gradient term (at the default patch; a larger patch allows less:
#: :func:`fitting_gradients`).
MAX_GRADIENTS = 64
#: The colour adaptation's settings, and the straight lines'.
ADAPT_CHOICES = LINES_CHOICES = ("off", "on")
#: The transformed sources' settings, in the order of ``reference.XFORM_CODES``' keys.
TRANSFORM_CHOICES = ("off", "mirror", "turns", "all")


def _candidates(candidates: Any) -> int:
    try:
        k = int(candidates)
    except (TypeError, ValueError, OverflowError):
        k = 0
    if k != candidates or isinstance(candidates, (bool, np.bool_)) or not 1 <= k <= MAX_CANDIDATES:
        raise InputError(f"candidates must be an integer from 1 to {MAX_CANDIDATES}, got {candidates!r}")
    return k


def _gradients(weight: Any) -> int:
    if not isinstance(weight, (int, np.integer)) or isinstance(weight, bool) or not 0 <= int(weight) <= MAX_GRADIENTS:
        raise InputError(f"match_gradients must be an integer from 0 to {MAX_GRADIENTS}, got {weight!r}")
    return int(weight)


def fitting_gradients(weight: int, patch: int, mean_weight: int, near_most: int) -> int:
    """``weight`` (the gradient term's), checked against the patch: the kernels add a patch's
    distance up in 32 bits, so its largest (every colour, feature and grey step at its extreme, plus
    the mean-colour term of ``mean_weight`` and at most ``near_most`` of the distance term) must fit.

    Raises
    ------
    InputError
        The weight is too large for the patch; the message gives the largest that fits.
    """
    from .reference import FEATURE_WEIGHT, GRAD_SHIFT

    def largest(w: int) -> int:
        colour = (3 + FEATURE_WEIGHT) * 255 * 255
        steps = 2 * ((w * (6 * 255) ** 2) >> GRAD_SHIFT)  # a pixel's two neighbour pairs
        return patch * patch * (colour + steps) + mean_weight * 3 * 255 * 255 * patch * patch // 4 + near_most

    if weight and largest(weight) > 0xFFFFFFFE:
        most = max((w for w in range(weight) if largest(w) <= 0xFFFFFFFE), default=0)
        raise InputError(f"match_gradients {weight} is too large for patch {patch}: at most {most} there (a patch's "
                         "distance must fit 32 bits)")
    return weight


def _seed(seed: Any) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= int(seed) <= MAX_SEED:
        raise InputError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    return int(seed)


CANDIDATES = Option(
    "candidates", default=DEFAULT_CANDIDATES, check=_candidates,
    parse=lambda text, flag: parse_int(text, flag, 1, MAX_CANDIDATES), flag="--blend", old_flag="--candidates",
    metavar="K", group="tune", rank=25, cost=lambda k: 1 + 0.09 * (k - 1),
    help=f"multiscale: source patches each patch votes with, 1-{MAX_CANDIDATES} (default {DEFAULT_CANDIDATES}: "
         "texture as sharp as its source); more blend more smoothly")
#: What the covering patches vote: their colours alone, or their gradients too (the fill then solved
#: from both, :mod:`inpaint.methods.multiscale.gradients`).
VOTES = ("colours", "gradients")
VOTE = Option(
    "vote", default="colours", check=lambda v: check_choice("vote", v, VOTES), flag="--vote", choices=VOTES,
    group="tune", rank=27, cost=lambda v: 1.95 if v == "gradients" else 1.0,
    help="multiscale: what the covering patches vote: 'colours' (default), or 'gradients' too, the fill then "
         "solved from both (a screened Poisson fill, after Darabi et al.'s Image Melding)")
SEED = Option(
    "seed", default=0, check=_seed, parse=lambda text, flag: parse_int(text, flag, 0, MAX_SEED), flag="--seed",
    metavar="N", group="tune", rank=45,
    help=f"multiscale: varies the fill, 0-{MAX_SEED} (default 0); the same seed always gives the same result, "
         "another seed another fill to choose from")

GRADIENTS = Option(
    "match_gradients", default=0, check=_gradients, parse=lambda text, flag: parse_int(text, flag, 0, MAX_GRADIENTS),
    flag="--match-gradients", metavar="W", group="tune", rank=30, cost=lambda w: 1.35 if w else 1.0,
    help=f"multiscale: weight of the patches' grey-level gradients in every match, 0-{MAX_GRADIENTS} (less with a "
         "patch over 9; default 0: off), so a match continues an edge, not only a colour")
ADAPT = Option(
    "adapt", default="off", check=lambda v: check_choice("adapt", v, ADAPT_CHOICES),
    parse=lambda text, flag: check_choice(flag, text, ADAPT_CHOICES), flag="--adapt-colour",
    choices=ADAPT_CHOICES, metavar="{off,on}", group="tune", rank=35,
    cost=lambda v: 1.85 if v == "on" else 1.0,
    help="multiscale: 'on' lets each match brighten or darken its source a little (a gain of 0.8-1.25 and a "
         "bias per colour, used by the copy too), so a source in shade can fill a hole in light "
         "(default off)")
LINES = Option(
    "straight_lines", default="off", check=lambda v: check_choice("straight_lines", v, LINES_CHOICES),
    parse=lambda text, flag: check_choice(flag, text, LINES_CHOICES), flag="--straight-lines",
    choices=LINES_CHOICES, metavar="{off,on}", group="tune", rank=37,
    help="multiscale: 'on' finds straight lines that cross the hole (a horizon, a plank's edge, a kerb) and "
         "continues them across it before the fill, copied along themselves from the known part, so they "
         "stay straight; where none qualifies the fill is as with 'off' (default off)")

TRANSFORMS = Option(
    "transforms", default="off", check=lambda v: check_choice("transforms", v, TRANSFORM_CHOICES),
    parse=lambda text, flag: check_choice(flag, text, TRANSFORM_CHOICES), flag="--transforms",
    choices=TRANSFORM_CHOICES, metavar="{off,mirror,turns,all}", group="tune", rank=38,
    cost=lambda v: {"mirror": 1.5, "turns": 1.5, "all": 2.7}.get(v, 1.0),
    help="multiscale: let the search also copy source patches transformed: 'mirror' mirrored left-right, "
         "'turns' mirrored either way and turned by quarter turns, 'all' also turned by any 16th of a "
         "turn and scaled by 0.75-1.33 (resampled), so a symmetric, turned or nearer texture can fill "
         "the hole (default off)")

# (Each option's ``cost``: its fill's time against the default's, measured with PoCL on two cores on a
# 0.16 MP hole: transforms 'mirror' 1.57, 'turns' 1.52, 'all' 2.66; blend 2 1.10, 4 1.26; vote
# 'gradients' 1.95; match_gradients 8 1.36; adapt 'on' 1.86.)

#: The method's own options, in the order messages list them; the run context's are every
#: method's (:data:`inpaint.methods.options.RUN_OPTIONS`).
OPTIONS = (ALPHA.with_default(1), PATCH.with_default(7), CANDIDATES, VOTE, GRADIENTS, ADAPT, LINES, TRANSFORMS, SEED)
#: Each option by name.
BY_NAME = {o.name: o for o in OPTIONS}
#: The typed options the job reads.
Options = options_type("MultiscaleOptions", OPTIONS)

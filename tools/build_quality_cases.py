"""Rebuild the fill-quality truth set in ``datasets/quality/``.

This script is a build tool, not part of the package: nothing imports it.  Every case is a
crop of a free-licensed photograph (``truth.png``) plus a hand-placed hole mask
(``mask.png``, 0 = keep, 255 = hole) drawn over part of the photo's background, the way a
user would mask an unwanted object there.  An inpainting method gets ``truth`` with the
masked pixels destroyed and must reconstruct them; it is scored against ``truth``.  The
holes of the category ``object`` are the silhouettes of real objects (a horse, a person,
a bird, a bottle, a dog, a tripod, ...), traced in other photos (or other parts of the
same photo) by ``tools/build_object_cases.py`` and placed where such an object could
stand.

Inputs (not committed): the folder ``tools/build_object_cases.py`` describes (its docstring
says how to fetch it; nothing is downloaded at run time), then::

    python tools/build_quality_cases.py --inputs /tmp/qsrc --out datasets/quality

The object silhouettes come from ``OBJECTS`` of ``tools/build_object_cases.py`` (imported
from this script's folder), which outlines them in their own photos (listed in its
``INPUTS`` and in ``INPUTS`` here, with the same sha256).

Each input is found by file name anywhere under ``--inputs`` (then in the installed
``skimage/data``) and checked against the sha256 recorded in ``INPUTS``, so the layout of
the inputs folder does not matter.

Which packages were looked at and why most of their files are not used: the other
candidates (``lomiri-wallpapers``, ``ukui-wallpapers``, ``gnome-backgrounds``,
``desktop-base``, the 20.04 set apart from Kleiber, and a few 16.04 files) are renders,
vector art or gradients, not photographs, or (``gnome-backgrounds`` 43.1) files that its
copyright file does not list.  See ``datasets/quality/SOURCES.md``.

Requires numpy, scipy and Pillow.  The output is byte-identical for the same inputs and
library versions (Pillow 13.0, numpy 2.4, scipy 1.17 were used): crops are resized with
Pillow's Lanczos filter, masks are drawn from a fixed seed per case, PNGs are written
with ``optimize=False`` and a fixed compression level and carry no timestamp.

How each mask is made
---------------------
Shapes are given in output pixels and rasterised at 4x supersampling (coverage >= 1/2
is a hole pixel):

* ``blob``: a union of ellipses (a main one plus ``k - 1`` smaller ones at random offsets,
  random orientations) whose outline is then perturbed: the signed distance to the
  outline plus ``amp`` px of smooth noise (Gaussian-filtered white noise, ``sigma`` px) is
  thresholded at 0.  Blobs centred on or beyond a border give the big border holes.
* ``stroke``: a thick polyline with round caps and joints through the control points
  (Catmull-Rom smoothed), outline perturbed the same way (a brush stroke).
* ``wire``: a thin curve of constant width (2-8 px) between two end points (which may lie
  outside the image so that it spans it) sagging by ``sag`` px at the middle (a wire or
  cable).  Not perturbed.
* ``silhouette`` (category ``object``): the outline of one or more real objects of
  ``build_object_cases.OBJECTS`` (all from one photo, at that photo's resolution) is
  cropped to its bounding box, mirrored if asked, reduced by area averaging (Pillow
  ``BOX``) to ``h`` px high (width by the aspect ratio; coverage >= 1/2 is a hole pixel),
  placed with its top-left corner at (``x``, ``y``) (``"left"``, ``"right"``, ``"top"``,
  ``"bottom"`` align it with that image border, for objects cut by the frame of their own
  photo) and
  dilated by a rim of ``rim`` px (every pixel within that Euclidean distance), as a user's
  brush would overlap the object's edge.  Not perturbed, no random numbers.

Afterwards holes inside the mask are filled (for ``object`` cases only holes of at most
``build_object_cases.MAX_HOLE`` px: the ground between a tripod's legs stays known) and
specks under 40 px are dropped, and any known pixel near the hole that no fully known 9x9
window covers (a sliver between two parts of the hole or between the hole and the border)
is added to the hole, so every known pixel next to the hole belongs to a complete 9x9
source patch.  The checks in ``check_mask`` then bound the hole fraction and the sides it
touches (an ``object`` case touches exactly the sides listed in its ``touches``).

The held-out split is drawn after all cases are built, with ``HOLDOUT_SEED`` over the
first five categories (the 31 cases of the first release): one case per category at
random, then random cases until a quarter (at least 6) are held out.  The ``object``
cases were added later and drawn separately, so that the first split did not change:
with ``OBJECT_HOLDOUT_SEED``, one case per ``content`` (what lies under the hole:
texture, structure, smooth) at random, then random cases until a quarter (at least 3).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_object_cases as objects  # the object outlines, same folder

SS = 4  #: supersampling factor for rasterising shapes
HOLDOUT_SEED = 20250611
CATEGORIES = ("thin", "texture", "structure", "smooth", "border")
#: added later, with their own holdout draw (the first five keep theirs)
OBJECT_CATEGORY = "object"
OBJECT_HOLDOUT_SEED = 20250723
CONTENTS = ("texture", "structure", "smooth")  #: what lies under an object case's hole

# --------------------------------------------------------------------------------------
# inputs: file name -> provenance (authors and licences verbatim from the packages'
# /usr/share/doc/<package>/copyright and from skimage/data/_fetchers.py)
# --------------------------------------------------------------------------------------

L16 = ("lomiri-wallpapers-16.04", "20.04.0-2")
L20 = ("lomiri-wallpapers-20.04", "20.04.0-2")
SKI = objects.SKI

INPUTS: dict[str, dict] = {
    "aitzgorri_by_Aitzol_Berasategi.jpg": dict(
        pkg=L16, sha256="66268e7b48f8854d36a28765fac6e23ec1aee251daa6da1f64715f201020ad36",
        author="Aitzol Berasategi, 2018", licence="CC-BY-4.0",
        what="Aitzgorri: autumn larches and a meadow under a limestone ridge"),
    "Picture_1A_by_freespace.jpg": dict(
        pkg=L16, sha256="89e86af38d04daaef975665dc2127e9fa76f0fd68f4eea105a2d0ae3390b010b",
        author='Trevor "Freespace", 2018', licence="CC-BY-4.0",
        what="paint brushes with coloured bristles"),
    "picosdeeuropa_by_Aitzol_Berasategi.jpg": dict(
        pkg=L16, sha256="414d0072b2f6f2c555deafeaef6e45c4fed6fa9ad26eba6560ca8803959cf97a",
        author="Aitzol Berasategi, 2018", licence="CC-BY-4.0",
        what="Picos de Europa: limestone peaks, blue sky, a path through pasture"),
    "life_by_Aitzol_Berasategi.jpg": dict(
        pkg=L16, sha256="4c119350ead80201fe256850c3d316309ddfb4bdf10b235ce982dcde0c667c05",
        author="Aitzol Berasategi, 2018", licence="CC-BY-4.0",
        what="forest stream over limestone rocks"),
    "Bridge_by_Sander_Klootwijk.jpg": dict(
        pkg=L16, sha256="bd86b081f9975e2b83527f71e49b9271a8ab40885428395969d9f7d834d7f050",
        author="2018. Sander Klootwijk", licence="CC-BY-SA-4.0",
        what="bridge stays over an estuary, blue sky"),
    "chelsea.png": dict(
        pkg=SKI, sha256="596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
        author="Stefan van der Walt (photographer)", licence="CC0-1.0",
        what="Chelsea the cat (skimage.data.chelsea)"),
    "brick.png": dict(
        pkg=SKI, sha256="7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf",
        author="CC0Textures (Bricks25)", licence="CC0-1.0",
        what="brick wall, grey (skimage.data.brick)"),
    "gravel.png": dict(
        pkg=SKI, sha256="c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12",
        author="CC0Textures (Gravel04)", licence="CC0-1.0",
        what="gravel, grey (skimage.data.gravel)"),
    "grass.png": dict(
        pkg=SKI, sha256="b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89",
        author='DeviantArt user "linolafett" (Grass-01)', licence="CC0-1.0",
        what="grass, grey (skimage.data.grass)"),
    # used only for object silhouettes (the hole's shape), not as truth
    "camera.png": dict(
        pkg=SKI, sha256="b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a",
        author="Lav Varshney (photographer)", licence="CC0-1.0",
        what="a cameraman with a tripod on a lawn (skimage.data.camera)"),
    "astronaut.png": dict(
        pkg=SKI, sha256="88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
        author="NASA (portrait of Eileen Collins)", licence="public domain",
        what="astronaut Eileen Collins (skimage.data.astronaut)"),
}
#: Photos that also give objects for removal, described the same way there: their provenance
#: is stated once, in ``build_object_cases.INPUTS``.
INPUTS.update((n, objects.INPUTS[n]) for n in (
    "friends_by_Aitzol_Berasategi.jpg",
    "seeding_by_Clements_Engelhardt.jpg",
    "Picture_0B_by_freespace.jpg",
    "Wine_by_Jakkub_Mede.jpg",
    "free_by_Peter_Nerlich.jpg",
    "Dragonfly_by_Bolly.jpg",
    "Kleiber_by_Lukas_Baubkus.jpg",
    "sunset_by_Aitzol_Berasategi.jpg",
    "coffee.png",
    "rocket.jpg",
    "horse.png",
))


# --------------------------------------------------------------------------------------
# cases: (name, category, input, crop box in the source (x0, y0, x1, y1), longer side of
# the output, seed, shapes in output pixels, what lies under the hole)
# --------------------------------------------------------------------------------------


def blob(cx, cy, rx, ry, k=3, amp=4.0, sigma=8.0, angle=None):
    return dict(kind="blob", c=(cx, cy), r=(rx, ry), k=k, amp=amp, sigma=sigma, angle=angle)


def stroke(points, width, amp=2.5, sigma=10.0):
    return dict(kind="stroke", points=points, width=width, amp=amp, sigma=sigma)


def wire(p0, p1, width, sag=0.0):
    return dict(kind="wire", p0=p0, p1=p1, width=width, sag=sag)


def silhouette(obj, h, x, y, flip=False, rim=2):
    """``obj``: a name of ``build_object_cases.OBJECTS`` or a tuple of names (one photo)."""
    names = (obj,) if isinstance(obj, str) else tuple(obj)
    return dict(kind="silhouette", objects=names, h=h, x=x, y=y, flip=flip, rim=rim)


CASES = [
    # ---------------------------------------------------------------- thin
    dict(name="wire_bokeh", category="thin", input="seeding_by_Clements_Engelhardt.jpg",
         crop=(2400, 200, 4400, 1700), long=480, seed=101,
         shapes=[wire((-10, 118), (490, 150), 4, sag=14), wire((-10, 136), (490, 171), 3, sag=16)],
         under="two sagging wires across blurred dandelion clocks and sun glare"),
    dict(name="wire_window", category="thin", input="Wine_by_Jakkub_Mede.jpg",
         crop=(500, 0, 2300, 950), long=560, seed=102,
         shapes=[wire((-10, 46), (570, 92), 5, sag=10), wire((-10, 125), (570, 165), 3, sag=12)],
         under="two cables across blurred window mullions, a wall and a bottle neck"),
    dict(name="wire_peaks", category="thin", input="picosdeeuropa_by_Aitzol_Berasategi.jpg",
         crop=(1400, 0, 3264, 1100), long=560, seed=103,
         shapes=[wire((-10, 62), (570, 142), 4, sag=18), wire((-10, 95), (570, 176), 3, sag=20)],
         under="two power lines across blue sky and a rocky peak's outline"),
    dict(name="wire_tower", category="thin", input="rocket.jpg",
         crop=(0, 0, 640, 427), long=560, seed=104,
         shapes=[wire((-10, 118), (570, 168), 3, sag=10), wire((-10, 150), (570, 212), 3, sag=12)],
         under="two wires across dusk sky, lattice towers and the rocket"),
    dict(name="wire_foliage", category="thin", input="Dragonfly_by_Bolly.jpg",
         crop=(0, 0, 1400, 1300), long=480, seed=105,
         shapes=[wire((-10, 125), (490, 40), 5, sag=15), wire((-10, 300), (490, 245), 4, sag=10)],
         under="a guy line and a wire across blue sky and sunlit hazel leaves"),
    dict(name="wire_brushes", category="thin", input="Picture_1A_by_freespace.jpg",
         crop=(380, 200, 1000, 780), long=480, seed=106,
         shapes=[stroke([(45, 405), (330, 95)], 7, amp=0), wire((-10, 170), (490, 250), 3, sag=8)],
         under="a thin stick and a wire across pink, teal and yellow bristles"),
    # ---------------------------------------------------------------- texture
    dict(name="grass_blob", category="texture", input="aitzgorri_by_Aitzol_Berasategi.jpg",
         crop=(100, 1350, 1000, 2056), long=510, seed=201,
         shapes=[blob(250, 225, 78, 55, k=3)],
         under="meadow grass with fallen leaves"),
    dict(name="concrete_stroke", category="texture", input="Picture_0B_by_freespace.jpg",
         crop=(0, 950, 900, 1740), long=456, seed=202,
         shapes=[stroke([(50, 320), (120, 270), (200, 265), (255, 300)], 30)],
         under="weathered concrete with pits and flaking patches"),
    dict(name="bristles_blob", category="texture", input="Picture_1A_by_freespace.jpg",
         crop=(0, 30, 400, 470), long=396, seed=203,
         shapes=[blob(175, 210, 62, 55, k=3)],
         under="blue paint-brush bristles (fine vertical strands)"),
    dict(name="rock_blob", category="texture", input="life_by_Aitzol_Berasategi.jpg",
         crop=(2250, 900, 3088, 2056), long=480, seed=204,
         shapes=[blob(115, 285, 55, 62, k=3)],
         under="limestone rock with moss and leaf litter"),
    dict(name="bark_blob", category="texture", input="Kleiber_by_Lukas_Baubkus.jpg",
         crop=(100, 1500, 1800, 3391), long=480, seed=205,
         shapes=[blob(210, 250, 42, 95, k=4, angle=0.15)],
         under="furrowed tree bark"),
    dict(name="gravel_blob", category="texture", input="gravel.png",
         crop=(0, 0, 512, 512), long=480, seed=206,
         shapes=[blob(245, 240, 72, 60, k=5)],
         under="gravel (grey)"),
    dict(name="fur_stroke", category="texture", input="chelsea.png",
         crop=(0, 0, 451, 300), long=451, seed=207,
         shapes=[stroke([(140, 28), (200, 40), (255, 30), (300, 45)], 22)],
         under="striped tabby fur on the cat's forehead"),
    # ---------------------------------------------------------------- structure
    dict(name="ridge_stroke", category="structure", input="aitzgorri_by_Aitzol_Berasategi.jpg",
         crop=(1000, 80, 2400, 1000), long=520, seed=301,
         shapes=[stroke([(170, 28), (215, 70), (275, 105), (330, 118)], 28)],
         under="a limestone ridge's skyline against pale sky"),
    dict(name="siding_blob", category="structure", input="friends_by_Aitzol_Berasategi.jpg",
         crop=(1200, 80, 2056, 1350), long=560, seed=302,
         shapes=[blob(190, 300, 62, 72, k=3)],
         under="white weatherboard siding: horizontal plank edges"),
    dict(name="bowl_rim", category="structure", input="Picture_0B_by_freespace.jpg",
         crop=(1500, 0, 2572, 800), long=520, seed=303,
         shapes=[blob(330, 185, 48, 42, k=3)],
         under="the curved rim of a red bowl against grey concrete"),
    dict(name="shore_stroke", category="structure", input="Bridge_by_Sander_Klootwijk.jpg",
         crop=(3350, 1750, 4352, 2448), long=500, seed=304,
         shapes=[stroke([(232, 170), (240, 230), (252, 285), (262, 325)], 30)],
         under="the far shore's edge over water and the sand shoreline of an estuary"),
    dict(name="saucer_rim", category="structure", input="coffee.png",
         crop=(0, 40, 460, 400), long=460, seed=305,
         shapes=[blob(82, 200, 36, 48, k=3)],
         under="the curved rim of a saucer against wood grain"),
    dict(name="brick_stroke", category="structure", input="brick.png",
         crop=(0, 0, 512, 512), long=448, seed=306,
         shapes=[stroke([(110, 345), (170, 275), (240, 215), (320, 130)], 28)],
         under="brick courses and mortar joints (grey)"),
    # ---------------------------------------------------------------- smooth
    dict(name="bokeh_blob", category="smooth", input="seeding_by_Clements_Engelhardt.jpg",
         crop=(3300, 1500, 5312, 2988), long=540, seed=401,
         shapes=[blob(115, 255, 55, 66, k=3)],
         under="out-of-focus dark green meadow (bokeh)"),
    dict(name="wall_gradient", category="smooth", input="free_by_Peter_Nerlich.jpg",
         crop=(1950, 950, 2880, 2160), long=480, seed=402,
         shapes=[blob(180, 250, 62, 72, k=3)],
         under="a plain grey wall with a soft light gradient"),
    dict(name="sky_blob", category="smooth", input="Bridge_by_Sander_Klootwijk.jpg",
         crop=(350, 1050, 1750, 1750), long=560, seed=403,
         shapes=[blob(280, 125, 66, 50, k=3)],
         under="clear blue sky gradient"),
    dict(name="blur_road", category="smooth", input="Kleiber_by_Lukas_Baubkus.jpg",
         crop=(3400, 1500, 6028, 3391), long=560, seed=404,
         shapes=[blob(300, 215, 70, 58, k=3)],
         under="a strongly blurred pale street background"),
    dict(name="night_sky", category="smooth", input="rocket.jpg",
         crop=(80, 0, 560, 300), long=480, seed=405,
         shapes=[blob(300, 68, 52, 40, k=3)],
         under="dark blue dusk sky gradient"),
    dict(name="beanbag_blob", category="smooth", input="Wine_by_Jakkub_Mede.jpg",
         crop=(300, 2750, 1950, 3700), long=520, seed=406,
         shapes=[blob(265, 175, 68, 50, k=3)],
         under="smooth leather of a beanbag in warm light"),
    # ---------------------------------------------------------------- border
    dict(name="planks_border", category="border", input="friends_by_Aitzol_Berasategi.jpg",
         crop=(150, 1950, 1150, 3088), long=500, seed=501,
         shapes=[blob(210, 505, 150, 125, k=4, amp=6, sigma=12)],
         under="weathered grey planks with dark gaps, touching the bottom edge"),
    dict(name="path_border", category="border", input="picosdeeuropa_by_Aitzol_Berasategi.jpg",
         crop=(0, 1600, 1500, 2448), long=560, seed=502,
         shapes=[blob(285, 322, 135, 110, k=4, amp=6, sigma=12)],
         under="an eroded dirt path through pasture, touching the bottom edge"),
    dict(name="foliage_border", category="border", input="Dragonfly_by_Bolly.jpg",
         crop=(0, 1600, 1450, 3168), long=480, seed=503,
         shapes=[blob(-5, 255, 135, 150, k=4, amp=6, sigma=12)],
         under="out-of-focus hazel leaves with sky gaps, touching the left edge"),
    dict(name="wood_border", category="border", input="coffee.png",
         crop=(200, 0, 600, 300), long=400, seed=504,
         shapes=[blob(405, 165, 105, 100, k=4, amp=5, sigma=10)],
         under="wooden table top with grain and a saucer edge, touching the right edge"),
    dict(name="lamp_border", category="border", input="free_by_Peter_Nerlich.jpg",
         crop=(1700, 0, 2880, 1000), long=472, seed=505,
         shapes=[blob(470, 400, 165, 135, k=4, amp=6, sigma=12)],
         under="grey wall in lamp light, touching the bottom and right edges (corner)"),
    dict(name="grass_border", category="border", input="grass.png",
         crop=(16, 16, 496, 400), long=480, seed=506,
         shapes=[blob(-5, 200, 140, 150, k=4, amp=6, sigma=12)],
         under="grass (grey), touching the left edge"),
    # ---------------------------------------------------------------- object
    # the silhouette of a real object (build_object_cases.OBJECTS) over a region whose
    # truth is known; ``content`` says what lies under it, ``touches`` which borders
    dict(name="horse_meadow", category="object", content="texture",
         input="aitzgorri_by_Aitzol_Berasategi.jpg",
         crop=(1500, 1300, 2900, 2056), long=520, seed=601,
         shapes=[silhouette("horse", 120, 200, 130)],
         under="a horse standing in meadow grass with fallen leaves"),
    dict(name="cameraman_beach", category="object", content="structure",
         input="Bridge_by_Sander_Klootwijk.jpg",
         crop=(0, 1450, 880, 2448), long=520, seed=602, touches=("left", "bottom"),
         shapes=[silhouette(("cameraman", "tripod"), 200, "left", "bottom")],
         under="a man filming with a tripod, cut by the left and bottom edges: sand flats, "
               "the horizon line with a distant shore, white clouds and blue sky"),
    dict(name="person_hill", category="object", content="texture",
         input="sunset_by_Aitzol_Berasategi.jpg",
         crop=(300, 1500, 2100, 2848), long=520, seed=603, touches=("bottom",),
         shapes=[silhouette("astronaut", 190, 300, "bottom")],
         under="a person's head and torso, cut by the bottom edge: a grassy hilltop in "
               "low sun with snow patches and stones"),
    dict(name="bird_wall", category="object", content="smooth",
         input="free_by_Peter_Nerlich.jpg",
         crop=(0, 1000, 1200, 2160), long=520, seed=604,
         shapes=[silhouette("woodbird", 140, 40, 300, flip=True)],
         under="a wooden bird with spread wings in front of a plain grey wall (soft "
               "light gradient)"),
    dict(name="dragonfly_cloud", category="object", content="smooth",
         input="picosdeeuropa_by_Aitzol_Berasategi.jpg",
         crop=(250, 0, 1400, 780), long=520, seed=605,
         shapes=[silhouette("dragonfly", 80, 150, 175)],
         under="a dragonfly with spread wings against blue sky and the soft edge of a "
               "white cumulus cloud"),
    dict(name="nuthatch_leaves", category="object", content="texture",
         input="Dragonfly_by_Bolly.jpg",
         crop=(2700, 0, 4224, 1000), long=520, seed=606,
         shapes=[silhouette("nuthatch", 170, 200, 80, flip=True)],
         under="a small bird in front of out-of-focus hazel leaves with blue sky gaps"),
    dict(name="bottle_cork", category="object", content="texture",
         input="Wine_by_Jakkub_Mede.jpg",
         crop=(1650, 2300, 2560, 3750), long=560, seed=607,
         shapes=[silhouette("bottle", 230, 200, 280)],
         under="a wine bottle standing on a cork floor in warm light"),
    dict(name="dog_planks", category="object", content="structure",
         input="friends_by_Aitzol_Berasategi.jpg",
         crop=(1300, 2050, 2056, 2950), long=560, seed=608,
         shapes=[silhouette("dog", 200, 40, 150)],
         under="a dog's head and leg over horizontal weatherboard planks with dark gaps "
               "and wood grain"),
    dict(name="tripod_stream", category="object", content="texture",
         input="life_by_Aitzol_Berasategi.jpg",
         crop=(800, 1150, 1800, 2056), long=520, seed=609,
         shapes=[silhouette("tripod", 300, 170, 120)],
         under="a tripod standing in a forest stream: small cascades, rippled water, "
               "wet limestone rocks (the ground between its legs stays known)"),
    dict(name="tower_ridges", category="object", content="structure",
         input="sunset_by_Aitzol_Berasategi.jpg",
         crop=(2600, 950, 4272, 1800), long=520, seed=610, touches=("bottom",),
         shapes=[silhouette("tower", 230, 330, "bottom")],
         under="a lattice mast cut by the bottom edge, crossing an evening sky, layered "
               "mountain ridges and a dark hillside"),
    dict(name="fig_bowlrim", category="object", content="structure",
         input="Picture_0B_by_freespace.jpg",
         crop=(850, 1050, 1950, 1740), long=480, seed=611,
         shapes=[silhouette("fig", 105, 50, 150, flip=True)],
         under="half a fig lying across the curved rim of a red bowl on grey concrete"),
    dict(name="nuthatch_trunk", category="object", content="structure",
         input="Kleiber_by_Lukas_Baubkus.jpg",
         crop=(1400, 0, 3000, 1100), long=520, seed=612,
         shapes=[silhouette("nuthatch", 150, 290, 100)],
         under="a nuthatch on the edge of a tree trunk: furrowed bark, the trunk's "
               "outline against a blurred blue and pale background"),
]

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def find_input(name: str, roots: list[Path]) -> Path:
    """``name`` under ``roots``, with the sha256 of this script's ``INPUTS``."""
    return objects.find_input(name, roots, want=INPUTS[name]["sha256"])


def make_truth(src: Path, crop, size) -> np.ndarray:
    with Image.open(src) as im:
        im = im.convert("RGB").crop(tuple(crop))
        im = im.resize(size, Image.Resampling.LANCZOS, reducing_gap=None)
        return np.asarray(im, dtype=np.uint8).copy()


def ellipse_points(cx, cy, rx, ry, angle, n=96):
    t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    x, y = rx * np.cos(t), ry * np.sin(t)
    ca, sa = math.cos(angle), math.sin(angle)
    return [(float(cx + ca * a - sa * b), float(cy + sa * a + ca * b)) for a, b in zip(x, y)]


def catmull_rom(points, n=24):
    pts = [points[0]] + list(points) + [points[-1]]
    out = []
    for i in range(1, len(pts) - 2):
        p0, p1, p2, p3 = (np.asarray(p, dtype=float) for p in pts[i - 1:i + 3])
        for t in np.linspace(0.0, 1.0, n, endpoint=False):
            t2, t3 = t * t, t * t * t
            q = 0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                       + (-p0 + 3 * p1 - 3 * p2 + p3) * t3)
            out.append((float(q[0]), float(q[1])))
    out.append((float(points[-1][0]), float(points[-1][1])))
    return out


def raster(w, h, draw_fn) -> np.ndarray:
    """Draw at SS x supersampling, return the coverage >= 1/2 mask at (h, w)."""
    img = Image.new("L", (w * SS, h * SS), 0)
    draw_fn(ImageDraw.Draw(img))
    a = np.asarray(img, dtype=np.float64).reshape(h, SS, w, SS).mean(axis=(1, 3))
    return a >= 127.5


def perturb(mask: np.ndarray, amp: float, sigma: float, rng) -> np.ndarray:
    if amp <= 0 or not mask.any():
        return mask
    sd = ndimage.distance_transform_edt(mask) - ndimage.distance_transform_edt(~mask)
    noise = ndimage.gaussian_filter(rng.standard_normal(mask.shape), sigma, mode="reflect")
    noise /= noise.std()
    return (sd + amp * noise) > 0


#: silhouettes at their photo's resolution, cropped to their bounding box, keyed by the
#: tuple of object names (filled by ``load_silhouettes``)
SILHOUETTES: dict[tuple[str, ...], np.ndarray] = {}


def load_silhouettes(cases, roots) -> None:
    for case in cases:
        for shape in case["shapes"]:
            if shape["kind"] != "silhouette" or shape["objects"] in SILHOUETTES:
                continue
            srcs = {objects.OBJECTS[n]["input"] for n in shape["objects"]}
            if len(srcs) != 1:
                raise SystemExit(f"{case['name']}: silhouette objects from several photos")
            src = srcs.pop()
            if "_path" not in INPUTS[src]:
                INPUTS[src]["_path"] = find_input(src, roots)
            m = None
            for n in shape["objects"]:
                om = objects.object_mask(n, INPUTS[src]["_path"])
                m = om if m is None else (m | om)
            ys, xs = np.nonzero(m)
            SILHOUETTES[shape["objects"]] = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def place_silhouette(shape, w, h) -> np.ndarray:
    src = SILHOUETTES[shape["objects"]]
    if shape["flip"]:
        src = src[:, ::-1]
    sh = int(shape["h"])
    sw = max(1, int(round(sh * src.shape[1] / src.shape[0])))
    img = Image.fromarray(np.where(src, 255, 0).astype(np.uint8), mode="L")
    small = np.asarray(img.resize((sw, sh), Image.Resampling.BOX)) >= 128
    x = {"left": 0, "right": w - sw}.get(shape["x"], shape["x"])
    y = {"top": 0, "bottom": h - sh}.get(shape["y"], shape["y"])
    m = np.zeros((h, w), dtype=bool)
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + sw, w), min(y + sh, h)
    m[y0:y1, x0:x1] = small[y0 - y:y1 - y, x0 - x:x1 - x]
    return objects.dilate_disc(m, shape["rim"])


def shape_mask(shape, w, h, rng) -> np.ndarray:
    kind = shape["kind"]
    S = SS
    if kind == "silhouette":
        return place_silhouette(shape, w, h)
    if kind == "blob":
        cx, cy = shape["c"]
        rx, ry = shape["r"]
        angle = shape["angle"]
        if angle is None:
            angle = float(rng.uniform(-0.35, 0.35))
        ells = [(cx, cy, rx, ry, angle)]
        for _ in range(shape["k"] - 1):
            th = float(rng.uniform(0, 2 * math.pi))
            d = float(rng.uniform(0.35, 0.65))
            sc = float(rng.uniform(0.45, 0.75))
            ells.append((cx + d * rx * math.cos(th), cy + d * ry * math.sin(th),
                         sc * rx * float(rng.uniform(0.8, 1.25)), sc * ry,
                         float(rng.uniform(0, math.pi))))

        def draw(d):
            for ex, ey, erx, ery, ea in ells:
                d.polygon([(x * S, y * S) for x, y in ellipse_points(ex, ey, erx, ery, ea)],
                          fill=255)

        m = raster(w, h, draw)
        return perturb(m, shape["amp"], shape["sigma"], rng)
    if kind == "stroke":
        pts = catmull_rom(shape["points"])
        wid = shape["width"]

        def draw(d):
            d.line([(x * S, y * S) for x, y in pts], fill=255, width=int(round(wid * S)),
                   joint="curve")
            r = wid * S / 2.0
            for x, y in (pts[0], pts[-1]):
                d.ellipse([x * S - r, y * S - r, x * S + r, y * S + r], fill=255)

        m = raster(w, h, draw)
        return perturb(m, shape["amp"], shape["sigma"], rng)
    if kind == "wire":
        (x0, y0), (x1, y1) = shape["p0"], shape["p1"]
        t = np.linspace(0.0, 1.0, 200)
        xs = x0 + (x1 - x0) * t
        ys = y0 + (y1 - y0) * t + shape["sag"] * 4.0 * t * (1.0 - t)
        pts = [(float(x) * S, float(y) * S) for x, y in zip(xs, ys)]

        def draw(d):
            d.line(pts, fill=255, width=int(round(shape["width"] * S)), joint="curve")

        return raster(w, h, draw)
    raise ValueError(kind)


def make_mask(case, w, h) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(case["seed"])
    m = np.zeros((h, w), dtype=bool)
    for shape in case["shapes"]:
        m |= shape_mask(shape, w, h, rng)
    if case["category"] == OBJECT_CATEGORY:
        m = objects.fill_small_holes(m)
    else:
        m = ndimage.binary_fill_holes(m)
    lab, n = ndimage.label(m)
    if n:
        sizes = ndimage.sum(m, lab, index=np.arange(1, n + 1))
        for i, s in enumerate(sizes, start=1):
            if s < 40:
                m[lab == i] = False
    # known pixels near the hole that no fully known 9x9 window covers -> hole
    known = ~m
    box = np.ones((9, 9), dtype=bool)
    centres = ndimage.binary_erosion(known, structure=box, border_value=0)
    covered = ndimage.binary_dilation(centres, structure=box)
    near = ndimage.binary_dilation(m, structure=np.ones((33, 33), dtype=bool))
    sliver = known & ~covered & near
    m |= sliver
    return m, int(sliver.sum())


def check_mask(case, m: np.ndarray, sliver: int) -> None:
    name, cat = case["name"], case["category"]
    h, w = m.shape
    frac = m.mean()
    sides = objects.sides_touched(m)
    problems = []
    lo, hi = {"border": (0.10, 0.25), OBJECT_CATEGORY: (0.03, 0.12)}.get(cat, (0.012, 0.12))
    if not lo <= frac <= hi:
        problems.append(f"hole fraction {frac:.4f} outside [{lo}, {hi}]")
    if len(sides) == 4:
        problems.append("mask touches all four sides")
    if cat == OBJECT_CATEGORY and sorted(sides) != sorted(case.get("touches", ())):
        problems.append(f"touches {sides}, expected {list(case.get('touches', ()))}")
    if cat == "border" and not sides:
        problems.append("border case touches no side")
    if cat in ("texture", "structure", "smooth") and sides:
        problems.append(f"touches {sides}")
    # object silhouettes have narrow gaps (between a tripod's legs near its head)
    sliver_max = 0.05 if cat == OBJECT_CATEGORY else 0.02
    if sliver > sliver_max * m.sum():
        problems.append(f"{sliver} sliver pixels added (> {sliver_max:.0%} of the hole)")
    known = ~m
    centres = ndimage.binary_erosion(known, structure=np.ones((9, 9), bool), border_value=0)
    if centres.sum() < 0.5 * w * h:
        problems.append("fewer than half of the 9x9 windows are fully known")
    # every known pixel next to the hole lies in a fully known 9x9 window
    covered = ndimage.binary_dilation(centres, structure=np.ones((9, 9), bool))
    ring = ndimage.binary_dilation(m, structure=np.ones((33, 33), bool)) & known
    if (ring & ~covered).any():
        problems.append("known pixels near the hole outside every full 9x9 window")
    if problems:
        raise SystemExit(f"{name}: " + "; ".join(problems))


def save_png(arr: np.ndarray, path: Path) -> str:
    mode = "L" if arr.ndim == 2 else "RGB"
    Image.fromarray(arr, mode=mode).save(path, format="PNG", optimize=False, compress_level=9)
    return objects.sha256_file(path)


def shape_text(s) -> str:
    if s["kind"] == "blob":
        return (f"blob of {s['k']} ellipses at ({s['c'][0]}, {s['c'][1]}), radii "
                f"{s['r'][0]}x{s['r'][1]}, outline perturbed ±{s['amp']:g} px")
    if s["kind"] == "stroke":
        p = s["points"]
        return (f"brush stroke {s['width']} px wide through {len(p)} points from "
                f"({p[0][0]}, {p[0][1]}) to ({p[-1][0]}, {p[-1][1]})")
    if s["kind"] == "silhouette":
        what = " + ".join(objects.OBJECTS[n]["what"] for n in s["objects"])
        src = objects.OBJECTS[s["objects"][0]]["input"]
        return (f"silhouette of {what} (outlined in `{src}`), {s['h']} px high"
                f"{', mirrored' if s['flip'] else ''}, top-left at ({s['x']}, {s['y']}), "
                f"rim {s['rim']} px")
    return (f"wire {s['width']} px wide from ({s['p0'][0]}, {s['p0'][1]}) to "
            f"({s['p1'][0]}, {s['p1'][1]}), sag {s['sag']:g} px")


def _draw_holdout(cases, key, groups, seed, minimum) -> set[str]:
    """One case per group at random, then random cases until a quarter (at least
    ``minimum``) are chosen."""
    rng = np.random.default_rng(seed)
    n_total = max(minimum, int(round(len(cases) / 4)))
    chosen: list[str] = []
    for g in groups:
        names = [c["name"] for c in cases if c[key] == g]
        chosen.append(names[int(rng.integers(len(names)))])
    rest = [c["name"] for c in cases if c["name"] not in chosen]
    extra = rng.permutation(len(rest))[: max(0, n_total - len(chosen))]
    chosen += [rest[int(i)] for i in sorted(extra)]
    return set(chosen)


def silhouette_records(case) -> dict:
    """For ``object`` cases: where each silhouette was outlined (nothing for the others,
    whose manifests keep their first form)."""
    sils = []
    for sh in case["shapes"]:
        if sh["kind"] != "silhouette":
            continue
        src = objects.OBJECTS[sh["objects"][0]]["input"]
        meta = INPUTS[src]
        sils.append(dict(objects=list(sh["objects"]), file=src, package=meta["pkg"][0],
                         version=meta["pkg"][1], path=objects.input_path_in_package(src, INPUTS),
                         sha256=meta["sha256"], author=meta["author"],
                         licence=meta["licence"]))
    return dict(silhouettes=sils) if sils else {}


def choose_holdout(cases) -> set[str]:
    """The first release's draw over its five categories (unchanged), and a separate one
    over the ``object`` cases, per content."""
    first = [c for c in cases if c["category"] in CATEGORIES]
    later = [c for c in cases if c["category"] == OBJECT_CATEGORY]
    assert len(first) + len(later) == len(cases)
    hold = _draw_holdout(first, "category", CATEGORIES, HOLDOUT_SEED, 6)
    if later:
        hold |= _draw_holdout(later, "content", CONTENTS, OBJECT_HOLDOUT_SEED, 3)
    return hold


# --------------------------------------------------------------------------------------
# SOURCES.md
# --------------------------------------------------------------------------------------


def sources_md(records, used_inputs, silhouette_inputs) -> str:
    L = []
    L.append("# Sources of the fill-quality truth set\n")
    n_obj = sum(r["category"] == OBJECT_CATEGORY for r in records)
    L.append(
        f"{len(records)} inpainting cases with known ground truth. Each is a crop of a "
        "free-licensed photograph (`truth.png`, RGB) and a hole mask (`mask.png`, 8-bit, "
        "0 = keep, 255 = hole) drawn over part of the photo's background, as if a user "
        "had masked an unwanted object there. An inpainting method gets `truth.png` with "
        "the hole destroyed and must reconstruct it; it is scored against `truth.png`. "
        "Every step is in [`tools/build_quality_cases.py`](../../tools/build_quality_cases.py) "
        "(run it to rebuild byte-identical files from the inputs below; the inputs "
        "themselves are not committed).\n")
    L.append(
        "Categories: `thin` (wires and strips, 2-8 px wide), `texture` (grass, gravel, "
        "rock, bark, bristles, fur, concrete under the hole), `structure` (edges and lines "
        "passing through the hole), `smooth` (sky, walls, blur) and `border` (big holes "
        "touching one or two image borders) have synthetic holes (blobs, brush strokes, "
        f"wires); `object` ({n_obj} cases, added later) has holes shaped like real "
        "objects: the silhouette of a horse, a person, a bird, a dragonfly, a bottle, a "
        "dog, a tripod, a mast or a fig, outlined in another photo (or another part of "
        "the same photo) and placed where such an object could stand, with a rim of "
        "2 px as a user's brush would leave. Their `content` (in `manifest.json` and "
        "below) says what lies under the hole: `texture`, `structure` or `smooth`; three "
        "of them are cut by the frame like a person standing at the edge of a photo. "
        "`split` is `holdout` for about a quarter of the cases, drawn at random with a "
        "fixed seed after the cases were built: for the first five categories one per "
        "category and more up to a quarter (6 of 31), for `object` separately with its "
        "own seed, one per content (3 of 12), so that the first draw did not change; "
        "the others are `tune`. Holdout cases are meant only for final scoring, not for "
        "tuning.\n")
    L.append("## Inputs\n")
    L.append("| input | where it comes from | author (copyright line) | licence | sha256 |")
    L.append("|---|---|---|---|---|")
    order = {L16[0]: 0, L20[0]: 1, SKI[0]: 2}
    names = list(dict.fromkeys(list(used_inputs) + list(silhouette_inputs)))
    for name in sorted(names, key=lambda n: (order[INPUTS[n]["pkg"][0]], n.lower())):
        meta = INPUTS[name]
        pkg, ver = meta["pkg"]
        with Image.open(meta["_path"]) as im:
            wh = f"{im.size[0]}×{im.size[1]}"
        if pkg == "scikit-image":
            where = f"scikit-image {ver} (PyPI wheel), `{objects.input_path_in_package(name, INPUTS)}`"
        else:
            where = f"Debian package `{pkg}` {ver}, `{objects.input_path_in_package(name, INPUTS)}`"
        use = ""
        if name not in used_inputs:
            use = " (object silhouettes only)"
        elif name in silhouette_inputs:
            use = " (also object silhouettes)"
        L.append(f"| `{name}` ({wh}): {meta['what']}{use} | {where} | {meta['author']} | "
                 f"{meta['licence']} | `{meta['sha256']}` |")
    L.append("")
    L.append(
        "Authors and licences of the wallpapers are those of the packages' "
        "`/usr/share/doc/<package>/copyright` (Debian machine-readable format; upstream "
        "https://gitlab.com/ubports/development/core/lomiri-wallpapers); those of the "
        "scikit-image images are from the data docstrings in `skimage/data/_fetchers.py` "
        "(`chelsea`, `coffee`, `camera`: \"No copyright restrictions. CC0 by the "
        "photographer\"; `brick`, `gravel`: from CC0Textures, CC0; `grass`: from "
        "DeviantArt, CC0; `rocket`: captured by SpaceX and \"released in the public "
        "domain\"; `astronaut`: from the NASA Great Images database, \"No known copyright "
        "restrictions, released into the public domain\"; `horse`: from openclipart, "
        "\"No copyright restrictions. CC0 given by owner\"). The scikit-image textures "
        "are greyscale; their cases are stored as RGB with three equal channels.\n")
    L.append(
        "Not used: `lomiri-wallpapers` (base), `ukui-wallpapers`, `desktop-base` and "
        "`gnome-backgrounds` hold renders, vector art and gradients, not photographs (and "
        "the files of `gnome-backgrounds` 43.1 are not listed in its copyright file); in "
        "`lomiri-wallpapers-20.04`, Fossa and Painting-Colors are renders and Infinite-Sea "
        "a composite with a graphic overlay; in `lomiri-wallpapers-16.04`, umang is a "
        "render, and analogpattern and greentock are abstract images that may not be "
        "plain photographs. Photos already used by the cases in `../` (Picos de Europa, "
        "life, sunset, Dragonfly, Bridge, Kleiber) are reused here for other regions "
        "(`../walkingman` and `../hill` show the whole Picos de Europa and sunset frames, "
        "reduced; `tripod_stream` shows part of the stream that `../river` shows, "
        "without its pasted bird); at most three cases come from one photo. The crops of "
        "the `object` cases overlap those of the first 31 cases only in known pixels, "
        "never over another case's hole: `cameraman_beach` shares sky with `sky_blob` "
        "(18 % of its area), `bottle_cork` cork floor with `beanbag_blob` (22 %) and "
        "`fig_bowlrim` concrete with `concrete_stroke` (5 %).\n")
    L.append("## Cases\n")
    L.append("| case | category | split | made from | what was done | hole |")
    L.append("|---|---|---|---|---|---|")
    for r in records:
        c = r["source"]["crop_box"]
        w, h = r["size"]
        shapes = "; ".join(r["mask_shapes"])
        cat = r["category"]
        if cat == OBJECT_CATEGORY:
            cat = f"{cat} ({r['content']})"
        L.append(
            f"| `{r['name']}` | {cat} | {r['split']} | `{r['source']['file']}` | "
            f"crop ({c[0]}, {c[1]})–({c[2]}, {c[3]}), Lanczos to {w}×{h}; mask: {shapes} | "
            f"{r['hole_fraction'] * 100:.1f} %: {r['description']} |")
    L.append("")
    L.append(
        "`*/manifest.json` hold the size, the hole's pixel count, fraction and bounding box "
        "(half-open `[x0, y0, x1, y1]`), the source, crop box, author and licence, and the "
        "sha256 of each PNG (for `object` cases also `content`, the borders the hole "
        "`touches` and the `silhouettes`' photo, author and licence); `index.json` lists "
        "the cases in order with their category and split.\n")
    L.append("## Object silhouettes\n")
    L.append(
        "Outlined at the source photo's resolution by "
        "[`tools/build_object_cases.py`](../../tools/build_object_cases.py) (`OBJECTS`), "
        "which also uses most of them for the real removals of [`../objects`](../objects); "
        "each was checked by eye as an overlay on its photo.\n")
    L.append("| outline | traced in | how | used by |")
    L.append("|---|---|---|---|")
    used_by: dict[str, list[str]] = {}
    for r in records:
        for sil in r.get("silhouettes", []):
            for n in sil["objects"]:
                used_by.setdefault(n, []).append(f"`{r['name']}`")
    for n, cases_ in used_by.items():
        spec = objects.OBJECTS[n]
        if "matte" in spec:
            how = ("difference matte against a cubic fit of the plain wall around it (plus "
                   "a hand-placed polygon for the tail's underside)")
        elif "polygons" in spec:
            k = len(spec["polygons"])
            how = f"{k} hand-placed polygons" if k > 1 else "a hand-placed polygon"
        else:
            how = f"red channel below {spec['dark']} (`~skimage.data.horse()`)"
        L.append(f"| {n}: {spec['what']} | `{spec['input']}` | {how} | {', '.join(cases_)} |")
    L.append("")
    L += objects.licence_lines(records)
    sil_lic = sorted({(r["name"], s["file"], s["licence"]) for r in records
                      for s in r.get("silhouettes", [])})
    L.append(
        "The masks of the first 31 cases are plain shapes drawn by the build script. The "
        "masks of the `object` cases are outlines traced from the photos named in the "
        "table above; credit those authors too, and treat a mask traced from a CC-BY-SA "
        "photo as CC-BY-SA (" + ", ".join(
            f"`{n}`: {f} ({lic})" for n, f, lic in sil_lic if "SA" in lic) + "). "
        "Credit the authors listed above when redistributing. Adapted by the `inpaint` "
        "project (crop, resize, mask).")
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--inputs", type=Path, required=True,
                    help="folder holding the unpacked packages (searched recursively)")
    ap.add_argument("--skimage-data", type=Path, default=None,
                    help="scikit-image data folder (default: the installed skimage/data)")
    ap.add_argument("--out", type=Path, default=Path("datasets/quality"))
    a = ap.parse_args()

    roots = [a.inputs]
    if a.skimage_data is not None:
        roots.append(a.skimage_data)
    else:
        try:
            import skimage.data  # only to locate its folder

            roots.append(Path(skimage.data.__file__).parent)
        except ImportError:
            pass

    names = [c["name"] for c in CASES]
    assert len(set(names)) == len(names)
    per_src: dict[str, int] = {}
    for c in CASES:
        per_src[c["input"]] = per_src.get(c["input"], 0) + 1
    assert max(per_src.values()) <= 3, per_src
    for n, meta in INPUTS.items():  # the photos both scripts describe, each in its own words
        if n in objects.INPUTS:
            assert objects.INPUTS[n]["sha256"] == meta["sha256"], n

    used_inputs = list(dict.fromkeys(c["input"] for c in CASES))
    for n in used_inputs:
        INPUTS[n]["_path"] = find_input(n, roots)
    load_silhouettes(CASES, roots)

    a.out.mkdir(parents=True, exist_ok=True)
    records = []
    failures = []
    for case in CASES:
        meta = INPUTS[case["input"]]
        w, h = objects.out_size(case["crop"], case["long"])
        assert 320 <= max(w, h) <= 640
        truth = make_truth(meta["_path"], case["crop"], (w, h))
        m, sliver = make_mask(case, w, h)
        try:
            check_mask(case, m, sliver)
        except SystemExit as e:
            failures.append(str(e))
            continue
        ys, xs = np.nonzero(m)
        pkg, ver = meta["pkg"]
        extra = {}
        if case["category"] == OBJECT_CATEGORY:
            assert case["content"] in CONTENTS, case["name"]
            extra = dict(content=case["content"], touches=objects.sides_touched(m))
        records.append(dict(
            name=case["name"], category=case["category"], **extra, split=None,
            size=[w, h], hole_pixels=int(m.sum()),
            hole_fraction=round(float(m.mean()), 5),
            hole_bbox=[int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1],
            description=case["under"],
            source=dict(file=case["input"], package=pkg, version=ver,
                        path=objects.input_path_in_package(case["input"], INPUTS),
                        crop_box=list(case["crop"]), sha256=meta["sha256"]),
            author=meta["author"], licence=meta["licence"],
            seed=case["seed"], mask_shapes=[shape_text(s) for s in case["shapes"]],
            **silhouette_records(case),
            _truth=truth, _mask=m,
        ))

    if failures:
        raise SystemExit("\n".join(failures))
    hold = choose_holdout(records)
    for r in records:
        r["split"] = "holdout" if r["name"] in hold else "tune"

    for r in records:
        d = a.out / r["name"]
        d.mkdir(parents=True, exist_ok=True)
        sha = {
            "truth.png": save_png(r.pop("_truth"), d / "truth.png"),
            "mask.png": save_png(np.where(r.pop("_mask"), 255, 0).astype(np.uint8),
                                 d / "mask.png"),
        }
        r["sha256"] = sha
        r["sources"] = "see ../SOURCES.md"
        (d / "manifest.json").write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
        print(f"{r['name']:16s} {r['category']:9s} {r['split']:7s} {r['size'][0]}x{r['size'][1]}"
              f"  hole {r['hole_fraction'] * 100:5.2f} %")

    index = {"cases": [dict(name=r["name"], category=r["category"], split=r["split"])
                       for r in records]}
    (a.out / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    silhouette_inputs = list(dict.fromkeys(
        objects.OBJECTS[n]["input"] for c in CASES for sh in c["shapes"]
        if sh["kind"] == "silhouette" for n in sh["objects"]))
    (a.out / "SOURCES.md").write_text(sources_md(records, used_inputs, silhouette_inputs))


if __name__ == "__main__":
    main()

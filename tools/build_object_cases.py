"""Rebuild the real object-removal cases of ``datasets/objects/`` (no ground truth).

This script is a build tool, not part of the package.  Each case is a crop of a
free-licensed photograph (``image.png``) and a mask (``mask.png``, 8-bit, 255 = remove,
0 = keep) drawn tightly around a real object in it that a user would want removed (a
bird, a bottle, a dog, a tripod, a flag, ...), including its hard shadow where it casts
one, plus a rim of a few pixels.  Nothing lies behind the objects, so there is no truth:
the fills are judged by eye on contact sheets.

The object outlines (``OBJECTS``) are traced in the photos' own pixel coordinates, and
``tools/build_quality_cases.py`` imports them too: it scales some of them and places them
as hole silhouettes over other photos whose truth is known (category ``object`` of
``datasets/quality``).  Editing an outline here therefore changes those masks as well;
both scripts record the sha256 of every file they write.

Inputs (not committed; fetch them like this; only Debian packages and the scikit-image
wheel are needed, nothing is downloaded at run time)::

    mkdir -p /tmp/qsrc && cd /tmp/qsrc
    apt-get download lomiri-wallpapers-16.04 lomiri-wallpapers-20.04
    dpkg-deb -x lomiri-wallpapers-16.04_20.04.0-2_all.deb lomiri-wallpapers-16.04
    dpkg-deb -x lomiri-wallpapers-20.04_20.04.0-2_all.deb lomiri-wallpapers-20.04
    # scikit-image 0.26.0 images: taken from the installed package (skimage/data/);
    # or unpack the wheel into the inputs folder:
    #   pip download --no-deps scikit-image==0.26.0 -d skw && (cd skw && unzip -q *.whl 'skimage/data/*')

    python tools/build_object_cases.py --inputs /tmp/qsrc --out datasets/objects

Each input is found by file name anywhere under ``--inputs`` (then in the installed
``skimage/data``) and checked against the sha256 recorded in ``INPUTS``.

How each mask is made
---------------------
Every object is outlined at the source photo's resolution, by one of:

* ``polygons``: polygons placed by hand on magnified crops of the photo (points a few
  pixels outside the object's edge, blur included); their union is the object.
* ``matte`` (the wooden bird only, which hangs in front of a plain wall): a cubic
  polynomial per colour channel is fitted to a frame of wall pixels around the bird
  (least squares), and every pixel of the box that differs from that fitted wall by more
  than ``threshold`` in any channel is the object; the largest connected part is kept and
  its holes filled (plus a small polygon for the teal underside of its tail, which is
  too close to the wall's grey).
* ``dark`` (scikit-image's ``horse.png`` only, a black silhouette on white): red channel
  below 128, i.e. ``~skimage.data.horse()``.

For a case, the union of its objects' outlines (and of their shadows, outlined the same
way) is cropped like the photo and reduced to the output size by area averaging (Pillow
``BOX``); a pixel whose coverage is at least one half is part of the object.  Holes
inside of at most ``MAX_HOLE`` pixels are filled (larger enclosed regions, such as the
lawn between the tripod's legs and struts, are not part of the object and stay known),
then the mask is dilated by ``rim`` pixels (a disc: every pixel within that Euclidean
distance), as a user's brush would overlap the object's edge, and small holes are filled
again.

Requires numpy, scipy and Pillow.  The output is byte-identical for the same inputs and
library versions (Pillow 13.0, numpy 2.4, scipy 1.17 were used): the crop is resized with
Pillow's Lanczos filter, PNGs are written with ``optimize=False`` and a fixed compression
level and carry no timestamp.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

# --------------------------------------------------------------------------------------
# inputs: file name -> provenance (authors and licences verbatim from the packages'
# /usr/share/doc/<package>/copyright and from skimage/data/_fetchers.py)
# --------------------------------------------------------------------------------------

L16 = ("lomiri-wallpapers-16.04", "20.04.0-2")
L20 = ("lomiri-wallpapers-20.04", "20.04.0-2")
SKI = ("scikit-image", "0.26.0")

INPUTS: dict[str, dict] = {
    "Kleiber_by_Lukas_Baubkus.jpg": dict(
        pkg=L20, sha256="6572410c09f4492c74ccadde133565a14c0161617d5917d4c820c66d65a44ba7",
        author="2021, Lukas Baubkus", licence="CC-BY-SA-3.0",
        what="a nuthatch on a tree trunk, blurred street behind"),
    "Dragonfly_by_Bolly.jpg": dict(
        pkg=L16, sha256="af5af17841009732def24b09bb1e669a1b09d2b4bdeee7812c371101c30d2bb3",
        author='"Bolly", 2018', licence="CC-BY-SA-4.0",
        what="a darter on a hazel twig, leaves against blue sky"),
    "free_by_Peter_Nerlich.jpg": dict(
        pkg=L16, sha256="85a5453c2fed514c75973016f3d862aca62eb7ca087618822469274ac1092373",
        author="Peter Nerlich, 2018", licence="CC-BY-SA-4.0",
        what="a wooden bird hanging under ceiling lamps, grey wall"),
    "Wine_by_Jakkub_Mede.jpg": dict(
        pkg=L16, sha256="d2e96e6d4da40dd804b3d0ce295e94de04a2d7d9b6785d42cd9d92ba58bced74",
        author="Jakub Mede, 2018", licence="CC-BY-4.0",
        what="room with a wine bottle on a pallet table, a djembe on a beanbag"),
    "friends_by_Aitzol_Berasategi.jpg": dict(
        pkg=L16, sha256="cc40e313c74e421edffe3403def413c16878ce14661cce7ec5915baeab35538d",
        author="Aitzol Berasategi, 2018", licence="CC-BY-4.0",
        what="two spaniels at the window of a wooden house"),
    "Picture_0B_by_freespace.jpg": dict(
        pkg=L16, sha256="c8c0ab18e48d9e0419fe42881112137f3afafc27dfddc29ec3a6d54c56d225ad",
        author='Trevor "Freespace", 2018', licence="CC-BY-4.0",
        what="half a fig in a red bowl on weathered concrete"),
    "sunset_by_Aitzol_Berasategi.jpg": dict(
        pkg=L16, sha256="474dab6a4b9f94dc76c29dfe30e9f5db4af0fd2e33fe5d695f8152b371efca18",
        author="Aitzol Berasategi, 2018", licence="CC-BY-4.0",
        what="a hilltop with an orientation table at sunset, mountain ranges behind"),
    "seeding_by_Clements_Engelhardt.jpg": dict(
        pkg=L16, sha256="a5634d1ab5e41a3568e92d4a894a500c92b891f9ff734e50bd224d6e185a605f",
        author="Clemens Engelhardt, 2018", licence="CC0-1.0",
        what="dandelion clocks in a meadow against the low sun, shallow depth of field"),
    "coffee.png": dict(
        pkg=SKI, sha256="cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
        author="Rachel Michetti (photographer), courtesy of Pikolo Espresso Bar",
        licence="CC0-1.0", what="espresso cup on a wooden table (skimage.data.coffee)"),
    "camera.png": dict(
        pkg=SKI, sha256="b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a",
        author="Lav Varshney (photographer)", licence="CC0-1.0",
        what="a cameraman with a tripod on a lawn (skimage.data.camera), greyscale"),
    "rocket.jpg": dict(
        pkg=SKI, sha256="c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c",
        author="SpaceX", licence="public domain",
        what="Falcon 9 with DSCOVR on the pad at dusk (skimage.data.rocket)"),
    "astronaut.png": dict(
        pkg=SKI, sha256="88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
        author="NASA (portrait of Eileen Collins)", licence="public domain",
        what="astronaut Eileen Collins in front of a flag and a shuttle model "
             "(skimage.data.astronaut)"),
    "horse.png": dict(
        pkg=SKI, sha256="c7fb60789fe394c485f842291ea3b21e50d140f39d6dcb5fb9917cc178225455",
        author='Andreas Preuss ("marauder"), openclipart', licence="CC0-1.0",
        what="black silhouette of a standing horse (skimage.data.horse)"),
}


def input_path_in_package(name: str, inputs: dict | None = None) -> str:
    """Where input ``name`` (of ``inputs``, default this script's ``INPUTS``) lies in its package."""
    pkg = (INPUTS if inputs is None else inputs)[name]["pkg"][0]
    if pkg == "scikit-image":
        return f"skimage/data/{name}"
    return f"/usr/share/backgrounds/{name}"


# --------------------------------------------------------------------------------------
# object outlines, in the source photo's pixel coordinates (x, y)
# --------------------------------------------------------------------------------------

#: The nuthatch clinging head-down to the trunk; the left side follows the bark (its
#: claws and belly feathers overlap the bark there).
NUTHATCH = [
    (2450, 1165), (2462, 1168), (2495, 1225), (2525, 1252), (2552, 1292), (2585, 1352),
    (2619, 1418), (2652, 1451), (2699, 1505), (2739, 1551), (2779, 1625), (2820, 1700),
    (2872, 1768), (2897, 1828), (2912, 1886), (2932, 1916), (2962, 1938), (3012, 1958),
    (3052, 1998), (3082, 2038), (3097, 2066), (3122, 2092), (3182, 2118), (3260, 2168),
    (3212, 2168), (3150, 2158), (3100, 2143), (3050, 2148), (2990, 2163), (2930, 2178),
    (2870, 2203), (2800, 2223), (2730, 2228), (2650, 2218), (2588, 2198), (2538, 2168),
    (2512, 2142), (2490, 2120), (2470, 2100), (2445, 2050), (2440, 1900), (2435, 1750),
    (2425, 1650), (2440, 1560), (2486, 1495), (2488, 1420), (2490, 1355), (2487, 1300),
    (2480, 1255), (2460, 1215), (2447, 1175),
]

#: The darter with its four (transparent, veined) wings and its abdomen; the twig it
#: grips runs through the outline.
DRAGONFLY = [
    (2380, 1082), (2414, 1048), (2465, 1040), (2516, 1045), (2547, 1065), (2558, 1099),
    (2584, 1123), (2720, 1126), (2890, 1113), (3060, 1099), (3179, 1092), (3264, 1109),
    (3315, 1142), (3332, 1176), (3310, 1221), (3247, 1264), (3145, 1289), (3009, 1306),
    (2873, 1306), (2754, 1298), (2686, 1298), (2788, 1312), (2958, 1328), (3094, 1340),
    (3182, 1362), (3213, 1396), (3191, 1451), (3128, 1485), (3009, 1498), (2873, 1498),
    (2737, 1490), (2700, 1502), (2668, 1540), (2600, 1552), (2540, 1558), (2495, 1560),
    (2450, 1562), (2400, 1558), (2360, 1550), (2332, 1546),
    (2313, 1568), (2230, 1568), (2162, 1558), (2114, 1550), (2102, 1573), (2075, 1609),
    (2041, 1645), (2014, 1653), (1989, 1633), (1993, 1611), (2045, 1563), (2072, 1539),
    (1992, 1522), (1890, 1495), (1797, 1470), (1760, 1419), (1752, 1381), (1780, 1343),
    (1856, 1329), (1944, 1318), (2026, 1307), (2080, 1297), (1964, 1312), (1900, 1288),
    (1868, 1264), (1844, 1240), (1824, 1212), (1810, 1183), (1800, 1152), (1793, 1122),
    (1788, 1090), (1803, 1058), (1821, 1047), (1863, 1043), (1992, 1065),
    (2128, 1092), (2298, 1122),
]

#: The teal underside of the wooden bird's tail, too close to the wall's grey for the
#: matte (the rest of the bird is the matte described in the docstring).
WOODBIRD_TAIL = [
    (1172, 1722), (1190, 1719), (1230, 1728), (1256, 1743), (1264, 1766), (1240, 1770),
    (1200, 1762), (1183, 1746),
]

#: The coil spring the wooden bird hangs from, from the lamp's ring clip down to the bird.
SPRING = [
    (1342, 478), (1390, 478), (1392, 560), (1380, 600), (1378, 700), (1396, 780),
    (1407, 900), (1414, 1100), (1420, 1300), (1422, 1440), (1400, 1475), (1345, 1475),
    (1346, 1300), (1346, 1000), (1344, 700), (1342, 600),
]

#: The wine bottle on the pallet table (cork, neck, shoulders, label, base).
BOTTLE = [
    (1240, 456), (1288, 456), (1293, 470), (1293, 545), (1300, 552), (1302, 700),
    (1312, 728), (1336, 760), (1349, 800), (1353, 840), (1354, 1250), (1348, 1268),
    (1335, 1277), (1195, 1277), (1183, 1268), (1178, 1250), (1175, 840), (1180, 800),
    (1196, 760), (1220, 728), (1232, 700), (1234, 552), (1236, 545), (1236, 470),
]

#: The lower spaniel: head, both ears, the chest in shadow and the front leg whose paw
#: hangs over the window sill (the rope's hook in front of the paw is inside).
DOG = [
    (980, 1430), (1013, 1393), (1067, 1377), (1120, 1371), (1173, 1378), (1227, 1400),
    (1263, 1430), (1287, 1467), (1313, 1500), (1340, 1533), (1363, 1573), (1380, 1613),
    (1383, 1657), (1380, 1703), (1383, 1757), (1380, 1803), (1377, 1843), (1367, 1870),
    (1340, 1878), (1293, 1878), (1253, 1871), (1240, 1850), (1237, 1817), (1223, 1797),
    (1193, 1800), (1167, 1800), (1133, 1800), (1160, 1857), (1187, 1897), (1203, 1933),
    (1208, 1970), (1201, 2003), (1188, 2025), (1160, 2033), (1127, 2030), (1100, 2023),
    (1073, 2003), (1047, 1980), (1013, 1963), (1003, 1930), (1000, 1883), (980, 1850),
    (960, 1810), (952, 1743), (949, 1677), (953, 1610), (959, 1543), (965, 1483),
]

#: The half fig alone (skin, flesh and stem).
FIG = [
    (1400, 616), (1460, 609), (1520, 611), (1580, 619), (1640, 637), (1700, 667),
    (1752, 707), (1788, 758), (1805, 820), (1809, 880), (1803, 950), (1793, 1000),
    (1778, 1030), (1763, 1075), (1738, 1142), (1703, 1198), (1653, 1249), (1592, 1289),
    (1530, 1307), (1470, 1305), (1418, 1291), (1365, 1258), (1318, 1203), (1279, 1140),
    (1250, 1075), (1228, 1008), (1211, 947), (1200, 897), (1188, 870), (1140, 864),
    (1075, 857), (1061, 820), (1070, 785), (1140, 780), (1200, 779), (1245, 779),
    (1265, 742), (1297, 692), (1343, 647),
]

#: The fig together with the hard shadow it casts into the bowl (up and to the left,
#: stem shadow included); the bowl's own shading is not part of it.
FIG_SHADOW = [
    (980, 778), (1000, 752), (1050, 737), (1100, 726), (1140, 700), (1180, 662),
    (1230, 612), (1290, 580), (1350, 560), (1400, 552), (1450, 554), (1510, 565),
    (1560, 590), (1600, 618), (1650, 636), (1720, 676), (1772, 726), (1802, 796),
    (1808, 880), (1803, 960), (1790, 1000), (1770, 1030), (1752, 1082), (1722, 1152),
    (1682, 1212), (1622, 1262), (1562, 1298), (1500, 1304), (1440, 1294), (1398, 1264),
    (1360, 1225), (1320, 1180), (1285, 1125), (1245, 1070), (1205, 1030), (1150, 985),
    (1100, 965), (1058, 955), (1052, 900), (1058, 862), (1050, 835), (990, 805),
]

#: The teaspoon on the saucer: the tip of its handle above the cup, and its bowl and
#: neck below (the middle of the handle is hidden by the cup).
SPOON = [
    [(398, 70), (404, 63), (418, 63), (425, 70), (424, 82), (417, 100), (411, 118),
     (406, 128), (400, 125), (399, 100), (397, 82)],
    [(391, 190), (387, 210), (385, 225), (384, 235), (389, 242), (395, 250), (402, 260),
     (406, 275), (406, 290), (400, 307), (390, 320), (375, 326), (360, 326), (345, 322),
     (335, 315), (330, 305), (327, 290), (327, 275), (320, 262), (315, 255), (318, 244),
     (330, 238), (345, 238), (360, 236), (372, 228), (378, 212), (386, 192)],
]

#: The cameraman's tripod: centre column up to the camera plate, head, pan handle, two
#: visible legs (cut by the bottom edge) and the three spreader struts.
TRIPOD = [
    [(285, 186), (300, 186), (300, 488), (285, 488)],
    [(276, 310), (313, 310), (314, 340), (276, 340)],
    [(305, 318), (338, 300), (342, 308), (310, 326)],
    [(279, 330), (290, 330), (248, 512), (228, 512)],
    [(302, 330), (312, 330), (411, 512), (399, 512)],
    [(252, 463), (290, 474), (290, 484), (250, 472)],
    [(298, 476), (386, 478), (386, 486), (298, 486)],
    [(248, 484), (290, 481), (292, 490), (248, 494)],
]

#: The cameraman himself (hair, face, camera, gloves, coat), cut by the photo's left and
#: bottom edges; the tripod in front of him is ``TRIPOD``.
CAMERAMAN = [
    (0, 512), (0, 252), (8, 238), (18, 215), (30, 190), (45, 171), (60, 156), (80, 140),
    (100, 132), (120, 126), (132, 120), (145, 114), (155, 110), (159, 100), (165, 88),
    (175, 76), (190, 69), (205, 65), (225, 65), (245, 71), (260, 82), (268, 95),
    (270, 110), (265, 122), (260, 130), (258, 140), (260, 142), (270, 140), (280, 142),
    (300, 140), (320, 139), (325, 142), (326, 155), (330, 169), (332, 185), (330, 200),
    (325, 212), (315, 225), (305, 232), (300, 240), (299, 265), (298, 290), (295, 310),
    (280, 314), (265, 314), (245, 310), (225, 305), (205, 302), (190, 308), (175, 318),
    (160, 330), (150, 345), (145, 365), (144, 390), (145, 420), (146, 450), (148, 480),
    (150, 512),
]

#: The right lightning mast of the launch pad: pole and lattice tower, cut by the
#: bottom edge (the star-shaped ground lights in front of it are not part of it).
TOWER = [
    (442, 121), (450, 121), (452, 188), (461, 190), (463, 230), (470, 300), (476, 360),
    (482, 427), (437, 427), (439, 300), (440, 230), (440, 190), (442, 188),
]

#: The US flag behind the astronaut, down to her arm; cut by the left, top and bottom
#: edges of the photo.
FLAG = [
    (0, 0), (65, 0), (65, 60), (67, 100), (73, 130), (81, 160), (90, 190), (98, 215),
    (101, 228), (93, 233), (80, 236), (67, 253), (53, 273), (42, 290), (35, 300),
    (30, 317), (26, 337), (22, 360), (20, 383), (19, 403), (21, 423), (20, 450),
    (19, 477), (17, 511), (0, 511),
]

#: Eileen Collins (hair, face, suit; the helmet she holds is excluded), cut by the
#: bottom edge; the same polygon as ``ASTRONAUT_POLY`` of ``tools/build_cases.py``.
ASTRONAUT = [
    (22, 511), (21, 450), (23, 380), (31, 320), (41, 282), (60, 243), (88, 222),
    (113, 196), (118, 178), (136, 168), (160, 161), (187, 157), (185, 140), (181, 122),
    (171, 115), (160, 110),
    (154, 82), (161, 57), (180, 35), (205, 22), (226, 18), (250, 21), (272, 33),
    (289, 51), (298, 76), (298, 100), (292, 119), (279, 125), (271, 135), (267, 150),
    (264, 162), (276, 172), (290, 182), (299, 192), (304, 210), (308, 236), (322, 251),
    (343, 270), (353, 296), (358, 320),
    (361, 343), (345, 351), (321, 369), (302, 393), (288, 430), (281, 470), (278, 511),
]

#: The stone orientation table on the hilltop: disc and column, cut by the bottom edge.
PEDESTAL = [
    (2684, 1992), (2697, 1935), (2745, 1898), (2826, 1871), (2954, 1855), (3116, 1847),
    (3277, 1843), (3438, 1850), (3599, 1871), (3728, 1903), (3824, 1943), (3889, 1992),
    (3937, 2048), (3950, 2104), (3940, 2169), (3913, 2217), (3873, 2258), (3792, 2290),
    (3696, 2314), (3599, 2330), (3502, 2338), (3502, 2988), (3043, 2988), (3043, 2266),
    (2954, 2233), (2874, 2209), (2793, 2177), (2729, 2129), (2697, 2080), (2684, 2040),
]

#: The big dandelion clock in the foreground and its stem down to the bottom edge
#: (outline around the tips of the backlit pappus hairs).
DANDELION = [
    (1491, 233), (1669, 239), (1847, 269), (1995, 328), (2144, 447), (2262, 595),
    (2337, 744), (2381, 922), (2417, 1100), (2387, 1248), (2298, 1397), (2179, 1522),
    (2031, 1611), (1847, 1670), (1639, 1685), (1603, 1694), (1609, 2988), (1497, 2988),
    (1500, 1694), (1372, 1649), (1223, 1628), (1045, 1587), (897, 1522), (778, 1403),
    (713, 1225), (698, 1041), (713, 862), (757, 684), (861, 506), (980, 388), (1188, 284),
    (1342, 245),
]

OBJECTS: dict[str, dict] = {
    "nuthatch": dict(input="Kleiber_by_Lukas_Baubkus.jpg", polygons=[NUTHATCH],
                     what="a nuthatch clinging head-down to a tree trunk"),
    "dragonfly": dict(input="Dragonfly_by_Bolly.jpg", polygons=[DRAGONFLY],
                      what="a darter (dragonfly) with spread wings on a hazel twig"),
    "woodbird": dict(input="free_by_Peter_Nerlich.jpg",
                     matte=dict(box=(650, 1200, 1950, 1900), frame=20,
                                frame_skip_x=(1340, 1430), threshold=14.0,
                                drop=[(1335, 1200, 1425, 1458)]),
                     polygons=[WOODBIRD_TAIL],
                     what="a carved wooden bird with spread wings (without its spring)"),
    "spring": dict(input="free_by_Peter_Nerlich.jpg", polygons=[SPRING],
                   what="the coil spring the wooden bird hangs from"),
    "bottle": dict(input="Wine_by_Jakkub_Mede.jpg", polygons=[BOTTLE],
                   what="a wine bottle"),
    "dog": dict(input="friends_by_Aitzol_Berasategi.jpg", polygons=[DOG],
                what="a cocker spaniel's head, ears and front leg"),
    "fig": dict(input="Picture_0B_by_freespace.jpg", polygons=[FIG], what="half a fig"),
    "fig_shadow": dict(input="Picture_0B_by_freespace.jpg", polygons=[FIG_SHADOW],
                       what="half a fig and its hard shadow"),
    "spoon": dict(input="coffee.png", polygons=SPOON, what="a teaspoon"),
    "tripod": dict(input="camera.png", polygons=TRIPOD, what="a camera tripod"),
    "cameraman": dict(input="camera.png", polygons=[CAMERAMAN],
                      what="a man filming, leaning forward (without the tripod)"),
    "tower": dict(input="rocket.jpg", polygons=[TOWER],
                  what="a lightning mast: a pole on a lattice tower"),
    "flag": dict(input="astronaut.png", polygons=[FLAG], what="a hanging US flag"),
    "astronaut": dict(input="astronaut.png", polygons=[ASTRONAUT],
                      what="a woman's head and torso (astronaut Eileen Collins)"),
    "pedestal": dict(input="sunset_by_Aitzol_Berasategi.jpg", polygons=[PEDESTAL],
                     what="a stone orientation table (disc on a column)"),
    "dandelion": dict(input="seeding_by_Clements_Engelhardt.jpg", polygons=[DANDELION],
                      what="a dandelion clock on its stem"),
    "horse": dict(input="horse.png", dark=128,
                  what="a standing horse (clip-art silhouette)"),
}

# --------------------------------------------------------------------------------------
# cases: crop box in the source (x0, y0, x1, y1), longer side of the output, the objects
# whose union is masked, the rim in output pixels
# --------------------------------------------------------------------------------------

CASES = [
    dict(name="nuthatch_bark", input="Kleiber_by_Lukas_Baubkus.jpg",
         crop=(1700, 700, 3900, 2700), long=800, objects=["nuthatch"], rim=3,
         object="a nuthatch clinging head-down to the right edge of a tree trunk",
         behind="furrowed bark (left), the trunk's edge, and a strongly blurred pale "
                "street with a blue patch (right)"),
    dict(name="dragonfly_twig", input="Dragonfly_by_Bolly.jpg",
         crop=(1300, 500, 3800, 2500), long=800, objects=["dragonfly"], rim=3,
         object="a darter with four spread, transparent wings on a hazel twig",
         behind="out-of-focus hazel leaves with blue sky gaps; the twig with catkins "
                "runs through the object"),
    dict(name="woodbird_ceiling", input="free_by_Peter_Nerlich.jpg",
         crop=(500, 300, 2300, 2100), long=700, objects=["woodbird", "spring"], rim=3,
         object="a carved wooden bird with spread wings and the coil spring it hangs "
                "from, up to the lamp's ring",
         behind="a plain grey wall with a soft light gradient; the spring crosses the "
                "bright globe of a ceiling lamp"),
    dict(name="bottle_table", input="Wine_by_Jakkub_Mede.jpg",
         crop=(700, 250, 1800, 1650), long=700, objects=["bottle"], rim=3,
         object="a wine bottle standing on a pallet table",
         behind="a blurred wall with soft shadows, the glass-block window above, the "
                "table's planks and front edge below"),
    dict(name="dog_window", input="friends_by_Aitzol_Berasategi.jpg",
         crop=(700, 1250, 1900, 2450), long=600, objects=["dog"], rim=3,
         object="a cocker spaniel looking out of a window, a paw over the sill",
         behind="horizontal weatherboard planks with dark gaps, the window frame and "
                "sill, a towel; a rope with a hook crosses below"),
    dict(name="fig_bowl", input="Picture_0B_by_freespace.jpg",
         crop=(0, 0, 2572, 1740), long=800, objects=["fig_shadow"], rim=3,
         object="half a fig lying in a red bowl, with its hard shadow",
         behind="the bowl's red wood with concentric turning marks and its shading"),
    dict(name="spoon_saucer", input="coffee.png",
         crop=(0, 0, 600, 400), long=600, objects=["spoon"], rim=3,
         object="a teaspoon lying on the saucer beside the cup",
         behind="the glossy red saucer and its rim, the cup's foot and shadow"),
    dict(name="tripod_grass", input="camera.png",
         crop=(0, 0, 512, 512), long=512, objects=["tripod"], rim=3,
         object="the cameraman's tripod (column, head, legs, struts), cut by the "
                "bottom edge",
         behind="a mown lawn (fine texture), the man's dark coat and gloves"),
    dict(name="tower_sky", input="rocket.jpg",
         crop=(0, 0, 640, 427), long=640, objects=["tower"], rim=3,
         object="a lightning mast (pole on a lattice tower) beside the rocket, cut by "
                "the bottom edge",
         behind="a dark blue dusk sky gradient, low clouds and star-shaped ground lights "
                "near the bottom"),
    dict(name="flag_backdrop", input="astronaut.png",
         crop=(0, 0, 512, 512), long=512, objects=["flag"], rim=3,
         object="the US flag hanging behind the astronaut, cut by the left, top and "
                "bottom edges",
         behind="a mottled grey studio backdrop; the astronaut's orange sleeve borders "
                "it on the right"),
    dict(name="pedestal_hilltop", input="sunset_by_Aitzol_Berasategi.jpg",
         crop=(0, 700, 4272, 2848), long=800, objects=["pedestal"], rim=3,
         object="a stone orientation table (disc on a column) on a hilltop, cut by the "
                "bottom edge",
         behind="grass with snow patches, the hill's edge against a dark valley and the "
                "sunlit snow beyond"),
    dict(name="dandelion_meadow", input="seeding_by_Clements_Engelhardt.jpg",
         crop=(0, 0, 5312, 2988), long=800, objects=["dandelion"], rim=4,
         object="a big dandelion clock in the foreground on its stem, cut by the bottom "
                "edge",
         behind="an out-of-focus meadow with more dandelion clocks, grass blades and the "
                "low sun's glare at the top"),
]

#: holes of a mask up to this many output pixels are filled
MAX_HOLE = 200

# --------------------------------------------------------------------------------------
# helpers (also used by tools/build_quality_cases.py)
# --------------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_input(name: str, roots: list[Path], want: str | None = None) -> Path:
    want = want or INPUTS[name]["sha256"]
    seen = []
    for root in roots:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob(name)):
            if p.is_file():
                if sha256_file(p) == want:
                    return p
                seen.append(p)
    raise SystemExit(
        f"input {name} not found (sha256 {want}); looked under {', '.join(map(str, roots))}"
        + (f"; files with another checksum: {', '.join(map(str, seen))}" if seen else "")
    )


def default_roots(inputs: Path, skimage_data: Path | None) -> list[Path]:
    roots = [inputs]
    if skimage_data is not None:
        roots.append(skimage_data)
    else:
        try:
            import skimage.data  # only to locate its folder

            roots.append(Path(skimage.data.__file__).parent)
        except ImportError:
            pass
    return roots


def load_rgb(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()


def polygons_mask(size: tuple[int, int], polygons) -> np.ndarray:
    """Union of filled polygons, (H, W) bool, for an image of ``size`` (W, H)."""
    img = Image.new("L", size, 0)
    d = ImageDraw.Draw(img)
    for poly in polygons:
        d.polygon([(float(x), float(y)) for x, y in poly], fill=255)
    return np.asarray(img) > 0


def largest_component(m: np.ndarray) -> np.ndarray:
    lab, n = ndimage.label(m)
    if n <= 1:
        return m
    sizes = ndimage.sum(m, lab, index=np.arange(1, n + 1))
    return lab == int(np.argmax(sizes)) + 1


def matte_against_smooth_wall(rgb: np.ndarray, box, frame, frame_skip_x, threshold,
                              drop) -> np.ndarray:
    """Pixels of ``box`` that differ from a cubic fit of the wall around them."""
    x0, y0, x1, y1 = box
    sub = rgb[y0:y1, x0:x1].astype(np.float64)
    h, w = sub.shape[:2]
    ring = np.zeros((h, w), dtype=bool)
    ring[:frame] = ring[-frame:] = True
    ring[:, :frame] = ring[:, -frame:] = True
    ring[:, frame_skip_x[0] - x0:frame_skip_x[1] - x0] = False

    def features(yy, xx):
        u, v = xx / w, yy / h
        return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v, u ** 3, v ** 3,
                         u * u * v, u * v * v], axis=1)

    ys, xs = np.nonzero(ring)
    a = features(ys.astype(np.float64), xs.astype(np.float64))
    yy, xx = np.mgrid[0:h, 0:w]
    f = features(yy.ravel().astype(np.float64), xx.ravel().astype(np.float64))
    diff = np.zeros((h, w))
    for c in range(3):
        coef = np.linalg.lstsq(a, sub[ys, xs, c], rcond=None)[0]
        diff = np.maximum(diff, np.abs(sub[..., c] - (f @ coef).reshape(h, w)))
    m = diff > threshold
    for dx0, dy0, dx1, dy1 in drop:
        m[max(dy0 - y0, 0):dy1 - y0, max(dx0 - x0, 0):dx1 - x0] = False
    m = ndimage.binary_fill_holes(largest_component(m))
    out = np.zeros(rgb.shape[:2], dtype=bool)
    out[y0:y1, x0:x1] = m
    return out


def object_mask(name: str, path: Path) -> np.ndarray:
    """The outline of ``OBJECTS[name]`` at the source photo's resolution, (H, W) bool."""
    spec = OBJECTS[name]
    rgb = load_rgb(path)
    h, w = rgb.shape[:2]
    m = np.zeros((h, w), dtype=bool)
    if "polygons" in spec:
        m |= polygons_mask((w, h), spec["polygons"])
    if "matte" in spec:
        m |= matte_against_smooth_wall(rgb, **spec["matte"])
    if "dark" in spec:
        m |= rgb[..., 0] < spec["dark"]
    if not m.any():
        raise ValueError(name)
    return m


def reduce_mask(m: np.ndarray, box, size: tuple[int, int]) -> np.ndarray:
    """Crop ``box`` of a source-resolution mask and reduce it to ``size`` (W, H) by area
    averaging; a pixel at least half covered is set."""
    img = Image.fromarray(np.where(m, 255, 0).astype(np.uint8), mode="L").crop(tuple(box))
    img = img.resize(size, Image.Resampling.BOX)
    return np.asarray(img) >= 128


def fill_small_holes(m: np.ndarray, max_area: int = MAX_HOLE) -> np.ndarray:
    """Fill the holes of ``m`` of at most ``max_area`` pixels (pinholes of the outline);
    larger enclosed regions, such as the grass between a tripod's legs, stay known."""
    holes = ndimage.binary_fill_holes(m) & ~m
    lab, n = ndimage.label(holes)
    if n == 0:
        return m.copy()
    sizes = ndimage.sum(holes, lab, index=np.arange(1, n + 1))
    small = np.zeros(n + 1, dtype=bool)
    small[1:] = sizes <= max_area
    return m | small[lab]


def dilate_disc(m: np.ndarray, r: float) -> np.ndarray:
    """Every pixel within Euclidean distance ``r`` of ``m``."""
    if r <= 0 or not m.any():
        return m.copy()
    return ndimage.distance_transform_edt(~m) <= r


def out_size(crop, long_side):
    cw, ch = crop[2] - crop[0], crop[3] - crop[1]
    if cw >= ch:
        return long_side, int(round(long_side * ch / cw))
    return int(round(long_side * cw / ch)), long_side


def crop_resize(path: Path, crop, size) -> np.ndarray:
    with Image.open(path) as im:
        im = im.convert("RGB").crop(tuple(crop))
        if im.size != tuple(size):
            im = im.resize(size, Image.Resampling.LANCZOS, reducing_gap=None)
        return np.asarray(im, dtype=np.uint8).copy()


def save_png(arr: np.ndarray, path: Path) -> str:
    mode = "L" if arr.ndim == 2 else "RGB"
    Image.fromarray(arr, mode=mode).save(path, format="PNG", optimize=False, compress_level=9)
    return sha256_file(path)


def licence_lines(records: list[dict]) -> list[str]:
    """SOURCES.md's licence section: each licence with the cases that carry it."""
    by_lic: dict[str, list[str]] = {}
    for r in records:
        by_lic.setdefault(r["licence"], []).append(f"`{r['name']}`")
    return (["## Licence of this folder\n",
             "The PNGs are adaptations (crop, resize, and a drawn mask) of the works above and "
             "keep their licences; a case made from a CC-BY-SA input is CC-BY-SA (same "
             "version):\n"]
            + [f"- {lic}: {', '.join(by_lic[lic])}" for lic in sorted(by_lic)] + [""])


def sides_touched(m: np.ndarray) -> list[str]:
    s = []
    if m[0].any():
        s.append("top")
    if m[-1].any():
        s.append("bottom")
    if m[:, 0].any():
        s.append("left")
    if m[:, -1].any():
        s.append("right")
    return s


# --------------------------------------------------------------------------------------
# SOURCES.md
# --------------------------------------------------------------------------------------


def sources_md(records, used_inputs) -> str:
    L = []
    L.append("# Sources of the object-removal cases\n")
    L.append(
        f"{len(records)} real object removals without ground truth, for contact sheets "
        "judged by eye. Each case is a crop of a free-licensed photograph (`image.png`, "
        "RGB) and a mask (`mask.png`, 8-bit, 255 = remove, 0 = keep) drawn tightly around "
        "a real object in it that a user would want removed, with its hard shadow where "
        "it casts one and a rim of 3 px (4 px around the dandelion's fuzzy head). Nothing is "
        "known behind the objects: the fills "
        "are judged by eye (does the background continue plausibly, are the edges and "
        "lines that cross the object carried through, is the fill as sharp as its "
        "surroundings). Every step is in "
        "[`tools/build_object_cases.py`](../../tools/build_object_cases.py) (run it to "
        "rebuild byte-identical files from the inputs below; the inputs themselves are "
        "not committed). The cases with known truth are in [`../quality`](../quality) "
        "(its category `object` reuses some of these outlines as hole silhouettes).\n")
    L.append("## Inputs\n")
    L.append("| input | where it comes from | author (copyright line) | licence | sha256 |")
    L.append("|---|---|---|---|---|")
    order = {L16[0]: 0, L20[0]: 1, SKI[0]: 2}
    for name in sorted(used_inputs, key=lambda n: (order[INPUTS[n]["pkg"][0]], n.lower())):
        meta = INPUTS[name]
        pkg, ver = meta["pkg"]
        with Image.open(meta["_path"]) as im:
            wh = f"{im.size[0]}×{im.size[1]}"
        if pkg == "scikit-image":
            where = f"scikit-image {ver} (PyPI wheel), `{input_path_in_package(name)}`"
        else:
            where = f"Debian package `{pkg}` {ver}, `{input_path_in_package(name)}`"
        L.append(f"| `{name}` ({wh}): {meta['what']} | {where} | {meta['author']} | "
                 f"{meta['licence']} | `{meta['sha256']}` |")
    L.append("")
    L.append(
        "Authors and licences of the wallpapers are those of the "
        "packages' `/usr/share/doc/<package>/copyright` (Debian machine-readable format; "
        "upstream https://gitlab.com/ubports/development/core/lomiri-wallpapers); those of "
        "the scikit-image images are from the data docstrings in "
        "`skimage/data/_fetchers.py` (`coffee`, `camera`: \"No copyright restrictions. "
        "CC0 by the photographer\"; `astronaut`: \"No known copyright restrictions, "
        "released into the public domain\"; `rocket`: captured by SpaceX and \"released "
        "in the public domain\"). `camera.png` is greyscale; its case is stored as RGB "
        "with three equal channels.\n")
    L.append("## Cases\n")
    L.append("| case | made from | crop | object (masked) | behind it | mask |")
    L.append("|---|---|---|---|---|---|")
    for r in records:
        c = r["source"]["crop_box"]
        w, h = r["size"]
        sides = ", ".join(r["mask_touches"]) or "none"
        L.append(
            f"| `{r['name']}` | `{r['source']['file']}` | ({c[0]}, {c[1]})–({c[2]}, {c[3]}) "
            f"→ {w}×{h} | {r['object']} | {r['behind']} | {r['mask_fraction'] * 100:.1f} %, "
            f"touches: {sides} |")
    L.append("")
    L.append(
        "How the outlines were made (all in the source photo's pixels, see the build "
        "script's docstring): hand-placed polygons on magnified crops for every object "
        "except the wooden bird, which is a difference matte against a cubic fit of the "
        "plain wall around it (its spring and the teal underside of its tail are "
        "polygons). Each mask was checked by eye "
        "as an overlay on the image. `*/manifest.json` hold the size, the mask's pixel "
        "count, fraction and bounding box (half-open `[x0, y0, x1, y1]`), the sides it "
        "touches, the source, crop box, author and licence, and the sha256 of each PNG; "
        "`index.json` lists the cases in order with a description.\n")
    L += licence_lines(records)
    L.append(
        "Credit the authors listed above when redistributing. Adapted by the `inpaint` "
        "project (crop, resize, mask).")
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------


def build_case(case, path: Path) -> tuple[np.ndarray, np.ndarray]:
    w, h = out_size(case["crop"], case["long"])
    image = crop_resize(path, case["crop"], (w, h))
    src = None
    for name in case["objects"]:
        if OBJECTS[name]["input"] != case["input"]:
            raise SystemExit(f"{case['name']}: object {name} is not in {case['input']}")
        om = object_mask(name, path)
        src = om if src is None else (src | om)
    m = reduce_mask(src, case["crop"], (w, h))
    m = fill_small_holes(dilate_disc(fill_small_holes(m), case["rim"]))
    return image, m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--inputs", type=Path, required=True,
                    help="folder holding the unpacked packages (searched recursively)")
    ap.add_argument("--skimage-data", type=Path, default=None,
                    help="scikit-image data folder (default: the installed skimage/data)")
    ap.add_argument("--out", type=Path, default=Path("datasets/objects"))
    a = ap.parse_args()
    roots = default_roots(a.inputs, a.skimage_data)

    names = [c["name"] for c in CASES]
    assert len(set(names)) == len(names)
    used_inputs = list(dict.fromkeys(c["input"] for c in CASES))
    for n in used_inputs:
        INPUTS[n]["_path"] = find_input(n, roots)

    a.out.mkdir(parents=True, exist_ok=True)
    records = []
    for case in CASES:
        meta = INPUTS[case["input"]]
        image, m = build_case(case, meta["_path"])
        h, w = m.shape
        assert 350 <= max(w, h) <= 800, (case["name"], w, h)
        frac = float(m.mean())
        if not 0.01 <= frac <= 0.25:
            raise SystemExit(f"{case['name']}: mask fraction {frac:.4f} outside [0.01, 0.25]")
        ys, xs = np.nonzero(m)
        pkg, ver = meta["pkg"]
        d = a.out / case["name"]
        d.mkdir(parents=True, exist_ok=True)
        sha = {
            "image.png": save_png(image, d / "image.png"),
            "mask.png": save_png(np.where(m, 255, 0).astype(np.uint8), d / "mask.png"),
        }
        r = dict(
            name=case["name"], size=[w, h], mask_pixels=int(m.sum()),
            mask_fraction=round(frac, 5),
            mask_bbox=[int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1],
            mask_touches=sides_touched(m), mask_rim_px=case["rim"],
            object=case["object"], behind=case["behind"],
            outlines={n: OBJECTS[n]["what"] for n in case["objects"]},
            source=dict(file=case["input"], package=pkg, version=ver,
                        path=input_path_in_package(case["input"]),
                        crop_box=list(case["crop"]), sha256=meta["sha256"]),
            author=meta["author"], licence=meta["licence"],
            sha256=sha, sources="see ../SOURCES.md",
        )
        (d / "manifest.json").write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
        records.append(r)
        print(f"{r['name']:18s} {w}x{h}  mask {frac * 100:5.2f} %  touches "
              f"{','.join(r['mask_touches']) or '-'}")

    index = {"cases": [dict(name=r["name"], description=f"{r['object']}; behind it: "
                            f"{r['behind']}") for r in records]}
    (a.out / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n")
    (a.out / "SOURCES.md").write_text(sources_md(records, used_inputs))


if __name__ == "__main__":
    main()

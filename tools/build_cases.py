"""Rebuild the four test cases of ``datasets/`` (WalkingMan, River, DivingMan, Hill).

This script is a build tool, not part of the package: nothing imports it.  It composites a
real object cut-out (taken from another real photograph with a hand-made polygon or a
threshold matte) onto a real background photograph, so the background (``truth.png``) is
known exactly.  See ``SOURCES.md`` for the authors and licences of every input.

Inputs (not committed; fetch them like this)::

    cd /tmp && apt-get download lomiri-wallpapers-16.04 lomiri-wallpapers-20.04
    dpkg -x lomiri-wallpapers-16.04_*_all.deb l16 && dpkg -x lomiri-wallpapers-20.04_*_all.deb l20
    pip download --no-deps scikit-image==0.26.0 -d skw && (cd skw && unzip -q *.whl 'skimage/data/*')

    python tools/build_cases.py \\
        --lomiri-16 /tmp/l16/usr/share/backgrounds \\
        --lomiri-20 /tmp/l20/usr/share/backgrounds \\
        --skimage-data /tmp/skw/skimage/data \\
        --out datasets

Requires numpy, scipy and Pillow.  The output is deterministic for the same inputs and
library versions (Pillow 12/13, numpy 2, scipy 1.x were used).

How each case is made
---------------------
Every cut-out is matted at the source resolution (polygon, optionally feathered, or a
threshold matte), cropped to the matte's bounding box and resized (premultiplied
colour, Lanczos) to exactly ``(w - 2d) x (h - 2d)`` pixels, where ``w x h`` is the
paper's object size (Table 3) and ``d`` the mask dilation.  Alpha values below 4/255 are
set to 0.  ``image = round(alpha * object + (1 - alpha) * truth)``; ``mask`` is the
support ``alpha > 0`` dilated by ``d`` pixels (3x3 square), so its bounding box is
exactly ``w x h`` and ``image == truth`` everywhere outside it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter
from scipy import ndimage

ALPHA_FLOOR = 4 / 255.0

# --------------------------------------------------------------------------------------
# hand-made polygons (source pixel coordinates)
# --------------------------------------------------------------------------------------

#: Eileen Collins in astronaut.png (512x512): hair, face, neck ring, shoulders and arms;
#: the held helmet (lower right) is excluded, the bottom is the photo's bottom edge.
ASTRONAUT_POLY = [
    (22, 511), (21, 450), (23, 380), (31, 320), (41, 282), (60, 243), (88, 222),
    (113, 196), (118, 178), (136, 168), (160, 161), (187, 157), (185, 140), (181, 122),
    (171, 115), (160, 110),
    (154, 82), (161, 57), (180, 35), (205, 22), (226, 18), (250, 21), (272, 33),
    (289, 51), (298, 76), (298, 100), (292, 119), (279, 125), (271, 135), (267, 150),
    (264, 162), (276, 172), (290, 182), (299, 192), (304, 210), (308, 236), (322, 251), (343, 270),
    (353, 296), (358, 320),
    (361, 343), (345, 351), (321, 369), (302, 393), (288, 430), (281, 470), (278, 511),
]

#: The nuthatch in Kleiber_by_Lukas_Baubkus.jpg (6028x3391), clinging head-down to a
#: trunk; the left edge follows the bark, the rest the bird's outline.
NUTHATCH_POLY = [
    (2458, 1172), (2500, 1230), (2543, 1286), (2614, 1421), (2686, 1514), (2743, 1586),
    (2814, 1700), (2871, 1800), (2900, 1857), (2914, 1925), (2943, 1955), (3014, 1984),
    (3071, 2040), (3100, 2084), (3175, 2125), (3248, 2163), (3170, 2150), (3086, 2129),
    (3029, 2150), (2971, 2164), (2900, 2186), (2829, 2205), (2757, 2219), (2657, 2219),
    (2600, 2198), (2543, 2155), (2500, 2100), (2470, 2130), (2450, 2080), (2440, 2000),
    (2438, 1850), (2440, 1700), (2447, 1560), (2458, 1450), (2474, 1300), (2466, 1220),
]


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def load_rgb(path: Path) -> np.ndarray:
    """Read an image as float RGB in [0, 1]."""
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float64) / 255.0


def polygon_alpha(shape: tuple[int, int], poly, feather: float) -> np.ndarray:
    """Rasterise ``poly`` into an alpha matte of ``shape`` (H, W), softened by ``feather``."""
    img = Image.new("L", (shape[1], shape[0]), 0)
    ImageDraw.Draw(img).polygon(poly, fill=255)
    if feather > 0:
        img = img.filter(ImageFilter.GaussianBlur(feather))
    return np.asarray(img, dtype=np.float64) / 255.0


def crop_to_alpha(rgb: np.ndarray, alpha: np.ndarray):
    """Crop colour and matte to the bounding box of ``alpha > ALPHA_FLOOR``."""
    ys, xs = np.nonzero(alpha > ALPHA_FLOOR)
    sl = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
    return rgb[sl], alpha[sl]


def _resize_plane(plane: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    img = Image.fromarray(plane.astype(np.float32), mode="F")
    return np.asarray(img.resize(size, Image.Resampling.LANCZOS), dtype=np.float64)


def resize_cutout(rgb: np.ndarray, alpha: np.ndarray, size: tuple[int, int]):
    """Resize a matted cut-out to ``size`` (W, H) with premultiplied colour."""
    a = np.clip(_resize_plane(alpha, size), 0.0, 1.0)
    pre = np.stack([_resize_plane(rgb[..., c] * alpha, size) for c in range(3)], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        col = np.where(a[..., None] > 1e-6, pre / np.maximum(a[..., None], 1e-6), 0.0)
    # keep the support touching all four sides of the box (exact bbox): where a faint
    # tip fell under the floor, keep its strongest pixel at the floor value
    for line in (a[0, :], a[-1, :], a[:, 0], a[:, -1]):
        if line.max() < ALPHA_FLOOR:
            line[np.argmax(line)] = ALPHA_FLOOR
    a[a < ALPHA_FLOOR] = 0.0
    return np.clip(col, 0.0, 1.0), a


def rotate_cutout(rgb: np.ndarray, alpha: np.ndarray, degrees: float):
    """Rotate a cut-out counter-clockwise by ``degrees`` (expanding the canvas)."""
    pre = np.concatenate([rgb * alpha[..., None], alpha[..., None]], axis=-1)
    out = ndimage.rotate(pre, degrees, axes=(1, 0), reshape=True, order=1, mode="constant")
    a = np.clip(out[..., 3], 0.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        col = np.where(a[..., None] > 1e-6, out[..., :3] / np.maximum(a[..., None], 1e-6), 0.0)
    return np.clip(col, 0.0, 1.0), a


def fit_background(path: Path, box: tuple[int, int, int, int], size: tuple[int, int]):
    """Crop ``box`` (left, top, right, bottom) from a photo and resize it to ``size``."""
    img = Image.open(path).convert("RGB").crop(box)
    img = img.resize(size, Image.Resampling.LANCZOS)
    return np.asarray(img, dtype=np.uint8)


def composite(truth: np.ndarray, col: np.ndarray, alpha: np.ndarray, x: int, y: int, d: int):
    """Paste a resized cut-out at (x, y); return image and mask (support dilated by d)."""
    h, w = alpha.shape
    image = truth.astype(np.float64) / 255.0
    a = np.zeros(truth.shape[:2])
    c = np.zeros(truth.shape)
    a[y:y + h, x:x + w] = alpha
    c[y:y + h, x:x + w] = col
    blended = a[..., None] * c + (1.0 - a[..., None]) * image
    out = np.where(a[..., None] > 0, np.round(blended * 255.0), truth).astype(np.uint8)
    support = a > 0
    mask = ndimage.binary_dilation(support, structure=np.ones((3, 3), bool), iterations=d)
    return out, mask


def bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    """Return (x, y, w, h) of the True pixels."""
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def match_gain(col: np.ndarray, alpha: np.ndarray, gain: float) -> np.ndarray:
    """Scale the cut-out's colour (simple exposure match to the scene)."""
    del alpha
    return np.clip(col * gain, 0.0, 1.0)


# --------------------------------------------------------------------------------------
# the four cases
# --------------------------------------------------------------------------------------


def make_walkingman(a):
    """512x384, 78x126 blob: Eileen Collins (astronaut.png) in the Picos de Europa photo."""
    W, H, ow, oh, d = 512, 384, 78, 126, 2
    truth = fit_background(a.lomiri_16 / "picosdeeuropa_by_Aitzol_Berasategi.jpg",
                           (0, 0, 3264, 2448), (W, H))
    src = load_rgb(a.skimage_data / "astronaut.png")
    alpha = polygon_alpha(src.shape[:2], ASTRONAUT_POLY, feather=1.0)
    alpha[-1:, :] = alpha[-2:-1, :]  # the figure continues below the photo's edge
    rgb, alpha = crop_to_alpha(src, alpha)
    # the figure is cut by the bottom edge of the frame, where no dilation is added
    col, al = resize_cutout(rgb, alpha, (ow - 2 * d, oh - d))
    col = match_gain(col, al, 1.05)
    x, y = a.walking_xy[0], H - (oh - d)
    image, mask = composite(truth, col, al, x, y, d)
    desc = ("Complex scene (Picos de Europa meadow, path and mountains) with a person "
            "(astronaut Eileen Collins, head and torso) standing in the foreground; the "
            "figure is cut by the bottom edge of the frame like a photographed hiker.")
    return image, truth, mask, desc, (ow, oh), d


def make_river(a):
    """480x639, 59x93 small blob: a nuthatch perched on a rock in a forest stream."""
    W, H, ow, oh, d = 480, 639, 59, 93, 2
    # portrait crop of the stream (3088x2056 photo): 1544x2056 around the water
    truth = fit_background(a.lomiri_16 / "life_by_Aitzol_Berasategi.jpg",
                           (700, 0, 2244, 2056), (W, H))
    src = load_rgb(a.lomiri_20 / "Kleiber_by_Lukas_Baubkus.jpg")
    alpha = ndimage.minimum_filter(polygon_alpha(src.shape[:2], NUTHATCH_POLY, 2.0), 9)
    rgb, alpha = crop_to_alpha(src, alpha)
    rgb, alpha = rgb[:, ::-1], alpha[:, ::-1]  # mirror, then turn head-up (perching)
    rgb, alpha = rotate_cutout(rgb, alpha, 195.0)  # upright: tail down, head up
    rgb, alpha = crop_to_alpha(rgb, alpha)
    col, al = resize_cutout(rgb, alpha, (ow - 2 * d, oh - 2 * d))
    col = match_gain(col, al, 0.8)  # the stream lies in the shade
    x, y = a.river_xy
    image, mask = composite(truth, col, al, x, y, d)
    desc = ("Complex scene with texture (forest stream over limestone rocks) with a small "
            "bird (a nuthatch) perched on a mossy ledge at the water's edge.")
    return image, truth, mask, desc, (ow, oh), d


def make_divingman(a):
    """576x384, 155x186 big random shape: a nuthatch on a twig in front of foliage."""
    W, H, ow, oh, d = 576, 384, 155, 186, 2
    truth = fit_background(a.lomiri_16 / "Dragonfly_by_Bolly.jpg",
                           (1500, 1500, 4002, 3168), (W, H))
    src = load_rgb(a.lomiri_20 / "Kleiber_by_Lukas_Baubkus.jpg")
    alpha = ndimage.minimum_filter(polygon_alpha(src.shape[:2], NUTHATCH_POLY, 2.0), 9)
    rgb, alpha = crop_to_alpha(src, alpha)
    col, al = resize_cutout(rgb, alpha, (ow - 2 * d, oh - 2 * d))
    col = match_gain(col, al, 1.0)
    x, y = a.diving_xy
    image, mask = composite(truth, col, al, x, y, d)
    desc = ("Texture (sunlit hazel foliage, out of focus) with a big irregular shape: a "
            "nuthatch clinging head-down to the twig.")
    return image, truth, mask, desc, (ow, oh), d


def _cable_band(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Straighten one steel cable of the bridge photo into a horizontal band.

    The leftmost of the four thin dark cables runs from about (2123, 200) down to the
    horizon with slope dx/dy ~ 0.465.  Its centre is tracked row by row over the sky
    (rows 80..2000), the photo is sampled across it (-9..+9 px in x) and the band is
    returned as colour (19, L, 3) and alpha (19, L), L rows along the cable.  Alpha comes
    from the darkening relative to the sky on both sides of the cable; colour is the
    cable's core colour (smoothed along it).
    """
    src = load_rgb(path)
    weights = np.array([0.299, 0.587, 0.114])
    lum = src @ weights
    ys = np.arange(80, 2000)
    centre = 2123 + 0.465 * (80 - 200)
    centres = []
    for yy in ys:
        guess = centre + 0.465
        lo = int(round(guess)) - 7
        row = lum[yy, lo:lo + 15]
        w = np.clip(np.median(lum[yy, lo - 6:lo + 21]) - row, 0, None) ** 2
        centre = lo + float((w * np.arange(15)).sum() / max(w.sum(), 1e-9))
        centre = 0.7 * guess + 0.3 * centre  # damped tracking
        centres.append(centre)
    centres = ndimage.uniform_filter1d(np.array(centres), 41)
    s = np.arange(-9, 10, dtype=np.float64)
    px = centres[None, :] + s[:, None]
    py = np.broadcast_to(ys[None, :].astype(np.float64), px.shape)
    band = np.stack([ndimage.map_coordinates(src[..., c], [py, px], order=1)
                     for c in range(3)], axis=-1)
    blum = band @ weights
    sky_lum = np.median(np.concatenate([blum[:3], blum[-3:]], axis=0), axis=0)
    core = np.argmin(blum, axis=0)
    core_col = band[core, np.arange(band.shape[1])]
    core_col = ndimage.uniform_filter1d(core_col, 15, axis=0)
    core_lum = ndimage.uniform_filter1d(blum.min(axis=0), 15)
    alpha = np.clip((sky_lum[None] - blum) / np.maximum(sky_lum - core_lum, 1e-3)[None], 0, 1)
    alpha[alpha < 0.1] = 0.0
    # keep only the cable itself: within 4 samples of the tracked centre line
    alpha[np.abs(s) > 4] = 0.0
    # where the cable crosses the white strut the sky estimate fails: take the alpha
    # profile from the nearest good position along the cable instead
    mass = alpha.sum(axis=0)
    good = mass > 0.6 * np.median(mass)
    idx = np.arange(alpha.shape[1])
    nearest = idx[good][np.clip(np.searchsorted(idx[good], idx), 0, good.sum() - 1)]
    alpha = alpha[:, nearest]
    core_col = core_col[nearest]
    # backlit against a sunset sky in the target scene: 40 % towards grey, darker
    core_col = 0.6 * (0.6 * core_col + 0.4 * (core_col @ weights)[:, None])
    colour = np.broadcast_to(core_col[None], band.shape).copy()
    return colour[5:14, 60:], alpha[5:14, 60:]


def make_hill(a):
    """1024x550, 1024x10 long strip: a steel cable across a hilltop at sunset."""
    W, H, ow, oh, d = 1024, 550, 1024, 10, 1
    truth = fit_background(a.lomiri_16 / "sunset_by_Aitzol_Berasategi.jpg",
                           (0, 300, 4272, 2594), (W, H))
    colour, alpha = _cable_band(a.lomiri_16 / "Bridge_by_Sander_Klootwijk.jpg")
    # scale so the cable is ~1040 px long (slightly longer than the frame)
    T, L = alpha.shape
    scale = 1040.0 / L
    new_t = max(3, int(round(T * scale * 0.907)))  # x-samples -> perpendicular (cos 25 deg)
    al = np.clip(_resize_plane(alpha, (1040, new_t)), 0, 1)
    col = np.stack([_resize_plane(colour[..., c], (1040, new_t)) for c in range(3)], -1)
    col = np.clip(col, 0, 1)
    # one transparent row above and below, so sub-pixel shifts ramp in smoothly
    al = np.pad(al[:, 8:8 + W], ((1, 1), (0, 0)))
    col = np.pad(col[:, 8:8 + W], ((1, 1), (0, 0), (0, 0)), mode="edge")
    new_t += 2
    # hang it: a shallow catenary-like sag plus a slight tilt, resampled per column
    xs = np.arange(W) / (W - 1)
    top_row = a.hill_y
    target_rows = oh - 2 * d
    for sag in np.arange(0.0, 12.0, 0.05):
        offset = sag * 4.0 * xs * (1.0 - xs) + a.hill_tilt * xs
        rows = np.arange(new_t + 16, dtype=np.float64)
        canvas_a = np.zeros((len(rows), W))
        canvas_c = np.zeros((len(rows), W, 3))
        for j in range(W):
            src_r = rows - 4.0 - offset[j]
            canvas_a[:, j] = np.interp(src_r, np.arange(new_t), al[:, j], left=0, right=0)
            for c in range(3):
                canvas_c[:, j, c] = np.interp(src_r, np.arange(new_t), col[:, j, c])
        canvas_a[canvas_a < 0.05] = 0.0
        ys = np.nonzero(canvas_a.max(axis=1) > 0)[0]
        if ys.max() - ys.min() + 1 >= target_rows:
            break
    if ys.max() - ys.min() + 1 != target_rows:
        raise RuntimeError("could not hang the cable with the exact strip height")
    canvas_a = canvas_a[ys.min():ys.max() + 1]
    canvas_c = canvas_c[ys.min():ys.max() + 1]
    if (canvas_a[:, 0].max() == 0) or (canvas_a[:, -1].max() == 0):
        raise RuntimeError("the cable does not span the frame")
    image, mask = composite(truth, canvas_c, canvas_a, 0, top_row, d)
    desc = ("Complex scene (hilltop with an orientation table, mountain ranges and the "
            "setting sun) crossed from edge to edge by a thin steel cable (a long strip).")
    return image, truth, mask, desc, (ow, oh), d


CASES = {
    "walkingman": make_walkingman,
    "river": make_river,
    "divingman": make_divingman,
    "hill": make_hill,
}


def save_png(arr: np.ndarray, path: Path, mode: str) -> str:
    """Write an optimised PNG and return its sha256."""
    Image.fromarray(arr, mode=mode).save(path, optimize=True)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lomiri-16", type=Path, required=True,
                    help="usr/share/backgrounds of lomiri-wallpapers-16.04")
    ap.add_argument("--lomiri-20", type=Path, required=True,
                    help="usr/share/backgrounds of lomiri-wallpapers-20.04")
    ap.add_argument("--skimage-data", type=Path, required=True,
                    help="skimage/data of the scikit-image wheel")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "datasets")
    ap.add_argument("--only", nargs="*", default=list(CASES))
    a = ap.parse_args(argv)
    # placements (top-left of the object's support) chosen by eye
    a.walking_xy = (330, 0)
    a.river_xy = (275, 423)
    a.diving_xy = (338, 124)
    a.hill_y = 96
    a.hill_tilt = 0.0

    index = []
    for name in CASES:
        if name not in a.only:
            index.append(name)
            continue
        image, truth, mask, desc, (ow, oh), d = CASES[name](a)
        mask8 = np.where(mask, 255, 0).astype(np.uint8)
        x, y, w, h = bbox(mask)
        if (w, h) != (ow, oh):
            raise RuntimeError(f"{name}: object bbox {w}x{h}, expected {ow}x{oh}")
        if np.any(image[~mask] != truth[~mask]):
            raise RuntimeError(f"{name}: image differs from truth outside the mask")
        folder = a.out / name
        folder.mkdir(parents=True, exist_ok=True)
        sums = {
            "image.png": save_png(image, folder / "image.png", "RGB"),
            "mask.png": save_png(mask8, folder / "mask.png", "L"),
            "truth.png": save_png(truth, folder / "truth.png", "RGB"),
        }
        manifest = {
            "name": name,
            "width": int(image.shape[1]),
            "height": int(image.shape[0]),
            "object_bbox": {"x": x, "y": y, "w": w, "h": h},
            "mask_pixels": int(mask.sum()),
            "mask_dilation_px": d,
            "sha256": sums,
            "description": desc,
            "sources": "see ../SOURCES.md",
        }
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        index.append(name)
    (a.out / "index.json").write_text(json.dumps({"cases": index}, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""numpy reference for the eight Criminisi stages.

Each function mirrors one kernel in ``kernels/`` and works on a rectangle
``(x0, y0, x1, y1)`` (half-open) of full-size arrays, so the pipeline can recompute only
what a copied patch disturbs.  Integer stages are exact by construction; float32 stages
perform the same correctly rounded operations in the same order as the kernels, so the
OpenCL and numpy pipelines agree bit for bit.  This module is also the fallback backend on
machines without OpenCL (python-for-android has numpy, not pyopencl).
"""

from __future__ import annotations

import numpy as np

#: Largest patch side: keeps the integer SSD (3 * 255^2 * P^2) inside 32 bits.
MAX_PATCH = 127
UINT_MAX = np.uint32(0xFFFFFFFF)
#: Integer BT.601 weights of stage 1 (R, G, B), in 1/256: grey = (R_w R + G_w G + B_w B + 128) >> 8.
GREY_WEIGHTS = (77, 150, 29)
#: Stage 5's normalisation of the data term, 2 * 255 (the isophote's and the normal's scale).
DATA_NORM = np.float32(510.0)
#: Stage 5's constant added to the data term, so a flat front still has a priority.
DATA_EPS = np.float32(0.001)

# The kernels take these constants as build defines (:func:`defines`), so they are stated here only.


def _float_literal(x: np.float32) -> str:
    """An OpenCL C literal of exactly the float32 ``x``."""
    return f"{float(x)!r}f"


def defines() -> dict[str, str | int]:
    """The constants the kernels share with this reference, as ``-D`` build defines."""
    wr, wg, wb = GREY_WEIGHTS
    return {"GREY_R": wr, "GREY_G": wg, "GREY_B": wb, "DATA_NORM": _float_literal(DATA_NORM),
            "DATA_EPS": _float_literal(DATA_EPS)}


def _crop(arr: np.ndarray, x0: int, y0: int, x1: int, y1: int, fill) -> np.ndarray:
    """``arr[y0:y1, x0:x1]`` where out-of-image cells read ``fill``."""
    h, w = arr.shape[:2]
    out = np.full((y1 - y0, x1 - x0) + arr.shape[2:], fill, dtype=arr.dtype)
    sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if sx0 < sx1 and sy0 < sy1:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = arr[sy0:sy1, sx0:sx1]
    return out


def _crop_clamped(arr: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``arr[y0:y1, x0:x1]`` with coordinates clamped to the image (edge replication)."""
    h, w = arr.shape[:2]
    ys = np.clip(np.arange(y0, y1), 0, h - 1)
    xs = np.clip(np.arange(x0, x1), 0, w - 1)
    return arr[ys[:, None], xs[None, :]]


def grey(rgb: np.ndarray, out: np.ndarray, rect) -> None:
    """Stage 1: ``out = (77 R + 150 G + 29 B + 128) >> 8`` on ``rect`` (:data:`GREY_WEIGHTS`)."""
    x0, y0, x1, y1 = rect
    p = rgb[y0:y1, x0:x1].astype(np.int32)
    wr, wg, wb = GREY_WEIGHTS
    out[y0:y1, x0:x1] = (wr * p[..., 0] + wg * p[..., 1] + wb * p[..., 2] + 128) >> 8


def front(unknown: np.ndarray, out: np.ndarray, rect) -> None:
    """Stage 2: target pixels with a known 4-neighbour inside the image."""
    x0, y0, x1, y1 = rect
    known = _crop(unknown == 0, x0 - 1, y0 - 1, x1 + 1, y1 + 1, False)
    nb = known[:-2, 1:-1] | known[2:, 1:-1] | known[1:-1, :-2] | known[1:-1, 2:]
    out[y0:y1, x0:x1] = (unknown[y0:y1, x0:x1] != 0) & nb


def valid(unknown: np.ndarray, out: np.ndarray, rect, half: int) -> None:
    """Stage 3: a centre is valid iff its window is inside the image and has no target pixel."""
    x0, y0, x1, y1 = rect
    h, w = unknown.shape
    # Count target pixels per window from a local summed-area table (outside counts as target,
    # which also rejects windows that leave the image).
    block = _crop(unknown != 0, x0 - half, y0 - half, x1 + half, y1 + half, True).astype(np.int32)
    sat = np.zeros((block.shape[0] + 1, block.shape[1] + 1), np.int32)
    sat[1:, 1:] = block.cumsum(0).cumsum(1)
    side = 2 * half + 1
    count = sat[side:, side:] - sat[:-side, side:] - sat[side:, :-side] + sat[:-side, :-side]
    out[y0:y1, x0:x1] = count == 0


def confidence(conf: np.ndarray, front_map: np.ndarray, out: np.ndarray, rect, half: int) -> None:
    """Stage 4: ``C(p) = sum(conf over the in-image patch) / P^2`` on front pixels, else 0.

    The float32 additions run in row-major patch order, as in the kernel.
    """
    x0, y0, x1, y1 = rect
    side = 2 * half + 1
    block = _crop(conf, x0 - half, y0 - half, x1 + half, y1 + half, np.float32(0))
    acc = np.zeros((y1 - y0, x1 - x0), np.float32)
    for dy in range(side):
        for dx in range(side):
            acc = acc + block[dy:dy + y1 - y0, dx:dx + x1 - x0]
    c = acc / np.float32(side * side)
    out[y0:y1, x0:x1] = np.where(front_map[y0:y1, x0:x1] != 0, c, np.float32(0))


def priority(grey_img: np.ndarray, unknown: np.ndarray, front_map: np.ndarray,
             cpatch: np.ndarray, out: np.ndarray, rect) -> None:
    """Stage 5: ``P(p) = C(p) * (D(p) + 0.001)`` on front pixels, ``-1`` elsewhere.

    See ``kernels/criminisi/priority.cl`` for the definition of the data term ``D``.
    """
    x0, y0, x1, y1 = rect
    rh, rw = y1 - y0, x1 - x0
    # Normal: Sobel of the known indicator with clamped coordinates.
    k = _crop_clamped((unknown == 0).astype(np.int32), x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    def K(dx, dy):
        return k[1 + dy:1 + dy + rh, 1 + dx:1 + dx + rw]
    nx = (K(1, -1) + 2 * K(1, 0) + K(1, 1)) - (K(-1, -1) + 2 * K(-1, 0) + K(-1, 1))
    ny = (K(-1, 1) + 2 * K(0, 1) + K(1, 1)) - (K(-1, -1) + 2 * K(0, -1) + K(1, -1))

    # Gradients of every pixel q in the rectangle grown by 1 (neighbours grown by 2).
    g = _crop(grey_img.astype(np.int32), x0 - 2, y0 - 2, x1 + 2, y1 + 2, 0)
    kn = _crop(unknown == 0, x0 - 2, y0 - 2, x1 + 2, y1 + 2, False)
    gq, kq = g[1:-1, 1:-1], kn[1:-1, 1:-1]
    def nb(dx, dy):
        sl = (slice(1 + dy, g.shape[0] - 1 + dy), slice(1 + dx, g.shape[1] - 1 + dx))
        return np.where(kn[sl], g[sl], gq)
    gx = nb(1, 0) - nb(-1, 0)
    gy = nb(0, 1) - nb(0, -1)
    mag = np.where(kq, gx * gx + gy * gy, -1)

    best = np.full((rh, rw), -1, np.int32)
    bgx = np.zeros((rh, rw), np.int32)
    bgy = np.zeros((rh, rw), np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            sl = (slice(1 + dy, 1 + dy + rh), slice(1 + dx, 1 + dx + rw))
            m = mag[sl]
            upd = m > best
            best = np.where(upd, m, best)
            bgx = np.where(upd, gx[sl], bgx)
            bgy = np.where(upd, gy[sl], bgy)

    dot = np.abs(nx * (-bgy) + ny * bgx)
    nn = nx * nx + ny * ny
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.sqrt(nn.astype(np.float32)) * DATA_NORM
        d = np.where(nn != 0, dot.astype(np.float32) / scale, np.float32(0))
    e = d + DATA_EPS
    p = cpatch[y0:y1, x0:x1] * e
    out[y0:y1, x0:x1] = np.where(front_map[y0:y1, x0:x1] != 0, p, np.float32(-1))


def argmax_priority(prio: np.ndarray, rect) -> int:
    """Index ``y * W + x`` of the highest priority in ``rect`` (first on ties), -1 if none."""
    x0, y0, x1, y1 = rect
    block = prio[y0:y1, x0:x1]
    if block.size == 0:
        return -1
    k = int(np.argmax(block))
    if block.flat[k] < 0:
        return -1
    ry, rx = divmod(k, x1 - x0)
    return (y0 + ry) * prio.shape[1] + (x0 + rx)


def ssd(rgb: np.ndarray, unknown: np.ndarray, valid_map: np.ndarray, target: int,
        centres, half: int, out: np.ndarray) -> None:
    """Stage 6: SSD of every candidate centre in ``centres`` against the target patch.

    ``out`` (flat, uint32) receives the row-major map; invalid candidates get ``UINT_MAX``.
    """
    cx0, cy0, cx1, cy1 = centres
    ncx, ncy = cx1 - cx0, cy1 - cy0
    h, w = unknown.shape
    ty, tx = divmod(int(target), w)
    side = 2 * half + 1
    acc = np.zeros((ncy, ncx), np.int64)
    rgb32 = rgb.astype(np.int32) if rgb.dtype != np.int32 else rgb
    for py in range(side):
        y = ty - half + py
        if y < 0 or y >= h:
            continue
        sy0 = cy0 - half + py
        rows = rgb32[sy0:sy0 + ncy]
        for px in range(side):
            x = tx - half + px
            if x < 0 or x >= w or unknown[y, x]:
                continue
            sx0 = cx0 - half + px
            diff = rows[:, sx0:sx0 + ncx] - rgb32[y, x]
            acc += np.einsum("ijk,ijk->ij", diff, diff)
    res = acc.astype(np.uint32)
    res[valid_map[cy0:cy1, cx0:cx1] == 0] = UINT_MAX
    out[:ncx * ncy] = res.ravel()


def argmin_ssd(ssd_map: np.ndarray, n: int) -> tuple[int, int]:
    """Stage 7: ``(index, value)`` of the smallest SSD (first on ties); index -1 if none valid."""
    block = ssd_map[:n]
    if block.size == 0:
        return -1, int(UINT_MAX)
    k = int(np.argmin(block))
    if block[k] == UINT_MAX:
        return -1, int(UINT_MAX)
    return k, int(block[k])


def copy_patch(rgb: np.ndarray, grey_img: np.ndarray, unknown: np.ndarray, conf: np.ndarray,
               cpatch: np.ndarray, target: tuple[int, int], source: tuple[int, int], half: int) -> None:
    """Stage 8: copy source pixels into the target patch's unknown pixels; update all maps."""
    h, w = unknown.shape
    ty, tx = target
    sy, sx = source
    x0, y0 = max(tx - half, 0), max(ty - half, 0)
    x1, y1 = min(tx + half + 1, w), min(ty + half + 1, h)
    fill = unknown[y0:y1, x0:x1] != 0
    src = (slice(sy + y0 - ty, sy + y1 - ty), slice(sx + x0 - tx, sx + x1 - tx))
    dst = (slice(y0, y1), slice(x0, x1))
    rgb[dst][fill] = rgb[src][fill]
    grey_img[dst][fill] = grey_img[src][fill]
    conf[dst][fill] = cpatch[ty, tx]
    unknown[dst][fill] = 0

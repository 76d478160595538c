"""numpy reference seam carver: the specification the OpenCL path must match exactly.

Everything is integer arithmetic, so "match" means bit for bit: the same seams and the
same output image.  The rules, spelled out once:

Pixels
    Packed RGBA8 in a ``uint32`` (R in the low byte, see :func:`pack`).  Only R, G, B
    enter the energy; alpha is carried along.
Backward energy
    ``e = sum over R, G, B of |Gx| + |Gy|`` with the 3x3 Prewitt kernels, edges
    replicated (0 .. 4590).
Forward energy (Rubinstein, Shamir and Avidan 2008)
    ``e = 0``; the DP adds ``CU = |I(r, c+1) - I(r, c-1)|``, ``CL = CU + |I(r-1, c) - I(r, c-1)|``,
    ``CR = CU + |I(r-1, c) - I(r, c+1)|`` (L1 over RGB, columns clamped); the first row
    costs ``CU``.
Masks
    ``mask == KEEP`` makes the energy :data:`INF` (a seam never crosses it: a cost that
    reaches ``INF`` stays ``INF``); ``mask == REMOVE`` subtracts ``drop`` (``drop_bias(H)``
    when carving: as large as int32 allows, so seams run through the object).
Cumulative cost
    ``M(r, c) = e(r, c) + min(M(r-1, c-1) + CL, M(r-1, c) + CU, M(r-1, c+1) + CR)``;
    **ties: left wins, then centre, then right**.
Last row
    The minimum; **ties: the smallest column wins**.  A minimum ``>= INF`` means no seam
    avoids the protected pixels.
Batch mode (approximate)
    The width is split into ``K`` strips ``[floor(j W / K), floor((j+1) W / K))``; seams
    may not leave their strip, and one DP pass yields one seam per strip.
Insertion
    A marked pixel is followed by a new one whose every byte is ``ceil((a + b) / 2)`` of
    the pixel and its right neighbour (itself at the right edge).

Only vertical seams are handled here; the caller transposes for horizontal ones.
"""

from __future__ import annotations

import numpy as np

from ..pixels import to_rgba

#: Cost of a protected pixel; any sum reaching it is clamped to it.
INF = 0x3FFFFFFF
#: Default bonus (subtracted) for a pixel marked for removal; see :func:`drop_bias`.
DROP = 65536
#: Mask values.
KEEP, REMOVE = 1, 2
#: Smallest width or height the 3x3 filter accepts.
MIN_SIZE = 3
#: Largest backward energy of one pixel: 3 channels x (765 + 765).
MAX_ENERGY = 4590


def pack(image: np.ndarray) -> np.ndarray:
    """Pack an ``(H, W, 3|4)`` uint8 image into ``(H, W)`` uint32 RGBA (alpha 255 if absent)."""
    rgba = to_rgba(image, image[..., 3] if image.shape[2] == 4 else 255)
    return rgba.view("<u4")[..., 0].copy()


def unpack(pixels: np.ndarray, channels: int) -> np.ndarray:
    """Inverse of :func:`pack`: ``(H, W)`` uint32 to ``(H, W, channels)`` uint8."""
    rgba = np.ascontiguousarray(pixels, dtype="<u4")[..., None].view(np.uint8)
    return rgba[..., :channels].copy()


def _rgb(pixels: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(pixels, dtype="<u4")[..., None].view(np.uint8)[..., :3].astype(np.int32)


def _diff3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).sum(axis=-1)


def drop_bias(height: int) -> int:
    """Bonus for a pixel to drop: the largest with ``height * bonus < 2**30`` (int32-safe)."""
    return max(MAX_ENERGY + 1, (2**30 - 1) // (int(height) + 1))


def energy(pixels: np.ndarray, mask: np.ndarray | None = None, mode: str = "backward",
           drop: int = DROP) -> np.ndarray:
    """Energy map of packed ``pixels`` (int32), see the module rules.

    Examples
    --------
    >>> import numpy as np
    >>> px = pack(np.array([[[0, 0, 0], [9, 0, 0], [9, 0, 0]]], dtype=np.uint8))
    >>> energy(px).tolist()
    [[27, 27, 0]]
    """
    h, w = pixels.shape
    if mode == "forward":
        e = np.zeros((h, w), dtype=np.int32)
    else:
        p = np.pad(_rgb(pixels), ((1, 1), (1, 1), (0, 0)), mode="edge")
        gx = (p[:, 2:] - p[:, :-2])  # (H+2, W, 3): column difference on every padded row
        gx = gx[:-2] + gx[1:-1] + gx[2:]
        gy = (p[2:] - p[:-2])  # (H, W+2, 3)
        gy = gy[:, :-2] + gy[:, 1:-1] + gy[:, 2:]
        e = (np.abs(gx) + np.abs(gy)).sum(axis=-1).astype(np.int32)
    if mask is not None:
        e = np.where(mask == REMOVE, e - drop, e)
        e = np.where(mask == KEEP, INF, e)
    return e.astype(np.int32)


def strip_starts(width: int, strips: int) -> np.ndarray:
    """First column of each of ``strips`` strips: ``floor(j * width / strips)``."""
    return (np.arange(strips, dtype=np.int64) * width) // strips


def _forward_costs(rgb: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    row = rgb[r]
    left = np.concatenate([row[:1], row[:-1]])
    right = np.concatenate([row[1:], row[-1:]])
    cu = _diff3(right, left)
    if r == 0:
        return cu, cu, cu
    up = rgb[r - 1]
    return cu + _diff3(up, left), cu, cu + _diff3(up, right)


def cumulative_cost(pixels: np.ndarray, e: np.ndarray, mode: str = "backward",
                    strips: int = 1) -> np.ndarray:
    """Cumulative cost table ``M`` (int32) with the module's tie and saturation rules."""
    h, w = e.shape
    big = np.int64(1) << 40
    starts = np.zeros(w + 1, dtype=bool)
    starts[strip_starts(w, strips)] = True
    starts[w] = True
    no_left = starts[:w]            # column 0 or a strip start
    no_right = starts[1:w + 1]      # last column or the next column starts a strip
    rgb = _rgb(pixels) if mode == "forward" else None
    m = np.empty((h, w), dtype=np.int64)
    e64 = e.astype(np.int64)
    first = e64[0]
    if rgb is not None:
        first = first + _forward_costs(rgb, 0)[1]
    m[0] = np.where((e64[0] >= INF) | (first >= INF), INF, first)
    for r in range(1, h):
        prev = m[r - 1]
        if rgb is not None:
            cl, cu, cr = _forward_costs(rgb, r)
        else:
            cl = cu = cr = 0
        left = np.where(no_left, big, np.concatenate([[big], prev[:-1]]) + cl)
        centre = prev + cu
        right = np.where(no_right, big, np.concatenate([prev[1:], [big]]) + cr)
        best = left
        best = np.where(centre < best, centre, best)   # centre only if strictly better
        best = np.where(right < best, right, best)     # right only if strictly better
        m[r] = np.where((e64[r] >= INF) | (best >= INF), INF, e64[r] + best)
    return m.astype(np.int32)


def find_seams(pixels: np.ndarray, m: np.ndarray, mode: str = "backward",
               strips: int = 1) -> np.ndarray:
    """Seams ``(strips, H)`` by backtracking ``m``; a strip with no finite seam gets ``-1``."""
    h, w = m.shape
    bounds = list(strip_starts(w, strips)) + [w]
    rgb = _rgb(pixels) if mode == "forward" else None
    seams = np.full((strips, h), -1, dtype=np.int32)
    for j in range(strips):
        lo, hi = int(bounds[j]), int(bounds[j + 1])
        last = m[h - 1, lo:hi]
        c = lo + int(np.argmin(last))          # argmin: the first (smallest) column wins ties
        if m[h - 1, c] >= INF:
            continue
        for r in range(h - 1, 0, -1):
            seams[j, r] = c
            up = m[r - 1].astype(np.int64)
            if rgb is not None:
                cl, cu, cr = (int(v[c]) for v in _forward_costs(rgb, r))
            else:
                cl = cu = cr = 0
            best, nxt = (up[c - 1] + cl, c - 1) if c > lo else (None, c - 1)
            if best is None or up[c] + cu < best:
                best, nxt = up[c] + cu, c
            if c + 1 < hi and up[c + 1] + cr < best:
                nxt = c + 1
            c = nxt
        seams[j, 0] = c
    return seams


def remove_seams(arrays: list[np.ndarray], seams: np.ndarray) -> list[np.ndarray]:
    """Remove the valid seams (rows of ``seams`` without ``-1``) from each ``(H, W)`` array."""
    valid = seams[seams[:, 0] >= 0]
    if len(valid) == 0:
        return [a.copy() for a in arrays]
    h, w = arrays[0].shape
    keep = np.ones((h, w), dtype=bool)
    keep[np.arange(h)[None, :], valid] = False
    return [a[keep].reshape(h, w - len(valid)) for a in arrays]


def insert_seams(pixels: np.ndarray, dup: np.ndarray) -> np.ndarray:
    """Insert after every ``dup`` pixel the per-byte rounded-up mean with its right neighbour."""
    h, w = pixels.shape
    counts = dup.sum(axis=1)
    if not np.all(counts == counts[0]):
        raise ValueError("every row must have the same number of marked pixels")
    a = pixels.astype(np.uint32)
    b = np.concatenate([a[:, 1:], a[:, -1:]], axis=1)
    mean = (a | b) - (((a ^ b) >> np.uint32(1)) & np.uint32(0x7F7F7F7F))
    return duplicate(a, dup, mean)


def duplicate(values: np.ndarray, dup: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
    """Insert ``extra`` (default: a copy of the value) after every ``dup`` entry of each row."""
    h, w = values.shape
    k = int(dup[0].sum()) if h else 0
    if extra is None:
        extra = values
    out = np.empty((h, w + k), dtype=values.dtype)
    pos = np.arange(w)[None, :] + np.cumsum(dup, axis=1) - dup  # output column of each pixel
    rows = np.broadcast_to(np.arange(h)[:, None], (h, w))
    out[rows, pos] = values
    r, c = np.nonzero(dup)
    out[r, pos[r, c] + 1] = extra[r, c]
    return out


class NumpyCarver:
    """The reference backend (same interface as :class:`inpaint.seam.opencl.OpenCLCarver`)."""

    name = "numpy"

    def __init__(self, mode: str = "backward"):
        self.mode = mode

    def carve(self, pixels: np.ndarray, mask: np.ndarray | None, idx: np.ndarray | None,
              plan, seam_map: np.ndarray | None = None, ordinal0: int = 0, until_clear: bool = False):
        """Remove seams pass by pass; see :func:`inpaint.seam.api._carve` for the protocol.

        ``plan(width, removed)`` gives the number of strips of the next pass (0: stop).
        Returns ``(pixels, mask, idx, removed, failed)``.
        """
        removed = 0
        ordinal = ordinal0
        while True:
            h, w = pixels.shape
            if until_clear:
                if mask is None or not np.any(mask == REMOVE):
                    break
                if w <= MIN_SIZE:
                    return pixels, mask, idx, removed, True
                plan(w, removed)  # its answer is not needed (the mask says when to stop): it reports progress
                strips = 1
            else:
                strips = plan(w, removed)
                if strips <= 0:
                    break
            e = energy(pixels, mask, self.mode, drop_bias(h))
            m = cumulative_cost(pixels, e, self.mode, strips)
            seams = find_seams(pixels, m, self.mode, strips)
            valid = seams[:, 0] >= 0
            if not np.any(valid):
                return pixels, mask, idx, removed, True
            if seam_map is not None and idx is not None:
                for j in np.nonzero(valid)[0]:
                    seam_map.flat[idx[np.arange(h), seams[j]]] = ordinal + j + 1
            arrays = [pixels] + ([mask] if mask is not None else []) + ([idx] if idx is not None else [])
            arrays = remove_seams(arrays, seams)
            pixels = arrays.pop(0)
            if mask is not None:
                mask = arrays.pop(0)
            if idx is not None:
                idx = arrays.pop(0)
            removed += int(valid.sum())
            ordinal += strips
            if not np.all(valid) and until_clear:
                return pixels, mask, idx, removed, True
        return pixels, mask, idx, removed, False

    def insert(self, pixels: np.ndarray, dup: np.ndarray) -> np.ndarray:
        """Enlarge: see :func:`insert_seams`."""
        return insert_seams(pixels, dup)

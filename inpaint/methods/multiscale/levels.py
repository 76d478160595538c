"""The multiscale fill's pyramid and levels: holes halved until a patch thick, and each level's
targets, sources and pixel lists, computed on the host for either backend."""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import functools
from collections.abc import Callable, Generator
from typing import Any

import numpy as np

from ... import geometry
from ...geometry import dilate
from ...masks import component
from . import reference as ref

#: Side of the cells in which :func:`hole_groups` finds the hole's parts (parts closer than a
#: cell are one part; a cell's row is one 64-bit word of bools), the most parts it tells apart,
#: and the most groups it fills apart (beyond either, the hole is filled whole).
GROUP_CELL, MAX_PARTS, MAX_GROUPS = 8, 64, 2
#: Columns of a block of :func:`valid_ends`: the longest scan of the kernels' random sources.
VALID_BLOCK = 32


def near(mask: np.ndarray, radius: int, box: geometry.Rect) -> tuple[geometry.Rect, np.ndarray]:
    """Pixels within ``radius`` (Chebyshev) of a True pixel of ``mask``, whose True pixels all lie
    in ``box``: the rectangle ``box`` grown by ``radius`` (clipped) and the map over it."""
    h, w = mask.shape
    rect = geometry.grow(box, radius, w, h)
    x0, y0, x1, y1 = rect
    return rect, dilate(mask[y0:y1, x0:x1], radius)


def free_in(rect: geometry.Rect, shape: tuple[int, int], half: int, near_hole: tuple[geometry.Rect, np.ndarray],
            protect: np.ndarray | None = None) -> np.ndarray:
    """The centres of ``rect`` alone whose window is inside an image of ``shape`` and free of the
    hole (``near_hole``: the rectangle and map of :func:`near` at radius ``half``) and of the
    ``protect`` pixels, if given: bool of ``rect``'s shape."""
    h, w = shape
    x0, y0, x1, y1 = rect
    out = np.zeros((max(y1 - y0, 0), max(x1 - x0, 0)), bool)
    ix0, iy0, ix1, iy1 = max(x0, half), max(y0, half), min(x1, w - half), min(y1, h - half)
    if ix0 >= ix1 or iy0 >= iy1:
        return out
    out[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0] = True
    (nx0, ny0, nx1, ny1), hit = near_hole
    ox0, oy0, ox1, oy1 = max(x0, nx0), max(y0, ny0), min(x1, nx1), min(y1, ny1)
    if ox0 < ox1 and oy0 < oy1:
        out[oy0 - y0:oy1 - y0, ox0 - x0:ox1 - x0] &= ~hit[oy0 - ny0:oy1 - ny0, ox0 - nx0:ox1 - nx0]
    if protect is not None:  # every protected pixel a centre's window can reach lies in rect grown by half
        gx0, gy0, gx1, gy1 = geometry.grow(rect, half, w, h)
        clear = geometry.clear_centres(protect[gy0:gy1, gx0:gx1], half)
        out &= clear[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0]
    return out


def free_centres(mask: np.ndarray, half: int, box: geometry.Rect, protect: np.ndarray | None = None) -> np.ndarray:
    """Centres whose window is inside the image and free of the hole (all in ``box``) and of
    the ``protect`` pixels, if given."""
    h, w = mask.shape
    return free_in((0, 0, w, h), (h, w), half, near(mask, half, box), protect)


def free_count(mask: np.ndarray, half: int, box: geometry.Rect, protect: np.ndarray | None = None) -> int:
    """How many centres :func:`free_centres` finds, counted near the hole (``box``) alone when
    nothing is protected: the interior's centres less those whose window meets the hole."""
    if protect is not None:
        return int(free_centres(mask, half, box, protect).sum())
    h, w = mask.shape
    inside = max(h - 2 * half, 0) * max(w - 2 * half, 0)
    (x0, y0, x1, y1), hit = near(mask, half, box)
    ry0, ry1 = max(half, y0) - y0, min(h - half, y1) - y0
    rx0, rx1 = max(half, x0) - x0, min(w - half, x1) - x0
    if ry1 <= ry0 or rx1 <= rx0:
        return inside
    return inside - int(hit[ry0:ry1, rx0:rx1].sum())


def has_core(mask: np.ndarray, radius: int, box: geometry.Rect) -> bool:
    """Whether some pixel's (2 radius + 1)^2 window lies wholly in the hole; pixels outside the
    image count as hole (a hole at the border is as thick as its distance from known pixels)."""
    h, w = mask.shape
    x0, y0, x1, y1 = box
    crop = np.ones((y1 - y0 + 2 * radius, x1 - x0 + 2 * radius), bool)
    cy0, cx0 = max(y0 - radius, 0), max(x0 - radius, 0)
    cy1, cx1 = min(y1 + radius, h), min(x1 + radius, w)
    crop[cy0 - (y0 - radius):cy1 - (y0 - radius), cx0 - (x0 - radius):cx1 - (x0 - radius)] = mask[cy0:cy1, cx0:cx1]
    eroded = ~dilate(~crop, radius, outside=False)[radius:-radius, radius:-radius]
    return bool(eroded.any())


def down2(a: np.ndarray) -> np.ndarray:
    """Halve an image (rounded 2x2 mean) or a mask (a coarse pixel is True if any of its four
    is); odd sizes repeat the last row or column."""
    h, w = a.shape[:2]
    if h % 2 or w % 2:
        a = np.pad(a, ((0, h % 2), (0, w % 2)) + ((0, 0),) * (a.ndim - 2), mode="edge")
    if a.dtype == bool:
        return a[0::2, 0::2] | a[1::2, 0::2] | a[0::2, 1::2] | a[1::2, 1::2]
    total = a[0::2, 0::2].astype(np.uint16)  # four 8-bit values and the rounding fit in 16 bits
    total += a[1::2, 0::2]
    total += a[0::2, 1::2]
    total += a[1::2, 1::2]
    total += 2
    total >>= 2
    return total.astype(np.uint8)


def halved(box: geometry.Rect) -> geometry.Rect:
    """The bounding box of a mask's True pixels once halved by :func:`down2`, from the mask's own."""
    x0, y0, x1, y1 = box
    return x0 // 2, y0 // 2, (x1 + 1) // 2, (y1 + 1) // 2


def halve_hole(mask: np.ndarray, box: geometry.Rect | None) -> np.ndarray:
    """:func:`down2` of a mask whose True pixels all lie in ``box`` (None: it has none), halving
    the box alone: the rest of the halved mask is False."""
    if box is None:
        return down2(mask)
    h, w = mask.shape
    x0, y0, x1, y1 = box
    x0, y0 = x0 - x0 % 2, y0 - y0 % 2  # whole 2x2 blocks: the box's corner on even coordinates
    x1, y1 = min(x1 + (x1 - x0) % 2, w), min(y1 + (y1 - y0) % 2, h)  # odd only at the edge, as down2 pads
    out = np.zeros(((h + 1) // 2, (w + 1) // 2), bool)
    out[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2] = down2(mask[y0:y1, x0:x1])
    return out


def hole_groups(mask: np.ndarray) -> list[np.ndarray]:
    """The hole's parts that are filled one after another, each a mask, largest first; the hole
    itself when it is one part.

    Parts whose boxes, each grown by its own longer side (the search area of Eq. 6 at
    ``alpha = 1``), meet are one group and filled together.  Two groups are filled apart when the
    box around both covers half the photo or more: each then works over an area of its own size,
    not over one spanning the photo.  Each fill still builds a pyramid of the whole photo, which
    costs more than it saves for three groups or more (and for a box around them that is small),
    so those are filled whole.  Parts are found in cells of ``GROUP_CELL`` pixels; a hole of more
    than ``MAX_PARTS`` parts is filled whole.
    """
    h, w = mask.shape
    c = GROUP_CELL
    cells = np.zeros((-(-h // c), -(-w // c)), bool)
    # the cells of the hole's box alone, a cell's row of eight pixels one 64-bit word
    x0, y0, x1, y1 = geometry.bbox(mask)
    cx0, cy0, cx1, cy1 = x0 // c, y0 // c, -(-x1 // c), -(-y1 // c)
    padded = np.zeros(((cy1 - cy0) * c, (cx1 - cx0) * c), bool)
    padded[:y1 - cy0 * c, :x1 - cx0 * c] = mask[cy0 * c:y1, cx0 * c:x1]
    cells[cy0:cy1, cx0:cx1] = (padded.view(np.uint64) != 0).reshape(cy1 - cy0, c, cx1 - cx0).any(axis=1)
    left = cells.copy()
    parts, boxes = [], []
    x0, y0, x1, y1 = geometry.bbox(cells)
    if 2 * geometry.area((x0 * c, y0 * c, min(x1 * c, w), min(y1 * c, h))) < h * w:
        return [mask]
    while left.any():
        if len(parts) == MAX_PARTS:
            return [mask]
        seed = divmod(int(np.argmax(left)), cells.shape[1])
        part = component(left, seed, 8)
        left &= ~part
        x0, y0, x1, y1 = geometry.bbox(part)
        parts.append(part)
        boxes.append((x0 * c, y0 * c, min(x1 * c, w), min(y1 * c, h)))
    if len(parts) == 1:
        return [mask]
    group = list(range(len(parts)))  # union-find over the parts

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    def meets(a: geometry.Rect, b: geometry.Rect) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    grown = [geometry.grow(b, max(b[2] - b[0], b[3] - b[1]), w, h) for b in boxes]
    for i in range(len(parts)):
        for j in range(i):
            if meets(grown[i], boxes[j]) or meets(grown[j], boxes[i]):
                group[root(i)] = root(j)
    members: dict[int, np.ndarray] = {}
    for i, part in enumerate(parts):
        r = root(i)
        members[r] = part if r not in members else members[r] | part
    if not 1 < len(members) <= MAX_GROUPS:
        return [mask]
    out = []
    for cells_g in members.values():
        cx0, cy0, cx1, cy1 = geometry.bbox(cells_g)
        y0, y1, x0, x1 = cy0 * c, min(cy1 * c, h), cx0 * c, min(cx1 * c, w)
        inside = np.repeat(np.repeat(cells_g[cy0:cy1, cx0:cx1], c, axis=0), c, axis=1)[:y1 - y0, :x1 - x0]
        g = np.zeros_like(mask)
        g[y0:y1, x0:x1] = mask[y0:y1, x0:x1] & inside
        out.append(g)
    return sorted(out, key=lambda m: -int(m.sum()))


def mask_pyramid(mask: np.ndarray, patch: int, protect: np.ndarray | None = None,
                 box: geometry.Rect | None = None) -> list[np.ndarray]:
    """The hole at every level, finest first.

    A level is added while the image stays at least ``8 * patch`` pixels on its short side,
    the hole still holds a pixel farther than ``patch // 2 + 1`` from every known pixel
    (pixels outside the image count as unknown), and the halved level keeps at least
    ``geometry.MIN_SOURCES`` source patches (free of the ``protect`` pixels, halved likewise).
    ``box``: the hole's bounding box, when known; each level is halved over it alone
    (:func:`halve_hole`).
    """
    half = patch // 2
    masks = [mask]
    kept = protect
    box = geometry.bbox(mask) if box is None else box
    while True:
        m = masks[-1]
        if min(m.shape) // 2 < 4 * patch or not has_core(m, half + 1, box):
            break
        m2 = halve_hole(m, box)
        k2 = None if kept is None else down2(kept)
        box2 = halved(box)
        if free_count(m2, half, box2, k2) < geometry.MIN_SOURCES:
            break
        masks.append(m2)
        kept, box = k2, box2
    return masks


def pyramid_boxes(mask: np.ndarray, levels: int, box: geometry.Rect | None = None) -> list[geometry.Rect]:
    """The bounding box of the hole at every level of :func:`mask_pyramid`, finest first: each
    from the finer one (:func:`halved`), without a pass over the coarser masks (nor over
    ``mask`` when its box ``box`` is given)."""
    boxes = [geometry.bbox(mask) if box is None else box]
    while len(boxes) < levels:
        boxes.append(halved(boxes[-1]))
    return boxes


def protect_pyramid(protect: np.ndarray | None, levels: int) -> list:
    """The protected pixels at every level, finest first: a coarse pixel is protected when any
    of its four is (:func:`down2`), so no coarse source patch covers a protected pixel either.
    None (nothing protected) at every level for None."""
    out = [protect]
    while len(out) < levels:
        out.append(None if protect is None else down2(out[-1]))
    return out


def image_pyramid(rgb: np.ndarray, levels: int) -> list[np.ndarray]:
    """``rgb`` and its ``levels - 1`` successive halvings (:func:`down2`), finest first."""
    images = [rgb]
    while len(images) < levels:
        images.append(down2(images[-1]))
    return images


@dataclasses.dataclass
class Level:
    """Host-side description of one pyramid level (see :func:`prepare_level`)."""

    mask: np.ndarray        # (h, w) bool, the hole
    valid: np.ndarray       # (h, w) uint8, usable source centres
    targets: np.ndarray     # (N, 2) int32, centres whose window meets the hole
    work: tuple             # (x0, y0, x1, y1): the work area, the hole's box grown to hold every target
    tidx: np.ndarray        # work area, int32: target index or -1
    hole_map: np.ndarray    # work area, uint8: 1 on the hole
    solve_map: np.ndarray   # work area, uint8: 1 on the hole, 2 on protected pixels (not boundary values)
    hole: np.ndarray        # (M, 2) int32, hole pixels
    pixels: np.ndarray      # (M + R, 2) int32, hole pixels then the known ring around them
    colours: tuple          # hole pixels with (y + x) even, then odd
    radius: int             # random-search radius
    area: tuple             # search area (x0, y0, x1, y1)
    widened: int            # times the area of Eq. 6 was widened (it held too few sources)
    jump: int = ref.JUMPS[-1]  # PatchMatch's longest propagation jump
    mean: int = 0           # weight of the mean-colour term in every distance, in quarters (see ref.ssd)
    near: int = 0           # weight of the distance term: per pixel between target and source (see ref.ssd)
    grad: int = 0           # weight of the gradient term (see ref.ssd)
    short: tuple = (0, 0)   # (radius, jump) of the search once every start is a lifted match; radius 0: none
    valid_box: tuple | None = ()  # bounding box (x0, y0, x1, y1) of the valid centres, None: none; (): not given
    protect: np.ndarray | None = None  # (h, w) bool, the protected pixels (None: none)

    @property
    def sources_box(self) -> tuple | None:
        """The bounding box (x0, y0, x1, y1) of the valid source centres, None when there is none:
        the reductions over ``valid`` need only look inside it."""
        return geometry.bbox(self.valid) if self.valid_box == () else self.valid_box

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width) of the level."""
        return self.mask.shape

    @property
    def origin(self) -> tuple[int, int]:
        """(y, x) of the work area's corner."""
        return self.work[1], self.work[0]

    @property
    def work_args(self) -> tuple[int, int, int, int]:
        """(x0, y0, width, height) of the work area, as the kernels take it."""
        x0, y0, x1, y1 = self.work
        return x0, y0, x1 - x0, y1 - y0


def prepare_level(mask: np.ndarray, half: int, alpha: float | None, protect: np.ndarray | None = None,
                  box: geometry.Rect | None = None) -> Level:
    """Everything a level needs besides the matches: sources, targets, pixel lists.

    Sources are windows wholly inside the image and free of the hole and of the ``protect``
    pixels, centred so that the window lies in the search area of Eq. 6; an area with fewer
    than ``MIN_SOURCES`` of them is widened (:func:`inpaint.geometry.source_area`) up to the
    whole image.  ``box``: the hole's bounding box, when known (:func:`pyramid_boxes`).
    """
    h, w = mask.shape
    box = geometry.bbox(mask) if box is None else box
    bx0, by0, bx1, by1 = box
    # Everything but the sources lives near the hole: work on its box, grown as needed; the sources
    # are computed over the search areas tried alone.
    (x0, y0, x1, y1), hit = near_hole = near(mask, half, box)
    area, valid, widened = geometry.source_area(lambda rect: free_in(rect, (h, w), half, near_hole, protect),
                                                box, alpha, half, (h, w))
    targets = _listed(hit, y0, x0)
    tidx = np.full(hit.shape, -1, np.int32)
    tidx[hit] = np.arange(len(targets), dtype=np.int32)  # row-major, as the targets
    # the hole's pixels are targets (the work area holds its box): picked from them, row-major both
    hole = np.compress(mask[y0:y1, x0:x1][hit], targets, axis=0)
    (rx0, ry0, rx1, ry1), around = near(mask, 1, box)
    around &= ~mask[ry0:ry1, rx0:rx1]
    ring = _listed(around, ry0, rx0)
    hole_map = mask[y0:y1, x0:x1].view(np.uint8).copy()
    # The correction carries the known tones around the hole in, but not a protected object's.
    solve_map = hole_map
    if protect is not None:
        solve_map = np.where(protect[y0:y1, x0:x1] & (hole_map == 0), 2, hole_map).astype(np.uint8)
    parity = (hole[:, 0] + hole[:, 1]) & 1
    # Every valid centre lies in the area's centres: its box is found there, not over the photo.
    cx0, cy0, cx1, cy1 = geometry.centres(area, half)
    inner = geometry.bbox(valid[cy0:cy1, cx0:cx1])
    valid_box = None if inner is None else (inner[0] + cx0, inner[1] + cy0, inner[2] + cx0, inner[3] + cy0)
    radius = max(valid_box[3] - valid_box[1] - 1, valid_box[2] - valid_box[0] - 1, 1) if valid_box else 1
    return Level(mask=mask, valid=valid.view(np.uint8), valid_box=valid_box, targets=targets, work=(x0, y0, x1, y1),
                 tidx=tidx, hole_map=hole_map, solve_map=solve_map, hole=hole, pixels=np.concatenate([hole, ring]),
                 colours=(np.compress(parity == 0, hole, axis=0), np.compress(parity == 1, hole, axis=0)),
                 radius=radius, area=area,
                 widened=widened, protect=protect)


def _listed(m: np.ndarray, y0: int, x0: int) -> np.ndarray:
    """The True pixels of ``m`` in row-major order, as (y, x) from the corner (y0, x0): (N, 2) int32."""
    ys, xs = np.nonzero(m)
    out = np.empty((len(ys), 2), np.int32)
    np.add(ys, y0, out=out[:, 0], casting="unsafe")
    np.add(xs, x0, out=out[:, 1], casting="unsafe")
    return out
def wide_sources(level: Level, half: int) -> np.ndarray:
    """The source centres a resampled transform may use, (h, w) uint8: those whose window of
    half-side :func:`inpaint.methods.multiscale.reference.xform_reach` (``half``) is known and inside
    the search area, i.e. every centre within the difference of the two half-sides is a source."""
    grow = ref.xform_reach(half) - half
    return (~dilate(level.valid == 0, grow, outside=True)).view(np.uint8)


def protected_near(level: Level, rect: tuple[int, int, int, int], radius: int) -> tuple[tuple, np.ndarray] | None:
    """The protected pixels within ``radius`` of ``rect`` (x0, y0, x1, y1): their bounding box
    (x0, y0, x1, y1) and the uint8 map over it (1: protected), or None where there are none.
    The low-pass map leaves them out (:func:`inpaint.methods.multiscale.reference.low_pass`):
    the hole's map names only those of its work area."""
    if level.protect is None:
        return None
    h, w = level.shape
    x0, y0, x1, y1 = rect
    gx0, gy0, gx1, gy1 = max(x0 - radius, 0), max(y0 - radius, 0), min(x1 + radius, w), min(y1 + radius, h)
    box = geometry.bbox(level.protect[gy0:gy1, gx0:gx1])
    if box is None:
        return None
    bx0, by0, bx1, by1 = box[0] + gx0, box[1] + gy0, box[2] + gx0, box[3] + gy0
    return (bx0, by0, bx1, by1), np.ascontiguousarray(level.protect[by0:by1, bx0:bx1]).view(np.uint8)


def source_rect(level: Level, half: int) -> tuple[int, int, int, int]:
    """The rectangle (x0, y0, x1, y1) that holds every pixel of every source window of ``level``."""
    x0, y0, x1, y1 = level.sources_box
    return x0 - half, y0 - half, x1 + half, y1 + half


def random_sources(level: Level, key: int, which: np.ndarray | None = None) -> np.ndarray:
    """A source centre for each target (or for the targets ``which`` indexes): the k-th valid
    centre in row-major order, k a hash of the target's index (see :func:`random_valid`)."""
    idx = np.arange(len(level.targets), dtype=np.uint32) if which is None else which.astype(np.uint32)
    return random_valid(level, idx, key)


def valid_ends(level: Level) -> np.ndarray:
    """How the kernels find the k-th valid source centre in row-major order (``random_valid`` in
    ``kernels/multiscale/patchmatch.cl``): the valid centres up to the end of every block of
    ``VALID_BLOCK`` columns of every row, in row-major order of the blocks, (h * ceil(w /
    VALID_BLOCK),) uint32.  A search over these and a scan of one block find it."""
    h, w = level.valid.shape
    blocks = np.zeros((h, -(-w // VALID_BLOCK)), np.uint32)
    box = level.sources_box
    if box is not None:  # the blocks outside the valid centres' box count none
        x0, y0, x1, y1 = box
        b0, b1 = x0 // VALID_BLOCK, x1 // VALID_BLOCK  # whole blocks b0 to b1, then a part of one
        if b1 > b0:  # a block's 0/1 bytes as 64-bit words: their sum holds a count in each byte
            words = level.valid[y0:y1, b0 * VALID_BLOCK:b1 * VALID_BLOCK].view(np.uint64)
            words = words.reshape(y1 - y0, b1 - b0, VALID_BLOCK // 8)
            sums = words[:, :, 0].copy()
            for k in range(1, VALID_BLOCK // 8):
                sums += words[:, :, k]
            sums *= np.uint64(0x0101010101010101)  # the top byte adds up the eight
            sums >>= np.uint64(56)
            blocks[y0:y1, b0:b1] = sums
        if x1 > b1 * VALID_BLOCK:
            blocks[y0:y1, b1] = level.valid[y0:y1, b1 * VALID_BLOCK:x1].sum(axis=1, dtype=np.uint32)
    return np.cumsum(blocks.ravel(), dtype=np.uint32)


def random_valid(level: Level, idx: np.ndarray, key: int) -> np.ndarray:
    """For each index of ``idx`` (uint32), the k-th valid source centre in row-major order, k a
    hash of the index and ``key``: (len(idx), 2) int32 (found through per-row counts, without
    listing every valid centre)."""
    counts = np.zeros(level.valid.shape[0], np.int64)
    box = level.sources_box
    if box is not None:
        x0, y0, x1, y1 = box
        counts[y0:y1] = level.valid[y0:y1, x0:x1].sum(axis=1, dtype=np.int64)
    ends = np.cumsum(counts)
    k = (ref.hash32(idx * np.uint32(2654435761) + np.uint32(key & 0xFFFFFFFF))
         % np.uint32(ends[-1])).astype(np.int64)
    rows = np.searchsorted(ends, k, side="right")
    rank = k - (ends[rows] - counts[rows])
    out = np.empty((len(k), 2), np.int32)
    out[:, 0] = rows
    order = np.argsort(rows, kind="stable")
    bounds = np.flatnonzero(np.diff(rows[order])) + 1
    for group in np.split(order, bounds):
        if len(group):
            cols = np.flatnonzero(level.valid[rows[group[0]]])
            out[group, 1] = cols[rank[group]]
    return out


def upsampled_sources(level: Level, coarse: Level, coarse_best: np.ndarray, key: int,
                      coarse_xf: np.ndarray | None = None, wide: np.ndarray | None = None) -> tuple:
    """Each target's start: its coarse parent's best match ``coarse_best`` ((N, 2), one per target
    of ``coarse``), scaled up; where the parent is no target there or the scaled-up match is not a
    valid source here, the random one of :func:`random_sources` (``key``).  Returns the starts and
    whether every one is a scaled-up match (none random) (``lift_level`` in
    ``kernels/multiscale/pyramid.cl``).

    With ``coarse_xf`` ((N,) int32, the coarse best matches' transforms, see
    :func:`inpaint.methods.multiscale.reference.transformed`) the target's offset from twice its
    parent is transformed too (2 best + T(t - 2 parent), rounded), and the starts' transforms (the
    parent's, 0 for a random start) are returned third; a start with a resampled transform must also
    be set in ``wide`` (see :func:`inpaint.methods.multiscale.reference.patchmatch`)."""
    h, w = level.shape
    t = level.targets
    par = t >> 1
    ly, lx = par[:, 0] - coarse.origin[0], par[:, 1] - coarse.origin[1]
    ch, cw = coarse.tidx.shape
    inside = (ly >= 0) & (ly < ch) & (lx >= 0) & (lx < cw)
    m = np.where(inside, coarse.tidx[np.clip(ly, 0, ch - 1), np.clip(lx, 0, cw - 1)], -1)
    pb = np.where((m >= 0)[:, None], coarse_best[np.maximum(m, 0)], -1)
    c = t + 2 * (pb - par)
    if coarse_xf is not None:
        code = np.where(m >= 0, coarse_xf[np.maximum(m, 0)], 0).astype(np.int32)
        oy, ox = ref.transformed(code, t[:, 0] - 2 * par[:, 0], t[:, 1] - 2 * par[:, 1])
        c = 2 * pb + np.stack([oy, ox], 1)
    ok = (pb[:, 0] >= 0) & (c[:, 0] >= 0) & (c[:, 0] < h) & (c[:, 1] >= 0) & (c[:, 1] < w)
    cc = np.where(ok[:, None], c, 0)
    ok &= level.valid[cc[:, 0], cc[:, 1]] != 0
    if wide is not None:
        ok &= (code < ref.XFORM_EXACT) | (wide[cc[:, 0], cc[:, 1]] != 0)
    out = cc.astype(np.int32)
    missing = np.flatnonzero(~ok)
    if len(missing):
        out[missing] = random_sources(level, key, missing)
    if coarse_xf is not None:
        return out, not len(missing), np.where(ok, code, 0).astype(np.int32)
    return out, not len(missing)


def onion_layers(level: Level) -> list[np.ndarray]:
    """The hole's pixels peeled from its edge inwards: layer i holds, row-major, the hole pixels at
    Chebyshev distance i + 1 from the nearest known pixel (pixels outside the image are not known)."""
    x0, y0 = level.work[:2]
    left = level.hole_map != 0
    reached = ~left  # the work area holds every 8-neighbour of a hole pixel that lies in the image
    layers = []
    while left.any():
        grown = dilate(reached, 1)
        ring = left & grown
        if not ring.any():  # cannot happen: the mask never covers the whole image
            ring = left
        layers.append((np.argwhere(ring) + (y0, x0)).astype(np.int32))
        left &= ~ring
        reached |= ring
    return layers


#: Photos of up to this many pixels have their set-up done on the fill's own thread, between its
#: launches (:class:`Ahead`): there the set-up is a millisecond or two of short numpy calls, and a
#: thread of its own waited for the interpreter while the fill's thread queued launches (on an
#: NVIDIA GPU the fill's last level waited over a millisecond for its texture).
INLINE_PIXELS = 1 << 20


def _at_once(work: Callable[[], Any]) -> Callable[[], Generator]:
    """``work`` as a part of :class:`Ahead` done in one step."""
    def steps() -> Generator:
        return work()
        yield  # (a generator, whose first step does the work)
    return steps


class Ahead:
    """The host's work of a fill that its masks decide, in the order the fill needs it: every
    level's description (:func:`prepare_level`, coarsest first), the texture the finest level's hole
    expects (:func:`inpaint.methods.multiscale.reference.expected_texture`, with ``expected``) and the
    result's copy of the photo ``rgb``.

    On a photo of more than :data:`INLINE_PIXELS` pixels it is done on a thread of its own while the
    fill's thread builds the pyramid and queues the device's launches; numpy lets go of the
    interpreter in its loops, so the two go on side by side (a 12 MP fill's host work is tens of
    milliseconds).  On a smaller photo the fill's thread does it, a part at a time in
    :meth:`advance`, while the device runs what was queued.

    ``masks``, ``protects`` and ``boxes`` are the levels' (finest first), ``hole`` the photo's
    pixels unknown to the texture features (the whole hole, every group of it); none of them may
    change while the fill runs.
    """

    def __init__(self, rgb: np.ndarray, hole: np.ndarray, masks: list[np.ndarray], protects: list, boxes: list,
                 half: int, alpha: float, expected: bool):
        # (key, the level that needs it, the work), in the order needed
        tasks: list = [(lv, lv, functools.partial(prepare_level, masks[lv], half, alpha, protects[lv], boxes[lv]))
                       for lv in range(len(masks) - 1, -1, -1)]
        self._done: dict = {}
        self._pending: collections.deque = collections.deque()
        self._steps: Generator | None = None  # the work under way on the fill's thread
        if rgb.shape[0] * rgb.shape[1] <= INLINE_PIXELS:
            # every part a generator of steps; the texture's take a fraction of a millisecond each
            self._pending.extend((key, need, _at_once(work)) for key, need, work in tasks)
            if expected:  # (made after the finest level's description, which it keeps till then)
                self._pending.append(("prior", 0, lambda: ref.expected_texture_steps(
                    rgb, hole, self._done[0].solve_map, self._done[0].work, half)))
            self._pending.append(("base", 0, _at_once(rgb.copy)))
            return
        run = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="inpaint-levels")
        done = {key: run.submit(work) for key, _, work in tasks}
        if expected:
            finest = done[0]  # (taken from ``done`` by the fill's thread, perhaps before it is used)
            done["prior"] = run.submit(lambda: ref.expected_texture(rgb, hole, finest.result().solve_map,
                                                                    finest.result().work, half))
        done["base"] = run.submit(rgb.copy)
        self._done = done
        run.shutdown(wait=False)  # (its thread ends once it has done these)

    def _get(self, key: Any) -> Any:
        while key not in self._done:
            self._run_next()
        got = self._done[key]
        return got.result() if isinstance(got, concurrent.futures.Future) else got

    def _run_next(self) -> None:
        """One step of the next part."""
        key, _, work = self._pending[0]
        if self._steps is None:
            self._steps = work()
        try:
            next(self._steps)
        except StopIteration as finished:
            self._pending.popleft()
            self._steps = None
            self._done[key] = finished.value

    def advance(self, lv: int) -> None:
        """On the fill's thread, with level ``lv``'s launches queued: take the next step of the next
        part if the next level needs it (one step a call, so that the device's queue does not run
        dry)."""
        if self._pending and self._pending[0][1] >= lv - 1:
            self._run_next()

    def level(self, lv: int) -> Level:
        """Level ``lv``'s description (waiting for it), handed over once."""
        got = self._get(lv)
        if not any(key == "prior" for key, _, _ in self._pending):  # (which needs the finest)
            del self._done[lv]
        return got

    def prior(self) -> np.ndarray:
        """The texture the finest level's hole expects (uint8 over its work area)."""
        return self._get("prior")

    def base(self) -> np.ndarray:
        """A copy of the photo, for the result."""
        return self._get("base")

"""numpy reference for the multiscale fill's kernels (``kernels/multiscale/patchmatch.cl``,
``kernels/multiscale/vote.cl``, ``kernels/multiscale/poisson.cl``).

Every function mirrors one kernel and uses only integer arithmetic, so the OpenCL and numpy
paths agree bit for bit.  The kernels work on one work-item per target (PatchMatch) or per
pixel (vote, Poisson); here the same loops are vectorised over targets or pixels, which gives
the same result because no work-item reads what another one writes in the same launch:

* PatchMatch is Jacobi-style: propagation reads the neighbours' best match from the start of
  the iteration (``best_in``), and each target only updates its own candidate list.
* Gauss-Seidel runs red-black: pixels of one colour have no 4-neighbour of their colour.

Shapes: ``est`` is the current estimate, (H, W, 4) uint8: RGB plus a texture feature
(:func:`texture_features`), which every patch distance weighs with :data:`FEATURE_WEIGHT` and
every vote carries like a colour; ``targets`` (N, 2) int32 holds the (y, x) of every patch centre whose
window meets the hole.  The *work area* is the hole's box grown to hold every target, at
``origin`` (y0, x0) of the image: ``tidx`` (h, w) int32 maps each of its pixels to a target
index or -1, and the vote ``v``, the correction ``x`` (both (h, w, 4) int32) and the hole map
cover it too, so their memory follows the hole, not the photo.  ``nnf``
(N, K, 2) int32 and ``cost`` (N, K) uint32 hold each target's K best source centres, sorted
by SSD (empty entries have cost ``EMPTY``); ``valid`` (H, W) uint8 marks source centres whose
whole window is known and inside the search area.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

import numpy as np

from ... import cancel, geometry
from ...masks import component

#: Cost of an empty candidate slot (and of an SSD that was cut short in the kernels).
EMPTY = np.uint32(0xFFFFFFFF)
#: Fixed-point scale of the Poisson correction (12 fractional bits).
FIX = 4096
#: Radius of the split vote's low pass (:func:`low_pass`: a 7x7 box).  The tones below that scale are
#: averaged over the covering copies, the finer detail is the best copy's.  Taken whole from the
#: best copy (a sharp vote), the tones stepped between neighbouring copies: a mosaic of hard-edged
#: pieces in blurred backgrounds.  A 3x3 box averaged too much of the texture away.
LOW_RADIUS = 3
#: Propagation distances: each target tries its neighbours' matches at these steps.
JUMPS = (1, 2, 4, 8)
#: Weight of the texture feature (the spare byte) in every patch distance, against 1 for each colour.
FEATURE_WEIGHT = 15
#: Texture features average the grey level's variation over a (2 FEATURE_RADIUS + 1)^2 box.
FEATURE_RADIUS = 2
#: No edge value at a pixel (a neighbour outside the image or in the hole).
EDGE_NONE = 0xFFFF
#: The gradient term (:func:`ssd`) weighs the squared grey-gradient differences ``weight / 2**GRAD_SHIFT``.
GRAD_SHIFT = 3
#: Colour adaptation (:func:`adaptation`): the gain's bounds, in 256ths (0.8 and 1.25), and the
#: bias's, in grey levels.
GAIN_MIN, GAIN_MAX, BIAS_MAX = 205, 320, 32
#: The adaptation code that changes nothing (gain 256, bias 0): ``gain * 256 + bias + 128`` per channel.
ADAPT_NONE = 256 * 256 + 128
#: Transformed sources: fixed-point scale of the transforms' matrices and of the sample positions
#: (8 fractional bits).
XFORM_ONE = 256
#: The continuous transforms' turns (a full turn in this many steps) and scales.
XFORM_ANGLES, XFORM_SCALES = 16, (0.75, 0.87, 1.0, 1.15, 1.33)


def _xform_table() -> np.ndarray:
    """Every transform's matrix on (dy, dx), (n, 4) int32 (m00, m01, m10, m11) in 1/:data:`XFORM_ONE`:
    codes 0-7 the square's mirrors and quarter turns (bit 1 swaps the axes, then bit 2 negates the
    row and bit 4 the column), then the turns by 1/:data:`XFORM_ANGLES` of a full turn at each scale,
    plain and mirrored left-right, less the eight."""
    rows = []
    for code in range(8):
        m = np.array([[0, 1], [1, 0]]) if code & 1 else np.eye(2, dtype=int)
        m[0] *= -1 if code & 2 else 1
        m[1] *= -1 if code & 4 else 1
        rows.append(m.ravel() * XFORM_ONE)
    for mirror in (1, -1):
        for a in range(XFORM_ANGLES):
            for scale in XFORM_SCALES:
                if a % (XFORM_ANGLES // 4) == 0 and scale == 1.0:
                    continue
                th = 2 * np.pi * a / XFORM_ANGLES
                m = scale * np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ np.diag([1, mirror])
                rows.append(np.round(m.ravel() * XFORM_ONE).astype(int))
    return np.array(rows, np.int32)


#: The transforms' matrices, by code (:func:`_xform_table`).
XFORM_TABLE = _xform_table()
#: The exact transforms (no resampling): codes below this.
XFORM_EXACT = 8
#: Each setting's transforms, as the count of codes it draws from: 0 none (code 0 only), 1 mirrored
#: left-right (codes 0 and 4), 2 the eight exact ones, 3 all of :data:`XFORM_TABLE`.
XFORM_CODES = {0: 1, 1: 2, 2: XFORM_EXACT, 3: len(XFORM_TABLE)}


def xform_reach(half: int) -> int:
    """How far from its centre a window of half-side ``half`` read through any continuous transform
    (and its bilinear neighbours) reaches: the half-side of the window that must be known."""
    d = np.arange(-half, half + 1)
    dy, dx = np.meshgrid(d, d, indexing="ij")
    t = XFORM_TABLE[XFORM_EXACT:].astype(np.int64)
    fy = t[:, 0, None, None] * dy + t[:, 1, None, None] * dx
    fx = t[:, 2, None, None] * dy + t[:, 3, None, None] * dx
    f = np.concatenate([fy.ravel(), fx.ravel()])
    return int(max(np.abs(f >> 8).max(), np.abs((f >> 8) + 1).max(), half))


def _offsets(code: np.ndarray | int, dy: np.ndarray | int, dx: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """The transform's offsets of (dy, dx), in 1/:data:`XFORM_ONE`."""
    m = XFORM_TABLE[np.asarray(code)].astype(np.int64)
    return m[..., 0] * dy + m[..., 1] * dx, m[..., 2] * dy + m[..., 3] * dx


def transformed(code: np.ndarray | int, dy: np.ndarray | int, dx: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Where a transformed source window reads the target window's offset (dy, dx), rounded to a
    pixel (``patchmatch.cl: xf_round``): the source window at s copies s + T(dy, dx) to the target's
    offset (dy, dx), T the matrix of ``code`` in :data:`XFORM_TABLE`.  Code 0 is the identity; codes
    0-7 (the square's mirrors and quarter turns) land on pixels and cover the same square as the
    plain window; the others are read by :func:`sample`, and this is their nearest pixel."""
    fy, fx = _offsets(code, dy, dx)
    return (fy + XFORM_ONE // 2) >> 8, (fx + XFORM_ONE // 2) >> 8


def sample(img: np.ndarray, cy: np.ndarray, cx: np.ndarray, code: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """The values the source windows at (cy, cx) with transforms ``code`` copy to the target's offset
    (dy, dx) (``patchmatch.cl: xf_sample``): bilinear at s + T(dy, dx) with weights in 1/256,
    ``(((a (256 - wx) + b wx) (256 - wy) + (c (256 - wx) + d wx) wy + 32768) >> 16``, int64; a
    neighbour with weight 0 is not read, so an exact code reads its one pixel, unchanged."""
    fy, fx = _offsets(code, dy, dx)
    fy, fx = cy.astype(np.int64) * XFORM_ONE + fy, cx.astype(np.int64) * XFORM_ONE + fx
    iy, wy, ix, wx = fy >> 8, (fy & 255)[:, None], fx >> 8, (fx & 255)[:, None]
    iy1, ix1 = iy + (wy[:, 0] > 0), ix + (wx[:, 0] > 0)
    v = img.astype(np.int64)
    top = v[iy, ix] * (256 - wx) + v[iy, ix1] * wx
    bottom = v[iy1, ix] * (256 - wx) + v[iy1, ix1] * wx
    return (top * (256 - wy) + bottom * wy + 32768) >> 16


def random_codes(mode: int, h: np.ndarray, current: np.ndarray) -> np.ndarray:
    """The transform each random-search candidate tries, from the hash ``h`` (uint32): the current
    best's (``current``) when the hash's low bit is set, else a random one of the setting ``mode``
    (:data:`XFORM_CODES`) (``patchmatch.cl: random_code``)."""
    h = np.asarray(h, np.uint32)
    other = ((h >> np.uint32(1)) % np.uint32(XFORM_CODES[mode])).astype(np.int32)
    if mode == 1:
        other = other << 2
    return np.where((h & np.uint32(1)) != 0, current, other).astype(np.int32)


def hash32(x: np.ndarray) -> np.ndarray:
    """A 32-bit integer hash (lowbias32), elementwise on uint32: the kernels' ``hash32``."""
    x = np.asarray(x, dtype=np.uint32).copy()
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def random_offsets(n: int, radius: int, key: int) -> Iterator[np.ndarray]:
    """The random search's offsets for ``n`` work-items, as the kernels draw them: one (n, 2)
    int32 array per radius, from ``radius`` halving down to 1 (taken one at a time, so each
    search step sees the matches the previous one found)."""
    r, step = int(radius), 0
    idx = np.arange(n, dtype=np.uint32)
    while r >= 1:
        hy = hash32(idx * np.uint32(747796405) + np.uint32((int(key) * 7919) & 0xFFFFFFFF) + np.uint32(step))
        hx = hash32(hy)
        m = np.uint32(2 * r + 1)
        yield np.stack([(hy % m).astype(np.int32), (hx % m).astype(np.int32)], axis=1) - r
        r //= 2
        step += 1


def floor_div(a: np.ndarray, b: int | np.ndarray) -> np.ndarray:
    """``floor(a / b)`` for integer arrays and ``b > 0`` (the kernels' ``floor_div``)."""
    return np.floor_divide(a, b)


def _channel_weights() -> np.ndarray:
    return np.array([1, 1, 1, FEATURE_WEIGHT], np.int32)


def adaptation(est: np.ndarray, targets: np.ndarray, cand: np.ndarray, half: int,
               xf: np.ndarray | None = None) -> np.ndarray:
    """Colour adaptation codes of every target window to its candidate window
    (``patchmatch.cl: adaptation``), (n, 4) int32: per channel ``gain * 256 + bias + 128``, the
    spare value :data:`ADAPT_NONE`.

    Over the target window's in-image pixels and the candidate window's matching ones, with the
    channel's sums ``st`` and ``ss`` over ``n`` pixels: the gain (in 256ths) is
    ``round(256 st / ss)`` within [:data:`GAIN_MIN`, :data:`GAIN_MAX`] (a shading model: light
    multiplies the colour), and the bias ``round((256 st - gain ss) / (256 n))`` within
    ±:data:`BIAS_MAX` takes what the bounded gain leaves of the means' difference.  A source
    value v then reads :func:`adapted` (v), in the distance and in the vote alike.  With ``xf``
    ((n,) int, the candidates' transform codes) the candidate window is read through
    :func:`sample`.
    """
    h, w = est.shape[:2]
    rgb = est[..., :3].astype(np.int64)
    st = np.zeros((len(targets), 3), np.int64)
    ss = np.zeros((len(targets), 3), np.int64)
    count = np.zeros(len(targets), np.int64)
    cy = np.clip(cand[:, 0], half, h - 1 - half)
    cx = np.clip(cand[:, 1], half, w - 1 - half)
    for dy in range(-half, half + 1):
        ty = targets[:, 0] + dy
        iny = (ty >= 0) & (ty < h)
        tyc = np.clip(ty, 0, h - 1)
        for dx in range(-half, half + 1):
            tx = targets[:, 1] + dx
            inside = (iny & (tx >= 0) & (tx < w))[:, None]
            st += np.where(inside, rgb[tyc, np.clip(tx, 0, w - 1)], 0)
            src = rgb[cy + dy, cx + dx] if xf is None else sample(rgb, cy, cx, xf, dy, dx)
            ss += np.where(inside, src, 0)
            count += inside[:, 0]
    gain = np.clip((256 * st + ss // 2) // np.maximum(ss, 1), GAIN_MIN, GAIN_MAX)
    n256 = 256 * np.maximum(count, 1)[:, None]
    bias = np.clip(floor_div(256 * st - gain * ss + n256 // 2, n256), -BIAS_MAX, BIAS_MAX)
    codes = np.full((len(targets), 4), ADAPT_NONE, np.int32)
    codes[:, :3] = gain * 256 + bias + 128
    return codes


def adapted(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Source colours ``values`` (..., 3) as the adaptation ``codes`` (..., >= 3, see
    :func:`adaptation`) read them: ``clamp(((gain v + 128) >> 8) + bias, 0, 255)``, int64."""
    gain = codes[..., :3].astype(np.int64) >> 8
    bias = (codes[..., :3].astype(np.int64) & 255) - 128
    return np.clip(((gain * values + 128) >> 8) + bias, 0, 255)


def ssd(est: np.ndarray, targets: np.ndarray, cand: np.ndarray, half: int, mean_weight: int = 0,
        near_weight: int = 0, grad_weight: int = 0, codes: np.ndarray | None = None,
        xf: np.ndarray | None = None) -> np.ndarray:
    """Distance of every target window to its candidate window, as int64: the SSD (RGB, plus
    :data:`FEATURE_WEIGHT` times the feature's), plus ``mean_weight / 4`` times the window's
    pixel count times the squared difference of the two windows' mean colours, rounded down,
    plus ``near_weight`` times the distance between the two centres (|dy| + |dx|)
    (``patchmatch.cl: ssd``).

    The mean-colour term weighs a window's overall colour beyond its share of the SSD: a smooth
    target (as a coarse fill is) then prefers a source of its own colour, textured or not, over
    a smooth source of another colour (a shadow in a lit area).  The distance term makes a source
    from farther away win only by a clear margin: at the coarse levels, where the fill's content
    is chosen, near matches continue what meets the hole (a line, a plank's gap) and far ones bring
    in content from elsewhere.  Target pixels outside the image are skipped; candidate windows lie
    inside the image (the caller passes only valid candidates, others may hold any in-image centre).

    With ``grad_weight``, each pair of horizontally or vertically neighbouring in-image pixels adds
    ``(grad_weight * (e1 - e0)**2) >> GRAD_SHIFT``, e the grey-level (r + g + b) difference of target
    and source at the pixel: the squared difference of the two windows' grey gradients, so a match
    continues an edge, not only a colour.  With ``codes`` ((n, >= 3) int, see :func:`adaptation`)
    every source colour is read through :func:`adapted` first (the feature is not adapted).  With
    ``xf`` ((n,) int, the candidates' transform codes) the target's offset (dy, dx) is compared with
    what the candidate's window copies there (:func:`sample`).
    """
    h, w = est.shape[:2]
    rgb = est.astype(np.int32)
    wts = _channel_weights()
    acc = near_weight * (np.abs(targets[:, 0] - cand[:, 0]) + np.abs(targets[:, 1] - cand[:, 1])).astype(np.int64)
    total = np.zeros((len(targets), 3), np.int64)
    count = np.zeros(len(targets), np.int64)
    cy = np.clip(cand[:, 0], half, h - 1 - half)
    cx = np.clip(cand[:, 1], half, w - 1 - half)
    above = [None] * (2 * half + 1)  # the grey error of the row above, per column (None: not in the image)
    for dy in range(-half, half + 1):
        ty = targets[:, 0] + dy
        iny = (ty >= 0) & (ty < h)
        tyc = np.clip(ty, 0, h - 1)
        left = None
        for dx in range(-half, half + 1):
            tx = targets[:, 1] + dx
            inside = iny & (tx >= 0) & (tx < w)
            s = rgb[cy + dy, cx + dx] if xf is None else sample(rgb, cy, cx, xf, dy, dx)
            if codes is not None:
                s = s.copy()
                s[:, :3] = adapted(s[:, :3], codes)
            d = rgb[tyc, np.clip(tx, 0, w - 1)] - s
            acc += np.where(inside, (d * d) @ wts, 0)
            if mean_weight:
                total += np.where(inside[:, None], d[:, :3], 0)
                count += inside
            if grad_weight:
                e = d[:, :3].sum(axis=1).astype(np.int64)
                for prev in (left, above[dx + half]):
                    if prev is not None:
                        both = inside & prev[1]
                        acc += np.where(both, (grad_weight * (e - prev[0]) ** 2) >> GRAD_SHIFT, 0)
                left = above[dx + half] = (e, inside)
    if mean_weight:
        acc += (mean_weight * (total * total).sum(axis=1)) // (4 * np.maximum(count, 1))
    return acc


def _insert(nnf: np.ndarray, cost: np.ndarray, cand: np.ndarray, d: np.ndarray, ok: np.ndarray,
            adapt: np.ndarray | None = None, codes: np.ndarray | None = None, xf: np.ndarray | None = None,
            cxf: np.ndarray | None = None) -> None:
    """Insert one candidate per target into its sorted list (the kernels' ``insert``).

    A candidate enters when its SSD is below the list's worst and it is not already listed;
    it goes after every entry with an SSD <= its own, and the worst entry drops out.  With
    ``adapt`` ((N, K, 4) int32, the entries' adaptation codes), the candidates' ``codes`` move in
    with them; with ``xf`` ((N, K) int32, the entries' transforms) the candidates' transforms
    ``cxf``, and an entry is the candidate's only with its transform too.
    """
    k_count = cost.shape[1]
    listed = (cost != EMPTY) & (nnf[..., 0] == cand[:, None, 0]) & (nnf[..., 1] == cand[:, None, 1])
    if xf is not None:
        listed &= xf == cxf[:, None]
    take = ok & (d < cost[:, -1]) & ~listed.any(axis=1)
    if not take.any():
        return
    rows = np.flatnonzero(take)
    dv = d[rows].astype(np.uint32)
    c = cost[rows]
    n = nnf[rows]
    pos = (c <= dv[:, None]).sum(axis=1)
    k = np.arange(k_count)[None, :]
    before = k < pos[:, None]
    at = k == pos[:, None]
    shifted_c = np.concatenate([c[:, :1], c[:, :-1]], axis=1)
    shifted_n = np.concatenate([n[:, :1], n[:, :-1]], axis=1)
    cost[rows] = np.where(before, c, np.where(at, dv[:, None], shifted_c))
    nnf[rows] = np.where(before[..., None], n, np.where(at[..., None], cand[rows, None, :], shifted_n))
    if adapt is not None:
        a = adapt[rows]
        shifted_a = np.concatenate([a[:, :1], a[:, :-1]], axis=1)
        adapt[rows] = np.where(before[..., None], a, np.where(at[..., None], codes[rows, None, :], shifted_a))
    if xf is not None:
        x = xf[rows]
        shifted_x = np.concatenate([x[:, :1], x[:, :-1]], axis=1)
        xf[rows] = np.where(before, x, np.where(at, cxf[rows, None], shifted_x))


def _consider(est, targets, nnf, cost, valid, half, cand, ok, mean_weight, near_weight, grad_weight=0,
              adapt=None, xf=None, cxf=None, wide=None) -> None:
    cancel.check()  # a round on a large image takes seconds: a stop request ends it here
    h, w = valid.shape
    ok = ok & (cand[:, 0] >= 0) & (cand[:, 0] < h) & (cand[:, 1] >= 0) & (cand[:, 1] < w)
    cy = np.clip(cand[:, 0], 0, h - 1)
    cx = np.clip(cand[:, 1], 0, w - 1)
    ok &= valid[cy, cx] != 0
    if wide is not None:  # a resampled window reaches further: its wider window must be known
        ok &= (cxf < XFORM_EXACT) | (wide[cy, cx] != 0)
    if not ok.any():
        return
    d = np.full(len(targets), np.iinfo(np.int64).max, np.int64)
    codes = None
    if adapt is not None:
        codes = np.full((len(targets), 4), ADAPT_NONE, np.int32)
        codes[ok] = adaptation(est, targets[ok], cand[ok], half, None if xf is None else cxf[ok])
    d[ok] = ssd(est, targets[ok], cand[ok], half, mean_weight, near_weight, grad_weight,
                None if codes is None else codes[ok], None if xf is None else cxf[ok])
    _insert(nnf, cost, cand, d, ok, adapt, codes, xf, cxf)


def _local(tidx: np.ndarray, origin: tuple[int, int], y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Target index of absolute pixels (y, x), -1 outside the work area."""
    ly, lx = y - origin[0], x - origin[1]
    h, w = tidx.shape
    inside = (ly >= 0) & (ly < h) & (lx >= 0) & (lx < w)
    return np.where(inside, tidx[np.clip(ly, 0, h - 1), np.clip(lx, 0, w - 1)], -1)


def patchmatch(est: np.ndarray, targets: np.ndarray, tidx: np.ndarray, origin: tuple[int, int],
               valid: np.ndarray, nnf: np.ndarray, cost: np.ndarray, best_in: np.ndarray,
               best_out: np.ndarray, half: int, radius: int, key: int, jump_max: int = JUMPS[-1],
               mean_weight: int = 0, near_weight: int = 0, grad_weight: int = 0,
               adapt: np.ndarray | None = None, xf: tuple[np.ndarray, np.ndarray, np.ndarray, int] | None = None
               ) -> None:
    """One PatchMatch iteration (``patchmatch.cl: patchmatch``), in place on ``nnf``/``cost``.

    Each target tries, in this order, (1) its neighbours' best matches at distances
    ``JUMPS`` up to ``jump_max`` to the left, right, above and below, shifted back by that distance, then
    (2) random candidates around its current best within ``radius``, halving the radius
    each time.  ``best_in`` (N, 2) is every target's best match at the start of the
    iteration; ``best_out`` receives the new best.  Distances are :func:`ssd`'s, with
    ``mean_weight``, ``near_weight`` and ``grad_weight``; with ``adapt`` ((N, K, 4) int32, the
    entries' codes) every candidate is compared through its :func:`adaptation`, whose code enters
    the list with it.

    With ``xf`` = (codes, best_in, best_out, mode[, wide]) every entry carries a transform (codes
    (N, K) int32, see :func:`transformed`; the best matches' in (N,) ``best_in`` and ``best_out``;
    ``mode`` a key of :data:`XFORM_CODES`): a neighbour's best match at s with transform T proposes
    s - T(d), rounded, for the target a step d from it, with T (the source of a transformed patch
    moves with it, as in Generalized PatchMatch), and each random candidate takes
    :func:`random_codes`'s transform.  A candidate with a resampled transform (a code from
    :data:`XFORM_EXACT`) must also be set in ``wide`` ((H, W) uint8: the centres whose window of
    half-side :func:`xform_reach` is known and inside the search area).
    """
    n = len(targets)
    codes = bxf_in = bxf_out = wide = None
    if xf is not None:
        codes, bxf_in, bxf_out, mode = xf[:4]
        wide = xf[4] if len(xf) > 4 else None
    for j in (j for j in JUMPS if j <= jump_max):
        for dy, dx in ((0, -j), (0, j), (-j, 0), (j, 0)):
            t = _local(tidx, origin, targets[:, 0] + dy, targets[:, 1] + dx)
            ok = t >= 0
            ts = np.where(ok, t, 0)
            cxf = None
            if codes is None:
                cand = best_in[ts] - np.array([dy, dx], np.int32)
            else:
                cxf = bxf_in[ts].astype(np.int32)
                oy, ox = transformed(cxf, dy, dx)  # (rounded: a centre is a pixel)
                cand = best_in[ts] - np.stack([oy, ox], 1)
            _consider(est, targets, nnf, cost, valid, half, cand.astype(np.int32), ok, mean_weight, near_weight,
                      grad_weight, adapt, codes, cxf, wide)
    idx = np.arange(n, dtype=np.uint32)
    for step, off in enumerate(random_offsets(n, radius, key)):
        cxf = None
        if codes is not None:  # a third hash after random_offsets' two
            hy = hash32(idx * np.uint32(747796405) + np.uint32((int(key) * 7919) & 0xFFFFFFFF) + np.uint32(step))
            cxf = random_codes(mode, hash32(hash32(hy)), codes[:, 0])
        _consider(est, targets, nnf, cost, valid, half, nnf[:, 0] + off, np.ones(n, bool), mean_weight,
                  near_weight, grad_weight, adapt, codes, cxf, wide)
    best_out[:] = nnf[:, 0]
    if codes is not None:
        bxf_out[:] = codes[:, 0]


def rescore(est: np.ndarray, targets: np.ndarray, nnf: np.ndarray, cost: np.ndarray, half: int,
            mean_weight: int = 0, near_weight: int = 0, grad_weight: int = 0,
            adapt: np.ndarray | None = None, xf: np.ndarray | None = None) -> None:
    """Recompute every listed candidate's distance (:func:`ssd`) against ``est`` (and, with
    ``adapt``, its adaptation code first; with ``xf``, (N, K) int32, through its transform), then
    sort each list (stable: equal SSDs keep their order) (``patchmatch.cl: rescore``)."""
    k_count = cost.shape[1]
    for k in range(k_count):
        full = cost[:, k] != EMPTY
        if full.any():
            codes = None
            cxf = None if xf is None else xf[full, k]
            if adapt is not None:
                codes = adapt[full, k] = adaptation(est, targets[full], nnf[full, k], half, cxf)
            cost[full, k] = ssd(est, targets[full], nnf[full, k], half, mean_weight, near_weight, grad_weight,
                                codes, cxf).astype(np.uint32)
    order = np.argsort(cost, axis=1, kind="stable")
    cost[:] = np.take_along_axis(cost, order, axis=1)
    nnf[:] = np.take_along_axis(nnf, order[..., None], axis=1)
    if adapt is not None:
        adapt[:] = np.take_along_axis(adapt, order[..., None], axis=1)
    if xf is not None:
        xf[:] = np.take_along_axis(xf, order, axis=1)


def low_pass(est: np.ndarray, hole: np.ndarray, origin: tuple[int, int], rect: tuple[int, int, int, int],
             protected: tuple[tuple, np.ndarray] | None = None) -> np.ndarray:
    """The rounded mean colour of the known pixels in the (2 :data:`LOW_RADIUS` + 1)^2 box around
    every pixel of ``rect`` ((x0, y0, x1, y1), inside the image) (``vote.cl: low_pass``),
    (y1 - y0, x1 - x0, 3) uint8.

    ``hole`` covers the work area at ``origin`` and is 1 on the hole and 2 on protected pixels;
    both are left out (no fill takes a protected object's colour), as are pixels outside the
    image and, beyond the work area, the protected pixels of ``protected`` (their box (x0, y0,
    x1, y1) and map, :func:`inpaint.methods.multiscale.levels.protected_near`; the other groups of
    a hole filled in groups among them).  Only the known pixels' values are used by the split vote.
    """
    h, w = est.shape[:2]
    x0, y0, x1, y1 = rect
    rh, rw = hole.shape
    # the rectangle grown by the radius (clipped), its known pixels, and their colours (0 elsewhere)
    r = LOW_RADIUS
    gx0, gy0, gx1, gy1 = max(x0 - r, 0), max(y0 - r, 0), min(x1 + r, w), min(y1 + r, h)
    known = np.ones((gy1 - gy0, gx1 - gx0), bool)
    oy, ox = origin
    hy0, hx0 = max(oy, gy0), max(ox, gx0)
    hy1, hx1 = min(oy + rh, gy1), min(ox + rw, gx1)
    if hy0 < hy1 and hx0 < hx1:
        known[hy0 - gy0:hy1 - gy0, hx0 - gx0:hx1 - gx0] = hole[hy0 - oy:hy1 - oy, hx0 - ox:hx1 - ox] == 0
    if protected is not None:
        (px0, py0, px1, py1), pmap = protected
        qy0, qx0, qy1, qx1 = max(py0, gy0), max(px0, gx0), min(py1, gy1), min(px1, gx1)
        if qy0 < qy1 and qx0 < qx1:
            known[qy0 - gy0:qy1 - gy0, qx0 - gx0:qx1 - gx0] &= pmap[qy0 - py0:qy1 - py0, qx0 - px0:qx1 - px0] == 0
    colour = est[gy0:gy1, gx0:gx1, :3].astype(np.int32) * known[..., None]
    total = np.zeros((y1 - y0, x1 - x0, 3), np.int32)
    count = np.zeros((y1 - y0, x1 - x0), np.int32)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            # the box's (dy, dx) neighbour of every pixel of the rectangle that has one in the image
            ty0, ty1 = max(y0, -dy), min(y1, h - dy)
            tx0, tx1 = max(x0, -dx), min(x1, w - dx)
            if ty0 >= ty1 or tx0 >= tx1:
                continue
            src = (slice(ty0 + dy - gy0, ty1 + dy - gy0), slice(tx0 + dx - gx0, tx1 + dx - gx0))
            dst = (slice(ty0 - y0, ty1 - y0), slice(tx0 - x0, tx1 - x0))
            total[dst] += colour[src]
            count[dst] += known[src]
    return floor_div(total + (count // 2)[..., None], np.maximum(count, 1)[..., None]).astype(np.uint8)


def vote(est: np.ndarray, pixels: np.ndarray, tidx: np.ndarray, origin: tuple[int, int], nnf: np.ndarray,
         cost: np.ndarray, half: int, k_use: int, softness: int, out: np.ndarray,
         split: tuple[np.ndarray, tuple[int, int]] | None = None, src: np.ndarray | None = None,
         adapt: np.ndarray | None = None, xf: np.ndarray | None = None) -> None:
    """Each listed pixel becomes the weighted mean of what the patches covering it copy
    (``vote.cl: vote``).

    Every target window that contains the pixel votes with each of its first ``k_use``
    candidates; candidate k weighs ``256 * softness // (softness + cost_k - cost_0)``.
    ``out`` (work area, 4) int32 receives the rounded means (colour and feature) at ``pixels``.

    With ``split`` (a :func:`low_pass` map over every source pixel, and its origin (y, x)) the
    vote is split by frequency: the colour is the weighted mean of the copied pixels' low pass
    plus the detail (pixel minus low pass) of the best-matching covering candidate (the first in
    the order dy, dx, k at equal costs), clamped to 0..255; the feature stays the plain mean.
    Averaging many slightly shifted copies keeps the tones but washes texture out; the detail
    of one copy keeps it.  With ``split``, ``src`` ((m, 2) int32, optional) receives for the first
    m pixels the source pixel of that best candidate: the original pixel the fill copies there
    before blending.  With ``adapt`` ((N, K, 4) int32, the entries' codes of :func:`adaptation`)
    every copied colour, and its low pass, is read through :func:`adapted` with its entry's code,
    as the distance compared it; the source map still names the original pixel.  With ``xf``
    ((N, K) int32, the entries' transforms) a window copies to its offset (dy, dx) what
    :func:`sample` reads there, as the distance compared it; the low pass, the best copy and the
    source map take the pixel nearest the sample (:func:`transformed`).
    """
    rgb = est.astype(np.int64)
    py, px = pixels[:, 0], pixels[:, 1]
    n = len(pixels)
    acc = np.zeros((n, 4), np.int64)
    low_sum = np.zeros((n, 3), np.int64)
    wsum = np.zeros(n, np.int64)
    dmin = np.full(n, int(EMPTY) + 1, np.int64)
    best = np.zeros((n, 2), np.int64)
    best_code = np.full((n, 4), ADAPT_NONE, np.int64)
    best_val = np.zeros((n, 3), np.int64)  # the best copy's colour (a sample of a transformed source)
    if split is not None:
        low, (ly0, lx0) = split
        low = low.astype(np.int64)
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            t = _local(tidx, origin, py - dy, px - dx)
            ok = t >= 0
            ts = np.where(ok, t, 0)
            c0 = cost[ts, 0].astype(np.int64)
            for k in range(k_use):
                ck = cost[ts, k].astype(np.int64)
                use = ok & (ck != int(EMPTY))
                wk = np.where(use, (256 * softness) // (softness + ck - c0), 0)
                if xf is None:
                    sy = np.where(use, nnf[ts, k, 0] + dy, 0)
                    sx = np.where(use, nnf[ts, k, 1] + dx, 0)
                    copied = rgb[sy, sx]
                else:
                    code = np.where(use, xf[ts, k], 0)
                    cy, cx = np.where(use, nnf[ts, k, 0], 0), np.where(use, nnf[ts, k, 1], 0)
                    oy, ox = transformed(code, dy, dx)
                    sy, sx = np.where(use, cy + oy, 0), np.where(use, cx + ox, 0)
                    copied = sample(rgb, cy, cx, code, dy, dx)
                plain = copied[:, :3]
                if adapt is not None:
                    acode = adapt[ts, k]
                    copied = copied.copy()
                    copied[:, :3] = adapted(copied[:, :3], acode)
                acc += wk[:, None] * copied
                wsum += wk
                if split is not None:
                    lows = low[np.where(use, sy - ly0, 0), np.where(use, sx - lx0, 0)]
                    if adapt is not None:
                        lows = adapted(lows, acode)
                    low_sum += np.where(use[:, None], wk[:, None] * lows, 0)
                    take = use & (ck < dmin)
                    dmin = np.where(take, ck, dmin)
                    best = np.where(take[:, None], np.stack([sy, sx], 1), best)
                    best_val = np.where(take[:, None], plain, best_val)
                    if adapt is not None:
                        best_code = np.where(take[:, None], acode, best_code)
    mean = floor_div(acc + (wsum // 2)[:, None], wsum[:, None])
    if split is not None:
        detail = best_val - low[best[:, 0] - ly0, best[:, 1] - lx0]
        if adapt is not None:
            detail = (adapted(best_val, best_code)
                      - adapted(low[best[:, 0] - ly0, best[:, 1] - lx0], best_code))
        mean[:, :3] = np.clip(floor_div(low_sum + (wsum // 2)[:, None], wsum[:, None]) + detail, 0, 255)
        if src is not None:
            src[:] = best[:len(src)]
    out[py - origin[0], px - origin[1]] = mean


def gauss_seidel(hole: np.ndarray, est: np.ndarray, v: np.ndarray, x: np.ndarray,
                 lists: tuple[np.ndarray, np.ndarray], origin: tuple[int, int], sweeps: int) -> None:
    """Red-black Gauss-Seidel sweeps of Laplace(x) = 0 on the hole (``poisson.cl: gauss_seidel``).

    ``hole``, ``v`` and ``x`` cover the work area at ``origin``; ``x`` is fixed point
    (``FIX``).  ``hole`` is 1 on the hole, 2 on protected pixels, 0 on other known pixels.  A
    known 4-neighbour q contributes the boundary value ``(est[q] - v[q]) * FIX``; protected
    neighbours and neighbours outside the image are left out (zero normal derivative there), and
    a pixel with none left keeps its value.  ``lists`` holds the hole pixels of each colour
    ((y + x) even, then odd); one sweep updates the first colour, then the second.
    """
    H, W = est.shape[:2]
    rh, rw = hole.shape
    oy, ox = origin
    known = hole == 0
    b = (est[oy:oy + rh, ox:ox + rw, :3].astype(np.int32) - v[..., :3]) * FIX
    for _ in range(sweeps):
        cancel.check()
        for pix in lists:
            if not len(pix):
                continue
            py, px = pix[:, 0], pix[:, 1]
            s = np.zeros((len(pix), 3), np.int32)
            n = np.zeros(len(pix), np.int32)
            for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                qy, qx = py + dy, px + dx
                inside = (qy >= 0) & (qy < H) & (qx >= 0) & (qx < W)
                ly, lx = np.clip(qy - oy, 0, rh - 1), np.clip(qx - ox, 0, rw - 1)
                inside &= hole[ly, lx] != 2
                val = np.where(known[ly, lx][:, None], b[ly, lx], x[ly, lx, :3])
                s += np.where(inside[:, None], val, 0)
                n += inside
            some = n > 0
            x[py[some] - oy, px[some] - ox, :3] = floor_div(s[some] + (n[some] // 2)[:, None], n[some][:, None])


def compose(est: np.ndarray, v: np.ndarray, x: np.ndarray, pixels: np.ndarray, origin: tuple[int, int],
            prior: np.ndarray | None = None) -> None:
    """``est = clamp(v + round(x / FIX), 0, 255)`` on the hole pixels' colours, and the vote's
    feature or, given, the ``prior``'s (``poisson.cl: compose``); ``v``, ``x`` and ``prior``
    (uint8) cover the work area at ``origin``."""
    py, px = pixels[:, 0], pixels[:, 1]
    ly, lx = py - origin[0], px - origin[1]
    corr = floor_div(x[ly, lx, :3] + FIX // 2, FIX)
    est[py, px, :3] = np.clip(v[ly, lx, :3] + corr, 0, 255).astype(np.uint8)
    est[py, px, 3] = v[ly, lx, 3] if prior is None else prior[ly, lx]  # the feature is not corrected


# -- the first fill: onion peel ---------------------------------------------------------------
#: The 8 neighbours a pixel of the onion takes its neighbours' sources from, in this order.
NEIGHBOURS8 = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def masked_ssd(est: np.ndarray, filled: np.ndarray, origin: tuple[int, int], pix: np.ndarray, cand: np.ndarray,
               half: int) -> np.ndarray:
    """SSD (as :func:`ssd`) of each pixel's window against its candidate's window over the window's
    pixels that are inside the image and known or already filled (``filled``, over the work area at ``origin``), as
    int64.  Candidates must be valid source centres (their windows lie inside the image)."""
    h, w = est.shape[:2]
    oy, ox = origin
    fh, fw = filled.shape
    rgb = est.astype(np.int32)
    wts = _channel_weights()
    acc = np.zeros(len(pix), np.int64)
    for dy in range(-half, half + 1):
        ty = pix[:, 0] + dy
        for dx in range(-half, half + 1):
            tx = pix[:, 1] + dx
            inside = (ty >= 0) & (ty < h) & (tx >= 0) & (tx < w)
            ly, lx = np.clip(ty - oy, 0, fh - 1), np.clip(tx - ox, 0, fw - 1)
            use = inside & (filled[ly, lx] != 0)
            d = rgb[np.clip(ty, 0, h - 1), np.clip(tx, 0, w - 1)] - rgb[cand[:, 0] + dy, cand[:, 1] + dx]
            acc += np.where(use, (d * d) @ wts, 0)
    return acc


def onion_search(est: np.ndarray, filled: np.ndarray, osrc: np.ndarray, valid: np.ndarray, pixels: np.ndarray,
                 cands: np.ndarray, origin: tuple[int, int], half: int, radius: int, key: int) -> np.ndarray:
    """One layer of the onion peel (``onion.cl: onion_search``): for every pixel of the layer, the
    source centre whose window best matches the pixel's window on its known and filled pixels.

    Each pixel tries, in this order: its ``cands`` (R random valid centres), the sources of its
    filled 8-neighbours (``osrc``, over the work area; -1 where none) shifted by the step to it,
    then random candidates around its best within ``radius``, halving the radius each time (as
    :func:`patchmatch`).  A candidate replaces the best only with a strictly smaller SSD.  Pixels of
    one layer read only earlier layers, so they are searched independently.  Returns (n, 2) int32,
    (-1, -1) where no candidate was usable.
    """
    h, w = valid.shape
    oy, ox = origin
    fh, fw = filled.shape
    n = len(pixels)
    best = np.full((n, 2), -1, np.int32)
    bestd = np.full(n, int(EMPTY), np.int64)

    def consider(cand: np.ndarray, ok: np.ndarray) -> None:
        cancel.check()
        ok = ok & (cand[:, 0] >= 0) & (cand[:, 0] < h) & (cand[:, 1] >= 0) & (cand[:, 1] < w)
        ok &= valid[np.clip(cand[:, 0], 0, h - 1), np.clip(cand[:, 1], 0, w - 1)] != 0
        if not ok.any():
            return
        d = np.full(n, np.iinfo(np.int64).max, np.int64)
        d[ok] = masked_ssd(est, filled, origin, pixels[ok], cand[ok], half)
        take = d < bestd
        best[take] = cand[take]
        bestd[take] = d[take]

    for j in range(cands.shape[1]):
        consider(cands[:, j].astype(np.int32), np.ones(n, bool))
    for dy, dx in NEIGHBOURS8:
        ly, lx = pixels[:, 0] + dy - oy, pixels[:, 1] + dx - ox
        inside = (ly >= 0) & (ly < fh) & (lx >= 0) & (lx < fw)
        src = osrc[np.clip(ly, 0, fh - 1), np.clip(lx, 0, fw - 1)]
        ok = inside & (src[:, 0] >= 0)
        consider((src - np.array([dy, dx], np.int32)).astype(np.int32), ok)
    for off in random_offsets(n, radius, key):
        consider((best + off).astype(np.int32), best[:, 0] >= 0)
    return best


def onion_apply(est: np.ndarray, filled: np.ndarray, osrc: np.ndarray, pixels: np.ndarray, found: np.ndarray,
                origin: tuple[int, int]) -> None:
    """Fill one layer (``onion.cl: onion_apply``): each pixel copies the colour and feature at its
    found source centre and records it in ``osrc``; every pixel of the layer counts as filled from
    now on."""
    py, px = pixels[:, 0], pixels[:, 1]
    ly, lx = py - origin[0], px - origin[1]
    ok = found[:, 0] >= 0
    est[py[ok], px[ok]] = est[found[ok, 0], found[ok, 1]]
    osrc[ly, lx] = found
    filled[ly, lx] = 1


# -- texture features ---------------------------------------------------------------------------
def edges(rgb: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """``pyramid.cl: edges``: ``|grey(y, x+1) - grey(y, x-1)| + |grey(y+1, x) - grey(y-1, x)|``
    (grey = r + g + b) where the four neighbours lie in the image and outside ``hole``,
    :data:`EDGE_NONE` elsewhere; (H, W) uint16."""
    h, w = hole.shape
    g = rgb[..., 0].astype(np.int32) + rgb[..., 1] + rgb[..., 2]
    out = np.full((h, w), EDGE_NONE, np.uint16)
    if h < 3 or w < 3:
        return out
    known = ~hole
    ok = known[1:-1, :-2] & known[1:-1, 2:] & known[:-2, 1:-1] & known[2:, 1:-1]
    e = np.abs(g[1:-1, 2:] - g[1:-1, :-2]) + np.abs(g[2:, 1:-1] - g[:-2, 1:-1])
    out[1:-1, 1:-1] = np.where(ok, e, EDGE_NONE)
    return out


def texture_features(rgb: np.ndarray, hole: np.ndarray, radius: int = -1) -> np.ndarray:
    """The texture feature of every pixel (``pyramid.cl: edges`` then ``features``), (H, W) uint8.

    A known pixel's feature is the mean of :func:`edges` over the (2 radius + 1)^2 box around it
    (the values that exist), divided by 6 and rounded, at most 255: about the mean absolute
    grey-level step between neighbours, as Newson et al.'s features; 0 when the box holds none,
    and 0 on the hole (``hole``, (H, W) bool), whose features the first fill and the votes
    provide.  ``radius`` -1: :data:`FEATURE_RADIUS`.
    """
    r = FEATURE_RADIUS if radius < 0 else radius
    e = edges(rgb, hole)
    have = e != EDGE_NONE
    val = np.where(have, e, 0).astype(np.uint32)

    def box(a: np.ndarray) -> np.ndarray:
        """Sum over the in-image part of each (2r + 1)^2 box, by an integral image of ``a`` padded
        with r zeros (outside the image adds nothing): shifted slices, no gathers.  The integral
        image wraps modulo 2^32, and so do the differences: a box's sum, far below 2^32, is exact."""
        h, w = a.shape
        n = 2 * r + 1
        ii = np.zeros((h + n, w + n), np.uint32)
        ii[r + 1:r + 1 + h, r + 1:r + 1 + w] = a
        ii.cumsum(0, out=ii)
        ii.cumsum(1, out=ii)
        out = ii[n:, n:] - ii[:h, n:]
        out -= ii[n:, :w]
        out += ii[:h, :w]
        return out

    s, c = box(val), box(have.view(np.uint8))
    f = np.minimum((s + 3 * c) // np.maximum(6 * c, 1), 255)  # 0 where the box holds no edge value (s = c = 0)
    f[hole] = 0
    return f.astype(np.uint8)


def _upsample2(coarse: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``coarse`` (int32) scaled up twice to ``shape``, bilinear at the pixel centres with weights
    1/4 and 3/4 (the border repeats), rounded."""

    def taps(n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        i = np.arange(n)
        near = i // 2
        return near, np.clip(np.where(i % 2, near + 1, near - 1), 0, size - 1)

    # The weights are separable (3, 1 by 3, 1): rows first, then columns, in exact integers.
    yn, yf = taps(shape[0], coarse.shape[0])
    xn, xf = taps(shape[1], coarse.shape[1])
    rows = 3 * coarse[yn] + coarse[yf]
    total = 3 * rows[:, xn] + rows[:, xf]
    return (total + 8) // 16


def pull_push(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``values`` (int, within +-2^26) at the ``known`` pixels, and elsewhere values carried in
    smoothly from them (pull-push: the rounded means of the known pixels of 2x2 blocks, level by
    level, then :func:`_upsample2` back down), int32.  All zero when nothing is known."""
    v = np.where(known, values, 0).astype(np.int32)
    if known.all() or not known.any():
        return v
    h, w = known.shape
    ch, cw = (h + 1) // 2, (w + 1) // 2
    total = np.zeros((ch, cw), np.int32)
    count = np.zeros((ch, cw), np.int32)
    for dy in (0, 1):
        for dx in (0, 1):
            part, have = v[dy::2, dx::2], known[dy::2, dx::2]
            total[:part.shape[0], :part.shape[1]] += part
            count[:have.shape[0], :have.shape[1]] += have
    coarse = pull_push(floor_div(total + count // 2, np.maximum(count, 1)), count > 0)
    return np.where(known, v, _upsample2(coarse, (h, w)))


def texture_features_in(rgb: np.ndarray, hole: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    """:func:`texture_features` of the pixels of ``rect`` ((x0, y0, x1, y1)) alone, (y1 - y0, x1 - x0)
    uint8: the same values, computed from the rectangle grown by the reach of a feature's box and
    its edges (FEATURE_RADIUS + 1 px), not from the whole photo."""
    h, w = hole.shape
    x0, y0, x1, y1 = rect
    m = FEATURE_RADIUS + 1
    cx0, cy0, cx1, cy1 = max(x0 - m, 0), max(y0 - m, 0), min(x1 + m, w), min(y1 + m, h)
    f = texture_features(rgb[cy0:cy1, cx0:cx1], hole[cy0:cy1, cx0:cx1])
    return f[y0 - cy0:y1 - cy0, x0 - cx0:x1 - cx0]


def texture_prior(feature: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """The texture the hole should have, from the known pixels' texture features around it
    (:func:`pull_push`): uint8, like ``feature`` and ``hole`` (both over the work area; ``hole``
    is 1 on the hole and 2 on protected pixels, whose texture is not expected either); the known
    pixels keep their features.

    The fill's own features follow the sources it copies, and a fill that has turned smooth
    keeps matching smooth sources; with the surroundings' texture expected, it takes sources
    as textured as they are.
    """
    return np.clip(pull_push(feature, hole == 0), 0, 255).astype(np.uint8)


#: Side of the cells that group a hole's pixels for :func:`expected_texture`: parts of the hole
#: more than about a cell apart get their expected texture each from their own surroundings.
GROUP_CELL = 64


def expected_texture(rgb: np.ndarray, hole: np.ndarray, solve: np.ndarray, work: tuple[int, int, int, int],
                     margin: int) -> np.ndarray:
    """The texture the hole's pixels expect (:func:`texture_prior`), uint8 over the work area
    ``work`` ((x0, y0, x1, y1), whose map ``solve`` is 1 on the hole and 2 on protected pixels);
    0 on the other pixels (:func:`expected_texture_steps`, all its steps)."""
    steps = expected_texture_steps(rgb, hole, solve, work, margin)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def texture_groups(solve: np.ndarray, work: tuple[int, int, int, int], shape: tuple[int, int],
                   margin: int) -> tuple[np.ndarray | None, list[tuple[tuple[int, int, int, int], geometry.Rect]]]:
    """The parts of the hole whose expected texture is made apart (:func:`expected_texture_steps`).

    The hole's pixels (``solve`` == 1, over the work area ``work``) are grouped by
    :data:`GROUP_CELL`-pixel cells of the work area: cells that touch, corners included, form a
    group.  Returns the cells' table of group numbers (-1: no hole pixel; None when there is one
    group, which holds every hole pixel) and, for each group, the rectangle (x0, y0, x1, y1) of the
    photo (of ``shape`` (H, W)) its texture is made over (its pixels' box grown by ``margin``) and
    its pixels' box in the work area.
    """
    x0, y0, _, _ = work
    h, w = shape
    sel = solve == 1
    c = GROUP_CELL
    ch, cw = -(-sel.shape[0] // c), -(-sel.shape[1] // c)
    padded = np.zeros((ch * c, cw * c), bool)
    padded[:sel.shape[0], :sel.shape[1]] = sel
    occupied = padded.reshape(ch, c, cw, c).any(axis=(1, 3))
    table = np.full(occupied.shape, -1, np.int32)
    count = 0
    for a, b in zip(*np.nonzero(occupied)):
        if table[a, b] < 0:
            table[component(occupied, (int(a), int(b)), 8)] = count
            count += 1
    groups = []
    for g in range(count):
        mine = sel if count == 1 else sel & group_pixels(table, g, sel.shape)
        bx0, by0, bx1, by1 = box = geometry.bbox(mine)
        rect = (max(bx0 + x0 - margin, 0), max(by0 + y0 - margin, 0),
                min(bx1 + x0 + margin, w), min(by1 + y0 + margin, h))
        groups.append((rect, box))
    return (None if count == 1 else table), groups


def group_pixels(table: np.ndarray, g: int, shape: tuple[int, int]) -> np.ndarray:
    """The pixels of a work area of ``shape`` whose cell is in group ``g`` of :func:`texture_groups`' table."""
    c = GROUP_CELL
    return np.repeat(np.repeat(table == g, c, 0), c, 1)[:shape[0], :shape[1]]


def expected_texture_steps(rgb: np.ndarray, hole: np.ndarray, solve: np.ndarray, work: tuple[int, int, int, int],
                           margin: int) -> Generator[None, None, np.ndarray]:
    """:func:`expected_texture` a part at a time: a generator that pauses after each part's
    features and after its prior (each a fraction of a millisecond on a phone-size photo) and
    returns the texture.

    Each group of the hole's pixels (:func:`texture_groups`) has its prior computed over its own
    pixels' box grown by ``margin``: for one compact hole that is the work area itself, and two
    small holes in opposite corners of a photo cost their own surroundings, not the whole photo's.
    """
    x0, y0, x1, y1 = work
    out = np.zeros((y1 - y0, x1 - x0), np.uint8)
    sel = solve == 1
    table, groups = texture_groups(solve, work, hole.shape, margin)
    for g, ((rx0, ry0, rx1, ry1), (bx0, by0, bx1, by1)) in enumerate(groups):
        feature = texture_features_in(rgb, hole, (rx0, ry0, rx1, ry1))
        yield
        prior = texture_prior(feature, solve[ry0 - y0:ry1 - y0, rx0 - x0:rx1 - x0])
        part = prior[by0 + y0 - ry0:by1 + y0 - ry0, bx0 + x0 - rx0:bx1 + x0 - rx0]
        mine = sel if table is None else sel & group_pixels(table, g, sel.shape)
        box = out[by0:by1, bx0:bx1]
        box[...] = np.where(mine[by0:by1, bx0:bx1], part, box)
        yield
    return out

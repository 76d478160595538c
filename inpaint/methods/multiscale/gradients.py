"""numpy reference for the gradient-domain vote (``kernels/multiscale/gradient_vote.cl``), after
Darabi, Shechtman, Barnes, Goldman and Sen, *Image Melding* (2012).

The covering patches vote each pixel's x and y gradient (their sources' gradients, copied) as
well as its colour, and the fill ``f`` is solved from both: it minimises, over the hole,

    lambda * |f - c|^2 + |grad f - g|^2

with ``c`` the corrected colour vote (the vote plus the correction of
:func:`inpaint.methods.multiscale.reference.gauss_seidel`), ``g`` the voted gradients and the known
pixels around the hole as the boundary (protected pixels, hole == 2, and pixels outside the image
are left out, as in the correction).
Its normal equations are solved by red-black Gauss-Seidel sweeps in fixed point, starting from
the corrected vote; all arithmetic is integer, so the kernels agree bit for bit.

Gradients are stored ``GRAD_SCALE`` times the grey-level difference, rounded; the fill itself, like
the correction, in ``FIX`` units.  ``gx`` at a pixel is the gradient of the edge to its right
neighbour, ``gy`` of the edge to the one below.  Shapes follow
:mod:`inpaint.methods.multiscale.reference`: ``gx``, ``gy``, ``v``, ``x`` and ``x0`` are
(h, w, 4) int32 over the work area.
"""

from __future__ import annotations

import numpy as np

from ... import cancel
from .reference import EMPTY, FIX, _local, floor_div, sample, transformed

#: Gradients are voted in 1/GRAD_SCALE grey levels (a mean of many copies keeps its fraction).
GRAD_SCALE = 16
#: The screening weight lambda, in 1/SCREEN_DEN: how strongly the fill keeps the corrected colour vote
#: against the voted gradients.  1/64 (about 8 px of reach); 1/256 and 1/16 measured alike, within noise.
SCREEN, SCREEN_DEN = 4, 256
#: Gauss-Seidel sweeps of the screened solve per round (from the corrected vote): 20, 60, 150 and 400
#: measured tuning SWD 4.99, 4.87, 4.80 and 4.77.
GRADIENT_SWEEPS = 150
#: Whether the screened solve replaces the correction (its sweeps, from the last round's correction,
#: keep the fill near the vote itself) instead of following it (keeping it near the corrected vote).
#: Replacing it measured the same coarse SSIM and a higher SWD (5.16 against 4.99 at 20 sweeps).
GRADIENT_REPLACES = False
#: The finest level (0: the photo itself) whose rounds are solved from the voted gradients; the finer
#: ones keep the colour vote and its correction.  At the photo itself the best copies' detail
#: gradients, edge by edge, do not add up to one picture, and the solve smoothed them (median
#: detail 0.88 against 0.94).
GRADIENT_FROM = 1
#: The edges voted: (dy, dx) to the neighbour, for ``gx`` and ``gy``.
EDGES = ((0, 1), (1, 0))


def gradient_vote(est: np.ndarray, pixels: np.ndarray, tidx: np.ndarray, origin: tuple[int, int], nnf: np.ndarray,
                  cost: np.ndarray, half: int, k_use: int, softness: int, gx: np.ndarray, gy: np.ndarray,
                  split: tuple[np.ndarray, tuple[int, int]] | None = None, xf: np.ndarray | None = None) -> None:
    """Each listed pixel's voted gradients to its right and lower neighbour, into ``gx`` and ``gy``
    (``gradient_vote.cl: gradient_vote``).

    Every target window that holds both the pixel and that neighbour votes, with each of its first
    ``k_use`` candidates weighted as in :func:`inpaint.methods.multiscale.reference.vote`, the
    difference of the two source pixels it copies there (both in the source window, so known).
    The result is ``GRAD_SCALE`` times the weighted mean, rounded (0 where no window votes).

    With ``split`` (the low-pass map and its origin, as for the vote) the gradient is split like the
    colour: the weighted mean of the copies' low-pass differences, plus the detail difference (pixel
    minus low pass) of the best-matching candidate among those windows (the first in the order dy,
    dx, k at equal costs), times ``GRAD_SCALE``.  With ``xf`` ((N, K) int32, the entries'
    transforms) a window's copies of the pixel and of its neighbour are what
    :func:`inpaint.methods.multiscale.reference.sample` reads at their offsets; the low pass and the
    best copy's pixels are the ones nearest those samples
    (:func:`inpaint.methods.multiscale.reference.transformed`).
    """
    rgb = est.astype(np.int64)
    py, px = pixels[:, 0], pixels[:, 1]
    n = len(pixels)
    ly0 = lx0 = 0
    if split is not None:
        low, (ly0, lx0) = split
        low = low.astype(np.int64)
    for (ey, ex), out in zip(EDGES, (gx, gy)):
        acc = np.zeros((n, 3), np.int64)
        wsum = np.zeros(n, np.int64)
        dmin = np.full(n, int(EMPTY) + 1, np.int64)
        best = np.zeros((n, 2), np.int64)
        if split is not None:
            best[:] = (ly0, lx0)  # (a pixel no window votes for gets 0: any source in the map will do)
        # the best copy's pixel for the neighbour along the edge, and its two samples (transformed)
        best_b = best + (ey, ex)
        best_va, best_vb = np.zeros((n, 3), np.int64), np.zeros((n, 3), np.int64)
        for dy in range(-half, half + 1 - ey):
            for dx in range(-half, half + 1 - ex):
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
                        ty, tx = sy + ey, sx + ex
                        va, vb = rgb[sy, sx, :3], rgb[ty, tx, :3]
                    else:  # the samples of both pixels, and the pixels nearest them
                        code = np.where(use, xf[ts, k], 0)
                        cy, cx = np.where(use, nnf[ts, k, 0], 0), np.where(use, nnf[ts, k, 1], 0)
                        oy, ox = transformed(code, dy, dx)
                        qy, qx = transformed(code, dy + ey, dx + ex)
                        sy, sx = np.where(use, cy + oy, ly0), np.where(use, cx + ox, lx0)
                        ty, tx = np.where(use, cy + qy, ly0), np.where(use, cx + qx, lx0)
                        va = sample(rgb, cy, cx, code, dy, dx)[:, :3]
                        vb = sample(rgb, cy, cx, code, dy + ey, dx + ex)[:, :3]
                    if split is None:
                        d = vb - va
                    else:
                        sly, slx = np.where(use, sy - ly0, 0), np.where(use, sx - lx0, 0)
                        tly, tlx = np.where(use, ty - ly0, 0), np.where(use, tx - lx0, 0)
                        d = low[tly, tlx] - low[sly, slx]
                        take = use & (ck < dmin)
                        dmin = np.where(take, ck, dmin)
                        best = np.where(take[:, None], np.stack([sy, sx], 1), best)
                        best_b = np.where(take[:, None], np.stack([ty, tx], 1), best_b)
                        best_va = np.where(take[:, None], va, best_va)
                        best_vb = np.where(take[:, None], vb, best_vb)
                    acc += wk[:, None] * d
                    wsum += wk
        g = floor_div(acc * GRAD_SCALE + (wsum // 2)[:, None], np.maximum(wsum, 1)[:, None])
        if split is not None:
            by, bx = best[:, 0], best[:, 1]
            if xf is None:
                detail = ((rgb[by + ey, bx + ex, :3] - low[by + ey - ly0, bx + ex - lx0])
                          - (rgb[by, bx, :3] - low[by - ly0, bx - lx0]))
            else:
                detail = ((best_vb - low[best_b[:, 0] - ly0, best_b[:, 1] - lx0])
                          - (best_va - low[by - ly0, bx - lx0]))
            g = g + detail * GRAD_SCALE
        out[py - origin[0], px - origin[1], :3] = np.where((wsum > 0)[:, None], g, 0)


def screened_sweeps(hole: np.ndarray, est: np.ndarray, v: np.ndarray, x: np.ndarray, x0: np.ndarray,
                    gx: np.ndarray, gy: np.ndarray, lists: tuple[np.ndarray, np.ndarray], origin: tuple[int, int],
                    sweeps: int, screen: int = SCREEN) -> None:
    """Red-black Gauss-Seidel sweeps of the screened Poisson equation (``gradient_vote.cl:
    screened_gauss_seidel``), in place on the correction ``x``.

    The fill at a hole pixel p is ``v[p] * FIX + x[p]``; ``x0`` holds the correction the screening
    keeps it near.  One update sets, over p's 4-neighbours q that lie in the image and are not
    protected (``hole`` 2),

        f_p = round((screen * (v_p FIX + x0_p) + SCREEN_DEN * sum_q (f_q - g_pq FIX / GRAD_SCALE))
                    / (screen + SCREEN_DEN * count))

    where f_q is ``est[q] * FIX`` at a known q and g_pq the voted gradient from p to q (``gx`` or
    ``gy`` at p, negated at q for the left and upper neighbours); a pixel with no neighbour left
    and no screening keeps its value.  ``lists`` as for the correction.
    """
    H, W = est.shape[:2]
    rh, rw = hole.shape
    oy, ox = origin
    known = hole == 0
    kv = est[oy:oy + rh, ox:ox + rw, :3].astype(np.int64) * FIX
    vf = v[..., :3].astype(np.int64) * FIX
    gscale = FIX // GRAD_SCALE
    for _ in range(sweeps):
        cancel.check()
        for pix in lists:
            if not len(pix):
                continue
            py, px = pix[:, 0], pix[:, 1]
            ly, lx = py - oy, px - ox
            s = np.zeros((len(pix), 3), np.int64)
            n = np.zeros(len(pix), np.int64)
            for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                qy, qx = py + dy, px + dx
                inside = (qy >= 0) & (qy < H) & (qx >= 0) & (qx < W)
                qly, qlx = np.clip(qy - oy, 0, rh - 1), np.clip(qx - ox, 0, rw - 1)
                inside &= hole[qly, qlx] != 2
                fq = np.where(known[qly, qlx][:, None], kv[qly, qlx], vf[qly, qlx] + x[qly, qlx, :3])
                if dx == 1:
                    g = gx[ly, lx, :3]
                elif dx == -1:
                    g = -gx[qly, qlx, :3]
                elif dy == 1:
                    g = gy[ly, lx, :3]
                else:
                    g = -gy[qly, qlx, :3]
                s += np.where(inside[:, None], fq - g.astype(np.int64) * gscale, 0)
                n += inside
            den = screen + SCREEN_DEN * n
            some = den > 0
            num = screen * (vf[ly, lx] + x0[ly, lx, :3]) + SCREEN_DEN * s
            f = floor_div(num + (den // 2)[:, None], np.maximum(den, 1)[:, None])
            x[ly[some], lx[some], :3] = (f - vf[ly, lx])[some]

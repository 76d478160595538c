"""Straight lines that cross the hole, continued across it before the fill.

A horizon, a plank's edge or a kerb that meets the hole on two opposite sides should run on
straight through it; a patch fill, which sees a patch at a time, often bends or breaks it.
:func:`continue_lines` finds such lines and fills a band along each inside the hole, so the fill
that follows treats the band as known pixels and fills around it (structure propagation, after
Sun, Yuan, Jia and Shum, *Image Completion with Structure Propagation*, 2005, much simplified):

1. **Edges** in the known ring around the hole: the grey level is smoothed (a 5-tap binomial),
   differentiated (Sobel), thinned to its ridges along the gradient, and thresholded.  Pixels
   whose filter windows reach into the hole are left out: the removed object's own edges are not
   the scene's.
2. **Lines**: a Hough transform of the edge pixels, each voting only for lines along its own edge
   (its gradient's direction, within a few degrees).  A candidate line must cross the hole and
   have an unbroken run of edge pixels on each side of it, each run ending near the hole, long,
   straight, and collinear with the other (angle and offset tolerances); the colours beside the
   line must agree on the two sides, and its profile across it must stand out from how much the
   picture varies along it (a line, not one stroke of a texture of strokes).  Anything less and
   the line is left to the fill: no pair, no change.
3. **The band**: the hole's pixels within about half a patch of the line.  Each half of it (the
   half nearer one side, shorter on a side beyond which the picture soon ends) is copied by one
   translation along the line from that side's known pixels: an integer vector at most a pixel
   off the line's direction, long enough to reach past the band, chosen by how well the known
   strip beside the hole matches what lies that vector further on, the two halves' vectors within
   half a pixel of each other across the line.  A translation copies a straight piece straight.

Every copied pixel comes from a known pixel (not in the hole, not protected), and known pixels
are never written.  It is host-side numpy and runs before either backend, so both get the same
input and stay bit-exact with each other.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ... import geometry
from ..base import InpaintResult
from ..checks import check_protect

#: Known pixels this close to the hole (Chebyshev) give no edges: the smoothing and the Sobel
#: windows (2 + 1 pixels) of those nearer would reach into it.
RIM_GAP = 3
#: The ring read for edges reaches this many patch sides from the hole (and at least
#: :data:`MIN_RING` pixels).
RING_PATCHES, MIN_RING = 4, 24
#: Smallest edge kept, as a step of this many grey levels between two flat regions.
MIN_STEP = 16
#: An edge votes for lines within this many degrees of its own direction; a line's pixels lie
#: within :data:`NEAR_LINE` pixels of it and within :data:`NEAR_ANGLE` degrees of its direction.
VOTE_SPREAD, NEAR_LINE, NEAR_ANGLE = 5, 1.5, 10.0
#: Each side's run of edge pixels: at least this many pixels long (and two patch sides), its gaps at
#: most :data:`MAX_GAP`, its end nearest the hole at most :data:`MAX_REACH` pixels from it along the line.
MIN_RUN, MAX_GAP, MAX_REACH = 12, 6.0, 10.0
#: The two runs: straight (RMS distance from their own fitted line, and from the line fitted
#: through both, pixels), parallel (degrees: a short run's own direction wavers with the texture
#: beside it, so this is loose) and on one line (twice the largest mean distance of a run from
#: the line fitted through both, pixels).
MAX_RESIDUAL, MAX_TURN, MAX_OFFSET = 0.8, 8.0, 1.5
#: Largest difference of mean colour (per channel, 0-255) beside the line between the two sides.
MAX_COLOUR = 24
#: Candidate lines examined, and lines continued at most.
MAX_CANDIDATES, MAX_LINES = 16, 8
#: A translation is at most this far (pixels) off the line's direction.
MAX_DRIFT = 1.0
#: Where a band's two halves meet, their copies of the line lie at most this far apart (pixels).
SEAM = 0.5
#: A line's profile across it spans at least this many times the grey level's variation along it
#: (a plank's edge about 11, a thin line on a wall 36; a bristle among bristles 4).
MIN_CLARITY = 5.0


@dataclasses.dataclass(frozen=True)
class Continued:
    """The lines continued across a hole.

    Attributes
    ----------
    pixels : ndarray, (N, 2) int32
        The band's pixels, ``(row, col)``, all in the hole.
    sources : ndarray, (N, 2) int32
        The known pixel each was copied from, ``(row, col)``.
    lines : int
        Lines continued.
    """

    pixels: np.ndarray
    sources: np.ndarray
    lines: int

    def band(self, shape: tuple[int, int]) -> np.ndarray:
        """The band as a bool mask of ``shape``."""
        out = np.zeros(shape, bool)
        out[self.pixels[:, 0], self.pixels[:, 1]] = True
        return out

    def apply(self, rgb: np.ndarray) -> np.ndarray:
        """A copy of ``rgb`` with the band's pixels copied from their sources."""
        out = rgb.copy()
        out[self.pixels[:, 0], self.pixels[:, 1]] = rgb[self.sources[:, 0], self.sources[:, 1]]
        return out


_NONE = Continued(np.zeros((0, 2), np.int32), np.zeros((0, 2), np.int32), 0)


def before_fill(rgb: np.ndarray, mask: np.ndarray, patch: int, context: Any) -> tuple[Any, Continued | None]:
    """The fill's input with the straight lines across the hole continued: ``((rgb, mask, context),
    found)``, the image with the bands copied, the hole less the bands, and the run context with
    the bands protected (no source covers them: every source the fill names stays an original
    pixel); the arguments as they are and None when no line qualifies, or when the bands would
    leave nothing to fill.  ``context``: a :class:`~inpaint.methods.context.RunContext`."""
    protect = check_protect(context.protect, mask.shape)
    found = continue_lines(rgb, mask, patch, protect)
    band = found.band(mask.shape) if found.lines else None
    if band is None or not (mask & ~band).any():
        return (rgb, mask, context), None
    guarded = dataclasses.replace(context, protect=band if protect is None else protect | band)
    return (found.apply(rgb), mask & ~band, guarded), found


def naming_band_sources(res: InpaintResult, found: Continued, hole: np.ndarray, done: bool) -> InpaintResult:
    """``res`` of the fill after :func:`before_fill`, its source map naming the bands' sources
    too, and its mask the whole ``hole``."""
    inner = res._source_map

    def source_map() -> np.ndarray:
        src = inner() if callable(inner) else inner
        src[found.pixels[:, 0], found.pixels[:, 1]] = found.sources
        return src

    return InpaintResult(res.image, source_map, res.stats, mask=hole.copy() if done else None)


def _smooth(a: np.ndarray) -> np.ndarray:
    k = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
    p = np.pad(a, 2, mode="edge")
    rows = sum(k[i] * p[:, i:i + a.shape[1]] for i in range(5))
    return sum(k[i] * rows[i:i + a.shape[0], :] for i in range(5))


def _sobel(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.pad(a, 1, mode="edge")
    h, w = a.shape
    dx = p[:, 2:] - p[:, :-2]
    dy = p[2:, :] - p[:-2, :]
    return dx[:h] + 2 * dx[1:h + 1] + dx[2:], dy[:, :w] + 2 * dy[:, 1:w + 1] + dy[:, 2:]


def _edges(smooth: np.ndarray, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edge pixels among ``usable`` ones of the smoothed grey level: ``(rows, cols, normal angle
    in [0, pi))``, thinned along the gradient (a pixel is kept where its gradient is the largest of
    its two neighbours across the edge, the first of a tie)."""
    gx, gy = _sobel(smooth)
    mag = np.hypot(gx, gy)
    # A step of MIN_STEP grey levels between flat regions peaks at 4 * MIN_STEP * 10 / 16 after the
    # binomial smoothing and the Sobel kernel (whose cross weights sum to 4).
    strong = usable & (mag >= 2.5 * MIN_STEP)
    ang = np.arctan2(gy, gx)
    sector = (np.round(ang / (np.pi / 4)).astype(int)) % 4  # 0: x, 1: diagonal, 2: y, 3: anti-diagonal
    step = {0: (0, 1), 1: (1, 1), 2: (1, 0), 3: (1, -1)}
    p = np.pad(mag, 1)
    h, w = mag.shape
    keep = np.zeros_like(strong)
    for s, (dy, dx) in step.items():
        ahead = p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        behind = p[1 - dy:1 - dy + h, 1 - dx:1 - dx + w]
        keep |= (sector == s) & (mag > ahead) & (mag >= behind)
    ys, xs = np.nonzero(strong & keep)
    return ys, xs, np.mod(ang[ys, xs], np.pi)


def _fit(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The total-least-squares line through the points: (centre, unit direction, RMS distance)."""
    c = np.array([xs.mean(), ys.mean()])
    d = np.stack([xs - c[0], ys - c[1]], 1)
    vals, vecs = np.linalg.eigh(d.T @ d)
    u = vecs[:, 1]
    return c, u, float(np.sqrt(max(vals[0], 0.0) / len(xs)))


def _run(t: np.ndarray, rim: float, sign: int, need: float) -> np.ndarray | None:
    """The indices of the unbroken run of positions ``t`` beside ``rim`` on one side (``sign``:
    -1 before it, +1 after it), starting at most :data:`MAX_REACH` from it; None when there is
    none at least ``need`` long."""
    side = np.flatnonzero(sign * (t - rim) > 0)
    if side.size == 0:
        return None
    order = side[np.argsort(sign * t[side])]  # nearest the hole first
    dist = sign * (t[order] - rim)
    if dist[0] > MAX_REACH:
        return None
    gaps = np.flatnonzero(np.diff(dist) > MAX_GAP)
    end = gaps[0] + 1 if gaps.size else len(order)
    run = order[:end]
    return run if dist[end - 1] - dist[0] >= need else None


def continue_lines(rgb: np.ndarray, mask: np.ndarray, patch: int, protect: np.ndarray | None = None) -> Continued:
    """Find the straight lines that cross the hole and fill a band along each (see the module docstring).

    Parameters
    ----------
    rgb : ndarray, (H, W, 3) uint8
    mask : ndarray, (H, W) bool
        The hole.
    patch : int
        The fill's patch side: the band is about this wide.
    protect : ndarray, (H, W) bool, optional
        Pixels no copy may come from.

    Returns
    -------
    Continued
        The band's pixels and their sources (none when no line qualifies).

    Examples
    --------
    >>> img = np.zeros((60, 80, 3), np.uint8); img[30:] = 200
    >>> hole = np.zeros((60, 80), bool); hole[20:40, 30:50] = True
    >>> found = continue_lines(img, hole, 7)
    >>> found.lines, bool(hole[found.pixels[:, 0], found.pixels[:, 1]].all())
    (1, True)
    """
    h, w = mask.shape
    box = geometry.bbox(mask)
    if box is None or mask.all():
        return _NONE
    ring = max(MIN_RING, RING_PATCHES * patch)
    x0, y0, x1, y1 = geometry.grow(box, ring + RIM_GAP, w, h)
    sub = mask[y0:y1, x0:x1]
    known = ~mask if protect is None else ~(mask | protect)
    usable = (~geometry.dilate(~known[y0:y1, x0:x1], RIM_GAP) & geometry.dilate(sub, ring)
              & ~geometry.dilate(np.zeros_like(sub), RIM_GAP, outside=True))
    need = max(MIN_RUN, 2 * patch)
    # The smoothed grey level over a box wider still: every shift is matched on it, up to the
    # longest a band's half may need (half the hole's diagonal, and the search beyond) from the
    # context beside the hole.
    reach = ring + RIM_GAP + 5 * need + int(np.hypot(box[2] - box[0], box[3] - box[1])) // 2 + 2
    outer = geometry.grow(box, reach, w, h)
    grey = rgb[outer[1]:outer[3], outer[0]:outer[2]].astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    smooth = _smooth(grey)
    inner = (slice(y0 - outer[1], y1 - outer[1]), slice(x0 - outer[0], x1 - outer[0]))
    ys, xs, normal = _edges(smooth[inner], usable)
    if ys.size < 2 * need:
        return _NONE
    xs_f, ys_f = xs + float(x0), ys + float(y0)  # image coordinates from here on

    # Hough transform: each edge pixel votes for the lines along its own edge (rho from the box's corner).
    nt = 180
    diag = int(np.ceil(np.hypot(*sub.shape))) + 1
    acc = np.zeros((nt, 2 * diag + 1), np.int32)
    centre_bin = np.round(np.degrees(normal)).astype(int)
    for spread in range(-VOTE_SPREAD, VOTE_SPREAD + 1):
        tb = (centre_bin + spread) % nt
        th = np.radians(tb)
        rho = np.round(xs * np.cos(th) + ys * np.sin(th)).astype(int) + diag
        np.add.at(acc, (tb, rho), 1)
    # a slanted edge's pixels scatter by a pixel and a few degrees: peaks are read over 3 x 3 bins
    acc = sum(np.roll(acc, (a, b), (0, 1)) for a in (-1, 0, 1) for b in (-1, 0, 1))

    # where the smoothed grey level reads known pixels alone
    clean = ~geometry.dilate(~known[outer[1]:outer[3], outer[0]:outer[2]], 2, outside=True)
    work = _Work(rgb, mask, known, (x0, y0, x1, y1), need, patch // 2 + 1, outer, smooth, clean)
    taken = np.zeros(mask.shape, bool)
    pixels, sources, tried = [], [], []
    for _ in range(MAX_CANDIDATES):
        tb, rb = np.unravel_index(int(np.argmax(acc)), acc.shape)
        if acc[tb, rb] < need:
            break
        for dt in range(-5, 6):
            acc[(tb + dt) % nt, max(rb - 5, 0):rb + 6] = 0
        # the peak's line, refined: fitted to the edge pixels along it, then to those near the fit
        th = np.radians(tb)
        n = np.array([np.cos(th), np.sin(th)])
        rho, near = rb - diag + x0 * n[0] + y0 * n[1], 2 * NEAR_LINE
        for _ in range(3):
            turn = np.abs(np.mod(normal - np.arctan2(n[1], n[0]) + np.pi / 2, np.pi) - np.pi / 2)
            on = np.flatnonzero((np.abs(xs_f * n[0] + ys_f * n[1] - rho) <= near) & (turn <= np.radians(NEAR_ANGLE)))
            if on.size < need:
                break
            c, d, _ = _fit(xs_f[on], ys_f[on])
            n = np.array([-d[1], d[0]])
            rho, near = float(c @ n), NEAR_LINE
        if on.size < need or any(abs(float(n @ m)) > np.cos(np.radians(2)) and abs(rho - float(n @ m) * r) < 3
                                 for m, r in tried):
            continue  # (a peak beside one tried refines to the same line)
        tried.append((n, rho))
        got = work.line(xs_f[on], ys_f[on], n, rho, taken)
        if got is None:
            continue
        taken[got[0][:, 0], got[0][:, 1]] = True
        pixels.append(got[0])
        sources.append(got[1])
        if len(pixels) == MAX_LINES:
            break
    if not pixels:
        return _NONE
    return Continued(np.concatenate(pixels).astype(np.int32), np.concatenate(sources).astype(np.int32), len(pixels))


@dataclasses.dataclass
class _Work:
    """What every candidate line is checked against: the image, the hole, the known pixels (not in
    the hole, not protected), the work box ``(x0, y0, x1, y1)`` around the hole, the shortest run
    ``need``, the band's half width ``hw``, and over a wider box ``outer`` the smoothed grey level and
    where it reads known pixels alone."""

    rgb: np.ndarray
    mask: np.ndarray
    known: np.ndarray
    box: tuple[int, int, int, int]
    need: int
    hw: int
    outer: tuple[int, int, int, int]
    smooth: np.ndarray
    clean: np.ndarray

    def line(self, xs: np.ndarray, ys: np.ndarray, n: np.ndarray, rho: float,
             taken: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The line ``x n0 + y n1 = rho`` with its edge pixels ``(xs, ys)``: the band's pixels and
        their sources, ``(row, col)``, or None when it does not qualify."""
        x0, y0, x1, y1 = self.box
        need, hw = self.need, self.hw
        u = np.array([-n[1], n[0]])
        # Where the line crosses the hole (in the box), as positions along it.
        span = np.hypot(x1 - x0, y1 - y0) + abs(rho)
        t = np.arange(-span, span, 0.5)
        px, py = np.round(rho * n[0] + t * u[0]).astype(int), np.round(rho * n[1] + t * u[1]).astype(int)
        inside = (px >= x0) & (px < x1) & (py >= y0) & (py < y1)
        hit = t[inside][self.mask[py[inside], px[inside]]]
        if hit.size == 0:
            return None
        tp = xs * u[0] + ys * u[1]
        runs = [_run(tp, float(hit.min()), -1, need), _run(tp, float(hit.max()), 1, need)]
        if runs[0] is None or runs[1] is None:
            return None
        fits = [_fit(xs[r], ys[r]) for r in runs]
        if max(f[2] for f in fits) > MAX_RESIDUAL:
            return None
        (ca, ua, _), (cb, ub, _) = fits
        if np.degrees(np.arccos(min(abs(float(ua @ ub)), 1.0))) > MAX_TURN:
            return None
        both = np.concatenate(runs)
        c, d, residual = _fit(xs[both], ys[both])
        if residual > MAX_RESIDUAL:
            return None
        if (cb - ca) @ d < 0:
            d = -d  # from side A to side B
        nrm = np.array([-d[1], d[0]])
        # on one line: each run lies, on average, within half the offset allowed of the line through both
        for r in runs:
            if abs(float(((xs[r] - c[0]) * nrm[0] + (ys[r] - c[1]) * nrm[1]).mean())) > MAX_OFFSET / 2:
                return None

        # The box's pixels: position along the line and distance from it.
        gy, gx = np.mgrid[y0:y1, x0:x1]
        along = (gx - c[0]) * d[0] + (gy - c[1]) * d[1]
        off = (gx - c[0]) * nrm[0] + (gy - c[1]) * nrm[1]
        ta = float(((xs[runs[0]] - c[0]) * d[0] + (ys[runs[0]] - c[1]) * d[1]).max())
        tb = float(((xs[runs[1]] - c[0]) * d[0] + (ys[runs[1]] - c[1]) * d[1]).min())
        sub = self.mask[y0:y1, x0:x1]
        strip = np.abs(off) <= hw
        band = strip & sub & (along > ta) & (along < tb)
        if not band.any() or (band & taken[y0:y1, x0:x1]).any():
            return None
        if not self._colours_agree(along, off, ta, tb):
            return None

        by, bx = np.nonzero(band)
        bt = along[by, bx]
        by, bx = by + y0, bx + x0
        lo, hi = float(bt.min()), float(bt.max())
        # the band's strip beside the hole at each end: the line's profile, where a shift across it
        # shows most, and the tones on either side of it
        ends = [np.nonzero(strip & (along < lo) & (along >= lo - 2 * need)),
                np.nonzero(strip & (along > hi) & (along <= hi + 2 * need))]
        ends = [(cy + y0, cx + x0) for cy, cx in ends]
        # Each half from its own side (the half nearer it), matched beside that end (one translation
        # for the whole band copies from a chord away, where the tones have drifted more: seams).
        if not self._stands_out(along, off, ends):
            return None
        # The halves meet midway, unless the picture ends too soon beyond one end for its half to
        # be copied from there: then that side's half is shorter.
        h, w = self.mask.shape
        room = [_room(c + lo * d, -d, w, h), _room(c + hi * d, d, w, h)]
        split = min(max((lo + hi) / 2, hi - room[1] + 1), lo + room[0] - 1)
        halves = [bt <= split, bt > split]
        options = []
        for side, sign, rim in ((0, -1, lo), (1, 1, hi)):
            sel = halves[side]
            # every pixel of the half must move past the band's end on its side
            reach = float((sign * (rim - bt[sel])).max()) + 1 if sel.any() else 1.0
            options.append(self._shifts(by[sel], bx[sel], *ends[side], sign * d, nrm, reach))
        shifts = _pair(*options, nrm)
        src_y, src_x = np.full(by.shape, -1), np.full(by.shape, -1)
        for side in (0, 1):
            for shift in (shifts[side], shifts[1 - side]):
                if shift is None:
                    continue
                todo = halves[side] & (src_y < 0)
                sy, sx = by[todo] + shift[0], bx[todo] + shift[1]
                ok = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
                ok[ok] = self.known[sy[ok], sx[ok]]
                idx = np.flatnonzero(todo)[ok]
                src_y[idx], src_x[idx] = sy[ok], sx[ok]
        done = src_y >= 0
        if not done.any():
            return None
        return np.stack([by[done], bx[done]], 1), np.stack([src_y[done], src_x[done]], 1)

    def _stands_out(self, along: np.ndarray, off: np.ndarray, ends: list) -> bool:
        """Whether the line is a line and not a stroke of a texture: its profile across it beside
        the hole (the smoothed grey level's mean at each whole-pixel distance from it) spans at
        least :data:`MIN_CLARITY` times how much the grey level varies along it at one distance."""
        x0, y0 = self.box[:2]
        ox, oy = self.outer[:2]
        cy, cx = np.concatenate([e[0] for e in ends]), np.concatenate([e[1] for e in ends])
        ok = self.clean[cy - oy, cx - ox]
        cy, cx = cy[ok], cx[ok]
        if cy.size == 0:
            return False
        grey = self.smooth[cy - oy, cx - ox]
        bins = np.round(off[cy - y0, cx - x0]).astype(int)
        bins -= bins.min()
        count = np.bincount(bins)
        used = count > 0
        mean = np.bincount(bins, grey)[used] / count[used]
        var = np.bincount(bins, grey * grey)[used] / count[used] - mean ** 2
        spread = float(np.sqrt(np.maximum(var, 0).mean()))
        return float(mean.max() - mean.min()) >= MIN_CLARITY * spread

    def _colours_agree(self, along: np.ndarray, off: np.ndarray, ta: float, tb: float) -> bool:
        """Whether the mean colours on either side of the line, next to the hole, agree between the
        hole's two sides within :data:`MAX_COLOUR` (on the line itself they hang on where the fit
        put it, to a fraction of a pixel)."""
        x0, y0, x1, y1 = self.box
        crop = self.rgb[y0:y1, x0:x1].astype(np.float64)
        known = self.known[y0:y1, x0:x1]
        hw, need = self.hw, self.need
        stripes = [(off > 1.5) & (off <= hw + 2), (off < -1.5) & (off >= -hw - 2)]
        sides = [(along <= ta) & (along > ta - need), (along >= tb) & (along < tb + need)]
        for stripe in stripes:
            means = []
            for side in sides:
                sel = stripe & side & known
                if not sel.any():
                    return False
                means.append(crop[sel].mean(axis=0))
            if np.abs(means[0] - means[1]).max() > MAX_COLOUR:
                return False
        return True

    def _shifts(self, by: np.ndarray, bx: np.ndarray, cy: np.ndarray, cx: np.ndarray, toward: np.ndarray,
                nrm: np.ndarray, reach: float) -> list[tuple[float, int, int, int]]:
        """The translations that may copy the band's pixels ``(by, bx)`` from the known pixels in
        direction ``toward``: at most :data:`MAX_DRIFT` off it, at least ``reach`` long, reaching
        known pixels for at least 90 % as many of them as any (the rest are copied from the other
        side, or left to the fill).  Each as ``(mismatch, length squared, dy, dx)``, the mismatch the
        smoothed grey level's at ``(cy, cx)`` beside the hole against that translation further on."""
        h, w = self.mask.shape
        sh, sw = self.clean.shape
        py, px = cy - self.outer[1], cx - self.outer[0]  # the context in the outer box
        there = self.clean[py, px]
        cands = set()
        first = int(np.ceil(reach))
        for length in range(first, first + 3 * self.need + 1):
            vx, vy = length * toward[0], length * toward[1]
            for ex in (-1, 0, 1):
                for ey in (-1, 0, 1):
                    dx, dy = int(np.round(vx)) + ex, int(np.round(vy)) + ey
                    if abs(dx * nrm[0] + dy * nrm[1]) <= MAX_DRIFT and dx * toward[0] + dy * toward[1] >= reach:
                        cands.add((dy, dx))
        scored = []
        for dy, dx in sorted(cands):
            sy, sx = by + dy, bx + dx
            ok = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
            ok[ok] = self.known[sy[ok], sx[ok]]
            reached = int(ok.sum())
            if not reached:
                continue
            qy, qx = py + dy, px + dx
            q = there & (qy >= 0) & (qy < sh) & (qx >= 0) & (qx < sw)
            q[q] = self.clean[qy[q], qx[q]]
            if q.any():
                diff = self.smooth[py[q], px[q]] - self.smooth[qy[q], qx[q]]
                ssd = float((diff * diff).sum()) / int(q.sum())
            else:
                ssd = float("inf")
            scored.append((reached, (ssd, dx * dx + dy * dy, dy, dx)))
        most = max((r for r, _ in scored), default=0)
        return [key for r, key in scored if r * 10 >= most * 9]


def _room(p: np.ndarray, u: np.ndarray, w: int, h: int) -> float:
    """How far (pixels) the picture goes on from ``p`` (x, y) in direction ``u``."""
    out = []
    for v, dv, size in ((p[0], u[0], w), (p[1], u[1], h)):
        if dv > 1e-9:
            out.append((size - 1 - v) / dv)
        elif dv < -1e-9:
            out.append(-v / dv)
    return max(min(out), 0.0)


def _pair(before: list, after: list, nrm: np.ndarray) -> list:
    """The translations of the band's two halves, ``[(dy, dx) or None] * 2``, from their
    candidates (:meth:`_Work._shifts`): the pair that matches best beside both ends, of those whose
    copies of the line lie within :data:`SEAM` pixels of each other where the halves meet (each
    its best alone where no pair does, or the other side has none)."""
    def drift(key: tuple) -> float:
        return key[3] * nrm[0] + key[2] * nrm[1]

    pairs = [(a[0] + b[0], a[1] + b[1], a, b) for a in before for b in after if abs(drift(a) - drift(b)) <= SEAM]
    if pairs:
        _, _, a, b = min(pairs, key=lambda p: p[:2])
        return [(a[2], a[3]), (b[2], b[3])]
    return [(min(c)[2], min(c)[3]) if c else None for c in (before, after)]

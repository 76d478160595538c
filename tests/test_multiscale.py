"""The multiscale fill: naive oracles for the numpy reference, kernels == reference bit for bit,
and end-to-end properties (OpenCL == numpy, known pixels kept, sources from the original
known region).  Kernel outputs are pre-filled with a sentinel so an unwritten cell fails."""

import numpy as np
import pyopencl as cl
import pytest
from helpers import first_by_default
from hypothesis import given, settings, strategies as hs

from inpaint import geometry
from inpaint.api import inpaint, start
from inpaint.errors import InputError
from inpaint.methods.multiscale import gradients as grad, host, job as ms, levels, opencl as mcl, reference as ref
from inpaint.methods.multiscale.host import HostLevel
from inpaint.pixels import to_rgba

SENTINEL = -12345


def window_count(mask, radius, outside):
    """Oracle: True pixels in each (2 radius + 1)^2 window, pixels outside counting as ``outside``."""
    h, w = mask.shape
    pad = np.pad(mask.astype(np.int32), radius, constant_values=int(outside))
    k = 2 * radius + 1
    return np.array([[pad[y:y + k, x:x + k].sum() for x in range(w)] for y in range(h)])


@given(h=hs.integers(1, 20), w=hs.integers(1, 20), r=hs.integers(0, 12), seed=hs.integers(0, 999),
       outside=hs.booleans())
def test_dilate_matches_window_counts(h, w, r, seed, outside):
    m = np.random.default_rng(seed).random((h, w)) < 0.15
    np.testing.assert_array_equal(geometry.dilate(m, r, outside), window_count(m, r, outside) > 0)


def blob_mask(h, w, rng, frac=0.3):
    yy, xx = np.mgrid[0:h, 0:w]
    cy, cx = rng.uniform(0.3, 0.7) * h, rng.uniform(0.3, 0.7) * w
    ry, rx = frac * h * rng.uniform(0.6, 1.0), frac * w * rng.uniform(0.6, 1.0)
    return ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1


def level_state(rng, h=28, w=34, half=2, k=3, iterations=1, frac=0.3, mean=0, near=0):
    """A mid-run level: random image, a blob hole with a random estimate, filled match lists
    (distances with the mean-colour weight ``mean`` and the distance weight ``near``)."""
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    mask = blob_mask(h, w, rng, frac)
    lev = levels.prepare_level(mask, half, None)
    est = np.zeros((h, w, 4), np.uint8)
    est[..., :3] = img
    est[..., 3] = rng.integers(0, 40, (h, w))  # texture features
    est[mask] = rng.integers(0, 256, (int(mask.sum()), 4))
    n = len(lev.targets)
    nnf = np.full((n, k, 2), -1, np.int32)
    cost = np.full((n, k), ref.EMPTY, np.uint32)
    nnf[:, 0] = levels.random_sources(lev, 7)
    cost[:, 0] = 0
    ref.rescore(est, lev.targets, nnf, cost, half, mean, near)
    best = nnf[:, 0].copy()
    for it in range(iterations):
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best.copy(), best, half,
                       lev.radius, it, mean_weight=mean, near_weight=near)
    return lev, est, nnf, cost, best


# -- naive oracles for the reference ------------------------------------------------------------
CHANNEL_WEIGHTS = (1, 1, 1, ref.FEATURE_WEIGHT)  # RGB, then the texture feature


def naive_ssd(est, t, s, half, mean=0, near=0):
    """The weighted SSD over the target window's in-image pixels, plus ``mean / 4`` times their
    count times the squared difference of the two windows' mean colours (rounded down), plus
    ``near`` per pixel between the centres (|dy| + |dx|)."""
    h, w = est.shape[:2]
    acc, count, sums = 0, 0, [0, 0, 0]
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            y, x = t[0] + dy, t[1] + dx
            if 0 <= y < h and 0 <= x < w:
                count += 1
                for c in range(4):
                    d = int(est[y, x, c]) - int(est[s[0] + dy, s[1] + dx, c])
                    acc += CHANNEL_WEIGHTS[c] * d * d
                    if c < 3:
                        sums[c] += d
    # count * (sum / count)^2 * mean / 4, in exact integers
    return acc + (mean * sum(v * v for v in sums)) // (4 * count) + near * (abs(t[0] - s[0]) + abs(t[1] - s[1]))


def naive_insert(nb, nc, c, d, k):
    if d >= nc[k - 1] or any(nc[j] != ref.EMPTY and tuple(nb[j]) == tuple(c) for j in range(k)):
        return
    j = k - 1
    while j > 0 and nc[j - 1] > d:
        nc[j], nb[j] = nc[j - 1], list(nb[j - 1])
        j -= 1
    nc[j], nb[j] = d, list(c)


def target_at(lev, y, x):
    """Target index of pixel (y, x), -1 if none (a scan of the target list)."""
    hits = np.flatnonzero((lev.targets[:, 0] == y) & (lev.targets[:, 1] == x))
    return int(hits[0]) if len(hits) else -1


def naive_patchmatch(est, lev, nnf, cost, best_in, half, key, jump_max=8, mean=0, near=0):
    """One target at a time, straight from the description in patchmatch.cl: jumps 1, 2, 4, ... up to
    ``jump_max``, distances with the mean-colour weight ``mean`` and the distance weight ``near``."""
    h, w = lev.shape
    k = cost.shape[1]
    nnf, cost = nnf.copy(), cost.copy()
    best_out = np.zeros_like(best_in)
    for i, (ty, tx) in enumerate(lev.targets):
        nb = [list(map(int, e)) for e in nnf[i]]
        nc = [int(c) for c in cost[i]]

        def consider(cy, cx, nb=nb, nc=nc, ty=ty, tx=tx):  # this iteration's target
            if 0 <= cy < h and 0 <= cx < w and lev.valid[cy, cx]:
                naive_insert(nb, nc, (cy, cx), naive_ssd(est, (ty, tx), (cy, cx), half, mean, near), k)

        j = 1
        while j <= jump_max:
            for dy, dx in ((0, -j), (0, j), (-j, 0), (j, 0)):
                n = target_at(lev, ty + dy, tx + dx)
                if n >= 0:
                    b = best_in[n]
                    consider(int(b[0]) - dy, int(b[1]) - dx)
            j *= 2
        r, step = lev.radius, 0
        while r >= 1:
            hy = int(ref.hash32(np.uint32((i * 747796405 + key * 7919 + step) % 2 ** 32)))
            hx = int(ref.hash32(np.uint32(hy)))
            consider(nb[0][0] + hy % (2 * r + 1) - r, nb[0][1] + hx % (2 * r + 1) - r)
            r //= 2
            step += 1
        nnf[i], cost[i] = nb, nc
        best_out[i] = nb[0]
    return nnf, cost, best_out


def naive_low_pass(est, mask, y, x, r=ref.LOW_RADIUS):
    """The rounded mean colour of the pixels of the (2 r + 1)^2 box around (y, x) that are in the
    image and off ``mask`` (whole-image)."""
    h, w = mask.shape
    got = [(yy, xx) for yy in range(y - r, y + r + 1) for xx in range(x - r, x + r + 1)
           if 0 <= yy < h and 0 <= xx < w and not mask[yy, xx]]
    return [(sum(int(est[q][c]) for q in got) + len(got) // 2) // len(got) for c in range(3)]


def naive_vote(est, pixels, lev, nnf, cost, half, k_use, softness, split=False):
    """The vote's colours by pixel and, split, each pixel's best-matching copy (its source pixel)."""
    out, src = {}, {}
    for y, x in pixels:
        acc, low, ws, best, bcost = [0, 0, 0, 0], [0, 0, 0], 0, None, None
        for dy in range(-half, half + 1):
            for dx in range(-half, half + 1):
                t = target_at(lev, y - dy, x - dx)
                if t < 0:
                    continue
                for j in range(k_use):
                    if cost[t, j] == ref.EMPTY:
                        continue
                    wk = (256 * softness) // (softness + int(cost[t, j]) - int(cost[t, 0]))
                    sy, sx = nnf[t, j] + (dy, dx)
                    for c in range(4):
                        acc[c] += wk * int(est[sy, sx, c])
                    ws += wk
                    if split:
                        lp = naive_low_pass(est, lev.mask, sy, sx)
                        low = [a + wk * b for a, b in zip(low, lp)]
                        if bcost is None or cost[t, j] < bcost:
                            best, bcost = (sy, sx), cost[t, j]
        out[(y, x)] = [(a + ws // 2) // ws for a in acc]
        if split:
            src[(y, x)] = best
            lp = naive_low_pass(est, lev.mask, *best)
            out[(y, x)][:3] = [min(max((a + ws // 2) // ws + int(est[best][c]) - lp[c], 0), 255)
                               for c, a in enumerate(low)]
    return out, src


def naive_gauss_seidel(hole, est, v, x, sweeps):
    """On whole-image arrays."""
    h, w = hole.shape
    x = x.copy()
    for _ in range(sweeps):
        for colour in (0, 1):
            for y in range(h):
                for xx in range(w):
                    if not hole[y, xx] or (y + xx) % 2 != colour:
                        continue
                    s, n = [0, 0, 0], 0
                    for qy, qx in ((y - 1, xx), (y + 1, xx), (y, xx - 1), (y, xx + 1)):
                        if 0 <= qy < h and 0 <= qx < w:
                            n += 1
                            for c in range(3):
                                s[c] += (int(x[qy, qx, c]) if hole[qy, qx]
                                         else (int(est[qy, qx, c]) - int(v[qy, qx, c])) * ref.FIX)
                    for c in range(3):
                        x[y, xx, c] = (s[c] + n // 2) // n  # Python // is floor, as the kernel's floor_div
    return x


def naive_masked_ssd(est, filled, origin, p, c, half):
    h, w = est.shape[:2]
    acc = 0
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            y, x = p[0] + dy, p[1] + dx
            if 0 <= y < h and 0 <= x < w and filled[y - origin[0], x - origin[1]]:
                for ch in range(4):
                    d = int(est[y, x, ch]) - int(est[c[0] + dy, c[1] + dx, ch])
                    acc += CHANNEL_WEIGHTS[ch] * d * d
    return acc


def naive_onion_search(est, filled, osrc, lev, pixels, cands, half, key):
    """One pixel at a time, straight from the description in onion.cl."""
    h, w = lev.shape
    oy, ox = lev.origin
    fh, fw = filled.shape
    out = []
    for i, p in enumerate(pixels):
        best, bestd = (-1, -1), 2 ** 32 - 1

        def consider(c, p=p):  # this iteration's pixel
            nonlocal best, bestd
            if 0 <= c[0] < h and 0 <= c[1] < w and lev.valid[c[0], c[1]]:
                d = naive_masked_ssd(est, filled, lev.origin, p, c, half)
                if d < bestd:
                    best, bestd = (int(c[0]), int(c[1])), d

        for c in cands[i]:
            consider(c)
        for dy, dx in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)):
            ly, lx = p[0] + dy - oy, p[1] + dx - ox
            if 0 <= ly < fh and 0 <= lx < fw and osrc[ly, lx, 0] >= 0:
                consider((osrc[ly, lx, 0] - dy, osrc[ly, lx, 1] - dx))
        r, step = lev.radius, 0
        while r >= 1 and best[0] >= 0:
            hy = int(ref.hash32(np.uint32((i * 747796405 + key * 7919 + step) % 2 ** 32)))
            hx = int(ref.hash32(np.uint32(hy)))
            consider((best[0] + hy % (2 * r + 1) - r, best[1] + hx % (2 * r + 1) - r))
            r //= 2
            step += 1
        out.append(best)
    return np.array(out, np.int32)


def onion_state(rng, h=26, w=31, half=2, layer=None, step=16):
    """The coarsest level of a fill part-way through its onion peel: layers before ``layer`` (all
    when None) are filled, with their sources recorded.  Colours are multiples of ``step``, so
    SSDs tie often and ties must break alike (``step`` 256: a flat picture, where all candidates tie)."""
    img = rng.integers(0, 256, (h, w, 3), dtype=np.int32)
    img = (img // step * step).astype(np.uint8)
    mask = blob_mask(h, w, rng, 0.3)
    lev = levels.prepare_level(mask, half, None)
    est = np.zeros((h, w, 4), np.uint8)
    est[..., :3] = img
    est[..., 3] = rng.integers(0, 3, (h, w)) * 8 if step < 256 else 0  # texture features
    layers = levels.onion_layers(lev)
    filled = (lev.hole_map == 0).astype(np.uint8)
    osrc = np.full(lev.tidx.shape + (2,), -1, np.int32)
    for i in range(len(layers) if layer is None else layer):
        cands = levels.random_valid(lev, np.arange(len(layers[i]) * 5, dtype=np.uint32), 40 + i).reshape(-1, 5, 2)
        found = ref.onion_search(est, filled, osrc, lev.valid, layers[i], cands, lev.origin, half, lev.radius, i)
        ref.onion_apply(est, filled, osrc, layers[i], found, lev.origin)
    return lev, est, filled, osrc, layers


def test_onion_layers_peel_the_hole_from_its_edge(rng):
    """Layer i is the hole at Chebyshev distance i + 1 from the known pixels inside the image."""
    for h, w in ((30, 40), (12, 12)):
        mask = blob_mask(h, w, rng, 0.45)
        mask[:, :3] = True  # the hole touches the border: outside the image is not known
        lev = levels.prepare_level(mask, 2, None)
        layers = levels.onion_layers(lev)
        got = np.full((h, w), -1)
        for i, pix in enumerate(layers):
            got[pix[:, 0], pix[:, 1]] = i
            assert (np.lexsort((pix[:, 1], pix[:, 0])) == np.arange(len(pix))).all()  # row-major
        known = np.argwhere(~mask)
        for y, x in zip(*np.nonzero(mask)):
            assert got[y, x] == np.abs(known - (y, x)).max(axis=1).min() - 1
        assert (got[~mask] == -1).all()


@pytest.mark.parametrize("layer,step", [(0, 16), (1, 16), (2, 16), (1, 255)])
def test_onion_search_matches_naive(rng, layer, step):
    lev, est, filled, osrc, layers = onion_state(rng, layer=layer, step=step)
    pix = layers[layer]
    cands = levels.random_valid(lev, np.arange(len(pix) * 6, dtype=np.uint32), 77).reshape(-1, 6, 2)
    got = ref.onion_search(est, filled, osrc, lev.valid, pix, cands, lev.origin, 2, lev.radius, 1234)
    np.testing.assert_array_equal(got, naive_onion_search(est, filled, osrc, lev, pix, cands, 2, 1234))
    assert (lev.valid[got[:, 0], got[:, 1]] != 0).all()  # every pixel found a usable source centre


def test_onion_fills_each_pixel_with_its_source_colour(rng):
    lev, est, filled, osrc, _ = onion_state(rng)
    oy, ox = lev.origin
    hy, hx = lev.hole[:, 0], lev.hole[:, 1]
    src = osrc[hy - oy, hx - ox]
    assert (src[:, 0] >= 0).all() and (filled != 0).all()
    np.testing.assert_array_equal(est[hy, hx], est[src[:, 0], src[:, 1]])  # colour and feature
    assert (~lev.mask[src[:, 0], src[:, 1]]).all()


@pytest.mark.parametrize("mean", [0, 4, 7])
def test_ssd_matches_naive(rng, mean):
    lev, est, nnf, *_ = level_state(rng, half=3)
    got = ref.ssd(est, lev.targets, nnf[:, 0], 3, mean)
    border = 0
    for i in range(0, len(lev.targets), 7):
        assert got[i] == naive_ssd(est, lev.targets[i], nnf[i, 0], 3, mean)
        border += min(*lev.targets[i], *(np.array(lev.shape) - 1 - lev.targets[i])) < 3
    assert border  # windows cut by the image's edge are among those checked


def test_the_mean_term_prefers_a_textured_source_of_the_right_colour_to_a_smooth_one_of_another():
    half = 3
    est = np.zeros((7, 21, 4), np.uint8)
    est[:, 0:7, :3] = 100  # the target: smooth, grey 100
    est[:, 7:14, :3] = 80  # a smooth source, 20 darker
    yy, xx = np.mgrid[0:7, 0:7]
    est[:, 14:21, :3] = np.where((yy + xx) % 2, 79, 121)[..., None]  # a textured source, grey 100 on average
    t, cand = np.array([[3, 3]], np.int32), np.array([[3, 10], [3, 17]], np.int32)
    plain = [int(ref.ssd(est, t, cand[j:j + 1], half)[0]) for j in range(2)]
    weighted = [int(ref.ssd(est, t, cand[j:j + 1], half, 4)[0]) for j in range(2)]
    assert plain[0] < plain[1]  # the SSD alone picks the shadow
    assert weighted[1] < weighted[0]  # the mean term picks the right colour
    assert weighted[0] - plain[0] == 49 * 3 * 20 * 20  # once more the squared mean difference per pixel


def test_ssd_distance_term_prefers_the_nearer_of_equal_sources():
    half = 3
    est = np.zeros((7, 40, 4), np.uint8)
    yy, xx = np.mgrid[0:7, 0:7]
    tile = np.where((yy * 3 + xx) % 5 < 2, 200, 40).astype(np.uint8)
    for x0 in (0, 10, 30):  # the target's window, then the same texture 10 and 30 px away
        est[:, x0:x0 + 7, :3] = tile[..., None]
    t, cand = np.array([[3, 3], [3, 3]], np.int32), np.array([[3, 13], [3, 33]], np.int32)
    assert ref.ssd(est, t, cand, half).tolist() == [0, 0]  # equal windows: the SSD cannot choose
    assert ref.ssd(est, t, cand, half, near_weight=1000).tolist() == [10 * 1000, 30 * 1000]
    # the two terms add: a far source must match better by more than the distance it adds
    est[0, 33, 0] += 1
    assert ref.ssd(est, t[:1], cand[1:], half, near_weight=1000)[0] == 1 + 30 * 1000


@pytest.mark.parametrize("k,jump_max,mean,near", [(1, 8, 0, 0), (3, 8, 4, 1000), (2, 2, 0, 37), (1, 1, 6, 0)])
def test_patchmatch_matches_naive(rng, k, jump_max, mean, near):
    lev, est, nnf, cost, best = level_state(rng, h=20, w=23, k=k, iterations=0, mean=mean, near=near)
    want = naive_patchmatch(est, lev, nnf, cost, best, 2, 5, jump_max, mean, near)
    out = np.zeros_like(best)
    ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, 2, lev.radius, 5,
                   jump_max, mean, near)
    np.testing.assert_array_equal(nnf, want[0])
    np.testing.assert_array_equal(cost, want[1])
    np.testing.assert_array_equal(out, want[2])
    # lists stay sorted, hold only usable sources, and store each source once with its true SSD
    assert (np.diff(cost.astype(np.int64), axis=1) >= 0).all()
    for i in range(len(lev.targets)):
        seen = [tuple(e) for e, c in zip(nnf[i], cost[i]) if c != ref.EMPTY]
        assert len(seen) == len(set(seen))
        for (sy, sx), c in zip(nnf[i], cost[i]):
            if c != ref.EMPTY:
                assert lev.valid[sy, sx] and c == naive_ssd(est, lev.targets[i], (sy, sx), 2, mean, near)


def work(lev, full):
    """The work-area crop of a whole-image array."""
    x0, y0, x1, y1 = lev.work
    return np.ascontiguousarray(full[y0:y1, x0:x1])


@pytest.mark.parametrize("split", [False, True])
def test_vote_matches_naive(rng, split):
    lev, est, nnf, cost, _ = level_state(rng, k=3, iterations=2)
    out = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    src = np.full((len(lev.hole), 2), SENTINEL, np.int32) if split else None
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 2, 3, 5000, out, low_map(lev, est, 2) if split else None,
             src)
    want, want_src = naive_vote(est, lev.pixels, lev, nnf, cost, 2, 3, 5000, split)
    oy, ox = lev.origin
    for (y, x), v in want.items():
        assert list(out[y - oy, x - ox]) == v
    if split:  # the hole pixels' best copies: original known pixels
        assert [tuple(q) for q in src] == [want_src[(y, x)] for y, x in lev.hole]
        assert (~lev.mask[src[:, 0], src[:, 1]]).all()
    listed = np.zeros(lev.tidx.shape, bool)
    listed[lev.pixels[:, 0] - oy, lev.pixels[:, 1] - ox] = True
    assert (out[~listed] == SENTINEL).all()


def low_map(lev, est, half):
    """The split votes' low-pass map of ``lev`` and its origin (y, x)."""
    rect = levels.source_rect(lev, half)
    return ref.low_pass(est, lev.hole_map, lev.origin, rect), (rect[1], rect[0])


@pytest.mark.parametrize("rect,protect", [(None, False), ((0, 0, 5, 7), False), ((20, 10, 34, 28), False),
                                          (None, True)])
def test_low_pass_matches_naive(rng, rect, protect):
    """Known pixels only: neither the hole's nor protected pixels' colours enter the low pass."""
    lev, est, *_ = level_state(rng)
    h, w = lev.shape
    left_out = lev.mask.copy()
    solve = lev.hole_map.copy()
    if protect:  # a protected band through the work area, where it is marked 2
        x0, y0, x1, y1 = lev.work
        band = np.zeros((h, w), bool)
        band[:, (x0 + x1) // 2:(x0 + x1) // 2 + 3] = True
        band &= ~lev.mask
        solve[band[y0:y1, x0:x1]] = 2
        left_out |= band & (np.arange(w) < x1)[None, :] & (np.arange(w) >= x0)[None, :]
        left_out[:y0] = lev.mask[:y0]
        left_out[y1:] = lev.mask[y1:]
    x0, y0, x1, y1 = rect or (0, 0, w, h)
    got = ref.low_pass(est, solve, lev.origin, (x0, y0, x1, y1))
    assert got.shape == (y1 - y0, x1 - x0, 3)
    for y in range(y0, y1):
        for x in range(x0, x1):
            if not left_out[y, x]:
                assert list(got[y - y0, x - x0]) == naive_low_pass(est, left_out, y, x)


def test_source_rect_holds_every_source_window(rng):
    lev, *_ = level_state(rng)
    x0, y0, x1, y1 = levels.source_rect(lev, 2)
    ys, xs = np.nonzero(lev.valid)
    assert ys.min() - 2 == y0 and xs.min() - 2 == x0 and ys.max() + 3 == y1 and xs.max() + 3 == x1


def test_the_split_vote_keeps_the_texture_that_averaging_washes_out(rng):
    """Every covering patch copies the same stripes, each shifted by its own offset: their mean
    is flat, the split vote keeps the stripes of the best match (and the same tones)."""
    h, w = 40, 40
    stripes = np.where(np.arange(w) % 4 < 2, 60, 180).astype(np.uint8)
    est = np.zeros((h, w, 4), np.uint8)
    est[..., :3] = stripes[None, :, None]
    mask = np.zeros((h, w), bool)
    mask[14:26, 14:26] = True
    est[mask, :3] = 120
    lev = levels.prepare_level(mask, 2, None)
    n = len(lev.targets)
    nnf = np.zeros((n, 1, 2), np.int32)
    nnf[:, 0, 0] = 5
    nnf[:, 0, 1] = 5 + rng.integers(0, 4, n)  # randomly shifted stripes
    cost = np.arange(n, dtype=np.uint32)[:, None] * 10
    out = {}
    for split in (False, True):
        v = np.zeros(lev.tidx.shape + (4,), np.int32)
        ref.vote(est, lev.hole, lev.tidx, lev.origin, nnf, cost, 2, 1, 340, v, low_map(lev, est, 2) if split else None)
        out[split] = v[lev.hole[:, 0] - lev.origin[0], lev.hole[:, 1] - lev.origin[1], 0]
    assert out[False].std() < 20 < out[True].std()
    assert abs(out[True].mean() - out[False].mean()) < 12


def test_work_area_holds_every_target_and_neighbour(rng):
    lev, *_ = level_state(rng)
    x0, y0, x1, y1 = lev.work
    for y, x in np.concatenate([lev.targets, lev.pixels]):
        assert x0 <= x < x1 and y0 <= y < y1
    h, w = lev.shape
    for y, x in lev.hole:  # every in-image 4-neighbour of a hole pixel
        for qy, qx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= qy < h and 0 <= qx < w:
                assert x0 <= qx < x1 and y0 <= qy < y1
    assert (lev.hole_map == work(lev, lev.mask)).all()


def test_gauss_seidel_matches_naive(rng):
    lev, est, *_ = level_state(rng)
    v = rng.integers(-60, 60, est.shape).astype(np.int32)
    x = np.zeros(est.shape, np.int32)
    x[lev.mask, :3] = rng.integers(-200000, 200000, (int(lev.mask.sum()), 3))
    want = naive_gauss_seidel(lev.mask, est, v, x, 3)
    xw = work(lev, x)
    ref.gauss_seidel(lev.hole_map, est, work(lev, v), xw, lev.colours, lev.origin, 3)
    np.testing.assert_array_equal(xw[lev.hole_map != 0, :3], work(lev, want)[lev.hole_map != 0, :3])


def test_gauss_seidel_converges_to_the_membrane(rng):
    """Enough sweeps solve Laplace(x) = 0 with the boundary values: the discrete equation holds."""
    lev, est, *_ = level_state(rng, h=16, w=16)
    v = np.zeros(lev.tidx.shape + (4,), np.int32)
    x = np.zeros(lev.tidx.shape + (4,), np.int32)
    ref.gauss_seidel(lev.hole_map, est, v, x, lev.colours, lev.origin, 400)
    before = x.copy()
    ref.gauss_seidel(lev.hole_map, est, v, x, lev.colours, lev.origin, 1)
    assert np.abs(x - before).max() <= 2  # a fixed point, up to rounding


def test_compose(rng):
    lev, est, *_ = level_state(rng)
    v = rng.integers(-20, 280, lev.tidx.shape + (4,)).astype(np.int32)
    x = rng.integers(-100000, 100000, lev.tidx.shape + (4,)).astype(np.int32)
    out = est.copy()
    v[..., 3] = rng.integers(0, 256, v.shape[:2])  # votes are 0..255 in the feature
    prior = rng.integers(0, 256, lev.tidx.shape).astype(np.uint8)
    with_prior = est.copy()
    ref.compose(out, v, x, lev.hole, lev.origin)
    ref.compose(with_prior, v, x, lev.hole, lev.origin, prior)
    hy, hx = lev.hole[:, 0], lev.hole[:, 1]
    ly, lx = hy - lev.origin[0], hx - lev.origin[1]
    want = np.clip(v[ly, lx, :3] + np.floor(x[ly, lx, :3] / ref.FIX + 0.5).astype(np.int64), 0, 255)
    np.testing.assert_array_equal(out[hy, hx, :3], want)
    np.testing.assert_array_equal(out[hy, hx, 3], v[ly, lx, 3])  # the feature is the vote's, uncorrected
    np.testing.assert_array_equal(with_prior[hy, hx, :3], want)
    np.testing.assert_array_equal(with_prior[hy, hx, 3], prior[ly, lx])  # or the prior's
    np.testing.assert_array_equal(out[~lev.mask], est[~lev.mask])
    np.testing.assert_array_equal(with_prior[~lev.mask], est[~lev.mask])


@settings(max_examples=60, deadline=None)
@given(h=hs.integers(1, 24), w=hs.integers(1, 24), seed=hs.integers(0, 9999), frac=hs.floats(0.0, 1.0))
def test_pull_push_keeps_the_known_values_and_stays_within_them(h, w, seed, frac):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 256, (h, w))
    known = rng.random((h, w)) < frac
    got = ref.pull_push(values, known)
    np.testing.assert_array_equal(got[known], values[known])
    if known.any():
        assert values[known].min() <= got.min() and got.max() <= values[known].max()
    else:
        assert (got == 0).all()
    flat = ref.pull_push(np.full((h, w), 37), known)  # a constant carries in unchanged
    assert (flat == (37 if known.any() else 0)).all()


def test_pull_push_by_hand():
    """Two known corners of a 2x2 block and a 1x2 picture: the means, then bilinear back."""
    got = ref.pull_push(np.array([[10, 0], [0, 30]]), np.array([[True, False], [False, True]]))
    np.testing.assert_array_equal(got, [[10, 20], [20, 30]])  # the block's mean, 20
    got = ref.pull_push(np.array([[8, 0, 0, 40]]), np.array([[True, False, False, True]]))
    # the coarse row [8, 40] scaled up: (3 * 8 + 40 + 2) // 4 = 16 and (8 + 3 * 40 + 2) // 4 = 32
    np.testing.assert_array_equal(got, [[8, 16, 32, 40]])


@pytest.mark.parametrize("rect", [(0, 0, 40, 30), (3, 2, 9, 11), (30, 20, 40, 30), (10, 5, 31, 24), (0, 29, 40, 30)])
def test_texture_features_in_a_rectangle_equal_those_of_the_whole_photo(rng, rect):
    img = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    mask = blob_mask(30, 40, rng, 0.3)
    x0, y0, x1, y1 = rect
    np.testing.assert_array_equal(ref.texture_features_in(img, mask, rect),
                                  ref.texture_features(img, mask)[y0:y1, x0:x1])


def test_expected_texture_of_one_hole_is_its_work_area_prior(rng):
    img = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    mask = blob_mask(60, 80, rng, 0.3)
    lev = levels.prepare_level(mask, 2, None)
    got = ref.expected_texture(img, mask, lev.solve_map, lev.work, 2)
    want = ref.texture_prior(ref.texture_features_in(img, mask, lev.work), lev.solve_map)
    hole = lev.solve_map == 1
    np.testing.assert_array_equal(got[hole], want[hole])
    assert (got[~hole] == 0).all()


def test_expected_texture_of_far_apart_holes_comes_from_each_ones_surroundings(rng):
    """Two holes in opposite corners: each gets the prior of its own box grown by the margin, not
    of the box around both."""
    h, w = 200, 260
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img[:, 130:] //= 8  # a smoother right half
    mask = np.zeros((h, w), bool)
    mask[10:30, 12:40] = True
    mask[160:185, 200:240] = True
    lev = levels.prepare_level(mask, 3, None)
    got = ref.expected_texture(img, mask, lev.solve_map, lev.work, 3)
    x0, y0 = lev.work[:2]
    for (ys, xs) in ((slice(10, 30), slice(12, 40)), (slice(160, 185), slice(200, 240))):
        rect = (xs.start - 3, ys.start - 3, xs.stop + 3, ys.stop + 3)
        one = np.zeros((h, w), bool)
        one[ys, xs] = True
        solve = np.where(one, 1, 0)[rect[1]:rect[3], rect[0]:rect[2]]
        want = ref.texture_prior(ref.texture_features_in(img, mask, rect), solve)
        np.testing.assert_array_equal(got[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0], want[3:-3, 3:-3])
    assert got[20 - y0, 20 - x0] > got[170 - y0, 220 - x0]  # the rough corner expects more texture


def test_texture_prior_carries_the_surroundings_into_the_hole(rng):
    """A hole between a textured left and a smooth right expects texture on its left side only."""
    h, w = 40, 60
    est = np.zeros((h, w, 4), np.uint8)
    est[:, :30, 3] = 40
    est[:, 30:, 3] = 2
    mask = np.zeros((h, w), bool)
    mask[10:30, 15:45] = True
    est[mask, 3] = rng.integers(0, 256, int(mask.sum()))  # never read
    lev = levels.prepare_level(mask, 2, None)
    prior = ref.texture_prior(work(lev, est[..., 3]), lev.solve_map)
    oy, ox = lev.origin
    np.testing.assert_array_equal(prior[lev.hole_map == 0], work(lev, est[..., 3])[lev.hole_map == 0])
    left, right = prior[20 - oy, 16 - ox], prior[20 - oy, 43 - ox]
    assert left >= 30 and right <= 10 and left > prior[20 - oy, 30 - ox] > right


# -- kernels == reference ---------------------------------------------------------------------
def device_buffers(runtime, lev, est, nnf, cost, v=None, x=None):
    mf = cl.mem_flags

    def buf(a):
        return cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))

    v = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32) if v is None else v
    x = np.zeros(lev.tidx.shape + (4,), np.int32) if x is None else x
    return {"est": buf(est), "targets": buf(lev.targets), "tidx": buf(lev.tidx), "valid": buf(lev.valid),
            "nnf": buf(nnf), "cost": buf(cost), "v": buf(v), "x": buf(x), "hole": buf(lev.hole_map),
            "holepix": buf(lev.hole), "pixels": buf(lev.pixels), "red": buf(lev.colours[0]),
            "black": buf(lev.colours[1]), "random_start": buf(np.zeros(1, np.int32)),
            "ends": buf(levels.valid_ends(lev))}, buf


def read(runtime, buf, like):
    out = np.empty_like(like)
    cl.enqueue_copy(runtime.queue, out, buf)
    return out


# (the largest patch, a program of its own that takes seconds to compile, in the slow selection;
# cpu: the kernels' code for a CPU or a GPU, both run on the test device)
@pytest.mark.parametrize("half,k,jump_max,radius,mean,near,cpu",
                         [(1, 1, 8, None, 0, 0, True), (2, 3, 2, 8, 4, 1000, False), (3, 8, 8, None, 4, 1000, True),
                          (3, 1, 8, None, 0, 0, False), (4, 2, 1, 3, 0, 37, True),
                          pytest.param(15, 1, 8, 3, 4, 1000, True, marks=pytest.mark.slow)])
def test_patchmatch_kernel(runtime, rng, half, k, jump_max, radius, mean, near, cpu):
    big = half > 4  # the largest patch: a small hole in a larger image leaves room for sources
    lev, est, nnf, cost, best = level_state(rng, h=80 if big else 28, w=84 if big else 34, half=half, k=k,
                                            frac=0.08 if big else 0.3, mean=mean, near=near)
    radius = lev.radius if radius is None else radius
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b_in, b_out = buf(best), buf(np.full_like(best, SENTINEL))
    mcl.PatchMatch(runtime, half, k, cpu=cpu)(b, len(lev.targets), lev.shape[1], lev.shape[0], radius, jump_max, 99,
                                              b_in, b_out, lev.work_args, mean, near)
    out = np.zeros_like(best)
    ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, half, radius, 99,
                   jump_max, mean, near)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b_out, best), out)


@pytest.mark.parametrize("random_start,skip,rescore", [(0, False, True), (0, True, True), (1, True, False),
                                                      (0, True, False), (1, False, True)])
def test_patchmatch_kernel_short_search_and_rescoring(runtime, rng, random_start, skip, rescore):
    """One launch equals the reference's rescore (with ``rescore``, one candidate a list) and then
    its iteration: the short search where every start was lifted, none at all with ``skip``."""
    lev, est, nnf, cost, best = level_state(rng, h=40, w=46, half=2, k=1, mean=4, near=1000)
    cost[:, 0] = 1  # stale costs: only a rescoring puts them right
    short = (3, 2)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["random_start"] = buf(np.array([random_start], np.int32))
    b_in, b_out = buf(best), buf(np.full_like(best, SENTINEL))
    mcl.PatchMatch(runtime, 2, 1)(b, len(lev.targets), lev.shape[1], lev.shape[0], lev.radius, lev.jump, 42, b_in,
                                  b_out, lev.work_args, 4, 1000, short, skip, rescore)
    if rescore:
        ref.rescore(est, lev.targets, nnf, cost, 2, 4, 1000)
    out = best.copy()
    if not (skip and not random_start):
        radius, jump = short if not random_start else (lev.radius, lev.jump)
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, 2, radius, 42,
                       jump, 4, 1000)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b_out, best), out)


@pytest.mark.parametrize("mean,near,cpu", [(0, 0, True), (4, 0, True), (4, 1000, True), (4, 1000, False)])
def test_rescore_kernel(runtime, rng, mean, near, cpu):
    lev, est, nnf, cost, best = level_state(rng, half=2, k=4, iterations=2)
    est[lev.mask, :3] = rng.integers(0, 256, (int(lev.mask.sum()), 3))  # the estimate moved on
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b_best = buf(np.full_like(best, SENTINEL))
    mcl.PatchMatch(runtime, 2, 4, cpu=cpu).rescore(b, len(lev.targets), lev.shape[1], lev.shape[0], b_best, mean,
                                                   near)
    ref.rescore(est, lev.targets, nnf, cost, 2, mean, near)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b_best, best), nnf[:, 0])


@pytest.mark.parametrize("k_use,split,cpu", [(1, False, True), (4, False, True), (1, True, True), (4, True, True),
                                             (4, True, False)])
def test_vote_kernel(runtime, rng, k_use, split, cpu):
    lev, est, nnf, cost, _ = level_state(rng, half=3, k=4, iterations=2)
    b, _ = device_buffers(runtime, lev, est, nnf, cost)
    h, w = lev.shape
    kn = mcl.Vote(runtime, 3, 4, cpu=cpu)
    rect = levels.source_rect(lev, 3)
    if split:
        x0, y0, x1, y1 = rect
        b["low"] = cl.Buffer(runtime.context, cl.mem_flags.READ_WRITE, (x1 - x0) * (y1 - y0) * 4)
        kn.low_pass(b, rect, w, h, lev.work_args)
        low = read(runtime, b["low"], np.zeros((y1 - y0, x1 - x0, 4), np.uint8))
        np.testing.assert_array_equal(low[..., :3], low_map(lev, est, 3)[0])
    src = cl.Buffer(runtime.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.full((len(lev.hole), 2), SENTINEL, np.int32))
    nsrc = len(lev.hole) if split else 0
    kn(b, b["pixels"], len(lev.pixels), w, k_use, 7000, lev.work_args, rect if split else None, src, nsrc)
    want = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    want_src = np.full((len(lev.hole), 2), SENTINEL, np.int32)
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k_use, 7000, want,
             low_map(lev, est, 3) if split else None, want_src if split else None)
    np.testing.assert_array_equal(read(runtime, b["v"], want), want)
    np.testing.assert_array_equal(read(runtime, src, want_src), want_src)  # untouched unless split


@pytest.mark.parametrize("h,rect", [(28, None), (80, None), (80, (3, 30, 40, 63)), (80, (0, 79, 34, 80))])
def test_low_pass_kernel(runtime, rng, h, rect):
    """The column-chunked kernel equals the reference's box sums: one chunk, several, a last
    partial one, a rectangle not at a chunk boundary, one row; with a protected band."""
    lev, est, nnf, cost, _ = level_state(rng, h=h, w=34)
    x0, y0, x1, y1 = lev.work
    solve = lev.hole_map.copy()
    solve[:, (x1 - x0) // 2:(x1 - x0) // 2 + 2][solve[:, (x1 - x0) // 2:(x1 - x0) // 2 + 2] == 0] = 2
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["hole"] = buf(solve)
    rect = rect or (0, 0, 34, h)
    lx0, ly0, lx1, ly1 = rect
    b["low"] = buf(np.full((ly1 - ly0, lx1 - lx0, 4), 7, np.uint8))
    mcl.Vote(runtime, 2, 3).low_pass(b, rect, 34, h, lev.work_args)
    got = read(runtime, b["low"], np.zeros((ly1 - ly0, lx1 - lx0, 4), np.uint8))
    np.testing.assert_array_equal(got[..., :3], ref.low_pass(est, solve, lev.origin, rect))


def poisson_state(runtime, rng):
    """A level with a random vote and correction, on the host and the device, and its Poisson wrapper."""
    lev, est, nnf, cost, _ = level_state(rng, h=30, w=26)
    hole = lev.hole_map != 0
    v = rng.integers(-30, 290, lev.tidx.shape + (4,)).astype(np.int32)
    x = np.zeros(lev.tidx.shape + (4,), np.int32)
    x[hole, :3] = rng.integers(-300000, 300000, (int(hole.sum()), 3))
    b, _ = device_buffers(runtime, lev, est, nnf, cost, v=v, x=x)
    return lev, est, hole, v, x, b, mcl.Poisson(runtime, 2, 3)


def test_poisson_kernels(runtime, rng):
    """The tiled sweeps (in tiles much smaller than the hole) and the composition equal the reference."""
    lev, est, hole, v, x, b, p = poisson_state(runtime, rng)
    h, w = lev.shape
    p.tiles.tile, p.tiles.halo = 6, 3
    assert len(p.tiled(b, w, 5, lev.work_args)) == 4  # ten half-sweeps, three a launch, an even count
    p.compose(b, len(lev.hole), w, lev.work_args)
    ref.gauss_seidel(lev.hole_map, est, v, x, lev.colours, lev.origin, 5)
    want = est.copy()
    ref.compose(want, v, x, lev.hole, lev.origin)
    got_x = read(runtime, b["x"], x)
    np.testing.assert_array_equal(got_x[hole, :3], x[hole, :3])
    np.testing.assert_array_equal(read(runtime, b["est"], want), want)
    prior = rng.integers(0, 256, lev.tidx.shape).astype(np.uint8)
    b["prior"] = cl.Buffer(runtime.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=prior)
    p.compose(b, len(lev.hole), w, lev.work_args)
    ref.compose(want, v, x, lev.hole, lev.origin, prior)
    np.testing.assert_array_equal(read(runtime, b["est"], want), want)


@pytest.mark.parametrize("path, fit, launches", [
    ("local", False, 1), ("local", True, 1), ("split", False, 2), ("split", True, 2), ("channels", False, 2),
    ("fused", False, 1), ("tiles", False, 3), ("launches", False, 15)])
def test_poisson_sweeps_fused_or_not(runtime, rng, monkeypatch, path, fit, launches):
    """All sweeps in one launch, the values in local memory (all channels in one work-group with
    the composition, or a work-group a channel and a launch to compose, chosen by
    ``SPLIT_CHANNELS`` where both fit; the work-groups as large as allowed or fitted to the hole)
    or in global memory (one work-group, with the composition), equal the reference; so do the
    tiled sweeps (fourteen half-sweeps, eight a launch: two launches) and two launches a sweep (as
    on a CPU device), each with a launch to compose."""
    lev, est, hole, v, x, b, p = poisson_state(runtime, rng)
    h, w = lev.shape
    assert len(lev.hole) <= min(p.local_pixels, p.channel_pixels)  # a small hole fits both local sweeps
    monkeypatch.setattr(p, "fit", fit)
    assert (p._group(p.local_group, len(lev.hole), mcl.GS_K) < p.local_group) == fit  # a smaller group, fitted
    monkeypatch.setattr(p, "SPLIT_CHANNELS", path == "split")
    monkeypatch.setattr(p, "local_pixels", 10 ** 9 if path in ("local", "split") else 0)
    monkeypatch.setattr(p, "channel_pixels", 10 ** 9 if path in ("local", "split", "channels") else 0)
    monkeypatch.setattr(p, "FUSED_PIXELS", 10 ** 9 if path == "fused" else 0)
    monkeypatch.setattr(p, "in_tiles", path == "tiles")
    events = p.correct(b, b["red"], len(lev.colours[0]), b["black"], len(lev.colours[1]), len(lev.hole), w, h, 7,
                       lev.work_args)
    assert len(events) == launches  # the sweeps and the composition
    ref.gauss_seidel(lev.hole_map, est, v, x, lev.colours, lev.origin, 7)
    ref.compose(est, v, x, lev.hole, lev.origin)
    np.testing.assert_array_equal(read(runtime, b["x"], x), x)  # the spare lane too
    np.testing.assert_array_equal(read(runtime, b["est"], est), est)


# (cpu: the kernels' loops as on a CPU, or unrolled as on a GPU; PoCL takes seconds to compile the
# unrolled ones, so those run in the slow selection)
@pytest.mark.parametrize("cpu", [True, pytest.param(False, marks=pytest.mark.slow)])
@pytest.mark.parametrize("channels", [False, True])
@pytest.mark.parametrize("sweeps", [0, 1, 4])
def test_local_sweeps_at_the_edges(runtime, rng, sweeps, channels, cpu):
    """The local-memory sweeps (all channels in one work-group or a work-group a channel) equal the
    reference where the hole meets the image's border and protected pixels, with pixels that have no
    neighbour left (they keep their value), with as many pixels a work-item as it keeps, and
    with no sweep at all."""
    h, w = 23, 29
    mask = np.zeros((h, w), bool)
    mask[:9, :12] = True  # a corner of the image
    mask[15:, 20:] = True
    mask[11, 3] = mask[12, 25] = True  # alone among protected pixels
    protect = np.zeros((h, w), bool)
    protect[10:14, :] = True
    protect &= ~mask
    protect[14, 20:25] = True
    lev = levels.prepare_level(mask, 1, None, protect)
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    v = rng.integers(-30, 290, lev.tidx.shape + (4,)).astype(np.int32)
    x = np.zeros(lev.tidx.shape + (4,), np.int32)
    x[lev.hole_map != 0, :3] = rng.integers(-300000, 300000, (int(mask.sum()), 3))
    nnf = np.zeros((len(lev.targets), 1, 2), np.int32)
    b, buf = device_buffers(runtime, lev, img, nnf, np.zeros((len(lev.targets), 1), np.uint32), v=v, x=x)
    b["hole"] = buf(lev.solve_map)
    p = mcl.Poisson(runtime, 1, 1, cpu=cpu)
    most = max(len(c) for c in lev.colours)  # every work-item's slots in use
    p.local_group = max(1, -(-most // mcl.GS_K))
    p.channel_group = max(1, -(-most // mcl.GS_KC))
    if channels:
        p.local_pixels = 0
    else:
        p.channel_pixels = 0
    events = p.correct(b, b["red"], len(lev.colours[0]), b["black"], len(lev.colours[1]), len(lev.hole), w, h,
                       sweeps, lev.work_args)
    assert len(events) == (2 if channels else 1)  # a work-group a channel, then the composition
    ref.gauss_seidel(lev.solve_map, img, v, x, lev.colours, lev.origin, sweeps)
    ref.compose(img, v, x, lev.hole, lev.origin)
    np.testing.assert_array_equal(read(runtime, b["x"], x), x)
    np.testing.assert_array_equal(read(runtime, b["est"], img), img)


def tiled_level(rng, h, w):
    """A level whose hole meets three image edges and protected pixels, in several parts, with a wide
    known gap between two of them, pixels with no neighbour left, and random values everywhere in
    the correction (its spare lane and known pixels too, which the sweeps must keep)."""
    mask = np.zeros((h, w), bool)
    mask[:9, :12] = True  # a corner of the image
    mask[h - 8:, w - 9:] = True  # the opposite corner
    mask[14:h - 12, 5:9] = True  # a band down the left
    mask[18:25, w - 14:w - 3] = True
    mask[2, w - 3] = mask[16, 30] = True  # alone among protected pixels
    protect = np.zeros((h, w), bool)
    protect[10:14, :] = True
    protect[15:18, 29:32] = True
    protect &= ~mask
    lev = levels.prepare_level(mask, 1, None, protect)
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    v = rng.integers(-30, 290, lev.tidx.shape + (4,)).astype(np.int32)
    x = rng.integers(-300000, 300000, lev.tidx.shape + (4,)).astype(np.int32)
    return lev, img, v, x


@pytest.mark.parametrize("tile, halo, sweeps, launches", [
    (7, 3, 5, 4), (8, 4, 2, 2), (5, 2, 3, 4), (11, 1, 1, 2), (64, 8, 9, 4), (6, 3, 0, 0)])
def test_tiled_sweeps(runtime, rng, monkeypatch, tile, halo, sweeps, launches):
    """The tiled sweeps of a large hole equal the reference bit for bit: tiles that do not line up
    with the hole (odd and even sides, one larger than the work area, ones with no hole pixel), as
    many half-sweeps a launch as the halo allows or fewer (a remainder, an odd count of launches
    made even), none at all; whatever the second buffer held."""
    h, w = 43, 51
    lev, img, v, x = tiled_level(rng, h, w)
    nnf = np.zeros((len(lev.targets), 1, 2), np.int32)
    b, buf = device_buffers(runtime, lev, img, nnf, np.zeros((len(lev.targets), 1), np.uint32), v=v, x=x)
    b["hole"] = buf(lev.solve_map)
    b["x2"] = buf(np.full_like(x, SENTINEL))
    p = mcl.Poisson(runtime, 1, 1)
    monkeypatch.setattr(p, "FUSED_PIXELS", 0)
    p.local_pixels = p.channel_pixels = 0
    p.in_tiles = True
    p.tiles.tile, p.tiles.halo = tile, halo
    rh, rw = lev.solve_map.shape
    assert tile > max(rh, rw) or any(not (lev.solve_map[y:y + tile, x:x + tile] == 1).any()
                                     for y in range(0, rh, tile) for x in range(0, rw, tile))  # a tile of no hole
    events = p.correct(b, b["red"], len(lev.colours[0]), b["black"], len(lev.colours[1]), len(lev.hole), w, h,
                       sweeps, lev.work_args)
    assert len(events) == launches + 1  # the sweeps, then the composition
    ref.gauss_seidel(lev.solve_map, img, v, x, lev.colours, lev.origin, sweeps)
    ref.compose(img, v, x, lev.hole, lev.origin)
    np.testing.assert_array_equal(read(runtime, b["x"], x), x)
    np.testing.assert_array_equal(read(runtime, b["est"], img), img)


@pytest.mark.parametrize("tile, halo, sweeps", [(7, 3, 5), (8, 4, 2), (64, 8, 9)])
def test_tiled_screened_sweeps(runtime, rng, monkeypatch, tile, halo, sweeps):
    """The gradient vote's screened solve of a large hole, in tiles, equals the reference bit for
    bit (as :func:`test_tiled_sweeps`)."""
    h, w = 43, 51
    lev, img, v, x = tiled_level(rng, h, w)
    shape = lev.tidx.shape + (4,)
    x0, gx, gy = (rng.integers(-300000, 300000, shape).astype(np.int32),
                  rng.integers(-3000, 3000, shape).astype(np.int32), rng.integers(-3000, 3000, shape).astype(np.int32))
    nnf = np.zeros((len(lev.targets), 1, 2), np.int32)
    b, buf = device_buffers(runtime, lev, img, nnf, np.zeros((len(lev.targets), 1), np.uint32), v=v, x=x)
    b.update(hole=buf(lev.solve_map), x2=buf(np.full_like(x, SENTINEL)), x0=buf(x0), gx=buf(gx), gy=buf(gy))
    monkeypatch.setattr(mcl.Poisson, "FUSED_PIXELS", 0)
    gv = mcl.GradientVote(runtime, 1, 1)
    gv.tiles.tile, gv.tiles.halo = tile, halo
    events = gv.solve(b, b["red"], len(lev.colours[0]), b["black"], len(lev.colours[1]), w, h, sweeps,
                      lev.work_args)
    assert len(events) == len(gv.tiles.halfs(sweeps)) > 1
    grad.screened_sweeps(lev.solve_map, img, v, x, x0, gx, gy, lev.colours, lev.origin, sweeps)
    np.testing.assert_array_equal(read(runtime, b["x"], x), x)


@pytest.mark.parametrize("halo, sweeps, want", [
    (8, 80, [8] * 20), (8, 30, [8] * 7 + [4]), (8, 9, [8, 8, 1, 1]), (8, 4, [4, 4]), (3, 1, [1, 1]), (8, 0, [])])
def test_tiled_launches_end_in_the_first_buffer(runtime, halo, sweeps, want):
    """Whole halos a launch, the rest after them, and an even count of launches (the last writes
    ``b["x"]``)."""
    tiles = mcl.Poisson(runtime, 1, 1).tiles
    tiles.halo = halo
    assert tiles.halfs(sweeps) == want


def test_tiled_sweeps_of_a_large_hole(runtime, rng):
    """A hole larger than ``FUSED_PIXELS`` takes the tiled sweeps with the device's own tiles and
    equals the reference."""
    h, w = 150, 160
    mask = np.zeros((h, w), bool)
    yy, xx = np.mgrid[:h, :w]
    mask |= ((yy - 70) / 68.0) ** 2 + ((xx - 85) / 80.0) ** 2 <= 1
    mask[:, :3] = True  # the left edge
    lev = levels.prepare_level(mask, 1, None)
    assert len(lev.hole) > mcl.Poisson.FUSED_PIXELS
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    v = rng.integers(-30, 290, lev.tidx.shape + (4,)).astype(np.int32)
    x = np.zeros(lev.tidx.shape + (4,), np.int32)
    x[lev.hole_map != 0, :3] = rng.integers(-300000, 300000, (len(lev.hole), 3))
    nnf = np.zeros((len(lev.targets), 1, 2), np.int32)
    b, _ = device_buffers(runtime, lev, img, nnf, np.zeros((len(lev.targets), 1), np.uint32), v=v, x=x)
    p = mcl.Poisson(runtime, 1, 1)
    p.local_pixels = p.channel_pixels = 0
    p.in_tiles = True  # (as on a GPU)
    sweeps = 7
    events = p.correct(b, b["red"], len(lev.colours[0]), b["black"], len(lev.colours[1]), len(lev.hole), w, h,
                       sweeps, lev.work_args)
    launches = -(-2 * sweeps // p.tiles.halo)
    assert len(events) == launches + launches % 2 + 1
    ref.gauss_seidel(lev.hole_map, img, v, x, lev.colours, lev.origin, sweeps)
    ref.compose(img, v, x, lev.hole, lev.origin)
    np.testing.assert_array_equal(read(runtime, b["x"], x), x)
    np.testing.assert_array_equal(read(runtime, b["est"], img), img)


def test_start_lists_kernel(runtime, rng):
    """Every list starts with the random source of the reference, drawn on the device."""
    lev, est, nnf, cost, _ = level_state(rng, k=3)
    n, k = len(lev.targets), 3
    sources = levels.random_sources(lev, 11)
    b, buf = device_buffers(runtime, lev, est, np.full_like(nnf, SENTINEL), np.full_like(cost, 12345))
    best = buf(np.full((n, 2), SENTINEL, np.int32))
    mcl.PatchMatch(runtime, 2, k).start(b, n, lev.shape[1], lev.shape[0], 11, best)
    nnf = read(runtime, b["nnf"], np.empty((n, k, 2), np.int32))
    cost = read(runtime, b["cost"], np.empty((n, k), np.uint32))
    np.testing.assert_array_equal(nnf[:, 0], sources)
    np.testing.assert_array_equal(read(runtime, best, np.empty((n, 2), np.int32)), sources)
    assert (nnf[:, 1:] == -1).all() and (cost[:, 0] == 0).all() and (cost[:, 1:] == ref.EMPTY).all()


@pytest.mark.parametrize("h,w", [(1, 1), (7, 5), (16, 9), (33, 64)])
def test_pyramid_kernels_equal_host_halving(runtime, rng, h, w):
    """pack_rgba then halve, level by level, equal down2 on the host (odd sizes included)."""
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    kn = mcl.Pyramid(runtime, 2, 3)
    mf = cl.mem_flags
    rgb = cl.Buffer(runtime.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=img)
    shapes = [(h, w)]
    while shapes[-1] != (1, 1):
        shapes.append(((shapes[-1][0] + 1) // 2, (shapes[-1][1] + 1) // 2))
    bufs = []
    for sh in shapes:
        bufs.append(cl.Buffer(runtime.context, mf.READ_WRITE, sh[0] * sh[1] * 4))
        cl.enqueue_fill_buffer(runtime.queue, bufs[-1], np.uint8(0xAB), 0, sh[0] * sh[1] * 4)
    kn.pack(rgb, bufs[0], h * w)
    for i in range(1, len(shapes)):
        kn.halve(bufs[i - 1], shapes[i - 1], bufs[i], shapes[i])
    for buf, want, sh in zip(bufs, levels.image_pyramid(img, len(shapes)), shapes):
        got = read(runtime, buf, np.empty(sh + (4,), np.uint8))
        np.testing.assert_array_equal(got[..., :3], want)
        assert (got[..., 3] == 0).all()


def _texture_hole(layout, rng):
    """A photo, its hole and protected pixels for the expected texture's kernel test."""
    h, w = (200, 260) if layout == "apart" else (48, 70)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img[:, w // 2:] //= 8  # a smoother half
    mask, protect = np.zeros((h, w), bool), None
    if layout == "apart":  # three groups: two holes in opposite corners, one below the first
        mask[10:30, 12:40] = mask[160:185, 200:240] = mask[150:160, 20:40] = True
    elif layout == "border":  # a hole reaching the photo's edges
        mask[:20, 50:] = True
    else:
        mask = blob_mask(h, w, rng, 0.3)
        if layout == "protected":
            protect = np.zeros((h, w), bool)
            protect[:, :8] = True
    return img, mask, protect


@pytest.mark.parametrize("layout,group", [("blob", None), ("blob", 3), ("apart", None), ("apart", 5),
                                          ("border", None), ("protected", 7)])
def test_expected_texture_kernel_equals_the_reference(runtime, rng, layout, group):
    """The device's expected texture (a pull-push a group of the hole, in one work-group, from the
    features in the picture's spare bytes) equals the reference's on every hole pixel, with one
    group or several, at the photo's edges, beside protected pixels, and with work-groups of a few
    work-items (each taking many pixels)."""
    img, mask, protect = _texture_hole(layout, rng)
    half = 3
    lev = levels.prepare_level(mask, half, None, protect)
    want = ref.expected_texture(img, mask, lev.solve_map, lev.work, half)
    kn = mcl.Pyramid(runtime, half, 1)
    kn._texture_group = group or kn._texture_group
    mf = cl.mem_flags

    def buf(a):
        return cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))

    est = buf(to_rgba(img, ref.texture_features(img, mask)))
    solve = buf(lev.solve_map)
    x0, y0, ww, wh = lev.work_args
    prior = buf(np.full((wh, ww), 0xAB, np.uint8))
    table, groups = ref.texture_groups(lev.solve_map, lev.work, mask.shape, half)
    assert len(groups) == (3 if layout == "apart" else 1)
    cells = buf(table) if table is not None else solve
    for g, (rect, _) in enumerate(groups):
        kn.expected_texture(est, img.shape[1], solve, lev.work_args, rect, cells,
                            table.shape[1] if table is not None else 0, g if table is not None else -1, prior)
    got = read(runtime, prior, np.empty((wh, ww), np.uint8))
    hole = lev.solve_map == 1
    np.testing.assert_array_equal(got[hole], want[hole])
    assert (got[~hole] == 0xAB).all()  # only the hole's pixels are written


@pytest.mark.parametrize("k,spoil", [(3, 0.0), (1, 0.3)])
def test_lift_kernel_equals_host(runtime, rng, k, spoil):
    """The device's start from a coarser level (the hole's estimate and every list's start, random
    where the scaled-up match is no source) equals the host's, and writes only the hole."""
    h, w = 60, 70
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    mask = blob_mask(h, w, rng, 0.3)
    masks = [mask, levels.down2(mask)]
    images = levels.image_pyramid(img, 2)
    fine_lev, coarse_lev = (levels.prepare_level(m, 2, None) for m in masks)
    coarse = HostLevel(coarse_lev, images[1], k, 2, {"levels": 0.0})
    coarse.est[coarse_lev.mask] = rng.integers(0, 256, (int(coarse_lev.mask.sum()), 4))
    coarse.best[:] = levels.random_sources(coarse_lev, 3)
    coarse.best[rng.random(len(coarse.best)) < spoil] = (0, 0)  # no source: scaled up, none either
    fine = HostLevel(fine_lev, images[0], k, 2, {"levels": 0.0})
    fine.lift(coarse, 77)
    assert fine.random_start == (spoil > 0)
    mf = cl.mem_flags

    def buf(a):
        return cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))

    n = len(fine_lev.targets)
    b = {"est": buf(images[0]), "holepix": buf(fine_lev.hole), "targets": buf(fine_lev.targets),
         "valid": buf(fine_lev.valid), "ends": buf(levels.valid_ends(fine_lev)),
         "nnf": buf(np.full((n, k, 2), SENTINEL, np.int32)), "cost": buf(np.full((n, k), 7, np.uint32)),
         "best": buf(np.full((n, 2), SENTINEL, np.int32)), "random_start": buf(np.zeros(1, np.int32))}
    up = {"est": buf(coarse.est), "tidx": buf(coarse_lev.tidx), "best": buf(coarse.best)}
    mcl.Pyramid(runtime, 2, k).lift(b, len(fine_lev.hole), n, (h, w), up, coarse_lev.shape[1], coarse_lev.work_args, 77)
    got = read(runtime, b["est"], images[0])
    np.testing.assert_array_equal(got, fine.est)  # colour and feature
    np.testing.assert_array_equal(got[~mask], images[0][~mask])
    np.testing.assert_array_equal(read(runtime, b["nnf"], fine.nnf), fine.nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], fine.cost), fine.cost)
    np.testing.assert_array_equal(read(runtime, b["best"], fine.best), fine.best)
    assert read(runtime, b["random_start"], np.zeros(1, np.int32))[0] == int(fine.random_start)


@pytest.mark.parametrize("half,layer,step,r,group", [(1, 0, 16, 7, None), (2, 1, 16, 7, None), (3, 2, 16, 7, None),
                                                     (2, 1, 128, 7, None), (1, 2, 255, 7, None), (2, 1, 128, 0, None),
                                                     (2, 2, 256, 0, None), (1, 1, 256, 0, None), (2, 1, 16, 7, 4),
                                                     (2, 1, 128, 7, 1)])
@pytest.mark.parametrize("cpu", [True, False])
def test_onion_kernels(runtime, rng, half, layer, step, r, group, cpu):
    """One layer's search and fill on the device equal the reference (sentinel-filled output),
    also where nearly every candidate ties (few colours, or a flat picture), with no random
    candidates, where the neighbours' sources alone decide, in their order, and with a search
    group of a few work-items, or one, each scoring several candidates."""
    lev, est, filled, osrc, layers = onion_state(rng, half=half, layer=layer, step=step)
    pix = layers[layer]
    cands = levels.random_valid(lev, np.arange(len(pix) * r, dtype=np.uint32), 4321).reshape(len(pix), r, 2)
    b, buf = device_buffers(runtime, lev, est, np.zeros((1, 1, 2), np.int32), np.zeros((1, 1), np.uint32))
    b["filled"], b["osrc"] = buf(filled), buf(osrc)
    found = buf(np.full((len(pix), 2), SENTINEL, np.int32))
    h, w = lev.shape
    kn = mcl.Onion(runtime, half, 1, cpu=cpu)
    kn.search_group = group or kn.search_group
    kn.search(b, buf(pix), found, len(pix), r, w, h, lev.radius, 4321, lev.work_args)
    want = ref.onion_search(est, filled, osrc, lev.valid, pix, cands, lev.origin, half, lev.radius, 4321)
    np.testing.assert_array_equal(read(runtime, found, want), want)
    kn.apply(b, buf(pix), found, len(pix), w, lev.work_args)
    ref.onion_apply(est, filled, osrc, pix, want, lev.origin)
    np.testing.assert_array_equal(read(runtime, b["est"], est), est)
    np.testing.assert_array_equal(read(runtime, b["filled"], filled), filled)
    np.testing.assert_array_equal(read(runtime, b["osrc"], osrc), osrc)


def naive_features(rgb, hole, r):
    """Straight from the description in pyramid.cl (edges, then features)."""
    h, w = hole.shape
    g = rgb.astype(np.int64).sum(axis=2)

    def edge(y, x):
        if not (0 < y < h - 1 and 0 < x < w - 1):
            return None
        if hole[y, x - 1] or hole[y, x + 1] or hole[y - 1, x] or hole[y + 1, x]:
            return None
        return abs(g[y, x + 1] - g[y, x - 1]) + abs(g[y + 1, x] - g[y - 1, x])

    out = np.zeros((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            if hole[y, x]:
                continue
            vals = [edge(yy, xx) for yy in range(max(y - r, 0), min(y + r, h - 1) + 1)
                    for xx in range(max(x - r, 0), min(x + r, w - 1) + 1)]
            vals = [v for v in vals if v is not None]
            if vals:
                out[y, x] = min((sum(vals) + 3 * len(vals)) // (6 * len(vals)), 255)
    return out


@pytest.mark.parametrize("h,w,r", [(1, 1, 2), (3, 5, 1), (17, 23, 2), (20, 9, 3)])
def test_texture_features_match_naive(rng, h, w, r):
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    hole = blob_mask(h, w, rng, 0.3) if h > 2 else np.zeros((h, w), bool)
    np.testing.assert_array_equal(ref.texture_features(img, hole, r), naive_features(img, hole, r))


def test_texture_features_ignore_the_hole(rng):
    """What the object looks like never reaches a known pixel's feature; a hole's is 0."""
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    hole = blob_mask(40, 50, rng, 0.3)
    other = img.copy()
    other[hole] = rng.integers(0, 256, (int(hole.sum()), 3))
    f = ref.texture_features(img, hole)
    np.testing.assert_array_equal(f, ref.texture_features(other, hole))
    assert (f[hole] == 0).all() and (f[~hole] > 0).all()
    flat = np.full_like(img, 90)
    assert (ref.texture_features(flat, hole) == 0).all()  # a flat picture has no texture


@pytest.mark.parametrize("h,w,cpu", [(1, 1, True), (7, 5, True), (33, 64, True), (61, 47, True), (61, 47, False)])
def test_features_kernel_equals_host(runtime, rng, h, w, cpu):
    """edges then features on the device equal the reference (odd sizes, a hole at a border), with
    the kernels' code for a CPU or a GPU."""
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    mask = blob_mask(h, w, rng, 0.35)
    mask[:, : max(w // 8, 1)] |= h > 5  # the hole may touch the border
    if not mask.any():
        mask[h // 2, w // 2] = True
    x0, y0, x1, y1 = geometry.bbox(mask)
    mf = cl.mem_flags

    def buf(a):
        return cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))

    est = np.zeros((h, w, 4), np.uint8)
    est[..., :3] = img
    est[..., 3] = 0xAB  # sentinel: every pixel's feature must be written
    b_est = buf(est)
    edges = buf(np.full((h, w), 0x1234, np.uint16))
    mcl.Pyramid(runtime, 2, 1, cpu=cpu).features(b_est, edges, buf(mask[y0:y1, x0:x1].astype(np.uint8)),
                                                 (x0, y0, x1 - x0, y1 - y0), (h, w))
    got = read(runtime, b_est, est)
    np.testing.assert_array_equal(got[..., :3], img)
    np.testing.assert_array_equal(got[..., 3], ref.texture_features(img, mask))
    np.testing.assert_array_equal(read(runtime, edges, np.empty((h, w), np.uint16)), ref.edges(img, mask))


# -- the level set-up -------------------------------------------------------------------------
@given(h=hs.integers(12, 40), w=hs.integers(12, 40), half=hs.integers(1, 3), seed=hs.integers(0, 999),
       alpha=hs.sampled_from([None, 0.0, 0.3, 1.0]))
def test_prepare_level_properties(h, w, half, seed, alpha):
    rng = np.random.default_rng(seed)
    mask = blob_mask(h, w, rng, 0.25)
    if not mask.any() or not (window_count(mask, half, True) == 0).any():
        return
    lev = levels.prepare_level(mask, half, alpha)
    ys, xs = np.nonzero(lev.valid)
    for y, x in zip(ys, xs):  # a source window is inside the image and free of the hole
        assert half <= y < h - half and half <= x < w - half
        assert not mask[y - half:y + half + 1, x - half:x + half + 1].any()
    x0, y0, x1, y1 = lev.area
    assert (ys - half >= y0).all() and (ys + half < y1).all() and (xs - half >= x0).all() and (xs + half < x1).all()
    eq6 = geometry.search_area(geometry.bbox(mask), alpha, w, h)
    assert x0 <= eq6[0] and y0 <= eq6[1] and x1 >= eq6[2] and y1 >= eq6[3]  # widening only grows
    assert lev.valid.sum() >= geometry.MIN_SOURCES or lev.area == (0, 0, w, h)
    # targets are exactly the centres whose window meets the hole
    near = np.zeros((h, w), bool)
    for y, x in zip(*np.nonzero(mask)):
        near[max(y - half, 0):y + half + 1, max(x - half, 0):x + half + 1] = True
    assert set(map(tuple, lev.targets)) == set(zip(*np.nonzero(near)))
    oy, ox = lev.origin
    assert (lev.tidx[lev.targets[:, 0] - oy, lev.targets[:, 1] - ox] == np.arange(len(lev.targets))).all()
    assert (lev.tidx >= 0).sum() == len(lev.targets)
    # the colours split the hole, and no two pixels of one colour are 4-neighbours
    red, black = (set(map(tuple, c)) for c in lev.colours)
    assert red | black == set(zip(*np.nonzero(mask))) and not red & black
    assert all((y + x) % 2 == 0 for y, x in red) and all((y + x) % 2 == 1 for y, x in black)


def test_pyramid_rules(rng):
    img = rng.integers(0, 256, (200, 260, 3), dtype=np.uint8)
    mask = np.zeros((200, 260), bool)
    mask[60:140, 80:190] = True
    masks = levels.mask_pyramid(mask, 7)
    images = levels.image_pyramid(img, len(masks))
    assert len(masks) > 1 and len(images) == len(masks)
    for a, m, b, n in zip(images, masks, images[1:], masks[1:]):
        assert b.shape[:2] == ((a.shape[0] + 1) // 2, (a.shape[1] + 1) // 2) and n.shape == b.shape[:2]
        # a coarse pixel is in the hole when any of its four fine pixels is
        ys, xs = np.nonzero(m)
        assert n[ys // 2, xs // 2].all()
        assert min(n.shape) >= 4 * 7
    # a hole thinner than a patch stays at full size
    thin = np.zeros((200, 260), bool)
    thin[100:103, :] = True
    assert len(levels.mask_pyramid(thin, 7)) == 1


@given(h=hs.integers(1, 9), w=hs.integers(1, 9), seed=hs.integers(0, 999))
def test_down2_matches_naive(h, w, seed):
    """A coarse pixel is the rounded mean of its 2x2 block, the last row and column repeated."""
    a = np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)
    got = levels.down2(a)
    assert got.shape == ((h + 1) // 2, (w + 1) // 2, 3)
    for y in range(got.shape[0]):
        for x in range(got.shape[1]):
            ys, xs = (2 * y, min(2 * y + 1, h - 1)), (2 * x, min(2 * x + 1, w - 1))
            for c in range(3):
                total = sum(int(a[yy, xx, c]) for yy in ys for xx in xs)
                assert got[y, x, c] == (total + 2) // 4


# -- end to end -------------------------------------------------------------------------------
def check_fill(img, mask, res, patch):
    """Known pixels kept; every filled pixel's source is an original known pixel inside a source
    window free of the hole (the copy before blending)."""
    assert (res.image[~mask] == img[~mask]).all()
    src = res.source_map
    assert (src[~mask] == -1).all()
    sy, sx = src[mask, 0], src[mask, 1]
    assert (sy >= 0).all() and (~mask[sy, sx]).all()
    free = window_count(mask, patch // 2, True) == 0  # centres of hole-free windows inside the image
    # the source pixel sits in its source window where the filled pixel sits in the covering target
    # window that decided it: within half a patch of a hole-free window's centre
    assert (window_count(free, patch // 2, False) > 0)[sy, sx].all()


def _opencl_equals_numpy(runtime, h, w, seed, patch, candidates, alpha) -> bool:
    """Both backends give the same bits and a valid fill; False where the random mask leaves nothing
    to compare (no hole, or no hole-free source window)."""
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img = (img // 32 * 32).astype(np.uint8)  # plenty of equal SSDs: ties must break alike
    mask = blob_mask(h, w, rng, 0.2)
    if not mask.any() or not (window_count(mask, patch // 2, True) == 0).any():
        return False
    kw = dict(method="multiscale", patch=patch, candidates=candidates, alpha=alpha, seed=seed % 7)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)
    check_fill(img, mask, a, patch)
    return True


# Each patch size, candidate count and blending of the random search below once (each pair of
# patch size and candidate count is a kernel program of its own, compiled on first use).
@pytest.mark.parametrize("h, w, seed, patch, candidates, alpha", [
    (36, 30, 11, 3, 1, "full"), (28, 40, 23, 5, 2, 0.0), (44, 34, 35, 7, 8, 0.5)])
def test_opencl_equals_numpy(runtime, h, w, seed, patch, candidates, alpha):
    assert _opencl_equals_numpy(runtime, h, w, seed, patch, candidates, alpha), "nothing to compare"


@pytest.mark.slow
@settings(max_examples=15)
@given(h=hs.integers(20, 44), w=hs.integers(20, 44), seed=hs.integers(0, 9999),
       patch=hs.sampled_from([3, 5, 7]), candidates=hs.sampled_from([1, 2, 8]),
       alpha=hs.sampled_from(["full", 0.0, 0.5]))
def test_opencl_equals_numpy_on_random_cases(runtime, h, w, seed, patch, candidates, alpha):
    _opencl_equals_numpy(runtime, h, w, seed, patch, candidates, alpha)


def test_opencl_equals_numpy_with_the_mean_colour_term(runtime):
    """A fill deep enough for the levels that weigh the windows' mean colour (and a smooth, shaded
    picture, where the term decides between sources)."""
    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[0:100, 0:108]
    img = np.stack([xx * 2, yy * 2, (xx + yy)], -1).astype(np.uint8)
    img[::7] //= 2  # dark stripes: smooth sources of another colour
    img = (img + rng.integers(0, 24, img.shape)).astype(np.uint8)
    mask = np.zeros((100, 108), bool)
    mask[30:70, 40:80] = True
    kw = dict(method="multiscale", patch=3, seed=2)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert len(a.stats.levels) > ms.MEAN_FROM
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)
    check_fill(img, mask, a, 3)


def test_opencl_equals_numpy_with_tiled_sweeps(runtime, monkeypatch):
    """A whole fill whose corrections all take the tiled sweeps (small tiles, so each level's hole
    spans several, with a protected band beside it) gives numpy's bits."""
    made = mcl.kernels
    tiled = []

    def kernels(*args, **kw):
        kn = made(*args, **kw)
        p = kn["poisson"]
        for name, value in (("FUSED_PIXELS", 0), ("local_pixels", 0), ("channel_pixels", 0), ("in_tiles", True)):
            monkeypatch.setattr(p, name, value)  # on the runtime's wrapper: undone after the test
        monkeypatch.setattr(p.tiles, "tile", 9)
        monkeypatch.setattr(p.tiles, "halo", 3)
        monkeypatch.setattr(p, "tiled", lambda *a, **k: tiled.append(1) or type(p).tiled(p, *a, **k))
        return kn

    monkeypatch.setattr(mcl, "kernels", kernels)
    rng = np.random.default_rng(8)
    yy, xx = np.mgrid[0:90, 0:100]
    img = np.stack([xx * 2, yy * 2, (xx * 3 + yy) % 256], -1).astype(np.uint8)
    img = (img + rng.integers(0, 30, img.shape)).astype(np.uint8)
    mask = np.zeros((90, 100), bool)
    mask[20:62, 30:75] = True
    mask[70:, 5:20] = True  # a second part, at the image's edge
    protect = np.zeros_like(mask)
    protect[14:18, 25:80] = True
    kw = dict(method="multiscale", patch=3, seed=3, protect=protect)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert len(b.stats.levels) > 1 and len(tiled) == b.stats.iterations  # every round's correction in tiles
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


def test_levels_and_stats(runtime, rng):
    img = rng.integers(0, 256, (120, 150, 3), dtype=np.uint8)
    mask = np.zeros((120, 150), bool)
    mask[30:90, 40:110] = True
    job = start(img, mask, backend="opencl", device=runtime.device)
    seen = []
    while job.step():
        seen.append(job.progress)
        assert (job.image[~mask] == img[~mask]).all()
    res = job.result()
    assert seen == sorted(seen) and job.progress == 1.0 and job.done
    st = res.stats
    assert st.method == "multiscale" and len(st.levels) > 1 and st.levels[0] == (150, 120)
    assert st.iterations == ms.ROUNDS_COARSEST + ms.ROUNDS_FINEST + ms.ROUNDS * (len(st.levels) - 2)
    assert st.backend == "opencl" and all(v >= 0 for v in st.stage_seconds.values())
    check_fill(img, mask, res, ms.DEFAULT_PATCH)


def test_empty_mask_and_errors(rng):
    img = rng.integers(0, 256, (20, 20, 3), dtype=np.uint8)
    res = inpaint(img, np.zeros((20, 20), bool), backend="numpy")
    assert res.stats.empty_mask and (res.image == img).all()
    mask = np.zeros((20, 20), bool)
    mask[5:15, 5:15] = True
    for kw in ({"candidates": 0}, {"candidates": 9}, {"candidates": 2.5}, {"patch": 4}, {"patch": 33},
               {"alpha": -1}, {"seed": -1}, {"backend": "cuda"}, {"variant": "local"}, {"method": "magic"},
               {"timings": "no"}):
        with pytest.raises(InputError):
            inpaint(img, mask, **{"backend": "numpy", **kw})
    with pytest.raises(InputError, match="whole image"):
        inpaint(img, np.ones((20, 20), bool), backend="numpy")
    with pytest.raises(InputError, match="no valid source patch"):
        inpaint(img, np.pad(np.ones((16, 16), bool), 2), backend="numpy", patch=7)


@pytest.mark.parametrize("seeds", first_by_default([(0, 1), (7, 65535)]))
def test_seed_gives_the_same_bits_and_another_fill(runtime, rng, seeds):
    """(3-pixel patches: two levels, the coarse one's random start and the lifted one's, in a
    fifth of the numpy time of the default patch, where this photo is one level.)"""
    img = rng.integers(0, 256, (48, 56, 3), dtype=np.uint8)
    mask = blob_mask(48, 56, rng)
    fills = []
    for seed in seeds:
        a = inpaint(img, mask, seed=seed, patch=3, backend="numpy")
        assert len(a.stats.levels) > 1
        b = inpaint(img, mask, seed=seed, patch=3, backend="opencl", device=runtime.device)
        again = inpaint(img, mask, seed=seed, patch=3, backend="opencl", device=runtime.device)
        for other in (b, again):  # the same seed: the same bits, on either backend
            np.testing.assert_array_equal(a.image, other.image)
            np.testing.assert_array_equal(a.source_map, other.source_map)
        check_fill(img, mask, a, 3)
        fills.append(a)
    first, second = fills
    changed = (first.source_map != second.source_map).any(axis=2)[mask].mean()
    assert changed > 0.25, f"another seed moved only {changed:.0%} of the sources"
    assert (first.image[mask] != second.image[mask]).any(axis=1).mean() > 0.25


def test_random_sources_pick_the_kth_valid_centre(rng):
    lev, *_ = level_state(rng, h=31, w=37)
    got = levels.random_sources(lev, 1234)
    listed = np.argwhere(lev.valid)  # every valid centre, row-major
    k = ref.hash32(np.arange(len(lev.targets), dtype=np.uint32) * np.uint32(2654435761) + np.uint32(1234))
    np.testing.assert_array_equal(got, listed[(k % np.uint32(len(listed))).astype(np.int64)])


def _finest_level(img, mask):
    """The finest level's search as the fill ran it, and the level's whole search.  (3-pixel
    patches: three levels of a small photo in a quarter of the default patch's numpy time.)"""
    job = ms.MultiscaleInpainter(img, mask, patch=3, backend="numpy")
    assert len(job.stats.levels) > 1
    state = None
    while not job.done:  # (a finished fill lets go of its state)
        state = job._part._state
        job.step()
    return state, levels.prepare_level(mask, job.half, job.alpha)


def _finest_scene():
    img = np.random.default_rng(5).integers(0, 256, (60, 76, 3), dtype=np.uint8)
    mask = np.zeros((60, 76), bool)
    mask[20:40, 25:50] = True
    return img, mask


def test_the_finest_level_searches_near_the_lifted_matches():
    img, mask = _finest_scene()
    st, whole = _finest_level(img, mask)
    assert st.short
    assert st.lev.short == (min(whole.radius, ms.RADIUS_FINEST), ms.JUMP_FINEST) != (whole.radius, whole.jump)


def test_a_random_start_at_the_finest_level_keeps_the_whole_search(monkeypatch):
    img, mask = _finest_scene()
    lifted = levels.upsampled_sources

    def one_random(level, coarse, coarse_best, key):  # the first target's coarse match is no source here
        best = coarse_best.copy()
        t = level.targets[0] >> 1
        best[coarse.tidx[t[0] - coarse.origin[0], t[1] - coarse.origin[1]]] = -1
        starts, all_lifted = lifted(level, coarse, best, key)
        assert not all_lifted
        return starts, all_lifted

    monkeypatch.setattr(host, "upsampled_sources", one_random)
    st, whole = _finest_level(img, mask)
    assert st.lev.short[0] > 0 and not st.short


# -- holes far apart, filled one group after another -------------------------------------------


def _components(mask):
    """Every 8-connected component of ``mask``, by flood fill (an oracle beside the cell grid)."""
    left, out = mask.copy(), []
    while left.any():
        stack = [tuple(np.argwhere(left)[0])]
        comp = np.zeros_like(mask)
        while stack:
            y, x = stack.pop()
            if 0 <= y < mask.shape[0] and 0 <= x < mask.shape[1] and left[y, x]:
                left[y, x], comp[y, x] = False, True
                stack += [(y + dy, x + dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        out.append(comp)
    return out


@given(h=hs.integers(8, 70), w=hs.integers(8, 70), seed=hs.integers(0, 9999), n=hs.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_hole_groups_split_the_hole_along_its_parts(h, w, seed, n):
    """The groups are disjoint, cover the hole, run largest first, and never cut a part."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((h, w), bool)
    for _ in range(n):
        y, x = rng.integers(0, h), rng.integers(0, w)
        mask[y:y + rng.integers(1, 6), x:x + rng.integers(1, 6)] = True
    groups = levels.hole_groups(mask)
    assert len(groups) <= levels.MAX_GROUPS
    assert sum(g.astype(int) for g in groups).max() == 1 if len(groups) > 1 else groups[0] is mask
    np.testing.assert_array_equal(np.logical_or.reduce(groups), mask)
    sizes = [int(g.sum()) for g in groups]
    assert sizes == sorted(sizes, reverse=True)
    for comp in _components(mask):
        assert sum(bool((g & comp).any()) for g in groups) == 1


def test_hole_groups_keep_near_parts_together_and_far_ones_apart():
    mask = np.zeros((400, 600), bool)
    mask[20:40, 30:60] = True     # 30 wide: grown by 30 it reaches x = 90
    mask[20:40, 85:95] = True     # inside that: the same group
    mask[350:370, 540:560] = True  # far away: a group of its own
    groups = levels.hole_groups(mask)
    assert len(groups) == 2
    assert groups[0][20, 30] and groups[0][20, 90] and not groups[0][360, 550]
    assert groups[1][360, 550] and groups[1].sum() == 20 * 20
    wires = np.zeros((300, 500), bool)  # two strokes across the photo: one group, as before
    wires[100:103, :] = True
    wires[200:204, :] = True
    assert levels.hole_groups(wires)[0] is wires
    specks = np.zeros((400, 400), bool)  # more parts than are told apart: the hole is one group
    specks[::24, ::24] = True
    assert len(_components(specks)) > levels.MAX_PARTS and levels.hole_groups(specks)[0] is specks
    three = np.zeros((400, 600), bool)  # three groups: one fill, cheaper than three pyramids
    three[10:30, 10:30] = three[370:390, 10:30] = three[370:390, 570:590] = True
    assert levels.hole_groups(three)[0] is three
    near = np.zeros((400, 600), bool)  # far apart for their size, but in a small box: one fill
    near[100:104, 100:104] = near[100:104, 200:204] = True
    assert levels.hole_groups(near)[0] is near


def _far_scene():
    rng = np.random.default_rng(4)
    yy, xx = np.mgrid[0:150, 0:220]
    img = np.stack([(xx * 3) % 256, (yy * 5) % 256, ((xx + yy) * 7) % 256], -1).astype(np.uint8)
    img = np.clip(img.astype(int) + rng.integers(-20, 21, img.shape), 0, 255).astype(np.uint8)
    mask = np.zeros((150, 220), bool)
    mask[10:30, 12:34] = True
    mask[118:140, 180:205] = True
    return img, mask


# 3-pixel patches: the groups do not depend on the patch, and the numpy fills take less than half
# the default patch's time.
FAR_PATCH = 3


def test_far_holes_are_filled_apart():
    """Pixels outside the hole unchanged; every source outside the whole hole; the rounds of both
    groups; progress reaches 1 through the groups in order."""
    img, mask = _far_scene()
    seen = []
    job = start(img, mask, patch=FAR_PATCH, backend="numpy")
    assert len(job._groups) == 2
    while job.step():
        seen.append(job.progress)
    got = job.result()
    assert got.stats.groups == 2 and seen == sorted(seen) and job.progress == 1.0
    np.testing.assert_array_equal(got.image[~mask], img[~mask])
    src = got.source_map[mask]
    assert (src >= 0).all() and not mask[src[:, 0], src[:, 1]].any()
    assert (got.source_map[~mask] == -1).all()
    alone = [ms._Fill(img, g, whole=mask, patch=FAR_PATCH, backend="numpy").run().stats.iterations
             for g in job._groups]
    assert got.stats.iterations == sum(alone)


@pytest.mark.opencl
def test_far_holes_are_filled_apart_exactly_alike_by_numpy_and_opencl():
    img, mask = _far_scene()
    got = inpaint(img, mask, patch=FAR_PATCH, backend="numpy")
    assert got.stats.groups == 2
    other = inpaint(img, mask, patch=FAR_PATCH, backend="opencl")
    np.testing.assert_array_equal(got.image, other.image)
    np.testing.assert_array_equal(got.source_map, other.source_map)


# (numpy in the slow selection: the two backends' fills of far-apart holes are the same bits, above,
# and numpy's takes seconds)
@pytest.mark.parametrize("backend", [pytest.param("numpy", marks=pytest.mark.slow),
                                     pytest.param("opencl", marks=pytest.mark.opencl)])
def test_a_far_group_never_copies_from_under_another_part(backend):
    """The object under one part of the hole is no source for another part's fill, even when it
    matches that part's surroundings best and the search covers the whole photo."""
    rng = np.random.default_rng(8)
    img = np.clip(128 + rng.integers(-12, 13, (150, 220, 3)), 0, 255).astype(np.uint8)
    mask = np.zeros((150, 220), bool)
    mask[20:36, 20:40] = True
    mask[100:140, 160:210] = True
    red = np.array([200, 30, 40])
    img[14:42, 14:46] = np.clip(red + rng.integers(-12, 13, (28, 32, 3)), 0, 255)  # a red frame around the first
    img[100:140, 160:210] = np.clip(red + rng.integers(-12, 13, (40, 50, 3)), 0, 255)  # red under the second
    assert len(levels.hole_groups(mask)) == 2
    got = inpaint(img, mask, alpha="full", backend=backend)
    src = got.source_map[mask]
    assert not mask[src[:, 0], src[:, 1]].any()

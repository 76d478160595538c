"""The gradient-domain vote (``--vote gradients``): its numpy reference against naive loops and a
float64 direct solve, the kernels against the reference bit for bit, and the fill's contract
(known pixels untouched, every hole pixel written)."""

import numpy as np
import pytest

from inpaint.api import inpaint
from inpaint.errors import InputError
from inpaint.methods.multiscale import gradients as grad, levels, opencl as mcl, reference as ref


def _scene(h, w, seed, hole=(0.3, 0.3)):
    """A textured photo (stripes, a gradient, a hard edge and noise) and one rectangular hole in it."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([(xx * 3 + yy) % 256, (yy * 5) % 256, np.where(xx > w // 2, 200, 40)], -1)
    img = np.clip(img + rng.integers(-20, 21, img.shape), 0, 255).astype(np.uint8)
    mask = np.zeros((h, w), bool)
    y0, x0 = int(rng.integers(h // 4, h // 2)), int(rng.integers(w // 4, w // 2))
    mask[y0:y0 + int(h * hole[0]), x0:x0 + int(w * hole[1])] = True
    return img, mask


def _level_state(seed, k, protect=False):
    """A frozen level: a picture with its hole, random valid matches with sorted costs, and a
    low-pass map (the state a round's votes read)."""
    rng = np.random.default_rng(seed)
    img, mask = _scene(41, 53, seed)
    prot = None
    if protect:
        prot = np.zeros_like(mask)
        ys, xs = np.nonzero(mask)
        prot[ys.min() - 2:ys.min(), xs.min():xs.max() + 1] = True  # a protected band along the hole's top
    lev = levels.prepare_level(mask, 3, None, prot)
    est = np.concatenate([img, rng.integers(0, 40, img.shape[:2] + (1,), dtype=np.uint8)], -1)
    est[mask] = rng.integers(0, 256, (int(mask.sum()), 4), dtype=np.uint8)
    valid = np.argwhere(lev.valid)
    n = len(lev.targets)
    nnf = valid[rng.integers(0, len(valid), (n, k))].astype(np.int32)
    cost = np.sort(rng.integers(0, 200000, (n, k)), axis=1).astype(np.uint32)
    if k > 1:
        cost[rng.random(n) < 0.2, -1] = ref.EMPTY  # some lists not full
    rect = levels.source_rect(lev, 3)
    low = (ref.low_pass(est, lev.solve_map, lev.origin, rect), (rect[1], rect[0]))
    return est, lev, nnf, cost, low


def _naive_gradient(est, lev, nnf, cost, half, k_use, softness, p, e, low):
    """One pixel's voted gradient along edge e, by plain loops over the windows holding the edge."""
    (py, px), (ey, ex) = p, e
    oy, ox = lev.origin
    acc, wsum, best, cmin = [0, 0, 0], 0, None, int(ref.EMPTY)
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            if dy + ey > half or dx + ex > half:
                continue  # the neighbour falls outside this window
            ly, lx = py - dy - oy, px - dx - ox
            if not (0 <= ly < lev.tidx.shape[0] and 0 <= lx < lev.tidx.shape[1]) or lev.tidx[ly, lx] < 0:
                continue
            t = lev.tidx[ly, lx]
            for k in range(k_use):
                ck = int(cost[t, k])
                if ck == int(ref.EMPTY):
                    continue
                wk = (256 * softness) // (softness + ck - int(cost[t, 0]))
                sy, sx = int(nnf[t, k, 0]) + dy, int(nnf[t, k, 1]) + dx
                for c in range(3):
                    if low is None:
                        d = int(est[sy + ey, sx + ex, c]) - int(est[sy, sx, c])
                    else:
                        m, (my, mx) = low
                        d = int(m[sy + ey - my, sx + ex - mx, c]) - int(m[sy - my, sx - mx, c])
                    acc[c] += wk * d
                wsum += wk
                if ck < cmin:
                    cmin, best = ck, (sy, sx)
    if wsum == 0:
        return [0, 0, 0]
    g = [(a * grad.GRAD_SCALE + wsum // 2) // wsum for a in acc]
    if low is not None:
        m, (my, mx) = low
        by, bx = best
        for c in range(3):
            hi = int(est[by + ey, bx + ex, c]) - int(m[by + ey - my, bx + ex - mx, c])
            lo = int(est[by, bx, c]) - int(m[by - my, bx - mx, c])
            g[c] += (hi - lo) * grad.GRAD_SCALE
    return g


@pytest.mark.parametrize("seed, k, split", [(1, 1, False), (2, 3, False), (3, 1, True), (4, 2, True)])
def test_gradient_vote_equals_a_naive_loop(seed, k, split):
    est, lev, nnf, cost, low = _level_state(seed, k)
    gx = np.full(lev.tidx.shape + (4,), -7, np.int32)  # a sentinel: the listed pixels must be written
    gy = gx.copy()
    softness = 340 * 3 * 49
    grad.gradient_vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k, softness, gx, gy,
                       low if split else None)
    oy, ox = lev.origin
    for p in lev.pixels[::3]:
        for e, out in (((0, 1), gx), ((1, 0), gy)):
            want = _naive_gradient(est, lev, nnf, cost, 3, k, softness, p, e, low if split else None)
            assert out[p[0] - oy, p[1] - ox, :3].tolist() == want, (p, e)


def _naive_sweeps(hole, est, v, x, x0, gx, gy, origin, sweeps, screen):
    """The screened Gauss-Seidel sweeps pixel by pixel: the even pixels (y + x), then the odd ones,
    each in row order, with Python's integers."""
    x = x.astype(object).copy()
    H, W = est.shape[:2]
    oy, ox = origin
    pix = [tuple(p) for p in np.argwhere(hole == 1)]
    for _ in range(sweeps):
        for parity in (0, 1):
            for ly, lx in pix:
                if (ly + oy + lx + ox) % 2 != parity:
                    continue
                for c in range(3):
                    s, n = 0, 0
                    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                        qy, qx = ly + dy, lx + dx
                        if not (0 <= qy + oy < H and 0 <= qx + ox < W) or hole[qy, qx] == 2:
                            continue
                        n += 1
                        fq = (int(est[qy + oy, qx + ox, c]) * ref.FIX if hole[qy, qx] == 0
                              else int(v[qy, qx, c]) * ref.FIX + x[qy, qx, c])
                        g = {(0, 1): gx[ly, lx, c], (0, -1): -gx[qy, qx, c], (1, 0): gy[ly, lx, c],
                             (-1, 0): -gy[qy, qx, c]}[dy, dx]
                        s += fq - int(g) * (ref.FIX // grad.GRAD_SCALE)
                    den = screen + grad.SCREEN_DEN * n
                    if den == 0:
                        continue
                    num = screen * (int(v[ly, lx, c]) * ref.FIX + int(x0[ly, lx, c])) + grad.SCREEN_DEN * s
                    x[ly, lx, c] = (num + den // 2) // den - int(v[ly, lx, c]) * ref.FIX
    return x.astype(np.int64)


def _solve_state(seed, protect):
    """A work area whose hole meets the image's top edge (and, with ``protect``, a protected band),
    random votes, gradients and corrections."""
    rng = np.random.default_rng(seed)
    H, W = 14, 17
    hole = np.zeros((H, W), np.uint8)
    hole[0:8, 4:13] = 1
    if protect:
        hole[3:8, 13] = 2
    est = rng.integers(0, 256, (H, W, 4)).astype(np.uint8)
    v = rng.integers(0, 256, (H, W, 4)).astype(np.int32)
    x = rng.integers(-30 * ref.FIX, 30 * ref.FIX, (H, W, 4)).astype(np.int32)
    gx = rng.integers(-40 * grad.GRAD_SCALE, 40 * grad.GRAD_SCALE, (H, W, 4)).astype(np.int32)
    gy = rng.integers(-40 * grad.GRAD_SCALE, 40 * grad.GRAD_SCALE, (H, W, 4)).astype(np.int32)
    pix = np.argwhere(hole == 1).astype(np.int32)
    parity = pix.sum(1) & 1
    return hole, est, v, x, gx, gy, (pix[parity == 0], pix[parity == 1])


@pytest.mark.parametrize("seed, protect, screen", [(1, False, grad.SCREEN), (2, True, 3), (3, True, 0)])
def test_screened_sweeps_equal_a_naive_loop(seed, protect, screen):
    hole, est, v, x, gx, gy, lists = _solve_state(seed, protect)
    x0 = x.copy()
    want = _naive_sweeps(hole, est, v, x, x0, gx, gy, (0, 0), 3, screen)
    grad.screened_sweeps(hole, est, v, x, x0, gx, gy, lists, (0, 0), 3, screen)
    assert np.array_equal(x[..., :3], want[..., :3])


@pytest.mark.parametrize("protect", [False, True])
def test_screened_sweeps_converge_to_the_direct_solution(protect):
    """Many sweeps reach the minimiser of lambda |f - c|^2 + |grad f - g|^2 with the known pixels fixed,
    solved directly in float64, to within 0.02 grey levels (fixed-point rounding)."""
    hole, est, v, x, gx, gy, lists = _solve_state(5, protect)
    x0 = x.copy()
    lam = grad.SCREEN / grad.SCREEN_DEN
    pix = [tuple(p) for p in np.argwhere(hole == 1)]
    index = {p: i for i, p in enumerate(pix)}
    H, W = hole.shape
    for c in range(3):
        a = np.zeros((len(pix), len(pix)))
        b = np.zeros(len(pix))
        for i, (y, xx) in enumerate(pix):
            a[i, i] += lam
            b[i] += lam * (v[y, xx, c] + x0[y, xx, c] / ref.FIX)
            for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                qy, qx = y + dy, xx + dx
                if not (0 <= qy < H and 0 <= qx < W) or hole[qy, qx] == 2:
                    continue
                g = {(0, 1): gx[y, xx, c], (0, -1): -gx[qy, qx, c], (1, 0): gy[y, xx, c],
                     (-1, 0): -gy[qy, qx, c]}[dy, dx] / grad.GRAD_SCALE
                a[i, i] += 1  # (f_p - f_q + g_pq)^2 / 2 each side: the normal equations of the edge
                b[i] -= g
                if hole[qy, qx] == 1:
                    a[i, index[qy, qx]] -= 1
                else:
                    b[i] += est[qy, qx, c]
        f = np.linalg.solve(a, b)
        if c == 0:
            grad.screened_sweeps(hole, est, v, x, x0, gx, gy, lists, (0, 0), 1500)
        got = np.array([v[p][c] + x[p][c] / ref.FIX for p in pix])
        assert np.abs(got - f).max() < 0.02


def test_the_option_is_checked():
    img, mask = _scene(60, 70, 1)
    with pytest.raises(InputError, match="vote must be one of 'colours', 'gradients'"):
        inpaint(img, mask, backend="numpy", vote="gradient")


def test_the_fill_writes_every_hole_pixel_and_nothing_else():
    """Known pixels are never written, and every hole pixel is: a sentinel colour under the hole
    is gone from it (the photo holds none of it)."""
    img, mask = _scene(70, 90, 2, hole=(0.4, 0.35))
    img[(img == (255, 0, 255)).all(-1)] = (254, 0, 255)
    given = img.copy()
    given[mask] = (255, 0, 255)
    got = inpaint(given, mask, backend="numpy", vote="gradients", seed=1).image
    assert np.array_equal(got[~mask], given[~mask])
    assert not (got[mask] == (255, 0, 255)).all(-1).any()


def test_gradients_change_the_fill():
    """The option is read: the voted gradients move some of the hole's pixels."""
    img, mask = _scene(70, 90, 3)
    a = inpaint(img, mask, backend="numpy", seed=2).image
    b = inpaint(img, mask, backend="numpy", vote="gradients", seed=2).image
    assert np.array_equal(a[~mask], b[~mask]) and not np.array_equal(a[mask], b[mask])


@pytest.mark.opencl
@pytest.mark.parametrize("h, w, seed, candidates, fused, replaces", [
    (150, 180, 1, 1, True, False), (130, 170, 2, 3, True, False), (120, 150, 3, 1, False, False),
    (110, 140, 5, 1, True, True)])
def test_opencl_equals_numpy_with_gradients(runtime, monkeypatch, h, w, seed, candidates, fused, replaces):
    """Bit for bit on fills of several levels, with one and several candidates, swept in one launch
    and in tiles as larger holes are (the screened solve), the solve
    following the correction or replacing it, and at every level."""
    if not fused:
        monkeypatch.setattr(mcl.Poisson, "FUSED_PIXELS", 0)
    monkeypatch.setattr(grad, "GRADIENT_REPLACES", replaces)
    monkeypatch.setattr(grad, "GRADIENT_FROM", 0)
    img, mask = _scene(h, w, seed)
    kw = dict(candidates=candidates, seed=seed, vote="gradients")
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.source_map, b.source_map)


@pytest.mark.opencl
def test_opencl_equals_numpy_with_gradients_and_protected_pixels(runtime):
    img, mask = _scene(120, 160, 4)
    protect = np.zeros_like(mask)
    ys, xs = np.nonzero(mask)
    protect[ys.min() - 6:ys.min() - 1, xs.min() - 4:xs.max() + 4] = True
    kw = dict(seed=4, vote="gradients", protect=protect)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(b.image[~mask], img[~mask])


def test_the_kernels_get_the_references_constants():
    pytest.importorskip("pyopencl")
    d = mcl._defines(3, 1)
    assert (d["GRAD_SCALE"], d["SCREEN"], d["SCREEN_DEN"]) == (grad.GRAD_SCALE, grad.SCREEN, grad.SCREEN_DEN)
    assert ref.FIX % grad.GRAD_SCALE == 0  # the solve scales gradients to the fill's fixed point exactly

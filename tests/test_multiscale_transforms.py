"""Transformed sources (``transforms``): the search also copies source patches mirrored, turned and
scaled.  Naive loops check the reference's transformed distance, lists and votes; the kernels
must equal the reference bit for bit; the option keeps the fill's contract and reaches the command."""


import numpy as np
import pyopencl as cl
import pytest
from PIL import Image
from test_multiscale import SENTINEL, check_fill, device_buffers, level_state, read, target_at
from test_multiscale_match_options import naive_adapted, shaded_scene

from inpaint.api import inpaint
from inpaint.methods.multiscale import gradients as grad, levels, opencl as mcl, reference as ref

CHANNEL_WEIGHTS = (1, 1, 1, ref.FEATURE_WEIGHT)


# -- naive oracles --------------------------------------------------------------------------------
def naive_matrix(code):
    """The transform of ``code`` as a 2x2 matrix on (dy, dx): the axes swapped (bit 1), then the row
    (bit 2) and the column (bit 4) negated."""
    m = np.array([[0, 1], [1, 0]]) if code & 1 else np.eye(2, dtype=int)
    if code & 2:
        m[0] = -m[0]
    if code & 4:
        m[1] = -m[1]
    return m


def naive_source(s, code, dy, dx):
    """The pixel nearest where the transformed source window at s reads the offset (dy, dx)."""
    if code < 8:
        oy, ox = naive_matrix(code) @ (dy, dx)
        return int(s[0] + oy), int(s[1] + ox)
    m = [int(v) for v in ref.XFORM_TABLE[code]]
    return int(s[0]) + (m[0] * dy + m[1] * dx + 128) // 256, int(s[1]) + (m[2] * dy + m[3] * dx + 128) // 256


def naive_reads(s, code, dy, dx):
    """The sample position (1/256) and the pixels a bilinear read there uses, with their weights."""
    m = [int(v) for v in ref.XFORM_TABLE[code]]
    fy, fx = int(s[0]) * 256 + m[0] * dy + m[1] * dx, int(s[1]) * 256 + m[2] * dy + m[3] * dx
    iy, wy, ix, wx = fy // 256, fy % 256, fx // 256, fx % 256
    return [((iy + a, ix + b), (wy if a else 256 - wy) * (wx if b else 256 - wx))
            for a in (0, 1) for b in (0, 1) if (wy if a else 256 - wy) and (wx if b else 256 - wx)]


def naive_value(est, s, code, dy, dx, c):
    """Channel c of what the transformed source window at s copies to the offset (dy, dx): the pixel
    for an exact code, else the bilinear mean of its four neighbours (weights in 1/256), rounded."""
    if code < 8:
        return int(est[naive_source(s, code, dy, dx)][c])
    return (sum(int(est[q][c]) * w for q, w in naive_reads(s, code, dy, dx)) + 32768) // 65536


def naive_distance(est, t, s, code, half, grad_w=0, codes=None, mean=0, near=0):
    """The weighted SSD of the target window against the source window read through the transform,
    plus the gradient, mean-colour and distance terms, over the target window's in-image pixels."""
    h, w = est.shape[:2]
    acc, e, sums = 0, {}, [0, 0, 0]
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            y, x = t[0] + dy, t[1] + dx
            if not (0 <= y < h and 0 <= x < w):
                continue
            d = []
            for c in range(4):
                sv = naive_value(est, s, code, dy, dx, c)
                if codes is not None and c < 3:
                    sv = naive_adapted(sv, codes[c])
                d.append(int(est[y, x, c]) - sv)
                acc += CHANNEL_WEIGHTS[c] * d[c] * d[c]
                if c < 3:
                    sums[c] += d[c]
            e[dy, dx] = d[0] + d[1] + d[2]
    for (dy, dx), v in e.items():
        for prev in ((dy, dx - 1), (dy - 1, dx)):
            if prev in e:
                acc += (grad_w * (v - e[prev]) ** 2) >> ref.GRAD_SHIFT
    return (acc + (mean * sum(v * v for v in sums)) // (4 * len(e))
            + near * (abs(int(t[0]) - int(s[0])) + abs(int(t[1]) - int(s[1]))))


def naive_transformed_adaptation(est, t, s, code, half):
    """Per channel gain and bias (as the untransformed oracle) over the target window's in-image
    pixels and the source pixels the transform pairs with them."""
    h, w = est.shape[:2]
    pairs = [((t[0] + dy, t[1] + dx), (dy, dx)) for dy in range(-half, half + 1)
             for dx in range(-half, half + 1) if 0 <= t[0] + dy < h and 0 <= t[1] + dx < w]
    codes = []
    for c in range(3):
        st = sum(int(est[p][c]) for p, _ in pairs)
        ss = sum(naive_value(est, s, code, *o, c) for _, o in pairs)
        gain = min(max((256 * st + ss // 2) // max(ss, 1), ref.GAIN_MIN), ref.GAIN_MAX)
        n256 = 256 * len(pairs)
        bias = min(max((256 * st - gain * ss + n256 // 2) // n256, -ref.BIAS_MAX), ref.BIAS_MAX)
        codes.append(gain * 256 + bias + 128)
    return codes + [ref.ADAPT_NONE]


def naive_vote(est, pixels, lev, nnf, cost, xf, half, k_use, softness, split=False):
    """The vote's values by pixel: each covering window copies its offset (dy, dx) from its match
    through its transform."""
    out = {}
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
                    q = naive_source(nnf[t, j], xf[t, j], dy, dx)
                    val = [naive_value(est, nnf[t, j], xf[t, j], dy, dx, c) for c in range(4)]
                    for c in range(4):
                        acc[c] += wk * val[c]
                    ws += wk
                    if split:
                        lp = naive_low_pass_at(lev, est, q)
                        low = [a + wk * int(b) for a, b in zip(low, lp)]
                        if bcost is None or cost[t, j] < bcost:
                            best, bcost, bval = q, cost[t, j], val
        out[(y, x)] = [(a + ws // 2) // ws for a in acc]
        if split:
            lp = naive_low_pass_at(lev, est, best)
            out[(y, x)][:3] = [min(max((a + ws // 2) // ws + bval[c] - int(lp[c]), 0), 255)
                               for c, a in enumerate(low)]
    return out


def naive_low_pass_at(lev, est, q):
    from test_multiscale import naive_low_pass

    return naive_low_pass(est, lev.mask, *q)


def naive_gradient(est, lev, nnf, cost, xf, half, k_use, softness, p, e):
    """One pixel's voted gradient along edge e: every window holding both pixels votes the
    difference of the two source pixels it copies there through its transform."""
    (py, px), (ey, ex) = p, e
    acc, wsum = [0, 0, 0], 0
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            if dy + ey > half or dx + ex > half:
                continue
            t = target_at(lev, py - dy, px - dx)
            if t < 0:
                continue
            for k in range(k_use):
                ck = int(cost[t, k])
                if ck == int(ref.EMPTY):
                    continue
                wk = (256 * softness) // (softness + ck - int(cost[t, 0]))
                for c in range(3):
                    acc[c] += wk * (naive_value(est, nnf[t, k], xf[t, k], dy + ey, dx + ex, c)
                                    - naive_value(est, nnf[t, k], xf[t, k], dy, dx, c))
                wsum += wk
    return [0, 0, 0] if wsum == 0 else [(a * grad.GRAD_SCALE + wsum // 2) // wsum for a in acc]


def transformed_state(rng, mode=2, h=28, w=34, half=2, k=3, iterations=2, grad_w=0, mean=0, near=0, adapt=False):
    """``level_state``, then searched with transformed sources: (lev, est, nnf, cost, xf, bxf, codes)."""
    lev, est, nnf, cost, best = level_state(rng, h=h, w=w, half=half, k=k, iterations=0, mean=mean, near=near)
    xf = np.zeros(cost.shape, np.int32)
    codes = np.full((len(lev.targets), k, 4), ref.ADAPT_NONE, np.int32) if adapt else None
    ref.rescore(est, lev.targets, nnf, cost, half, mean, near, grad_w, codes, xf)
    best = nnf[:, 0].copy()
    bxf = xf[:, 0].copy()
    wide = levels.wide_sources(lev, half) if mode == 3 else None
    for it in range(iterations):
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best.copy(), best, half,
                       lev.radius, it, 8, mean, near, grad_w, codes, (xf, bxf.copy(), bxf, mode, wide))
    return lev, est, nnf, cost, xf, best, bxf, codes


def random_codes(rng, lev, half, centres, empty=None):
    """A random transform for each source centre ((..., 2)): any of them where the centre's wider
    window is known (a resampled one may be read there), else an exact one; 0 where ``empty``."""
    wide = levels.wide_sources(lev, half)
    ok = wide[centres[..., 0].clip(0), centres[..., 1].clip(0)] != 0
    codes = np.where(ok, rng.integers(0, len(ref.XFORM_TABLE), ok.shape), rng.integers(0, 8, ok.shape))
    if empty is not None:
        codes = np.where(empty, 0, codes)
    assert (codes >= 8).sum() > 5  # resampled transforms are among them
    return codes.astype(np.int32)


# -- the transforms ---------------------------------------------------------------------------------
def test_the_codes_are_the_eight_mirrors_and_quarter_turns():
    mats = {code: naive_matrix(code) for code in range(8)}
    assert len({m.tobytes() for m in mats.values()}) == 8
    for m in mats.values():
        assert (m @ m.T == np.eye(2)).all()  # each keeps distances: a mirror or a turn of the square
    assert (mats[0] == np.eye(2)).all() and (mats[4] == [[1, 0], [0, -1]]).all()  # 4: left-right mirror
    dy, dx = np.mgrid[-3:4, -3:4]
    for code, m in mats.items():
        oy, ox = ref.transformed(np.full(dy.shape, code), dy, dx)
        assert (oy == m[0, 0] * dy + m[0, 1] * dx).all() and (ox == m[1, 0] * dy + m[1, 1] * dx).all()


def test_a_mirrored_source_matches_only_through_the_mirror():
    """The only source is the target's texture mirrored left-right: plain it costs much, mirrored
    nothing; a quarter turn finds a turned copy."""
    rng = np.random.default_rng(3)
    est = np.zeros((7, 24, 4), np.uint8)
    est[:, 0:7, :3] = rng.integers(0, 256, (7, 7, 3))
    est[:, 8:15] = est[:, 0:7][:, ::-1]
    est[:, 16:23] = np.rot90(est[:, 0:7], 1)  # a quarter turn
    t = np.array([[3, 3]], np.int32)
    mirror, turned = np.array([[3, 11]], np.int32), np.array([[3, 19]], np.int32)
    assert ref.ssd(est, t, mirror, 3)[0] > 1000
    assert ref.ssd(est, t, mirror, 3, xf=np.array([4]))[0] == 0
    found = [code for code in range(8) if ref.ssd(est, t, turned, 3, xf=np.array([code]))[0] == 0]
    assert len(found) == 1 and found[0] in (3, 5)  # a quarter turn, not a mirror


# -- the reference against the naive loops ----------------------------------------------------------
@pytest.mark.parametrize("grad_w,adapt,mean", [(0, False, 0), (8, False, 4), (0, True, 0), (5, True, 4)])
def test_transformed_distance_matches_naive(rng, grad_w, adapt, mean):
    lev, est, nnf, *_ = level_state(rng, half=3)
    n = len(lev.targets)
    xf = random_codes(rng, lev, 3, nnf[:, 0])
    codes = ref.adaptation(est, lev.targets, nnf[:, 0], 3, xf) if adapt else None
    got = ref.ssd(est, lev.targets, nnf[:, 0], 3, mean, 1000, grad_w, codes, xf)
    border = 0
    for i in range(0, n, 5):
        want_codes = None
        if adapt:
            want_codes = naive_transformed_adaptation(est, lev.targets[i], nnf[i, 0], xf[i], 3)
            assert codes[i].tolist() == want_codes
        assert got[i] == naive_distance(est, lev.targets[i], nnf[i, 0], xf[i], 3, grad_w, want_codes, mean, 1000)
        border += min(*lev.targets[i], *(np.array(lev.shape) - 1 - lev.targets[i])) < 3
    assert border  # windows cut by the image's edge are among those checked


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_patchmatch_lists_hold_each_match_with_its_transform(rng, mode):
    lev, est, nnf, cost, xf, best, bxf, _ = transformed_state(rng, mode, k=3, grad_w=4, mean=4, near=1000)
    allowed = {0, 4} if mode == 1 else set(range(ref.XFORM_CODES[mode]))
    assert set(np.unique(xf[cost != ref.EMPTY]).tolist()) <= allowed
    assert len(set(np.unique(xf[cost != ref.EMPTY]).tolist())) > 1  # transformed matches were taken
    np.testing.assert_array_equal(best, nnf[:, 0])
    np.testing.assert_array_equal(bxf, xf[:, 0])
    assert (np.diff(cost.astype(np.int64), axis=1) >= 0).all()
    for i in range(0, len(lev.targets), 3):
        seen = set()
        for (sy, sx), c, code in zip(nnf[i], cost[i], xf[i]):
            if c == ref.EMPTY:
                continue
            assert lev.valid[sy, sx]
            if code >= 8:  # a resampled window reads only known pixels of the image
                reads = [q for dy in range(-2, 3) for dx in range(-2, 3)
                         for q, _ in naive_reads((sy, sx), code, dy, dx)]
                assert all(0 <= y < lev.shape[0] and 0 <= x < lev.shape[1] and not lev.mask[y, x] for y, x in reads)
            assert (sy, sx, code) not in seen  # an entry is listed once (the same source turned is another)
            seen.add((sy, sx, code))
            assert c == naive_distance(est, lev.targets[i], (sy, sx), code, 2, 4, None, 4, 1000)


def test_transforms_find_better_matches_than_plain_sources(rng):
    """On a picture mirrored about its middle, with the hole in one half, the search's best costs
    are lower with mirrors than without, from the same start and random numbers."""
    lev, est, nnf, cost, best = level_state(rng, h=24, w=40, half=2, k=1, iterations=0)
    est[:, 20:] = est[:, :20][:, ::-1]
    plain = (nnf.copy(), cost.copy())
    ref.rescore(est, lev.targets, plain[0], plain[1], 2)
    xf = np.zeros(cost.shape, np.int32)
    mirrored = (nnf.copy(), cost.copy())
    ref.rescore(est, lev.targets, mirrored[0], mirrored[1], 2, xf=xf)
    b0, b1, bx = plain[0][:, 0].copy(), mirrored[0][:, 0].copy(), xf[:, 0].copy()
    for it in range(4):
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, plain[0], plain[1], b0.copy(), b0, 2,
                       lev.radius, it)
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, mirrored[0], mirrored[1], b1.copy(), b1,
                       2, lev.radius, it, xf=(xf, bx.copy(), bx, 1))
    assert mirrored[1].astype(np.int64).sum() < plain[1].astype(np.int64).sum()


@pytest.mark.parametrize("split", [False, True])
def test_vote_with_transforms_matches_naive(rng, split):
    lev, est, nnf, cost, *_ = transformed_state(rng, 2, k=3, iterations=1)
    xf = random_codes(rng, lev, 2, nnf, cost == ref.EMPTY)  # every transform, in every slot
    out = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    src = np.full((len(lev.hole), 2), SENTINEL, np.int32) if split else None
    rect = levels.source_rect(lev, ref.xform_reach(2))  # the low pass wherever a resampled copy reaches
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 2, 3, 5000, out,
             (ref.low_pass(est, lev.solve_map, lev.origin, rect), (rect[1], rect[0])) if split else None, src, None,
             xf)
    want = naive_vote(est, lev.pixels, lev, nnf, cost, xf, 2, 3, 5000, split)
    oy, ox = lev.origin
    for (y, x), v in want.items():
        assert list(out[y - oy, x - ox]) == v
    if split:  # every source the map names is a known pixel
        assert (~lev.mask[src[:, 0], src[:, 1]]).all()


@pytest.mark.parametrize("k", [1, 3])
def test_gradient_vote_with_transforms_matches_naive(rng, k):
    lev, est, nnf, cost, *_ = transformed_state(rng, 2, half=3, k=k, iterations=1)
    xf = random_codes(rng, lev, 3, nnf, cost == ref.EMPTY)
    gx = np.full(lev.tidx.shape + (4,), -7, np.int32)
    gy = gx.copy()
    grad.gradient_vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k, 9000, gx, gy, None, xf)
    oy, ox = lev.origin
    for p in lev.pixels[::3]:
        for e, out in (((0, 1), gx), ((1, 0), gy)):
            assert out[p[0] - oy, p[1] - ox, :3].tolist() == naive_gradient(est, lev, nnf, cost, xf, 3, k, 9000,
                                                                               p, e), (p, e)


def test_lifted_matches_turn_with_their_transform(rng):
    """A coarse match with a transform starts the fine targets at twice its source plus their
    offset from twice the parent, turned."""
    from test_multiscale import blob_mask

    masks = levels.mask_pyramid(blob_mask(40, 48, rng, 0.2), 5)
    fine, coarse = levels.prepare_level(masks[0], 2, None), levels.prepare_level(masks[1], 2, None)
    n = len(coarse.targets)
    cbest = levels.random_sources(coarse, 5)
    cxf = rng.integers(0, len(ref.XFORM_TABLE), n).astype(np.int32)
    wide = levels.wide_sources(fine, 2)
    starts, lifted, xf = levels.upsampled_sources(fine, coarse, cbest, 9, cxf, wide)
    plain, _ = levels.upsampled_sources(fine, coarse, cbest, 9)
    checked = 0
    for i, (ty, tx) in enumerate(fine.targets):
        m = target_at(coarse, ty >> 1, tx >> 1)
        if m < 0:
            continue
        want = naive_source(2 * cbest[m], cxf[m], ty - 2 * (ty >> 1), tx - 2 * (tx >> 1))
        h, w = fine.shape
        if 0 <= want[0] < h and 0 <= want[1] < w and fine.valid[want] and (cxf[m] < 8 or wide[want]):
            assert tuple(starts[i]) == want and xf[i] == cxf[m]
            checked += 1
        else:
            assert xf[i] == 0 and fine.valid[tuple(starts[i])]
    assert checked > len(fine.targets) // 2
    assert (xf != 0).any() and (starts != plain).any()


# -- kernels == reference ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode,half,k,grad_w,mean,near,adapt", [(2, 2, 3, 8, 4, 1000, False), (1, 3, 1, 0, 0, 0, False),
                                                               (2, 1, 2, 16, 0, 37, True), (3, 2, 3, 8, 4, 1000, True),
                                                               (3, 3, 1, 0, 0, 0, False)])
def test_patchmatch_and_rescore_kernels_with_transforms(runtime, rng, mode, half, k, grad_w, mean, near, adapt):
    lev, est, nnf, cost, xf, best, bxf, codes = transformed_state(rng, mode, half=half, k=k, iterations=1,
                                                                  grad_w=grad_w, mean=mean, near=near, adapt=adapt)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["xf"], b["xtab"] = buf(xf), buf(ref.XFORM_TABLE)
    wide = levels.wide_sources(lev, half) if mode == 3 else None
    if mode == 3:
        b["wide"] = buf(wide)
    if adapt:
        b["adapt"] = buf(codes)
    b_in, b_out = buf(best), buf(np.full_like(best, SENTINEL))
    x_in, x_out = buf(bxf), buf(np.full_like(bxf, SENTINEL))
    pm = mcl.PatchMatch(runtime, half, k, adapt, mode)
    pm(b, len(lev.targets), lev.shape[1], lev.shape[0], lev.radius, 8, 99, b_in, b_out, lev.work_args, mean, near,
       grad=grad_w, bxf=(x_in, x_out))
    out, xout = np.zeros_like(best), np.zeros_like(bxf)
    ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, half, lev.radius, 99,
                   8, mean, near, grad_w, codes, (xf, bxf, xout, mode, wide))
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b["xf"], xf), xf)
    np.testing.assert_array_equal(read(runtime, b_out, best), out)
    np.testing.assert_array_equal(read(runtime, x_out, bxf), xout)
    if adapt:
        np.testing.assert_array_equal(read(runtime, b["adapt"], codes), codes)
    # the estimate moves on: rescoring recomputes every distance through its transform
    est[lev.mask, :3] = rng.integers(0, 256, (int(lev.mask.sum()), 3))
    cl.enqueue_copy(runtime.queue, b["est"], est)
    b_best, x_best = buf(np.full_like(best, SENTINEL)), buf(np.full_like(bxf, SENTINEL))
    pm.rescore(b, len(lev.targets), lev.shape[1], lev.shape[0], b_best, mean, near, grad_w, x_best)
    ref.rescore(est, lev.targets, nnf, cost, half, mean, near, grad_w, codes, xf)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b["xf"], xf), xf)
    np.testing.assert_array_equal(read(runtime, x_best, bxf), xf[:, 0])


@pytest.mark.parametrize("k_use,split", [(3, False), (1, True), (3, True)])
def test_vote_kernels_with_transforms(runtime, rng, k_use, split):
    lev, est, nnf, cost, *_ = transformed_state(rng, 2, half=3, k=3, iterations=1)
    xf = random_codes(rng, lev, 3, nnf, cost == ref.EMPTY)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["xf"], b["xtab"] = buf(xf), buf(ref.XFORM_TABLE)
    h, w = lev.shape
    kn = mcl.Vote(runtime, 3, 3, False, 3)
    rect = levels.source_rect(lev, ref.xform_reach(3))
    x0, y0, x1, y1 = rect
    b["low"] = cl.Buffer(runtime.context, cl.mem_flags.READ_WRITE, (x1 - x0) * (y1 - y0) * 4)
    kn.low_pass(b, rect, w, h, lev.work_args)
    src = buf(np.full((len(lev.hole), 2), SENTINEL, np.int32))
    kn(b, b["pixels"], len(lev.pixels), w, k_use, 7000, lev.work_args, rect if split else None, src,
       len(lev.hole) if split else 0)
    low = (ref.low_pass(est, lev.solve_map, lev.origin, rect), (rect[1], rect[0]))
    want = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    want_src = np.full((len(lev.hole), 2), SENTINEL, np.int32)
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k_use, 7000, want, low if split else None,
             want_src if split else None, None, xf)
    np.testing.assert_array_equal(read(runtime, b["v"], want), want)
    np.testing.assert_array_equal(read(runtime, src, want_src), want_src)
    # the gradient vote reads the same transforms
    for name in ("gx", "gy", "x0"):
        b[name] = buf(np.full(lev.tidx.shape + (4,), SENTINEL, np.int32))
    mcl.GradientVote(runtime, 3, 3, False, 3).vote(b, b["pixels"], len(lev.pixels), w, k_use, 7000, lev.work_args,
                                                   rect if split else None, True)
    gx = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    gy = gx.copy()
    grad.gradient_vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k_use, 7000, gx, gy,
                       low if split else None, xf)
    oy, ox = lev.origin
    got_x, got_y = read(runtime, b["gx"], gx), read(runtime, b["gy"], gy)
    ly, lx = lev.pixels[:, 0] - oy, lev.pixels[:, 1] - ox
    np.testing.assert_array_equal(got_x[ly, lx, :3], gx[ly, lx, :3])
    np.testing.assert_array_equal(got_y[ly, lx, :3], gy[ly, lx, :3])


# -- the whole fill ------------------------------------------------------------------------------
def mirrored_scene():
    """A textured picture whose right half mirrors its left, a hole in the right half."""
    img, _ = shaded_scene()
    img = img.copy()
    img[:, 54:] = img[:, :54][:, ::-1]
    mask = np.zeros(img.shape[:2], bool)
    mask[30:62, 64:90] = True
    return img, mask


@pytest.mark.parametrize("opts", [dict(transforms="mirror"), dict(transforms="turns", candidates=2),
                                  dict(transforms="all"), dict(transforms="all", vote="gradients", candidates=2),
                                  dict(transforms="turns", vote="gradients", adapt="on", patch=3)])
def test_opencl_equals_numpy_with_transforms(runtime, opts):
    img, mask = shaded_scene()
    kw = dict(method="multiscale", patch=5, seed=2) | opts
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)
    check_fill(img, mask, a, kw["patch"])  # known pixels kept, every copied pixel from the source region
    plain = inpaint(img, mask, backend="numpy", **(kw | dict(transforms="off")))
    assert (plain.image[mask] != a.image[mask]).any()  # the option changes the fill


def test_mirrors_fill_a_mirrored_scene_closer_to_the_truth():
    img, mask = mirrored_scene()
    errs = {}
    for t in ("off", "mirror"):
        res = inpaint(img, mask, backend="numpy", method="multiscale", patch=7, seed=1, transforms=t)
        check_fill(img, mask, res, 7)
        errs[t] = np.abs(res.image[mask].astype(int) - img[mask]).mean()
    assert errs["mirror"] < errs["off"]


def test_the_command_takes_the_option(tmp_path, run, capsys):
    img, mask = shaded_scene()
    Image.fromarray(img).save(tmp_path / "in.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "mask.png")
    with pytest.raises(SystemExit):
        run("--help")
    assert "--transforms {off,mirror,turns,all}" in capsys.readouterr().out
    code, _, err = run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "-p", 3, "--backend", "numpy",
                       "--transforms", "mirror", "-o", tmp_path / "out.png")
    assert code == 0, err
    want = inpaint(img, mask, backend="numpy", patch=3, transforms="mirror").image
    with Image.open(tmp_path / "out.png") as got:
        np.testing.assert_array_equal(np.asarray(got), want)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "--transforms", "flip", "-o", tmp_path / "bad.png")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--transforms: invalid choice: 'flip' (choose from 'off', 'mirror', 'turns', 'all')" in err
    assert not (tmp_path / "bad.png").exists()

"""The multiscale fill's match options: the gradient term (``match_gradients``) and the colour adaptation
(``adapt``).  Naive loops check the reference's distance, adaptation and vote; the kernels must
equal the reference bit for bit; the options reach the command and the library."""

import re

import numpy as np
import pyopencl as cl
import pytest
from PIL import Image
from test_multiscale import (
    CHANNEL_WEIGHTS,
    SENTINEL,
    blob_mask,
    check_fill,
    device_buffers,
    level_state,
    low_map,
    naive_low_pass,
    read,
    target_at,
)

from inpaint.api import inpaint
from inpaint.errors import InputError
from inpaint.methods.multiscale import levels, opencl as mcl, reference as ref


# -- naive oracles --------------------------------------------------------------------------------
def naive_adaptation(est, t, s, half):
    """Per channel: gain = round(256 st / ss) in [GAIN_MIN, GAIN_MAX], bias = round((256 st - gain ss) /
    (256 n)) in +-BIAS_MAX, over the target window's in-image pixels; the codes gain * 256 + bias + 128."""
    h, w = est.shape[:2]
    pairs = [((t[0] + dy, t[1] + dx), (s[0] + dy, s[1] + dx)) for dy in range(-half, half + 1)
             for dx in range(-half, half + 1) if 0 <= t[0] + dy < h and 0 <= t[1] + dx < w]
    codes = []
    for c in range(3):
        st = sum(int(est[p][c]) for p, _ in pairs)
        ss = sum(int(est[q][c]) for _, q in pairs)
        gain = min(max((256 * st + ss // 2) // max(ss, 1), ref.GAIN_MIN), ref.GAIN_MAX)
        n256 = 256 * len(pairs)
        bias = min(max((256 * st - gain * ss + n256 // 2) // n256, -ref.BIAS_MAX), ref.BIAS_MAX)
        codes.append(gain * 256 + bias + 128)
    return codes + [ref.ADAPT_NONE]


def naive_adapted(v, code):
    gain, bias = code >> 8, (code & 255) - 128
    return min(max(((gain * int(v) + 128) >> 8) + bias, 0), 255)


def naive_distance(est, t, s, half, grad=0, codes=None, mean=0, near=0):
    """The weighted SSD over the target window's in-image pixels (the source's colours through ``codes``),
    plus, for every pair of horizontal or vertical in-image neighbours, (grad * (e1 - e0)^2) >> GRAD_SHIFT,
    e the grey (r + g + b) difference of target and source at a pixel; plus the mean-colour term (of the
    adapted colours) and the distance term."""
    h, w = est.shape[:2]
    acc, e, sums = 0, {}, [0, 0, 0]
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            y, x = t[0] + dy, t[1] + dx
            if not (0 <= y < h and 0 <= x < w):
                continue
            d = []
            for c in range(4):
                sv = int(est[s[0] + dy, s[1] + dx, c])
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
                acc += (grad * (v - e[prev]) ** 2) >> ref.GRAD_SHIFT
    return (acc + (mean * sum(v * v for v in sums)) // (4 * len(e))
            + near * (abs(int(t[0]) - int(s[0])) + abs(int(t[1]) - int(s[1]))))


def naive_vote(est, pixels, lev, nnf, cost, adapt, half, k_use, softness, split=False):
    """The vote's values by pixel, each copy's colours (and low pass) read through its entry's code."""
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
                    sy, sx = nnf[t, j] + (dy, dx)
                    code = adapt[t, j]
                    for c in range(4):
                        v = int(est[sy, sx, c])
                        acc[c] += wk * (naive_adapted(v, code[c]) if c < 3 else v)
                    ws += wk
                    if split:
                        lp = naive_low_pass(est, lev.mask, sy, sx)
                        low = [a + wk * naive_adapted(b, code[c]) for c, (a, b) in enumerate(zip(low, lp))]
                        if bcost is None or cost[t, j] < bcost:
                            best, bcost, bcode = (sy, sx), cost[t, j], code
        out[(y, x)] = [(a + ws // 2) // ws for a in acc]
        if split:
            lp = naive_low_pass(est, lev.mask, *best)
            out[(y, x)][:3] = [min(max((a + ws // 2) // ws + naive_adapted(est[best][c], bcode[c])
                                       - naive_adapted(lp[c], bcode[c]), 0), 255) for c, a in enumerate(low)]
    return out


def adapted_state(rng, h=28, w=34, half=2, k=3, iterations=1, grad=8, mean=0, near=0):
    """``level_state``, then its lists rescored and searched with the options: (lev, est, nnf, cost, adapt, best)."""
    lev, est, nnf, cost, best = level_state(rng, h=h, w=w, half=half, k=k, iterations=0, mean=mean, near=near)
    adapt = np.full((len(lev.targets), k, 4), ref.ADAPT_NONE, np.int32)
    ref.rescore(est, lev.targets, nnf, cost, half, mean, near, grad, adapt)
    best = nnf[:, 0].copy()
    for it in range(iterations):
        ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best.copy(), best, half,
                       lev.radius, it, mean_weight=mean, near_weight=near, grad_weight=grad, adapt=adapt)
    return lev, est, nnf, cost, adapt, best


# -- the reference against the naive loops ----------------------------------------------------------
@pytest.mark.parametrize("grad,adapt,mean", [(8, False, 0), (0, True, 0), (5, True, 4), (64, True, 0), (8, False, 7)])
def test_distance_and_adaptation_match_naive(rng, grad, adapt, mean):
    lev, est, nnf, *_ = level_state(rng, half=3)
    # shaded sources: the adaptation's gain and bias both get used, and both get clamped
    est[..., :3] = (est[..., :3] * rng.uniform(0.3, 1.0, est.shape[:2])[..., None]).astype(np.uint8)
    codes = ref.adaptation(est, lev.targets, nnf[:, 0], 3) if adapt else None
    got = ref.ssd(est, lev.targets, nnf[:, 0], 3, mean, 1000, grad, codes)
    border, gains = 0, set()
    for i in range(0, len(lev.targets), 5):
        want = naive_adaptation(est, lev.targets[i], nnf[i, 0], 3) if adapt else None
        if adapt:
            assert codes[i].tolist() == want
            gains.update(c >> 8 for c in want[:3])
        assert got[i] == naive_distance(est, lev.targets[i], nnf[i, 0], 3, grad, want, mean, 1000)
        border += min(*lev.targets[i], *(np.array(lev.shape) - 1 - lev.targets[i])) < 3
    assert border  # windows cut by the image's edge are among those checked
    if adapt:
        assert {ref.GAIN_MIN, ref.GAIN_MAX} <= gains and len(gains) > 2


def test_the_options_off_give_the_plain_distance(rng):
    lev, est, nnf, *_ = level_state(rng, half=2)
    plain = ref.ssd(est, lev.targets, nnf[:, 0], 2, 4, 1000)
    none = np.full((len(lev.targets), 4), ref.ADAPT_NONE, np.int32)
    np.testing.assert_array_equal(ref.ssd(est, lev.targets, nnf[:, 0], 2, 4, 1000, 0, none), plain)
    assert (ref.adapted(np.arange(256)[:, None], none[:1]) == np.arange(256)[:, None]).all()


def test_the_gradient_term_prefers_the_source_that_continues_an_edge():
    """A target whose edge lies between columns 3 and 4 of its window; one source has the edge a
    column further right, another has it in place but is 16 grey levels brighter.  The colours
    alone pick the misplaced edge, the gradients the edge in place."""
    half = 3
    est = np.zeros((7, 30, 4), np.uint8)
    est[:, 0:4, :3], est[:, 4:7, :3] = 120, 80  # the target
    est[:, 10:15, :3], est[:, 15:17, :3] = 120, 80  # the edge a column off: one column differs by 40
    est[:, 20:24, :3], est[:, 24:27, :3] = 136, 96  # the edge in place, every pixel 16 brighter
    t = np.array([[3, 3]], np.int32)
    off, brighter = np.array([[3, 13]], np.int32), np.array([[3, 23]], np.int32)
    plain = [int(ref.ssd(est, t, c, half)[0]) for c in (off, brighter)]
    assert plain == [7 * 3 * 40 ** 2, 49 * 3 * 16 ** 2] and plain[0] < plain[1]
    with_grad = [int(ref.ssd(est, t, c, half, grad_weight=8)[0]) for c in (off, brighter)]
    # the misplaced edge's grey error steps twice a row (by 3 * 40); the brighter one's never
    assert with_grad == [plain[0] + 7 * 2 * ((8 * 120 ** 2) >> ref.GRAD_SHIFT), plain[1]]
    assert with_grad[1] < with_grad[0]


def test_adaptation_lets_a_shaded_source_match_a_lit_target():
    """The same texture at 0.85 of the target's brightness: the plain distance is large, the adapted one
    small, and the vote through the code gives the target's colours back."""
    half = 3
    yy, xx = np.mgrid[0:7, 0:7]
    tile = 120 + 60 * ((yy * 3 + xx) % 4 == 0) + 5 * xx
    est = np.zeros((7, 14, 4), np.uint8)
    est[:, 0:7, :3] = tile[..., None]
    est[:, 7:14, :3] = (tile * 0.85 + 0.5).astype(np.uint8)[..., None]
    t, s = np.array([[3, 3]], np.int32), np.array([[3, 10]], np.int32)
    codes = ref.adaptation(est, t, s, half)
    plain, adapted = ref.ssd(est, t, s, half)[0], ref.ssd(est, t, s, half, codes=codes)[0]
    assert (codes[0, :3] >> 8 > 256).all() and adapted * 50 < plain
    copied = ref.adapted(est[:, 7:14, :3].astype(np.int64), codes[0])
    assert np.abs(copied - est[:, 0:7, :3]).max() <= 2


@pytest.mark.parametrize("k,grad,mean,near", [(1, 8, 0, 0), (3, 4, 4, 1000)])
def test_patchmatch_lists_hold_each_match_with_its_adaptation(rng, k, grad, mean, near):
    lev, est, nnf, cost, adapt, _ = adapted_state(rng, h=20, w=23, k=k, iterations=2, grad=grad, mean=mean,
                                                  near=near)
    assert (np.diff(cost.astype(np.int64), axis=1) >= 0).all()
    for i in range(0, len(lev.targets), 3):
        for (sy, sx), c, code in zip(nnf[i], cost[i], adapt[i]):
            if c == ref.EMPTY:
                continue
            want = naive_adaptation(est, lev.targets[i], (sy, sx), 2)
            assert code.tolist() == want
            assert c == naive_distance(est, lev.targets[i], (sy, sx), 2, grad, want, mean, near)


@pytest.mark.parametrize("split", [False, True])
def test_vote_with_adaptation_matches_naive(rng, split):
    lev, est, nnf, cost, adapt, _ = adapted_state(rng, k=3, iterations=1)
    assert (adapt[..., :3] != ref.ADAPT_NONE).mean() > 0.5  # most copies are adapted
    out = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    src = np.full((len(lev.hole), 2), SENTINEL, np.int32) if split else None
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 2, 3, 5000, out,
             low_map(lev, est, 2) if split else None, src, adapt)
    want = naive_vote(est, lev.pixels, lev, nnf, cost, adapt, 2, 3, 5000, split)
    oy, ox = lev.origin
    for (y, x), v in want.items():
        assert list(out[y - oy, x - ox]) == v


# -- kernels == reference ----------------------------------------------------------------------------
@pytest.mark.parametrize("half,k,grad,mean,near", [(2, 3, 8, 4, 1000), (3, 1, 0, 0, 0), (1, 2, 64, 0, 37)])
def test_patchmatch_and_rescore_kernels_with_the_options(runtime, rng, half, k, grad, mean, near):
    lev, est, nnf, cost, adapt, best = adapted_state(rng, half=half, k=k, grad=grad, mean=mean, near=near)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["adapt"] = buf(adapt)
    b_in, b_out = buf(best), buf(np.full_like(best, SENTINEL))
    pm = mcl.PatchMatch(runtime, half, k, adapt=True)
    pm(b, len(lev.targets), lev.shape[1], lev.shape[0], lev.radius, 8, 99, b_in, b_out, lev.work_args, mean, near,
       grad=grad)
    out = np.zeros_like(best)
    ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, half, lev.radius, 99,
                   8, mean, near, grad, adapt)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b["adapt"], adapt), adapt)
    np.testing.assert_array_equal(read(runtime, b_out, best), out)
    # the estimate moves on: rescoring recomputes every adaptation and distance
    est[lev.mask, :3] = rng.integers(0, 256, (int(lev.mask.sum()), 3))
    cl.enqueue_copy(runtime.queue, b["est"], est)
    b_best = buf(np.full_like(best, SENTINEL))
    pm.rescore(b, len(lev.targets), lev.shape[1], lev.shape[0], b_best, mean, near, grad)
    ref.rescore(est, lev.targets, nnf, cost, half, mean, near, grad, adapt)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)
    np.testing.assert_array_equal(read(runtime, b["adapt"], adapt), adapt)


def test_gradient_term_kernel_without_adaptation(runtime, rng):
    lev, est, nnf, cost, best = level_state(rng, half=2, k=2)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b_in, b_out = buf(best), buf(np.full_like(best, SENTINEL))
    mcl.PatchMatch(runtime, 2, 2)(b, len(lev.targets), lev.shape[1], lev.shape[0], lev.radius, 8, 5, b_in, b_out,
                                  lev.work_args, 4, 0, grad=16)
    out = np.zeros_like(best)
    ref.patchmatch(est, lev.targets, lev.tidx, lev.origin, lev.valid, nnf, cost, best, out, 2, lev.radius, 5, 8, 4,
                   0, 16)
    np.testing.assert_array_equal(read(runtime, b["nnf"], nnf), nnf)
    np.testing.assert_array_equal(read(runtime, b["cost"], cost), cost)


@pytest.mark.parametrize("k_use,split", [(3, False), (1, True), (3, True)])
def test_vote_kernel_with_adaptation(runtime, rng, k_use, split):
    lev, est, nnf, cost, adapt, _ = adapted_state(rng, half=3, k=3, iterations=1)
    b, buf = device_buffers(runtime, lev, est, nnf, cost)
    b["adapt"] = buf(adapt)
    h, w = lev.shape
    kn = mcl.Vote(runtime, 3, 3, adapt=True)
    rect = levels.source_rect(lev, 3)
    if split:
        x0, y0, x1, y1 = rect
        b["low"] = cl.Buffer(runtime.context, cl.mem_flags.READ_WRITE, (x1 - x0) * (y1 - y0) * 4)
        kn.low_pass(b, rect, w, h, lev.work_args)
    src = buf(np.full((len(lev.hole), 2), SENTINEL, np.int32))
    kn(b, b["pixels"], len(lev.pixels), w, k_use, 7000, lev.work_args, rect if split else None, src,
       len(lev.hole) if split else 0)
    want = np.full(lev.tidx.shape + (4,), SENTINEL, np.int32)
    want_src = np.full((len(lev.hole), 2), SENTINEL, np.int32)
    ref.vote(est, lev.pixels, lev.tidx, lev.origin, nnf, cost, 3, k_use, 7000, want,
             low_map(lev, est, 3) if split else None, want_src if split else None, adapt)
    np.testing.assert_array_equal(read(runtime, b["v"], want), want)
    np.testing.assert_array_equal(read(runtime, src, want_src), want_src)


# -- the whole fill ------------------------------------------------------------------------------
def shaded_scene():
    """A textured picture lit from the left (deep enough for every level's terms), and a hole."""
    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[0:100, 0:108]
    img = np.stack([xx * 2, yy * 2, (xx + yy)], -1).astype(np.float64)
    img[::7] /= 2  # dark stripes: edges to continue
    img *= (0.55 + 0.45 * xx / 108)[..., None]  # shade
    img = (img + rng.integers(0, 24, img.shape)).clip(0, 255).astype(np.uint8)
    mask = blob_mask(100, 108, rng, 0.2)
    return img, mask


@pytest.mark.parametrize("opts", [dict(match_gradients=8), dict(adapt="on", candidates=2),
                                  dict(match_gradients=3, adapt="on", patch=3)])
def test_opencl_equals_numpy_with_the_options(runtime, opts):
    img, mask = shaded_scene()
    kw = dict(method="multiscale", patch=5, seed=2) | opts
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)
    check_fill(img, mask, a, kw["patch"])
    plain = inpaint(img, mask, backend="numpy", **(kw | dict(match_gradients=0, adapt="off")))
    assert (plain.image[mask] != a.image[mask]).any()  # the option changes the fill


@pytest.mark.parametrize("values, message", [
    (dict(match_gradients=-1), "match_gradients must be an integer from 0 to 64, got -1"),
    (dict(match_gradients=65), "match_gradients must be an integer from 0 to 64, got 65"),
    (dict(match_gradients=2.5), "match_gradients must be an integer from 0 to 64, got 2.5"),
    (dict(adapt="yes"), "adapt must be one of 'off', 'on', got 'yes'"),
    (dict(adapt=True), "adapt must be one of 'off', 'on', got True"),
    (dict(transforms="rotate"), "transforms must be one of 'off', 'mirror', 'turns', 'all', got 'rotate'"),
    (dict(transforms=1), "transforms must be one of 'off', 'mirror', 'turns', 'all', got 1")])
def test_bad_option_values_are_refused(rng, values, message):
    img = rng.integers(0, 256, (30, 30, 3), dtype=np.uint8)
    mask = np.zeros((30, 30), bool)
    mask[10:15, 10:15] = True
    with pytest.raises(InputError, match=re.escape(message)):
        inpaint(img, mask, backend="numpy", **values)


def test_a_gradient_weight_whose_distances_would_not_fit_32_bits_is_refused(runtime):
    """Black and white noise at patch 21: the largest distances of weight 64 pass 2**32 (the kernel
    adds them up in 32 bits, and numpy and OpenCL differed on 16 of 64 pixels).  The largest weight
    the patch allows is named, and gives the same fill on both."""
    rng = np.random.default_rng(0)
    img = np.repeat((rng.random((40, 56, 1)) < 0.5).astype(np.uint8) * 255, 3, axis=2)
    mask = np.zeros((40, 56), bool)
    mask[16:24, 24:32] = True
    with pytest.raises(InputError, match=r"match_gradients 64 is too large for patch 21: at most 14 there"):
        inpaint(img, mask, backend="numpy", patch=21, match_gradients=64)
    kw = dict(patch=21, match_gradients=14, seed=1)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


def test_the_command_takes_the_options(tmp_path, run, capsys):
    img, mask = shaded_scene()
    Image.fromarray(img).save(tmp_path / "in.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "mask.png")
    with pytest.raises(SystemExit):
        run("--help")
    out = capsys.readouterr().out
    assert "--match-gradients W" in out and "--adapt-colour" in out
    code, _, err = run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "-p", 3, "--backend", "numpy",
                       "--match-gradients", 4, "--adapt-colour", "on", "-o", tmp_path / "out.png")
    assert code == 0, err
    want = inpaint(img, mask, backend="numpy", patch=3, match_gradients=4, adapt="on").image
    with Image.open(tmp_path / "out.png") as got:
        np.testing.assert_array_equal(np.asarray(got), want)
    code, out, err = run(tmp_path / "in.png", "--mask", tmp_path / "mask.png", "--match-gradients", "100",
                         "-o", tmp_path / "bad.png")
    assert code == 2 and "--match-gradients must be an integer from 0 to 64, got '100'" in err
    assert not (tmp_path / "bad.png").exists()

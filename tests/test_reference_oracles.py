"""Independent oracles for the numpy reference (``reference.py`` of ``inpaint/methods/criminisi/`` and
``inpaint/methods/multiscale/``).

The reference is vectorised numpy that the OpenCL kernels are compared against; here each of
its functions is compared with a naive per-pixel loop written from the *kernel* text
(``kernels/*.cl``), so the reference is checked by something other than itself.

Float32 stages are reproduced bit for bit without numpy float32 arithmetic: every float op is
done in Python (IEEE double) and rounded to float32 right away (:func:`f32`).  Rounding a double
result to float32 is the correctly rounded float32 result for +, -, *, / and sqrt of float32
operands, because 53 >= 2 * 24 + 2 (double rounding is innocuous; Figueroa 1995).  That is
exactly what ``#pragma OPENCL FP_CONTRACT OFF`` kernels compute.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from inpaint.methods.criminisi import reference
from inpaint.methods.multiscale import reference as multiscale_ref

UINT_MAX = 0xFFFFFFFF
SENTINEL_U8 = 0xA5
SENTINEL_F32 = np.float32(-7.25)


# -- float32 arithmetic, without numpy ---------------------------------------------------------
def f32(x: float) -> float:
    """Round a Python float (double) to the nearest float32 (ties to even)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(a) -> np.ndarray:
    """float32 bit patterns, so that comparisons are bit for bit (and -0.0 != 0.0)."""
    return np.asarray(a, dtype=np.float32).view(np.uint32)


F_0_001 = float.fromhex("0x1.0624dep-10")  # 0.001f = 0x3A83126F, the literal in priority.cl
F_510 = 510.0


def test_float32_helpers():
    assert f32(0.001) == F_0_001
    assert struct.pack("<f", F_0_001) == bytes.fromhex("6f12833a")
    assert f32(1.0 + 2.0 ** -24) == 1.0            # tie -> even
    assert f32(1.0 + 3 * 2.0 ** -24) == 1.0 + 2.0 ** -22


# -- strategies ---------------------------------------------------------------------------------
halves = st.integers(1, 4)


@st.composite
def shapes(draw, lo=1):
    return draw(st.integers(lo, 20)), draw(st.integers(lo, 20))


@st.composite
def rgb_images(draw, h, w, channels=None):
    c = draw(st.sampled_from([3, 4])) if channels is None else channels
    # A narrow palette now and then forces ties (equal SSDs, equal gradients).
    elems = st.one_of(st.integers(0, 255), st.sampled_from([0, 255]))
    return draw(hnp.arrays(np.uint8, (h, w, c), elements=elems))


@st.composite
def masks(draw, h, w):
    """uint8 target masks: empty, full, random, a rectangle (often touching the edges), a border."""
    kind = draw(st.sampled_from(["empty", "full", "random", "sparse", "rect", "border"]))
    on = draw(st.sampled_from([1, 1, 255]))  # any non-zero byte means "target"
    m = np.zeros((h, w), np.uint8)
    if kind == "full":
        m[:] = 1
    elif kind == "random":
        m = draw(hnp.arrays(np.bool_, (h, w))).astype(np.uint8)
    elif kind == "sparse":
        for _ in range(draw(st.integers(1, 4))):
            m[draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))] = 1
    elif kind == "rect":
        x0, y0, x1, y1 = draw(rects(h, w))
        m[y0:y1, x0:x1] = 1
    elif kind == "border":
        side = draw(st.sampled_from(["top", "bottom", "left", "right"]))
        k = draw(st.integers(1, 3))
        if side == "top":
            m[:k] = 1
        elif side == "bottom":
            m[-k:] = 1
        elif side == "left":
            m[:, :k] = 1
        else:
            m[:, -k:] = 1
    return m * np.uint8(on)


@st.composite
def rects(draw, h, w):
    """A non-empty half-open rectangle inside the image (edges included)."""
    x0 = draw(st.integers(0, w - 1))
    x1 = draw(st.integers(x0 + 1, w))
    y0 = draw(st.integers(0, h - 1))
    y1 = draw(st.integers(y0 + 1, h))
    return x0, y0, x1, y1


def flags(h, w):
    return hnp.arrays(np.uint8, (h, w), elements=st.sampled_from([0, 1]))


def unit_floats(h, w):
    """float32 values in [0, 1]: 0 and 1 (unknown / original pixels) and anything between."""
    el = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0, 1, width=32))
    return hnp.arrays(np.float32, (h, w), elements=el)


def untouched_outside(out, before, rect):
    x0, y0, x1, y1 = rect
    inside = np.zeros(out.shape[:2], bool)
    inside[y0:y1, x0:x1] = True
    return np.array_equal(out[~inside], before[~inside])


def assert_matches(out, before, rect, expected, key=int):
    """The reference wrote ``expected`` ({(y, x): value}, compared through ``key``) inside
    ``rect`` and nothing outside it."""
    for (y, x), v in expected.items():
        assert key(out[y, x]) == key(v), ((y, x), out[y, x], v)
    whole = bits if key is bits else np.asarray
    assert untouched_outside(whole(out), whole(before), rect)


# -- stage 1: grey ----------------------------------------------------------------------------
def grey_oracle(rgb, rect):
    """rgb_to_grey: (77 R + 150 G + 29 B + 128) >> 8 per pixel (int arithmetic, then uchar)."""
    x0, y0, x1, y1 = rect
    out = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b = (int(v) for v in rgb[y, x, :3])
            out[y, x] = ((77 * r + 150 * g + 29 * b + 128) >> 8) & 0xFF
    return out


@settings(max_examples=60)
@given(st.data())
def test_grey_matches_kernel_loop(data):
    h, w = data.draw(shapes())
    rgb = data.draw(rgb_images(h, w))
    rect = data.draw(rects(h, w))
    out = np.full((h, w), SENTINEL_U8, np.uint8)
    before = out.copy()
    reference.grey(rgb, out, rect)
    assert_matches(out, before, rect, grey_oracle(rgb, rect))


def test_grey_extremes():
    rgb = np.array([[[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]]], np.uint8)
    out = np.zeros((1, 5), np.uint8)
    reference.grey(rgb, out, (0, 0, 5, 1))
    assert out.tolist() == [[255, 0, 77, 149, 29]]  # (77*255+128)>>8 = 77, 150*255 -> 149, 29*255 -> 29


# -- stage 2: front ---------------------------------------------------------------------------
def front_oracle(unknown, rect):
    h, w = unknown.shape
    x0, y0, x1, y1 = rect
    out = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            f = 0
            if unknown[y, x]:
                f = int((x > 0 and not unknown[y, x - 1]) or (x + 1 < w and not unknown[y, x + 1])
                        or (y > 0 and not unknown[y - 1, x]) or (y + 1 < h and not unknown[y + 1, x]))
            out[y, x] = f
    return out


@settings(max_examples=80)
@given(st.data())
def test_front_matches_kernel_loop(data):
    h, w = data.draw(shapes())
    unknown = data.draw(masks(h, w))
    rect = data.draw(rects(h, w))
    out = np.full((h, w), SENTINEL_U8, np.uint8)
    before = out.copy()
    reference.front(unknown, out, rect)
    assert_matches(out, before, rect, front_oracle(unknown, rect))


# -- stage 3: valid ---------------------------------------------------------------------------
def valid_oracle(unknown, rect, radius):
    """mark_valid without its bounding-box shortcut: in-image window with no target pixel."""
    h, w = unknown.shape
    x0, y0, x1, y1 = rect
    out = {}
    for cy in range(y0, y1):
        for cx in range(x0, x1):
            ok = cx - radius >= 0 and cy - radius >= 0 and cx + radius < w and cy + radius < h
            if ok:
                for y in range(cy - radius, cy + radius + 1):
                    for x in range(cx - radius, cx + radius + 1):
                        if unknown[y, x]:
                            ok = False
            out[cy, cx] = int(ok)
    return out


@settings(max_examples=80)
@given(st.data())
def test_valid_matches_kernel_loop(data):
    h, w = data.draw(shapes())
    half = data.draw(halves)
    unknown = data.draw(masks(h, w))
    rect = data.draw(rects(h, w))
    out = np.full((h, w), SENTINEL_U8, np.uint8)
    before = out.copy()
    reference.valid(unknown, out, rect, half)
    assert_matches(out, before, rect, valid_oracle(unknown, rect, half))


# -- stage 4: confidence ----------------------------------------------------------------------
def confidence_oracle(conf, front, rect, radius):
    """patch_confidence: row-major float32 sum of in-image conf, one float32 divide by P^2."""
    h, w = conf.shape
    x0, y0, x1, y1 = rect
    out = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            c = 0.0
            if front[y, x]:
                acc = 0.0
                for yy in range(y - radius, y + radius + 1):
                    if yy < 0 or yy >= h:
                        continue
                    for xx in range(x - radius, x + radius + 1):
                        if xx < 0 or xx >= w:
                            continue
                        acc = f32(acc + float(conf[yy, xx]))
                side = 2 * radius + 1
                c = f32(acc / float(side * side))
            out[y, x] = c
    return out


@settings(max_examples=60)
@given(st.data())
def test_confidence_matches_kernel_loop_bit_for_bit(data):
    h, w = data.draw(shapes())
    half = data.draw(halves)
    conf = data.draw(unit_floats(h, w))
    front = data.draw(flags(h, w))
    rect = data.draw(rects(h, w))
    out = np.full((h, w), SENTINEL_F32, np.float32)
    before = out.copy()
    reference.confidence(conf, front, out, rect, half)
    assert_matches(out, before, rect, confidence_oracle(conf, front, rect, half), key=bits)


def test_confidence_order_matters():
    """The row-major order is observable: a sum that rounds differently in another order."""
    conf = np.zeros((3, 3), np.float32)
    conf[0, 0] = np.float32(1.0)
    conf[0, 1] = conf[0, 2] = np.float32(2.0 ** -24)  # each lost against 1.0; together they would not be
    front = np.zeros((3, 3), np.uint8)
    front[1, 1] = 1
    out = np.zeros((3, 3), np.float32)
    reference.confidence(conf, front, out, (0, 0, 3, 3), 1)
    assert bits(out[1, 1]) == bits(confidence_oracle(conf, front, (1, 1, 2, 2), 1)[1, 1])
    assert bits(out[1, 1]) == bits(f32(1.0 / 9.0))


# -- stage 5: priority ------------------------------------------------------------------------
def priority_oracle(grey, unknown, front, cpatch, rect):
    """priority.cl's ``priority`` kernel, one pixel at a time."""
    h, w = unknown.shape

    def known_at(x, y):
        return int(0 <= x < w and 0 <= y < h and not unknown[y, x])

    def known_clamped(x, y):
        return int(not unknown[min(max(y, 0), h - 1), min(max(x, 0), w - 1)])

    x0, y0, x1, y1 = rect
    out = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            if not front[y, x]:
                out[y, x] = -1.0
                continue
            kmm, k0m, kpm = known_clamped(x - 1, y - 1), known_clamped(x, y - 1), known_clamped(x + 1, y - 1)
            km0, kp0 = known_clamped(x - 1, y), known_clamped(x + 1, y)
            kmp, k0p, kpp = known_clamped(x - 1, y + 1), known_clamped(x, y + 1), known_clamped(x + 1, y + 1)
            nx = (kpm + 2 * kp0 + kpp) - (kmm + 2 * km0 + kmp)
            ny = (kmp + 2 * k0p + kpp) - (kmm + 2 * k0m + kpm)
            best, bgx, bgy = -1, 0, 0
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    qx, qy = x + dx, y + dy
                    if not known_at(qx, qy):
                        continue
                    g = int(grey[qy, qx])
                    gl = int(grey[qy, qx - 1]) if known_at(qx - 1, qy) else g
                    gr = int(grey[qy, qx + 1]) if known_at(qx + 1, qy) else g
                    gu = int(grey[qy - 1, qx]) if known_at(qx, qy - 1) else g
                    gd = int(grey[qy + 1, qx]) if known_at(qx, qy + 1) else g
                    ggx, ggy = gr - gl, gd - gu
                    m = ggx * ggx + ggy * ggy
                    if m > best:
                        best, bgx, bgy = m, ggx, ggy
            dot = abs(nx * (-bgy) + ny * bgx)
            nn = nx * nx + ny * ny
            d = 0.0
            if nn != 0:
                length = f32(math.sqrt(f32(float(nn))))
                scale = f32(length * F_510)
                d = f32(f32(float(dot)) / scale)
            e = f32(d + F_0_001)
            out[y, x] = f32(float(cpatch[y, x]) * e)
    return out


@st.composite
def priority_states(draw):
    h, w = draw(shapes())
    unknown = draw(masks(h, w))
    grey = draw(hnp.arrays(np.uint8, (h, w), elements=st.one_of(st.integers(0, 255), st.sampled_from([0, 255]))))
    how = draw(st.sampled_from(["derived", "random"]))
    if how == "derived":  # the real front of the mask
        front = np.zeros((h, w), np.uint8)
        for (y, x), v in front_oracle(unknown, (0, 0, w, h)).items():
            front[y, x] = v
    else:                 # the kernel's formula holds for any front map
        front = draw(flags(h, w))
    cpatch = draw(unit_floats(h, w))
    rect = draw(rects(h, w))
    return grey, unknown, front, cpatch, rect


@settings(max_examples=80)
@given(priority_states())
def test_priority_matches_kernel_loop_bit_for_bit(state):
    grey, unknown, front, cpatch, rect = state
    h, w = unknown.shape
    out = np.full((h, w), SENTINEL_F32, np.float32)
    before = out.copy()
    reference.priority(grey, unknown, front, cpatch, out, rect)
    assert_matches(out, before, rect, priority_oracle(grey, unknown, front, cpatch, rect), key=bits)


def test_priority_straight_front_by_hand():
    """A vertical front (normal (-4, 0)): D = |n . isophote| / (|n| 510) by hand."""
    unknown = np.zeros((5, 6), np.uint8)
    unknown[:, 3:] = 1
    front = np.zeros((5, 6), np.uint8)
    front[:, 3] = 1
    cpatch = np.ones((5, 6), np.float32)
    rect = (0, 0, 6, 5)

    # A vertical grey edge: horizontal gradient, isophote along the front -> D = 0, P = 0.001f.
    grey = np.zeros((5, 6), np.uint8)
    grey[:, 1] = 200
    out = np.zeros((5, 6), np.float32)
    reference.priority(grey, unknown, front, cpatch, out, rect)
    assert all(bits(out[y, 3]) == bits(F_0_001) for y in range(5))
    assert (out[:, [0, 1, 2, 4, 5]] == -1).all()

    # One bright known pixel below the front's row 2: best gradient (0, 100) at q = (2, 2),
    # dot = |-4 * -100| = 400, |n| = 4: D = 400 / 2040.
    grey = np.zeros((5, 6), np.uint8)
    grey[3, 2] = 100
    reference.priority(grey, unknown, front, cpatch, out, rect)
    assert bits(out[2, 3]) == bits(f32(f32(400.0 / 2040.0) + F_0_001))
    want = priority_oracle(grey, unknown, front, cpatch, rect)
    assert all(bits(out[y, x]) == bits(v) for (y, x), v in want.items())


# -- argmax of priority -----------------------------------------------------------------------
def argmax_oracle(prio, rect):
    """argmax_priority: first strictly greater wins (row-major), -1 when the best is < 0."""
    width = prio.shape[1]
    x0, y0, x1, y1 = rect
    bv, bi = -1.0, -1
    for y in range(y0, y1):
        for x in range(x0, x1):
            v = float(prio[y, x])
            if v > bv:
                bv, bi = v, y * width + x
    return bi if bv >= 0.0 else -1


prio_values = st.one_of(st.sampled_from([-1.0, -0.5, 0.0, 0.001, 0.25, 1.0]),
                        st.floats(-1, 1, width=32))


@settings(max_examples=80)
@given(st.data())
def test_argmax_priority_matches_kernel_loop(data):
    h, w = data.draw(shapes())
    prio = data.draw(hnp.arrays(np.float32, (h, w), elements=prio_values))
    rect = data.draw(rects(h, w))
    assert reference.argmax_priority(prio, rect) == argmax_oracle(prio, rect)


def test_argmax_priority_ties_and_none():
    prio = np.full((3, 4), -1, np.float32)
    assert reference.argmax_priority(prio, (0, 0, 4, 3)) == -1
    prio[2, 1] = prio[1, 3] = 0.5
    assert reference.argmax_priority(prio, (0, 0, 4, 3)) == 1 * 4 + 3
    assert reference.argmax_priority(prio, (0, 2, 4, 3)) == 2 * 4 + 1
    prio[0, 0] = 0.0
    assert reference.argmax_priority(prio, (0, 0, 1, 1)) == 0  # priority 0 counts (>= 0)


def test_argmax_priority_empty_rect_matches_kernel():
    prio = np.zeros((3, 3), np.float32)
    assert argmax_oracle(prio, (1, 1, 1, 3)) == -1
    assert reference.argmax_priority(prio, (1, 1, 1, 3)) == -1


# -- stage 6: ssd -----------------------------------------------------------------------------
def ssd_oracle(rgb, unknown, valid, target, centres, radius):
    """ssd_global without pruning: a row-major map over the candidate rectangle."""
    h, w = unknown.shape
    ty, tx = divmod(target, w)
    cx0, cy0, cx1, cy1 = centres
    side = 2 * radius + 1
    res = []
    for cy in range(cy0, cy1):
        for cx in range(cx0, cx1):
            if not valid[cy, cx]:
                res.append(UINT_MAX)
                continue
            acc = 0
            for py in range(side):
                y = ty - radius + py
                if y < 0 or y >= h:
                    continue
                for px in range(side):
                    x = tx - radius + px
                    if x < 0 or x >= w or unknown[y, x]:
                        continue
                    t = rgb[y, x]
                    s = rgb[cy - radius + py, cx - radius + px]
                    acc = (acc + sum((int(t[c]) - int(s[c])) ** 2 for c in range(3))) & UINT_MAX
            res.append(acc)
    return res


@st.composite
def ssd_states(draw):
    half = draw(halves)
    side = 2 * half + 1
    h, w = draw(st.integers(side, 20)), draw(st.integers(side, 20))
    rgb = draw(rgb_images(h, w))
    unknown = draw(masks(h, w))
    valid = draw(st.one_of(flags(h, w), st.just(None)))
    if valid is None:  # the real valid map of the mask
        valid = np.zeros((h, w), np.uint8)
        for (y, x), v in valid_oracle(unknown, (0, 0, w, h), half).items():
            valid[y, x] = v
    target = draw(st.integers(0, h * w - 1))
    # Candidate centres: geometry.centres of an area inside the image, so every window is in it.
    cx0 = draw(st.integers(half, w - half - 1))
    cx1 = draw(st.integers(cx0 + 1, w - half))
    cy0 = draw(st.integers(half, h - half - 1))
    cy1 = draw(st.integers(cy0 + 1, h - half))
    return rgb, unknown, valid, target, (cx0, cy0, cx1, cy1), half


@settings(max_examples=60)
@given(ssd_states())
def test_ssd_matches_kernel_loop(state):
    rgb, unknown, valid, target, centres, half = state
    h, w = unknown.shape
    out = np.full(h * w, 0x5A5A5A5A, np.uint32)
    reference.ssd(rgb[..., :3], unknown, valid, target, centres, half, out)
    want = ssd_oracle(rgb, unknown, valid, target, centres, half)
    n = len(want)
    assert out[:n].tolist() == want
    assert (out[n:] == 0x5A5A5A5A).all()  # nothing past the map is written


def test_ssd_largest_values_are_exact():
    """Extreme colours over a 9x9 patch: 81 * 3 * 255^2 fits a uint32 and must not wrap."""
    half = 4
    rgb = np.zeros((9, 18, 3), np.uint8)
    rgb[:, 9:] = 255
    unknown = np.zeros((9, 18), np.uint8)
    valid = np.ones((9, 18), np.uint8)
    out = np.zeros(9 * 18, np.uint32)
    reference.ssd(rgb, unknown, valid, 4 * 18 + 4, (4, 4, 14, 5), half, out)
    assert int(out[9]) == 81 * 3 * 255 ** 2
    assert out[:10].tolist() == ssd_oracle(rgb, unknown, valid, 4 * 18 + 4, (4, 4, 14, 5), half)


# -- stage 7: argmin of the SSD map -----------------------------------------------------------
def argmin_oracle(ssd, n):
    bv, bi = UINT_MAX, -1
    for k in range(n):
        v = int(ssd[k])
        if v < bv:
            bv, bi = v, k
    return bi, bv


ssd_values = st.one_of(st.sampled_from([0, 1, 7, UINT_MAX - 1, UINT_MAX]), st.integers(0, UINT_MAX))


@settings(max_examples=80)
@given(st.lists(ssd_values, min_size=1, max_size=60), st.data())
def test_argmin_ssd_matches_kernel_loop(values, data):
    n = data.draw(st.integers(1, len(values)))
    ssd = np.array(values, np.uint32)
    ssd[n:] = 0  # entries past n must be ignored
    assert reference.argmin_ssd(ssd, n) == argmin_oracle(ssd, n)


def test_argmin_ssd_all_invalid():
    ssd = np.full(5, UINT_MAX, np.uint32)
    assert reference.argmin_ssd(ssd, 5) == (-1, UINT_MAX)
    ssd[3] = UINT_MAX - 1
    assert reference.argmin_ssd(ssd, 5) == (3, UINT_MAX - 1)


def test_argmin_ssd_empty_map_matches_kernel():
    ssd = np.zeros(4, np.uint32)
    assert argmin_oracle(ssd, 0) == (-1, UINT_MAX)
    assert reference.argmin_ssd(ssd, 0) == (-1, UINT_MAX)


# -- stage 8: copy ----------------------------------------------------------------------------
def copy_oracle(rgba, grey, unknown, conf, cpatch, target, source, radius):
    """copy_patch: per patch pixel, copy the source pixel into in-image target pixels still unknown."""
    h, w = unknown.shape
    ty, tx = target
    sy, sx = source
    side = 2 * radius + 1
    for py in range(side):
        for px in range(side):
            x, y = tx - radius + px, ty - radius + py
            if x < 0 or y < 0 or x >= w or y >= h:
                continue
            if not unknown[y, x]:
                continue
            s = (sy - radius + py, sx - radius + px)
            rgba[y, x] = rgba[s]
            grey[y, x] = grey[s]
            unknown[y, x] = 0
            conf[y, x] = cpatch[ty, tx]


@st.composite
def copy_states(draw):
    half = draw(halves)
    side = 2 * half + 1
    h, w = draw(st.integers(side, 20)), draw(st.integers(side, 20))
    rgba = draw(rgb_images(h, w))
    grey = draw(hnp.arrays(np.uint8, (h, w)))
    unknown = draw(masks(h, w))
    conf = draw(unit_floats(h, w))
    cpatch = draw(unit_floats(h, w))
    sy = draw(st.integers(half, h - half - 1))
    sx = draw(st.integers(half, w - half - 1))
    unknown[sy - half:sy + half + 1, sx - half:sx + half + 1] = 0  # a valid source: all known
    target = (draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1)))
    return rgba, grey, unknown, conf, cpatch, target, (sy, sx), half


@settings(max_examples=60)
@given(copy_states())
def test_copy_patch_matches_kernel_loop(state):
    rgba, grey, unknown, conf, cpatch, target, source, half = state
    got = [a.copy() for a in (rgba, grey, unknown, conf)]
    reference.copy_patch(got[0], got[1], got[2], got[3], cpatch, target, source, half)
    want = [a.copy() for a in (rgba, grey, unknown, conf)]
    copy_oracle(*want[:4], cpatch, target, source, half)
    for g, wnt in zip(got[:3], want[:3]):
        assert np.array_equal(g, wnt)
    assert np.array_equal(bits(got[3]), bits(want[3]))


# -- multiscale: hash32 and floor_div ---------------------------------------------------------
def lowbias32(x: int) -> int:
    """Chris Wellons' lowbias32, in Python integers modulo 2^32 (patchmatch.cl: hash32)."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


u32 = st.one_of(st.sampled_from([0, 1, 0x7FFFFFFF, 0x80000000, UINT_MAX]), st.integers(0, UINT_MAX))


@settings(max_examples=60)
@given(st.lists(u32, min_size=1, max_size=40))
def test_hash32_matches_lowbias32(xs):
    arr = np.array(xs, np.uint32)
    got = multiscale_ref.hash32(arr)
    assert got.dtype == np.uint32
    assert got.tolist() == [lowbias32(x) for x in xs]
    assert arr.tolist() == xs  # the input is not modified


@settings(max_examples=30)
@given(u32)
def test_hash32_scalar(x):
    assert int(multiscale_ref.hash32(np.uint32(x))) == lowbias32(x)


def test_hash32_known_values():
    assert lowbias32(0) == 0
    assert int(multiscale_ref.hash32(np.uint32(0))) == 0
    # 2-D input keeps its shape
    x = np.arange(12, dtype=np.uint32).reshape(3, 4)
    assert multiscale_ref.hash32(x).tolist() == [[lowbias32(v) for v in row] for row in x.tolist()]


def c_floor_div(a: int, b: int) -> int:
    """poisson.cl's floor_div: C's truncating division on non-negative operands only."""
    def c_div(p, q):  # C99 '/' for p >= 0, q > 0
        assert p >= 0 and q > 0
        return p // q
    return c_div(a, b) if a >= 0 else -c_div(-a + b - 1, b)


@settings(max_examples=60)
@given(st.lists(st.integers(-(2 ** 30), 2 ** 30), min_size=1, max_size=30),
       st.integers(1, 2 ** 20), st.sampled_from([np.int32, np.int64]))
def test_floor_div_matches_kernel_scalar_divisor(xs, b, dtype):
    a = np.array(xs, dtype)
    got = multiscale_ref.floor_div(a, b)
    assert got.tolist() == [c_floor_div(x, b) for x in xs]
    assert got.tolist() == [x // b for x in xs]  # Python's // is floor division


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(-(2 ** 30), 2 ** 30), st.integers(1, 4096)), min_size=1, max_size=30))
def test_floor_div_matches_kernel_array_divisor(pairs):
    a = np.array([p[0] for p in pairs], np.int32)
    b = np.array([p[1] for p in pairs], np.int32)
    assert multiscale_ref.floor_div(a, b).tolist() == [c_floor_div(x, y) for x, y in pairs]


@pytest.mark.parametrize("a,b,q", [(-1, 2, -1), (-2, 2, -1), (-3, 2, -2), (0, 5, 0), (7, 7, 1), (-4096, 4096, -1),
                                   (-4097, 4096, -2), (2047, 4096, 0), (-2048, 4096, -1)])
def test_floor_div_by_hand(a, b, q):
    assert c_floor_div(a, b) == q
    assert int(multiscale_ref.floor_div(np.array([a], np.int32), b)[0]) == q

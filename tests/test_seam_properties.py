"""Property tests for the numpy seam carver (``inpaint/seam/reference.py``, ``resize`` with
``backend="numpy"``) against naive oracles written from the module's stated rules: per-pixel
Prewitt / forward energies, a per-cell dynamic programme, and brute force over every seam of
tiny images (which also pins the tie rules)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from inpaint.seam import reference as ref, resize

INF = ref.INF


# -- helpers ---------------------------------------------------------------------------------
def channels_of(v: int) -> tuple[int, int, int, int]:
    """R, G, B, A of a packed pixel (R in the low byte)."""
    v = int(v)
    return v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF


def l1(p: int, q: int) -> int:
    return sum(abs(a - b) for a, b in zip(channels_of(p)[:3], channels_of(q)[:3]))


def energy_oracle(pixels, mask=None, mode="backward", drop=ref.DROP):
    """Prewitt |Gx| + |Gy| summed over R, G, B with replicated edges; masks per the module rules."""
    h, w = pixels.shape

    def at(r, c):
        return channels_of(pixels[min(max(r, 0), h - 1), min(max(c, 0), w - 1)])

    e = [[0] * w for _ in range(h)]
    for r in range(h):
        for c in range(w):
            v = 0
            if mode == "backward":
                for ch in range(3):
                    gx = sum(at(r + d, c + 1)[ch] - at(r + d, c - 1)[ch] for d in (-1, 0, 1))
                    gy = sum(at(r + 1, c + d)[ch] - at(r - 1, c + d)[ch] for d in (-1, 0, 1))
                    v += abs(gx) + abs(gy)
            if mask is not None and mask[r, c] == ref.REMOVE:
                v -= drop
            if mask is not None and mask[r, c] == ref.KEEP:
                v = INF
            e[r][c] = v
    return e


def forward_terms(pixels, r, c):
    """(CL, CU, CR) of entering (r, c); the first row costs CU whatever the move."""
    h, w = pixels.shape
    px = lambda rr, cc: int(pixels[rr, min(max(cc, 0), w - 1)])  # noqa: E731
    cu = l1(px(r, c + 1), px(r, c - 1))
    if r == 0:
        return cu, cu, cu
    return cu + l1(px(r - 1, c), px(r, c - 1)), cu, cu + l1(px(r - 1, c), px(r, c + 1))


def strips_of(w, strips):
    starts = [j * w // strips for j in range(strips)] + [w]
    return [(starts[j], starts[j + 1]) for j in range(strips)]


def dp_oracle(pixels, e, mode="backward", strips=1):
    """``M(r, c) = e + min(M(r-1, c-1) + CL, M(r-1, c) + CU, M(r-1, c+1) + CR)`` cell by cell,
    moves confined to the strip, a cost that reaches INF stays INF."""
    h, w = len(e), len(e[0])
    strip = {}
    for lo, hi in strips_of(w, strips):
        for c in range(lo, hi):
            strip[c] = (lo, hi)
    m = [[0] * w for _ in range(h)]
    for r in range(h):
        for c in range(w):
            cl, cu, cr = forward_terms(pixels, r, c) if mode == "forward" else (0, 0, 0)
            if r == 0:
                best = cu
            else:
                lo, hi = strip[c]
                options = [m[r - 1][c] + cu]
                if c - 1 >= lo:
                    options.append(m[r - 1][c - 1] + cl)
                if c + 1 < hi:
                    options.append(m[r - 1][c + 1] + cr)
                best = min(options)
            total = e[r][c] + best
            if r == 0:
                m[r][c] = INF if e[r][c] >= INF or total >= INF else total
            else:
                m[r][c] = INF if e[r][c] >= INF or best >= INF else total
    return m


def seam_cost(pixels, e, mode, cols):
    """Total cost of one seam (one column per row), INF as soon as it reaches INF."""
    total = 0
    for r, c in enumerate(cols):
        cl, cu, cr = forward_terms(pixels, r, c) if mode == "forward" else (0, 0, 0)
        move = cu if r == 0 else {-1: cl, 0: cu, 1: cr}[cols[r - 1] - c]  # from the left: CL
        if e[r][c] >= INF or total >= INF:
            return INF
        total = min(total + e[r][c] + move, INF)
    return total


def all_seams(h, lo, hi):
    """Every 8-connected vertical seam inside columns [lo, hi)."""
    for c0 in range(lo, hi):
        for moves in itertools.product((-1, 0, 1), repeat=h - 1):
            cols = [c0]
            for d in moves:
                cols.append(cols[-1] + d)
            if all(lo <= c < hi for c in cols):
                yield cols


def brute_force_seam(pixels, e, mode, lo, hi):
    """The optimal seam of a strip with the module's tie rules (None when every seam is INF).

    Ties: the smallest last column, then going up, left before centre before right, i.e. the
    lexicographically smallest column sequence read bottom-up among the optimal seams.
    """
    h = len(e)
    scored = [(seam_cost(pixels, e, mode, cols), cols[::-1], cols) for cols in all_seams(h, lo, hi)]
    best = min(scored)
    return None if best[0] >= INF else best[2]


# -- strategies ------------------------------------------------------------------------------
PALETTE = [0xFF000000, 0xFF0000FF, 0xFF00FF00, 0xFFFF0000, 0xFFFFFFFF, 0x80101010]


def packed(h, w):
    """Packed RGBA pixels; a small palette now and then, for many equal energies (ties)."""
    return st.one_of(hnp.arrays(np.uint32, (h, w)),
                     hnp.arrays(np.uint32, (h, w), elements=st.sampled_from(PALETTE)))


@st.composite
def carve_problems(draw, max_h=5, max_w=6):
    h, w = draw(st.integers(1, max_h)), draw(st.integers(1, max_w))
    pixels = draw(packed(h, w))
    mode = draw(st.sampled_from(["backward", "forward"]))
    mask = draw(st.one_of(st.none(), hnp.arrays(np.uint8, (h, w), elements=st.sampled_from([0, 0, 0, 1, 2]))))
    strips = draw(st.integers(1, w))
    drop = draw(st.sampled_from([ref.DROP, ref.drop_bias(h), 7]))
    return pixels, mask, mode, strips, drop


# -- energy and cumulative cost --------------------------------------------------------------
@settings(max_examples=60)
@given(carve_problems(max_h=6, max_w=7))
def test_energy_matches_per_pixel_oracle(problem):
    pixels, mask, mode, _, drop = problem
    got = ref.energy(pixels, mask, mode, drop)
    assert got.dtype == np.int32
    assert got.tolist() == energy_oracle(pixels, mask, mode, drop)
    if mode == "backward" and mask is None:
        assert 0 <= got.min() and got.max() <= ref.MAX_ENERGY


def test_energy_docstring_example():
    px = ref.pack(np.array([[[0, 0, 0], [9, 0, 0], [9, 0, 0]]], dtype=np.uint8))
    assert energy_oracle(px) == [[27, 27, 0]]


@settings(max_examples=60)
@given(carve_problems(max_h=6, max_w=7))
def test_cumulative_cost_matches_naive_dp(problem):
    pixels, mask, mode, strips, drop = problem
    e = ref.energy(pixels, mask, mode, drop)
    m = ref.cumulative_cost(pixels, e, mode, strips)
    assert m.dtype == np.int32
    assert m.tolist() == dp_oracle(pixels, energy_oracle(pixels, mask, mode, drop), mode, strips)


# -- find_seams: the optimal seam, by brute force --------------------------------------------
@settings(max_examples=80)
@given(carve_problems())
def test_find_seams_is_the_brute_force_optimum(problem):
    pixels, mask, mode, strips, drop = problem
    h, w = pixels.shape
    e = ref.energy(pixels, mask, mode, drop)
    seams = ref.find_seams(pixels, ref.cumulative_cost(pixels, e, mode, strips), mode, strips)
    assert seams.shape == (strips, h)
    e_list = energy_oracle(pixels, mask, mode, drop)
    for j, (lo, hi) in enumerate(strips_of(w, strips)):
        seam = seams[j].tolist()
        want = brute_force_seam(pixels, e_list, mode, lo, hi)
        if want is None:
            assert seam == [-1] * h  # every seam of the strip crosses a protected pixel
            continue
        # one pixel per row, inside its strip, 8-connected
        assert all(lo <= c < hi for c in seam)
        assert all(abs(a - b) <= 1 for a, b in zip(seam, seam[1:]))
        # never through a protected pixel
        assert mask is None or all(mask[r, c] != ref.KEEP for r, c in enumerate(seam))
        # optimal, and the tie rules pick this very seam
        assert seam_cost(pixels, e_list, mode, seam) == seam_cost(pixels, e_list, mode, want)
        assert seam == want


@settings(max_examples=40)
@given(st.integers(1, 5), st.integers(1, 6), st.data())
def test_flat_image_ties_pick_the_leftmost_straight_seam(h, w, data):
    """Everything equal: the last row's smallest column, then left-before-centre going up."""
    colour = data.draw(st.sampled_from(PALETTE))
    px = np.full((h, w), colour, np.uint32)
    mode = data.draw(st.sampled_from(["backward", "forward"]))
    e = ref.energy(px, None, mode)
    seam = ref.find_seams(px, ref.cumulative_cost(px, e, mode), mode)[0].tolist()
    assert seam == [0] * h


# -- remove_seams: pixels only move -----------------------------------------------------------
@settings(max_examples=60)
@given(carve_problems())
def test_remove_seams_deletes_exactly_the_seam_pixels(problem):
    pixels, mask, mode, strips, drop = problem
    h, w = pixels.shape
    e = ref.energy(pixels, mask, mode, drop)
    seams = ref.find_seams(pixels, ref.cumulative_cost(pixels, e, mode, strips), mode, strips)
    good = [s for s in seams.tolist() if s[0] >= 0]
    idx = np.arange(h * w, dtype=np.int32).reshape(h, w)
    out_px, out_idx = ref.remove_seams([pixels, idx], seams)
    assert out_px.shape == (h, w - len(good)) == out_idx.shape
    for r in range(h):
        gone = {s[r] for s in good}
        assert len(gone) == len(good)  # strips never share a pixel
        assert out_px[r].tolist() == [int(v) for c, v in enumerate(pixels[r]) if c not in gone]
        assert out_idx[r].tolist() == [r * w + c for c in range(w) if c not in gone]


# -- resize: shrinking -----------------------------------------------------------------------
@st.composite
def images(draw, min_side=3, max_h=8, max_w=8):
    h, w = draw(st.integers(min_side, max_h)), draw(st.integers(min_side, max_w))
    kind = draw(st.sampled_from(["grey", "rgb", "rgba"]))
    shape = {"grey": (h, w), "rgb": (h, w, 3), "rgba": (h, w, 4)}[kind]
    elems = st.one_of(st.integers(0, 255), st.sampled_from([0, 128, 255]))
    return draw(hnp.arrays(np.uint8, shape, elements=elems))


def as3(img):
    return img[..., None] if img.ndim == 2 else img


@settings(max_examples=40)
@given(images(), st.data())
def test_shrinking_width_only_deletes_pixels(img, data):
    h, w = img.shape[:2]
    k = data.draw(st.integers(1, w - 1))
    energy = data.draw(st.sampled_from(["backward", "forward"]))
    batch = data.draw(st.sampled_from([None, 2, 3]))
    out, seams, src = resize(img, w - k, None, energy=energy, batch=batch, backend="numpy",
                             return_seams=True, return_source=True)
    assert out.shape == (h, w - k) + img.shape[2:] and out.dtype == np.uint8
    assert seams.shape == (h, w) and src.shape == (h, w - k, 2)
    for r in range(h):
        # each removed seam took exactly one pixel of every row
        assert sorted(seams[r][seams[r] != 0].tolist()) == list(range(1, k + 1))
        assert (seams[r] >= 0).all()
        # the output row is the input row with exactly those pixels deleted, values unchanged
        assert np.array_equal(out[r], img[r][seams[r] == 0])
        assert src[r, :, 0].tolist() == [r] * (w - k)
        assert src[r, :, 1].tolist() == np.flatnonzero(seams[r] == 0).tolist()


@settings(max_examples=30)
@given(images(), st.data())
def test_shrinking_height_only_deletes_pixels(img, data):
    h, w = img.shape[:2]
    k = data.draw(st.integers(1, h - 1))
    energy = data.draw(st.sampled_from(["backward", "forward"]))
    out, seams, src = resize(img, None, h - k, energy=energy, backend="numpy",
                             return_seams=True, return_source=True)
    assert out.shape == (h - k, w) + img.shape[2:]
    for c in range(w):
        assert sorted(seams[:, c][seams[:, c] != 0].tolist()) == list(range(1, k + 1))
        assert np.array_equal(out[:, c], img[:, c][seams[:, c] == 0])
        assert src[:, c, 0].tolist() == np.flatnonzero(seams[:, c] == 0).tolist()


@settings(max_examples=30)
@given(images(), st.data())
def test_shrinking_both_directions_is_a_subgrid_selection(img, data):
    h, w = img.shape[:2]
    tw, th = data.draw(st.integers(1, w)), data.draw(st.integers(1, h))
    order = data.draw(st.sampled_from(["width-first", "height-first"]))
    out, src = resize(img, tw, th, order=order, backend="numpy", return_source=True)
    assert out.shape == (th, tw) + img.shape[2:]
    assert np.array_equal(out, img[src[..., 0], src[..., 1]])  # every pixel is an input pixel
    assert len({tuple(p) for p in src.reshape(-1, 2).tolist()}) == th * tw  # each used once
    # order is kept along the last direction carved
    if order == "width-first":
        assert (np.diff(src[..., 0], axis=0) > 0).all()
    else:
        assert (np.diff(src[..., 1], axis=1) > 0).all()


# -- protected pixels ------------------------------------------------------------------------
def free_seam_exists(keep):
    h, w = keep.shape
    return any(all(not keep[r, c] for r, c in enumerate(cols)) for cols in all_seams(h, 0, w))


@settings(max_examples=50)
@given(images(max_h=6, max_w=6), st.data())
def test_keep_mask_one_seam_iff_a_free_seam_exists(img, data):
    h, w = img.shape[:2]
    keep = data.draw(hnp.arrays(np.bool_, (h, w), elements=st.sampled_from([False, False, False, True])))
    energy = data.draw(st.sampled_from(["backward", "forward"]))
    if free_seam_exists(keep):
        out, seams, src = resize(img, w - 1, None, energy=energy, keep_mask=keep, backend="numpy",
                                 return_seams=True, return_source=True)
        assert not seams[keep].any()                     # no protected pixel was taken
        kept = {tuple(p) for p in src.reshape(-1, 2).tolist()}
        assert {tuple(p) for p in np.argwhere(keep).tolist()} <= kept
    else:
        with pytest.raises(ValueError, match="keep_mask"):
            resize(img, w - 1, None, energy=energy, keep_mask=keep, backend="numpy")


@settings(max_examples=30)
@given(images(max_h=7, max_w=7), st.data())
def test_keep_mask_survives_any_successful_shrink(img, data):
    h, w = img.shape[:2]
    keep = data.draw(hnp.arrays(np.bool_, (h, w), elements=st.sampled_from([False] * 5 + [True])))
    tw, th = data.draw(st.integers(1, w)), data.draw(st.integers(1, h))
    batch = data.draw(st.sampled_from([None, 2]))
    try:
        out, seams, src = resize(img, tw, th, keep_mask=keep, batch=batch, backend="numpy",
                                 return_seams=True, return_source=True)
    except ValueError as exc:
        assert "keep_mask" in str(exc)
        return
    assert not seams[keep].any()
    assert np.array_equal(out, img[src[..., 0], src[..., 1]])
    kept = {tuple(p) for p in src.reshape(-1, 2).tolist()}
    assert {tuple(p) for p in np.argwhere(keep).tolist()} <= kept


# -- enlarging -------------------------------------------------------------------------------
def insert_oracle(pixels, dup):
    """After each marked pixel, the per-byte ceil((a + b) / 2) with its right neighbour."""
    h, w = pixels.shape
    rows = []
    for r in range(h):
        row = []
        for c in range(w):
            a = int(pixels[r, c])
            row.append(a)
            if dup[r, c]:
                b = int(pixels[r, min(c + 1, w - 1)])
                row.append(sum(((((a >> s) & 0xFF) + ((b >> s) & 0xFF) + 1) // 2) << s for s in (0, 8, 16, 24)))
        rows.append(row)
    return rows


@st.composite
def dup_problems(draw):
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 8))
    pixels = draw(packed(h, w))
    k = draw(st.integers(0, w))
    dup = np.zeros((h, w), bool)
    for r in range(h):
        dup[r, draw(st.permutations(range(w)))[:k]] = True
    return pixels, dup


@settings(max_examples=60)
@given(dup_problems())
def test_insert_seams_matches_oracle_and_values_lie_between_neighbours(problem):
    pixels, dup = problem
    h, w = pixels.shape
    k = int(dup[0].sum())
    out = ref.insert_seams(pixels, dup)
    assert out.shape == (h, w + k)
    want = insert_oracle(pixels, dup)
    assert out.tolist() == want
    for r in range(h):
        pos = 0
        for c in range(w):
            assert int(out[r, pos]) == int(pixels[r, c])  # the original pixels, in order
            if dup[r, c]:
                a, b = channels_of(pixels[r, c]), channels_of(pixels[r, min(c + 1, w - 1)])
                for m, x, y in zip(channels_of(out[r, pos + 1]), a, b):
                    assert min(x, y) <= m <= max(x, y)
                pos += 1
            pos += 1


def test_insert_seams_rejects_ragged_rows():
    px = np.zeros((2, 3), np.uint32)
    dup = np.array([[True, False, False], [True, True, False]])
    with pytest.raises(ValueError, match="same number"):
        ref.insert_seams(px, dup)


@settings(max_examples=40)
@given(images(max_h=7, max_w=8), st.data())
def test_enlarging_width_one_step(img, data):
    """k <= W/2 is one insertion step: every input pixel stays, each seam adds one blended pixel."""
    h, w = img.shape[:2]
    k = data.draw(st.integers(1, max(1, w // 2)))
    energy = data.draw(st.sampled_from(["backward", "forward"]))
    out, seams, src = resize(img, w + k, None, energy=energy, backend="numpy",
                             return_seams=True, return_source=True)
    assert out.shape == (h, w + k) + img.shape[2:]
    o3, i3 = as3(out).astype(int), as3(img).astype(int)
    for r in range(h):
        dup = seams[r] < 0
        assert int(dup.sum()) == k and (seams[r] <= 0).all()
        assert sorted((-seams[r][dup]).tolist()) == list(range(1, k + 1))
        cols = src[r, :, 1].tolist()
        assert (src[r, :, 0] == r).all()
        pos = 0
        for c in range(w):
            assert cols[pos] == c and np.array_equal(o3[r, pos], i3[r, c])  # original pixel, unchanged
            if dup[c]:
                assert cols[pos + 1] == c
                a, b = i3[r, c], i3[r, min(c + 1, w - 1)]
                assert np.array_equal(o3[r, pos + 1], (a + b + 1) // 2)  # ceil of the mean
                assert (np.minimum(a, b) <= o3[r, pos + 1]).all() and (o3[r, pos + 1] <= np.maximum(a, b)).all()
                pos += 1
            pos += 1
        assert pos == w + k


@settings(max_examples=20)
@given(images(max_h=6, max_w=6), st.data())
def test_enlarging_a_lot_keeps_every_pixel_and_the_value_range(img, data):
    h, w = img.shape[:2]
    tw = data.draw(st.integers(w + 1, 2 * w))
    th = data.draw(st.integers(h, 2 * h))
    out, src = resize(img, tw, th, backend="numpy", return_source=True)
    assert out.shape == (th, tw) + img.shape[2:]
    o3, i3 = as3(out), as3(img)
    lo, hi = i3.min(axis=(0, 1)), i3.max(axis=(0, 1))
    assert ((lo <= o3) & (o3 <= hi)).all()  # blends never leave the input's range
    assert {tuple(p) for p in src.reshape(-1, 2).tolist()} == {(r, c) for r in range(h) for c in range(w)}


# -- object removal --------------------------------------------------------------------------
@settings(max_examples=30)
@given(images(min_side=6, max_h=9, max_w=9), st.data())
def test_drop_mask_removes_every_marked_pixel(img, data):
    h, w = img.shape[:2]
    dh, dw = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    y0, x0 = data.draw(st.integers(0, h - dh)), data.draw(st.integers(0, w - dw))
    drop = np.zeros((h, w), bool)
    drop[y0:y0 + dh, x0:x0 + dw] = True
    restore = data.draw(st.booleans())
    energy = data.draw(st.sampled_from(["backward", "forward"]))
    out, seams, src = resize(img, drop_mask=drop, restore=restore, energy=energy, backend="numpy",
                             return_seams=True, return_source=True)
    assert (seams[drop] > 0).all()                       # every marked pixel went with a seam
    assert not drop[src[..., 0], src[..., 1]].any()       # and none of them is in the output
    if restore:
        assert out.shape == img.shape
    else:
        removed = int(seams.max())
        vertical = dw <= dh  # fewer marked pixels per row than per column: vertical seams
        assert removed >= (dw if vertical else dh)
        assert out.shape == ((h, w - removed) if vertical else (h - removed, w)) + img.shape[2:]
        assert np.array_equal(out, img[src[..., 0], src[..., 1]])

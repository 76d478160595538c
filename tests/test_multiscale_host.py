"""The multiscale fill's host work near the hole: what it computes over the hole's box equals
the same computation over the whole picture, for holes in the middle, at the borders and in the
corners."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from inpaint import geometry
from inpaint.methods.multiscale import reference as ref
from inpaint.methods.multiscale.levels import (
    VALID_BLOCK,
    down2,
    free_centres,
    free_count,
    halve_hole,
    halved,
    mask_pyramid,
    prepare_level,
    pyramid_boxes,
    random_valid,
    source_rect,
    valid_ends,
)

SHAPES = [(64, 80), (63, 81), (41, 37)]


def hole_at(shape: tuple[int, int], where: str, size: int = 9) -> np.ndarray:
    """A square hole of side ``size`` in the middle, touching an edge, or in a corner."""
    h, w = shape
    y = {"middle": h // 2, "top": 0, "corner": 0, "bottom": h - size, "far": h - size}[where]
    x = {"middle": w // 2, "top": w // 3, "corner": 0, "bottom": w // 4, "far": w - size}[where]
    mask = np.zeros(shape, bool)
    mask[y:y + size, x:x + size] = True
    return mask


PLACES = ["middle", "top", "corner", "bottom", "far"]


def whole_valid_ends(valid: np.ndarray) -> np.ndarray:
    """``valid_ends`` computed over the whole level."""
    blocks = np.add.reduceat(valid, np.arange(0, valid.shape[1], VALID_BLOCK), axis=1, dtype=np.uint32)
    return np.cumsum(blocks.ravel(), dtype=np.uint32)


@pytest.mark.parametrize("width", [1, 7, VALID_BLOCK - 1, VALID_BLOCK, VALID_BLOCK + 9, 3 * VALID_BLOCK + 5])
def test_valid_ends_count_every_block_whatever_the_box(width):
    rng = np.random.default_rng(width)
    for _ in range(40):
        valid = (rng.random((9, width)) < rng.random()).astype(np.uint8)
        x0, x1 = sorted(rng.integers(0, width + 1, 2))
        valid[:, :x0] = 0
        valid[:, x1:] = 0
        lev = dataclasses.replace(prepare_level(hole_at((64, 64), "middle"), 2, 1.0), valid=valid, valid_box=())
        np.testing.assert_array_equal(valid_ends(lev), whole_valid_ends(valid))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("protected", [False, True])
def test_level_reductions_over_the_sources_box_equal_the_whole_level(shape, where, protected):
    mask = hole_at(shape, where)
    protect = hole_at(shape, "middle", 5) & ~mask if protected else None
    for alpha in (0.3, 1.0, None):
        lev = prepare_level(mask, 2, alpha, protect)
        valid = lev.valid != 0
        rows, cols = np.flatnonzero(valid.any(axis=1)), np.flatnonzero(valid.any(axis=0))
        assert lev.valid_box == (cols[0], rows[0], cols[-1] + 1, rows[-1] + 1)
        assert lev.radius == max(rows[-1] - rows[0], cols[-1] - cols[0], 1)
        assert source_rect(lev, 2) == (cols[0] - 2, rows[0] - 2, cols[-1] + 3, rows[-1] + 3)
        np.testing.assert_array_equal(valid_ends(lev), whole_valid_ends(lev.valid))
        # a level that does not know its box finds the same sources
        unknown = dataclasses.replace(lev, valid_box=())
        idx = np.arange(500, dtype=np.uint32)
        np.testing.assert_array_equal(random_valid(lev, idx, 7), random_valid(unknown, idx, 7))
        np.testing.assert_array_equal(valid_ends(unknown), valid_ends(lev))
        found = random_valid(lev, idx, 7)
        assert valid[found[:, 0], found[:, 1]].all()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("half", [1, 3])
def test_free_count_equals_the_whole_image_count(shape, where, half):
    mask = hole_at(shape, where)
    box = geometry.bbox(mask)
    assert free_count(mask, half, box) == int(free_centres(mask, half, box).sum())
    protect = hole_at(shape, "far", 4) & ~mask
    assert free_count(mask, half, box, protect) == int(free_centres(mask, half, box, protect).sum())


def test_free_count_of_a_hole_covering_the_interior():
    mask = np.zeros((9, 9), bool)
    mask[1:8, 1:8] = True
    assert free_count(mask, 3, geometry.bbox(mask)) == 0 == int(free_centres(mask, 3, geometry.bbox(mask)).sum())


@pytest.mark.parametrize("shape", [(64, 80), (63, 81), (5, 7), (1, 9)])
def test_halved_box_is_the_box_of_the_halved_mask(shape):
    rng = np.random.default_rng(3)
    for _ in range(30):
        mask = np.zeros(shape, bool)
        y0, x0 = rng.integers(0, shape[0]), rng.integers(0, shape[1])
        mask[y0:y0 + rng.integers(1, 12), x0:x0 + rng.integers(1, 12)] = True
        assert halved(geometry.bbox(mask)) == geometry.bbox(down2(mask))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("size", [1, 8, 9])
def test_halving_the_hole_over_its_box_equals_halving_the_whole_mask(shape, where, size):
    mask = hole_at(shape, where, size)
    if size > 1:  # not a whole square: a ragged corner
        ys, xs = np.nonzero(mask)
        mask[ys[-1], xs[-1]] = False
    np.testing.assert_array_equal(halve_hole(mask, geometry.bbox(mask)), down2(mask))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("alpha", [1.0, 0.02, None])
@pytest.mark.parametrize("protected", [False, True])
def test_level_sources_over_the_areas_tried_equal_those_of_the_whole_picture(shape, where, alpha, protected):
    """The sources, computed over each search area tried alone, equal the area's share of the
    whole picture's free centres, widened alike."""
    mask = hole_at(shape, where, 9)
    protect = None
    if protected:
        protect = np.zeros(shape, bool)
        protect[shape[0] // 3:shape[0] // 3 + 5, 2:9] = True
    level = prepare_level(mask, 2, alpha, protect)
    free = free_centres(mask, 2, geometry.bbox(mask), protect)
    area, sources, widened = geometry.source_area(free, geometry.bbox(mask), alpha, 2)
    assert (level.area, level.widened) == (area, widened)
    np.testing.assert_array_equal(level.valid, sources)


def test_mask_pyramid_of_a_corner_hole_keeps_every_level_with_a_hole():
    mask = hole_at((256, 320), "corner", 60)
    masks = mask_pyramid(mask, 7)
    assert len(masks) > 2
    for fine, coarse in zip(masks, masks[1:]):
        np.testing.assert_array_equal(coarse, down2(fine))


@pytest.mark.parametrize("shape", [(256, 320), (255, 321)])
@pytest.mark.parametrize("where", PLACES)
def test_pyramid_boxes_are_the_boxes_of_the_levels_and_prepare_the_same_levels(shape, where):
    mask = hole_at(shape, where, 50)
    masks = mask_pyramid(mask, 5)
    boxes = pyramid_boxes(mask, len(masks))
    assert boxes == [geometry.bbox(m) for m in masks]
    for m, box in zip(masks, boxes):
        given, found = prepare_level(m, 2, 1.0, None, box), prepare_level(m, 2, 1.0)
        assert given.work == found.work and given.valid_box == found.valid_box
        np.testing.assert_array_equal(given.pixels, found.pixels)
        np.testing.assert_array_equal(given.valid, found.valid)


def direct_upsample2(coarse: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Bilinear doubling with the four weights 9, 3, 3, 1 of every output pixel written out."""
    out = np.zeros(shape, np.int64)
    ch, cw = coarse.shape
    for y in range(shape[0]):
        yn, yf = y // 2, min(max(y // 2 + (1 if y % 2 else -1), 0), ch - 1)
        for x in range(shape[1]):
            xn, xf = x // 2, min(max(x // 2 + (1 if x % 2 else -1), 0), cw - 1)
            total = (9 * coarse[yn, xn] + 3 * coarse[yn, xf] + 3 * coarse[yf, xn] + coarse[yf, xf])
            out[y, x] = (total + 8) // 16
    return out


@pytest.mark.parametrize("shape", [(8, 10), (7, 9), (1, 5), (2, 1)])
def test_upsample2_equals_the_four_weights(shape):
    rng = np.random.default_rng(5)
    coarse = rng.integers(-300, 300, ((shape[0] + 1) // 2, (shape[1] + 1) // 2))
    np.testing.assert_array_equal(ref._upsample2(coarse, shape), direct_upsample2(coarse, shape))


def test_texture_features_of_a_picture_whose_edges_sum_past_32_bits():
    """A 1800x1800 picture of the strongest edges everywhere: its edge values sum past 2^32 (the
    integral image wraps), and the features of its far corner still equal those computed from
    that corner alone."""
    stripes = np.where((np.arange(1800) // 2) % 2 == 0, 0, 255).astype(np.uint8)
    rgb = np.repeat((stripes[:, None] ^ stripes[None, :])[..., None], 3, axis=2)
    hole = np.zeros(rgb.shape[:2], bool)
    hole[900:905, 900:905] = True
    assert int(ref.edges(rgb, hole).astype(np.int64).sum()) > 2 ** 32
    whole = ref.texture_features(rgb, hole)
    corner = ref.texture_features(rgb[-40:, -40:], hole[-40:, -40:])
    np.testing.assert_array_equal(whole[-30:, -30:], corner[-30:, -30:])
    assert whole[-30:, -30:].min() > 200


def direct_features(rgb: np.ndarray, hole: np.ndarray, r: int) -> np.ndarray:
    """Texture features by summing each pixel's box of edges one by one."""
    e = ref.edges(rgb, hole).astype(np.int64)
    have = e != ref.EDGE_NONE
    h, w = hole.shape
    out = np.zeros((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            sl = (slice(max(y - r, 0), y + r + 1), slice(max(x - r, 0), x + r + 1))
            c, s = int(have[sl].sum()), int(e[sl][have[sl]].sum())
            if c and not hole[y, x]:
                out[y, x] = min((s + 3 * c) // (6 * c), 255)
    return out


@pytest.mark.parametrize("r", [0, 2, ref.FEATURE_RADIUS])
def test_texture_features_equal_the_box_sums(r):
    rng = np.random.default_rng(9)
    rgb = rng.integers(0, 256, (23, 31, 3)).astype(np.uint8)
    hole = hole_at((23, 31), "corner", 6) | hole_at((23, 31), "far", 5)
    np.testing.assert_array_equal(ref.texture_features(rgb, hole, r), direct_features(rgb, hole, r))


@pytest.mark.parametrize("where", PLACES)
def test_texture_of_a_region_equals_that_region_of_the_whole_picture(where):
    rng = np.random.default_rng(11)
    shape = (63, 81)
    rgb = rng.integers(0, 256, shape + (3,)).astype(np.uint8)
    hole = hole_at(shape, where, 12)
    x0, y0, x1, y1 = geometry.grow(geometry.bbox(hole), 3, shape[1], shape[0])
    whole = ref.texture_features(rgb, hole)
    np.testing.assert_array_equal(ref.texture_features_in(rgb, hole, (x0, y0, x1, y1)), whole[y0:y1, x0:x1])


def listed_expected_texture(rgb, hole, solve, work, margin):
    """:func:`ref.expected_texture` from the list of the hole's pixels, grouped cell by cell."""
    from inpaint.masks import component

    x0, y0, x1, y1 = work
    h, w = hole.shape
    out = np.zeros((y1 - y0, x1 - x0), np.uint8)
    ys, xs = np.nonzero(solve == 1)
    if not len(ys):
        return out
    cy, cx = ys // ref.GROUP_CELL, xs // ref.GROUP_CELL
    occupied = np.zeros((int(cy.max()) + 1, int(cx.max()) + 1), bool)
    occupied[cy, cx] = True
    table = np.full(occupied.shape, -1, np.int64)
    count = 0
    for a, b in zip(*np.nonzero(occupied)):
        if table[a, b] < 0:
            table[component(occupied, (int(a), int(b)), 8)] = count
            count += 1
    ids = table[cy, cx]
    for g in range(count):
        gy, gx = ys[ids == g], xs[ids == g]
        rx0, ry0 = max(int(gx.min()) + x0 - margin, 0), max(int(gy.min()) + y0 - margin, 0)
        rx1, ry1 = min(int(gx.max()) + x0 + 1 + margin, w), min(int(gy.max()) + y0 + 1 + margin, h)
        feature = ref.texture_features_in(rgb, hole, (rx0, ry0, rx1, ry1))
        prior = ref.texture_prior(feature, solve[ry0 - y0:ry1 - y0, rx0 - x0:rx1 - x0])
        out[gy, gx] = prior[gy + y0 - ry0, gx + x0 - rx0]
    return out


@pytest.mark.parametrize("places", [("middle",), ("corner",), ("far",), ("corner", "far"), ("top", "bottom", "far")])
@pytest.mark.parametrize("protected", [False, True])
def test_expected_texture_by_boxes_equals_the_pixel_list(places, protected):
    rng = np.random.default_rng(13)
    shape = (300, 361)
    rgb = rng.integers(0, 256, shape + (3,)).astype(np.uint8)
    mask = np.zeros(shape, bool)
    for where in places:
        mask |= hole_at(shape, where, 30)
    mask[150:160, 20:200] |= "top" in places  # a long thin part across several cells
    protect = hole_at(shape, "middle", 12) & ~mask if protected else None
    lev = prepare_level(mask, 3, None, protect)
    got = ref.expected_texture(rgb, mask, lev.solve_map, lev.work, 3)
    np.testing.assert_array_equal(got, listed_expected_texture(rgb, mask, lev.solve_map, lev.work, 3))
    assert got[lev.solve_map != 1].max(initial=0) == 0


def test_the_image_during_a_run_is_the_level_fill_scaled_up_into_the_hole():
    """While a level runs, every hole pixel shows the level's pixel that covers it (pixel
    repetition), and the rest is the photo."""
    from inpaint.api import start

    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (101, 131, 3), dtype=np.uint8)
    mask = hole_at(img.shape[:2], "far", 23)
    job = start(img, mask, method="multiscale", backend="numpy", seed=1)
    levels_seen = set()
    while job.step() and len(levels_seen) < 2:
        fill = job.first  # the one group's fill
        scale = 2 ** fill._level
        est = fill._state.image()
        up = np.repeat(np.repeat(est, scale, axis=0), scale, axis=1)[:mask.shape[0], :mask.shape[1]]
        shown = job.image
        np.testing.assert_array_equal(shown[mask], up[mask])
        np.testing.assert_array_equal(shown[~mask], img[~mask])
        levels_seen.add(fill._level)
    assert max(levels_seen) > 0


@pytest.mark.parametrize("inline", [False, True], ids=["thread", "inline"])
def test_the_levels_are_set_up_beside_the_fill(monkeypatch, inline):
    """A large photo's level descriptions are made on a thread beside the fill's own, which ends with
    them; a small photo's on the fill's thread, each after a round of the level before the one
    that needs it.  Either way they are the descriptions made alone, and the fill is the same."""
    import threading

    from inpaint.api import inpaint
    from inpaint.methods.multiscale import levels

    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (70, 90, 3), dtype=np.uint8)
    mask = hole_at((70, 90), "middle", 17)
    if not inline:
        monkeypatch.setattr(levels, "INLINE_PIXELS", 0)
    made, handed, prepare, level, advance = [], [], levels.prepare_level, levels.Ahead.level, levels.Ahead.advance
    rounds = []  # (level, descriptions made by then) after each round

    def recorded(*args):
        made.append((threading.current_thread(), args))
        return prepare(*args)

    def advanced(self, lv):
        advance(self, lv)
        rounds.append((lv, len(made)))

    monkeypatch.setattr(levels, "prepare_level", recorded)
    monkeypatch.setattr(levels.Ahead, "level", lambda self, lv: handed.append(level(self, lv)) or handed[-1])
    monkeypatch.setattr(levels.Ahead, "advance", advanced)
    got = inpaint(img, mask, backend="numpy", patch=5, seed=1)
    threads = {t for t, _ in made}
    top = len(got.stats.levels) - 1
    assert len(made) == len(handed) == top + 1 >= 2
    assert len(threads) == 1 and (threading.main_thread() in threads) == inline
    for lev, (_, args) in zip(handed, made):
        again = prepare(*args)
        for field in dataclasses.fields(again):
            np.testing.assert_equal(getattr(lev, field.name), getattr(again, field.name), err_msg=field.name)
    if inline:  # level lv - 1 is made during level lv's rounds, after its first: not all at once
        for lv in range(top, 0, -1):
            at = [n for k, n in rounds if k == lv]
            assert at[0] == top - lv + 2 and at[-1] <= top - lv + 2, (lv, rounds)
    else:
        thread = threads.pop()
        thread.join(timeout=10)
        assert not thread.is_alive()
    monkeypatch.undo()
    again = inpaint(img, mask, backend="numpy", patch=5, seed=1)
    assert np.array_equal(got.image, again.image) and np.array_equal(got.source_map, again.source_map)

"""Integral images: device block algorithm and naive baseline against numpy."""

import re

import numpy as np
import pytest
from helpers import these_by_default
from hypothesis import given, strategies as st

cl = pytest.importorskip("pyopencl")
import pyopencl.array as cl_array  # noqa: E402

from inpaint.integral import (  # noqa: E402
    IntegralPlan,
    check_overflow,
    float_tolerance,
    integral,
    integral_reference,
    max_abs_integral,
)
from inpaint.resources import kernel_source  # noqa: E402

SHAPES = [(1, 1), (3, 7), (13, 11), (77, 2049), (1025, 1023)]
SMALL_SHAPES = [(1, 1), (3, 7), (4, 4), (5, 9), (13, 11), (8, 64)]
KINDS = ["sum", "sqsum", "count"]
# (source dtype, output dtype, kind); float32 images give int32 only for 'count'.
CASES = [(s, d, k) for s in (np.uint8, np.int32, np.float32) for d in (np.int32, np.float32) for k in KINDS
         if not (s is np.float32 and d is np.int32 and k != "count")]
# Each case is its own program: the default selection builds the fill's own (uint8 -> int32 counts) and
# enough others that each source type, output type and kind is built once; the slow selection all.
DEFAULT_CASES = [(np.uint8, np.int32, "count"), (np.uint8, np.int32, "sum"), (np.int32, np.int32, "sqsum"),
                 (np.float32, np.float32, "sum"), (np.uint8, np.float32, "sqsum"), (np.float32, np.int32, "count")]
SENTINEL = {np.dtype(np.int32): -123456789, np.dtype(np.float32): np.nan}


def _ids(case):
    s, d, k = case
    return f"{np.dtype(s).name}-{np.dtype(d).name}-{k}"


def make_image(rng, shape, src, kind="sum", full_range=False):
    """Seeded test image with ~30 % exact zeros (so 'count' differs from 'sum')."""
    src = np.dtype(src)
    if src == np.uint8:
        img = rng.integers(0, 256, shape, dtype=np.uint8)
    elif src == np.int32:
        hi = 2**31 - 1 if full_range else 1000
        img = rng.integers(-hi, hi, shape, dtype=np.int32, endpoint=True)
    else:
        img = (rng.standard_normal(shape) * 100).astype(np.float32)
    img[rng.random(shape) < 0.3] = 0
    return img


def sentinel_out(queue, shape, dtype):
    out = cl_array.empty(queue, shape, dtype)
    out.fill(SENTINEL[np.dtype(dtype)])
    return out


def policy_for(img, kind, dtype):
    """'raise' when the int32 result provably fits, else 'wrap' (exact modulo 2**32)."""
    try:
        check_overflow(img.shape, img.dtype, kind, dtype, "raise",
                       int(np.abs(img.astype(np.int64)).max()) if img.dtype == np.int32 else None)
    except ValueError:
        return "wrap"
    return "raise"


def assert_float_close(got, img, kind):
    """The documented bound: |got - exact| <= float_tolerance(shape) * integral of |term|."""
    t = img.astype(np.float64)
    t = (t != 0).astype(np.float64) if kind == "count" else (t * t if kind == "sqsum" else t)
    exact = np.cumsum(np.cumsum(t, 0), 1)
    bound = float_tolerance(img.shape) * np.cumsum(np.cumsum(np.abs(t), 0), 1)
    err = np.abs(got.astype(np.float64) - exact)
    assert np.all(err <= bound), f"max error {np.nanmax(err)} over bound (NaN = unwritten cell)"


def check(got, img, kind, dtype, overflow):
    if np.dtype(dtype) == np.int32:
        want = integral_reference(img, kind, dtype, overflow=overflow)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)
    else:
        assert got.dtype == np.float32
        assert_float_close(got, img, kind)


# --------------------------------------------------------------------------- tiny, by hand

def test_reference_hand_checked():
    img = np.array([[1, 0, 2], [0, 3, 0]], np.uint8)
    np.testing.assert_array_equal(integral_reference(img, "sum"), [[1, 1, 3], [1, 4, 6]])
    np.testing.assert_array_equal(integral_reference(img, "sqsum"), [[1, 1, 5], [1, 10, 14]])
    np.testing.assert_array_equal(integral_reference(img, "count"), [[1, 1, 2], [1, 2, 3]])


@pytest.mark.parametrize("kind", KINDS)
def test_device_hand_checked(runtime, kind):
    img = np.array([[1, 0, 2], [0, 3, 0]], np.uint8)
    got = integral(img, kind, runtime=runtime)
    assert isinstance(got, np.ndarray) and got.shape == img.shape and got.dtype == np.int32
    np.testing.assert_array_equal(got, integral_reference(img, kind))


# --------------------------------------------------------------------------- odd shapes x kinds x types

@pytest.mark.parametrize("case", these_by_default(CASES, DEFAULT_CASES), ids=_ids)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_block_matches_numpy(runtime, rng, shape, case):
    src, dtype, kind = case
    img = make_image(rng, shape, src, kind)
    overflow = policy_for(img, kind, dtype)
    dev = cl_array.to_device(runtime.queue, img)
    out = sentinel_out(runtime.queue, shape, dtype)
    res = integral(dev, kind, dtype, runtime=runtime, out=out, overflow=overflow)
    assert res is out
    check(out.get(), img, kind, dtype, overflow)


# Each split and type is its own program: the default selection builds one split, the slow
# selection (CI's second step) the others.
@pytest.mark.parametrize("parts", [pytest.param(2, marks=pytest.mark.slow), 3,
                                   pytest.param(32, marks=pytest.mark.slow)])
@pytest.mark.parametrize("shape", [(13, 11), (77, 2049), (1025, 1023), (33, 5)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("case", [(np.uint8, np.int32, "sum"), (np.int32, np.int32, "sqsum"),
                                  (np.float32, np.float32, "sum")], ids=_ids)
def test_chunked_scans_match_numpy(runtime, rng, shape, parts, case):
    """The GPU path: several work-items per scanned line (local memory, barriers)."""
    src, dtype, kind = case
    img = make_image(rng, shape, src, kind, full_range=True)
    plan = IntegralPlan(shape, src, kind, dtype, runtime=runtime, scan_parts=parts, group=(8, 4),
                        blocks_per_item=1)  # the GPU defaults: one block per work-item
    assert plan.scan_parts == parts
    out = sentinel_out(runtime.queue, shape, dtype)
    plan(cl_array.to_device(runtime.queue, img), out=out)
    check(out.get(), img, kind, dtype, "wrap")


@pytest.mark.parametrize("group,per_item,cols", [pytest.param((1, 1), 1, 1, marks=pytest.mark.slow), ((3, 5), 3, 7),
                                                  ((64, 1), 16, 256),
                                                  pytest.param((8, 8), 7, 1, marks=pytest.mark.slow),
                                                  pytest.param((32, 8), 1000, 5000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("shape", [(77, 2049), (13, 11), (9, 33)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_odd_work_splits(runtime, rng, shape, group, per_item, cols):
    """Work-group shapes, blocks per work-item and scan strips that do not divide the image."""
    img = make_image(rng, shape, np.uint8)
    plan = IntegralPlan(img.shape, np.uint8, "sqsum", np.int32, runtime=runtime, scan_parts=1,
                        group=group, blocks_per_item=per_item, scan_cols=cols)
    assert (plan.blocks_per_item, plan.scan_cols) == (per_item, cols)
    out = sentinel_out(runtime.queue, img.shape, np.int32)
    plan(cl_array.to_device(runtime.queue, img), out=out)
    np.testing.assert_array_equal(out.get(), integral_reference(img, "sqsum", overflow="wrap"))


@pytest.mark.parametrize("case", [(np.uint8, np.int32, "sum"), (np.uint8, np.int32, "count"),
                                  (np.int32, np.int32, "sqsum"), (np.float32, np.float32, "sum")], ids=_ids)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_naive_matches_numpy(runtime, rng, shape, case):
    src, dtype, kind = case
    img = make_image(rng, shape, src, kind, full_range=True)
    plan = IntegralPlan(shape, src, kind, dtype, method="naive", runtime=runtime)
    out = sentinel_out(runtime.queue, shape, dtype)
    plan(cl_array.to_device(runtime.queue, img), out=out)
    check(out.get(), img, kind, dtype, "wrap")


@pytest.mark.parametrize("shape", SMALL_SHAPES + [(64, 64)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_float_exact_for_small_integer_sums(runtime, rng, shape):
    """Every partial sum is an integer below 2**24: float32 is exact."""
    img = make_image(rng, shape, np.uint8)
    assert 255 * img.size < 2**24
    got = integral(img, "sum", np.float32, runtime=runtime)
    np.testing.assert_array_equal(got, integral_reference(img, "sum", np.int32).astype(np.float32))


# --------------------------------------------------------------------------- device-buffer path

def test_device_input_offset_and_pitch(runtime, rng):
    """A row slice (offset) and a column slice (row pitch) are read in place."""
    big = make_image(rng, (40, 37), np.uint8)
    dev = cl_array.to_device(runtime.queue, big)
    for view, host in ((dev[5:], big[5:]), (dev[3:30, 4:33], big[3:30, 4:33])):
        out = sentinel_out(runtime.queue, host.shape, np.int32)
        res = integral(view, "sum", runtime=runtime, out=out)
        assert res is out and isinstance(res, cl_array.Array)
        np.testing.assert_array_equal(out.get(), integral_reference(host, "sum"))


def test_device_path_allocates_when_no_out(runtime, rng):
    img = make_image(rng, (13, 11), np.uint8)
    res = integral(cl_array.to_device(runtime.queue, img), "count", runtime=runtime)
    assert isinstance(res, cl_array.Array) and res.dtype == np.int32
    np.testing.assert_array_equal(res.get(), integral_reference(img, "count"))


def test_plan_reuses_out_across_calls(runtime, rng):
    """The pipeline's pattern: one plan and one output buffer, many masks."""
    shape = (77, 2049)
    plan = IntegralPlan(shape, np.uint8, "count", np.int32, runtime=runtime)
    out = sentinel_out(runtime.queue, shape, np.int32)
    for _ in range(3):
        mask = (rng.random(shape) < 0.2).astype(np.uint8)
        assert plan(cl_array.to_device(runtime.queue, mask), out=out) is out
        np.testing.assert_array_equal(out.get(), integral_reference(mask, "count"))


def test_bool_mask(runtime, rng):
    mask = rng.random((13, 11)) < 0.4
    np.testing.assert_array_equal(integral(mask, "count", runtime=runtime),
                                  np.cumsum(np.cumsum(mask, 0), 1))


def test_empty_image(runtime):
    got = integral(np.zeros((0, 5), np.uint8), runtime=runtime)
    assert got.shape == (0, 5) and got.dtype == np.int32


def test_out_is_validated(runtime):
    dev = cl_array.zeros(runtime.queue, (5, 6), np.uint8)
    with pytest.raises(ValueError, match="out must be"):
        integral(dev, out=cl_array.zeros(runtime.queue, (6, 5), np.int32), runtime=runtime)
    with pytest.raises(ValueError, match="device images"):
        integral(np.zeros((5, 6), np.uint8), out=cl_array.zeros(runtime.queue, (5, 6), np.int32),
                 runtime=runtime)


# --------------------------------------------------------------------------- overflow policy

def test_overflow_refused_uint8_sqsum_4096():
    img = np.zeros((4096, 4096), np.uint8)
    assert max_abs_integral(img.shape, "sqsum", 255) > 2**31 - 1
    with pytest.raises(ValueError, match=r"could overflow.*overflow='wrap'"):
        integral(img, "sqsum", np.int32)
    with pytest.raises(ValueError, match="could overflow"):
        integral_reference(img, "sqsum", np.int32)
    # counts never overflow, and 255 * 4096 * 2048 still fits
    assert check_overflow((4096, 4096), np.uint8, "count") == np.int32
    assert check_overflow((4096, 2048), np.uint8, "sum") == np.int32


def test_overflow_wrap_and_promote(runtime, rng):
    img = make_image(rng, (200, 200), np.uint8)  # 40000 * 255**2 > 2**31 - 1
    with pytest.raises(ValueError, match="could overflow"):
        integral(img, "sqsum", runtime=runtime)
    wrapped = integral(img, "sqsum", runtime=runtime, overflow="wrap")
    assert wrapped.dtype == np.int32
    np.testing.assert_array_equal(wrapped, integral_reference(img, "sqsum", overflow="wrap"))
    # modular results still give exact box sums of boxes that fit
    t = img.astype(np.int64) ** 2
    box = (wrapped[150, 170] - wrapped[99, 170] - wrapped[150, 119] + wrapped[99, 119]).astype(np.int32)
    assert int(box) == int(t[100:151, 120:171].sum())
    promoted = integral(img, "sqsum", runtime=runtime, overflow="promote")
    assert promoted.dtype == np.float32
    assert_float_close(promoted, img, "sqsum")


def test_overflow_int32_source_uses_data_range(runtime):
    img = np.zeros((64, 64), np.int32)
    img[3, 4] = 2**20  # 4096 * 2**20 = 2**32 could overflow
    with pytest.raises(ValueError, match="could overflow"):
        integral(img, "sum", runtime=runtime)
    with pytest.raises(ValueError, match="could overflow"):  # device: measured by a reduction
        integral(cl_array.to_device(runtime.queue, img), "sum", runtime=runtime)
    assert int(integral(img, "sum", runtime=runtime, max_value=2**18)[-1, -1]) == 2**20  # caller-given bound is trusted
    img[3, 4] = 1000
    np.testing.assert_array_equal(integral(img, "sum", runtime=runtime), integral_reference(img, "sum"))


# --------------------------------------------------------------------------- validation

def test_errors_list_allowed_values(runtime):
    img = np.zeros((3, 3), np.uint8)
    with pytest.raises(ValueError, match="'sum', 'sqsum', 'count'"):
        integral(img, "squares", runtime=runtime)
    with pytest.raises(ValueError, match="int32 or np.float32"):
        integral(img, dtype=np.int64, runtime=runtime)
    with pytest.raises(ValueError, match="dtype=np.float32"):
        integral(img.astype(np.float32), "sum", np.int32, runtime=runtime)
    with pytest.raises(ValueError, match="uint8"):
        integral(img.astype(np.float64), runtime=runtime)
    with pytest.raises(ValueError, match="2-D"):
        integral(np.zeros((2, 3, 4), np.uint8), runtime=runtime)
    with pytest.raises(ValueError, match="'raise', 'wrap', 'promote'"):
        integral(img, overflow="saturate", runtime=runtime)
    with pytest.raises(ValueError, match="'block', 'naive'"):
        integral(img, method="fast", runtime=runtime)


# --------------------------------------------------------------------------- device limits

@pytest.mark.parametrize("options", [dict(), dict(scan_parts=8), dict(scan_parts=64), dict(method="naive")],
                         ids=["default", "parts8", "parts64", "naive"])
def test_kernels_fit_device_limits(runtime, options):
    plan = IntegralPlan((1025, 1023), np.uint8, "sum", np.int32, runtime=runtime, **options)
    lim = runtime.limits
    for name, knl in plan.kernels.items():
        info = runtime.work_group_info(knl)
        assert info["local_mem_size"] <= lim.local_mem_size, name
    if plan.method == "block":
        assert plan.scan_parts * plan.scan_lines * 4 <= lim.local_mem_size
        assert plan.scan_parts * plan.scan_lines <= lim.max_work_group_size
        assert plan.group[0] * plan.group[1] <= lim.max_work_group_size
        if plan.scan_parts > 1:
            used = runtime.work_group_info(plan.kernels["vertical_scan"])["local_mem_size"]
            assert used >= plan.scan_parts * plan.scan_lines * 4  # the partial sums are really local
    else:
        assert plan.tile * (plan.tile + 1) * 4 <= lim.local_mem_size


@pytest.mark.parametrize("method", ["block", "naive"])
def test_every_kernel_exists_in_its_source(runtime, method):
    plan = IntegralPlan((5, 5), np.uint8, "sum", np.int32, runtime=runtime, method=method)
    src = kernel_source(f"integral/{method}")
    assert src.startswith("#pragma OPENCL FP_CONTRACT OFF")
    for name in plan.kernels:
        assert re.search(rf"\bvoid\s+{name}\s*\(", src), name


# --------------------------------------------------------------------------- invariants

@given(h=st.integers(1, 40), w=st.integers(1, 40), seed=st.integers(0, 2**32 - 1),
       box=st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)))
def test_box_sums_from_four_corners(runtime, h, w, seed, box):
    img = np.random.default_rng(seed).integers(-2**31, 2**31, (h, w), dtype=np.int64).astype(np.int32)
    s = integral(img, "sum", runtime=runtime, overflow="wrap").astype(np.int64)
    r0, r1 = sorted(int(f * (h - 1)) for f in box[:2])
    c0, c1 = sorted(int(f * (w - 1)) for f in box[2:])
    padded = np.zeros((h + 1, w + 1), np.int64)
    padded[1:, 1:] = s
    got = padded[r1 + 1, c1 + 1] - padded[r0, c1 + 1] - padded[r1 + 1, c0] + padded[r0, c0]
    want = img[r0:r1 + 1, c0:c1 + 1].astype(np.int64).sum()
    assert (got - want) % 2**32 == 0


@pytest.fixture
def without_opencl(monkeypatch):
    """``integral`` finds no OpenCL device: its numpy fallback answers."""
    from inpaint.errors import OpenCLUnavailable
    from inpaint.integral import api

    def missing(*_a, **_k):
        raise OpenCLUnavailable("no OpenCL platform found")

    monkeypatch.setattr(api, "get_runtime", missing)


@pytest.mark.parametrize("dtype,out", [(">i4", np.int32), (">f4", np.float32), (">u1", np.int32)])
@pytest.mark.parametrize("device", [pytest.param(True, marks=pytest.mark.opencl), False], ids=["device", "numpy"])
def test_an_array_in_the_other_byte_order_is_read_as_its_values(request, rng, dtype, out, device):
    if not device:
        request.getfixturevalue("without_opencl")
    values = rng.integers(0, 200, (9, 14))
    image = values.astype(dtype)
    got = integral(image, dtype=out, runtime=request.getfixturevalue("runtime") if device else None)
    np.testing.assert_array_equal(got, values.cumsum(0).cumsum(1))


@pytest.mark.parametrize("bound", [float("nan"), float("inf"), -1.0, -10**9, True, "255"])
def test_a_bound_on_pixels_that_is_not_a_finite_number_of_zero_or_more_is_refused(bound):
    with pytest.raises(ValueError, match=r"max_value must be a finite number >= 0"):
        integral_reference(np.ones((3, 3), np.uint8), max_value=bound)
    with pytest.raises(ValueError, match=r"max_value must be a finite number >= 0"):
        max_abs_integral((3, 3), "sum", bound)


def test_an_unknown_method_is_refused_with_or_without_opencl(without_opencl):
    with pytest.raises(ValueError, match="unknown method 'bogus'"):
        integral(np.ones((3, 3), np.uint8), method="bogus")


@pytest.mark.parametrize("shape", [(5, 5), (100, 4), (4, 100), (3, 3), (64, 64)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["block", "naive"])
def test_a_plan_names_each_kernel_it_launches(runtime, rng, shape, method):
    plan = IntegralPlan(shape, np.uint8, "sum", np.int32, method=method, runtime=runtime)
    img = rng.integers(0, 256, shape, dtype=np.uint8)
    src, out = cl_array.to_device(runtime.queue, img), cl_array.empty(runtime.queue, shape, np.int32)
    events = plan.enqueue(src, out)
    assert len(events) == len(plan.launched) and set(plan.launched) <= set(plan.kernels)
    np.testing.assert_array_equal(out.get(), img.astype(np.int64).cumsum(0).cumsum(1))
    if method == "block" and shape == (100, 4):
        assert plan.launched == ["block_local", "vertical_scan", "vertical_combine"]

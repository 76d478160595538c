"""Each stage on a frozen state: the OpenCL kernel must equal the numpy reference exactly.

Output buffers are pre-filled with a sentinel so a cell the kernel forgets to write fails.
"""

import numpy as np
import pyopencl as cl
import pytest
from hypothesis import given, settings, strategies as hs

from inpaint.methods.criminisi import opencl as stages_cl, reference

SHAPES = [(13, 11), (24, 31), (40, 77)]


def frozen_state(rng, h, w, half):
    """A mid-run state: random image, a blob-shaped target with some pixels already filled."""
    rgb = np.empty((h, w, 4), np.uint8)
    rgb[..., :3] = rng.integers(0, 256, (h, w, 3))
    rgb[..., 3] = 255
    yy, xx = np.mgrid[0:h, 0:w]
    cy, cx = h / 2, w / 2
    unknown = (((yy - cy) / (h / 3)) ** 2 + ((xx - cx) / (w / 3)) ** 2 <= 1).astype(np.uint8)
    unknown &= (rng.random((h, w)) > 0.15).astype(np.uint8)  # ragged front, holes
    conf = np.where(unknown == 0, rng.random((h, w)).astype(np.float32), np.float32(0))
    grey = np.zeros((h, w), np.uint8)
    reference.grey(rgb, grey, (0, 0, w, h))
    front = np.zeros((h, w), np.uint8)
    reference.front(unknown, front, (0, 0, w, h))
    cpatch = np.zeros((h, w), np.float32)
    reference.confidence(conf, front, cpatch, (0, 0, w, h), half)
    valid = np.zeros((h, w), np.uint8)
    reference.valid(unknown, valid, (0, 0, w, h), half)
    return {"rgb": rgb, "grey": grey, "unknown": unknown, "conf": conf, "front": front,
            "cpatch": cpatch, "valid": valid, "prio": np.full((h, w), -1, np.float32),
            "ssd": np.full(h * w, 0xFFFFFFFF, np.uint32), "result": np.full(4, -1, np.int32)}


def to_device(runtime, host, sentinel=None):
    mf = cl.mem_flags
    bufs = {}
    for name, arr in host.items():
        init = arr if sentinel is None or name not in sentinel else np.full_like(arr, sentinel[name])
        bufs[name] = cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(init))
    return bufs


def read(runtime, buf, like):
    out = np.empty_like(like)
    cl.enqueue_copy(runtime.queue, out, buf)
    return out


def rects(h, w):
    return [(0, 0, w, h), (2, 3, w - 1, h - 2), (w // 2, 1, w // 2 + 5, 6)]


@pytest.fixture(params=[(shape, i) for shape in SHAPES for i in range(3)])
def shape_rect(request):
    """``(h, w, rect)``: a test shape and one of its three rectangles."""
    (h, w), i = request.param
    return h, w, rects(h, w)[i]


def test_grey(runtime, rng, shape_rect):
    h, w, rect = shape_rect
    st = frozen_state(rng, h, w, 1)
    want = np.full((h, w), 7, np.uint8)
    reference.grey(st["rgb"], want, rect)
    b = to_device(runtime, st, {"grey": 7})
    stages_cl.Grey(runtime)(b, w, rect)
    np.testing.assert_array_equal(read(runtime, b["grey"], st["grey"]), want)


def test_front(runtime, rng, shape_rect):
    h, w, rect = shape_rect
    st = frozen_state(rng, h, w, 1)
    want = np.full((h, w), 9, np.uint8)
    reference.front(st["unknown"], want, rect)
    b = to_device(runtime, st, {"front": 9})
    stages_cl.Front(runtime)(b, w, h, rect)
    np.testing.assert_array_equal(read(runtime, b["front"], st["front"]), want)


def test_front_hand_checked():
    unknown = np.array([[0, 0, 0, 0],
                        [0, 1, 1, 0],
                        [0, 1, 1, 1],
                        [0, 1, 1, 1]], np.uint8)
    out = np.zeros_like(unknown)
    reference.front(unknown, out, (0, 0, 4, 4))
    np.testing.assert_array_equal(out, [[0, 0, 0, 0],
                                        [0, 1, 1, 0],
                                        [0, 1, 0, 1],
                                        [0, 1, 0, 0]])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("half", [1, 2, 4])
def test_valid(runtime, rng, shape, half):
    h, w = shape
    st = frozen_state(rng, h, w, half)
    rect = (0, 0, w, h)
    want = np.full((h, w), 5, np.uint8)
    reference.valid(st["unknown"], want, rect, half)
    ys, xs = np.nonzero(st["unknown"])
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    b = to_device(runtime, st, {"valid": 5})
    stages_cl.Valid(runtime)(b, w, h, half, rect, box)
    got = read(runtime, b["valid"], st["valid"])
    np.testing.assert_array_equal(got, want)
    # Brute force for a few centres.
    for cy, cx in [(half, half), (h // 2, w // 2), (h - 1 - half, w - 1 - half), (0, 0)]:
        inside = cy - half >= 0 and cx - half >= 0 and cy + half < h and cx + half < w
        win = st["unknown"][max(cy - half, 0):cy + half + 1, max(cx - half, 0):cx + half + 1]
        assert got[cy, cx] == (inside and not win.any())


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("half", [1, 3, 8])
def test_confidence(runtime, rng, shape, half):
    h, w = shape
    st = frozen_state(rng, h, w, half)
    rect = (1, 1, w - 1, h - 1)
    want = np.full((h, w), 3.5, np.float32)
    reference.confidence(st["conf"], st["front"], want, rect, half)
    b = to_device(runtime, st, {"cpatch": 3.5})
    stages_cl.Confidence(runtime)(b, w, h, half, rect)
    got = read(runtime, b["cpatch"], st["cpatch"])
    assert got.tobytes() == want.tobytes()  # bit for bit


def test_priority_and_argmax(runtime, rng, shape_rect):
    h, w, rect = shape_rect
    st = frozen_state(rng, h, w, 2)
    want = np.full((h, w), 2.5, np.float32)
    reference.priority(st["grey"], st["unknown"], st["front"], st["cpatch"], want, rect)
    b = to_device(runtime, st, {"prio": 2.5})
    pr = stages_cl.Priority(runtime)
    pr(b, w, h, rect)
    got = read(runtime, b["prio"], st["prio"])
    assert got.tobytes() == want.tobytes()
    pr.best(b, w, rect)
    res = read(runtime, b["result"], st["result"])
    assert res[0] == reference.argmax_priority(want, rect)


def test_argmax_ties_take_smallest_index(runtime):
    h, w = 20, 30
    prio = np.full((h, w), -1, np.float32)
    prio[15, 3] = 0.5
    prio[4, 20] = 0.5
    prio[4, 25] = 0.5
    st = {"prio": prio, "result": np.full(4, -1, np.int32)}
    b = to_device(runtime, st)
    stages_cl.Priority(runtime).best(b, w, (0, 0, w, h))
    assert read(runtime, b["result"], st["result"])[0] == 4 * w + 20
    assert reference.argmax_priority(prio, (0, 0, w, h)) == 4 * w + 20


def test_data_term_prefers_strong_isophote_hitting_the_front():
    # A vertical edge (strong horizontal gradient) meeting a horizontal front: the isophote
    # runs along the edge, into the hole, so the data term is large there and zero elsewhere.
    h, w = 12, 12
    grey = np.zeros((h, w), np.uint8)
    grey[:, 6:] = 200
    unknown = np.zeros((h, w), np.uint8)
    unknown[6:, :] = 1
    front = np.zeros_like(unknown)
    reference.front(unknown, front, (0, 0, w, h))
    cpatch = np.where(front != 0, np.float32(0.5), np.float32(0))
    prio = np.zeros((h, w), np.float32)
    reference.priority(grey, unknown, front, cpatch, prio, (0, 0, w, h))
    row = prio[6]
    assert row[5] > row[2] and row[6] > row[9]
    assert row[2] == np.float32(0.5) * np.float32(0.001)


@pytest.mark.parametrize("variant", ["local", "global"])
@pytest.mark.parametrize("patch", [3, 5, 9])
def test_ssd_and_reduce(runtime, rng, variant, patch):
    h, w = 40, 77
    half = patch // 2
    st = frozen_state(rng, h, w, half)
    # Target: a front pixel near the border, so part of its patch leaves the image.
    fy, fx = np.nonzero(st["front"])
    k = int(np.argmin(fx))
    target = int(fy[k]) * w + int(fx[k])
    st["result"][0] = target
    cen = (half, half, w - half, h - half)
    n = (cen[2] - cen[0]) * (cen[3] - cen[1])
    want = np.full(h * w, 1234, np.uint32)
    reference.ssd(st["rgb"][..., :3], st["unknown"], st["valid"], target, cen, half, want)
    b = to_device(runtime, st, {"ssd": 1234})
    stages_cl.FindBestPatch(runtime, patch, variant, prune=False)(b, w, h, cen)
    got = read(runtime, b["ssd"], st["ssd"])
    np.testing.assert_array_equal(got[:n], want[:n])
    # Brute-force one valid candidate.
    vy, vx = np.nonzero(st["valid"][cen[1]:cen[3], cen[0]:cen[2]])
    cy, cx = vy[len(vy) // 2] + cen[1], vx[len(vx) // 2] + cen[0]
    ty, tx = divmod(target, w)
    acc = 0
    for dy in range(-half, half + 1):
        for dx in range(-half, half + 1):
            y, x = ty + dy, tx + dx
            if 0 <= y < h and 0 <= x < w and not st["unknown"][y, x]:
                d = st["rgb"][y, x, :3].astype(int) - st["rgb"][cy + dy, cx + dx, :3].astype(int)
                acc += int((d * d).sum())
    assert got[(cy - cen[1]) * (cen[2] - cen[0]) + (cx - cen[0])] == acc
    stages_cl.Reduce(runtime)(b, n)
    res = read(runtime, b["result"], st["result"])
    idx, val = reference.argmin_ssd(want, n)
    assert (res[1], np.uint32(res[2])) == (idx, val)


def check_pruned_map(runtime, st, cen, half, variant):
    """Run the pruned findBestPatch + reduce on a state; compare with the full reference map.

    Returns the number of entries the pruning changed.
    """
    h, w = st["unknown"].shape
    n = (cen[2] - cen[0]) * (cen[3] - cen[1])
    want = np.full(h * w, 1234, np.uint32)
    reference.ssd(st["rgb"][..., :3], st["unknown"], st["valid"], int(st["result"][0]), cen, half, want)
    want = want[:n]
    b = to_device(runtime, st, {"ssd": 1234})
    fb = stages_cl.FindBestPatch(runtime, 2 * half + 1, variant, prune=True)
    assert fb.prune
    fb(b, w, h, cen)
    got = read(runtime, b["ssd"], st["ssd"])[:n]
    bound = read(runtime, fb.bound, np.zeros(1, np.uint32))[0]
    # The bound is the smallest SSD over the valid candidates of the sample grid.
    step, o = fb.BOUND_STEP, fb.BOUND_STEP // 2
    grid = want.reshape(cen[3] - cen[1], cen[2] - cen[0])[o::step, o::step]
    assert bound == grid.min(initial=reference.UINT_MAX)
    idx, val = reference.argmin_ssd(want, n)
    assert reference.argmin_ssd(got, n) == (idx, val)
    # Candidates within the bound are never cut; a cut one keeps a partial sum above it.
    kept = want <= bound
    np.testing.assert_array_equal(got[kept], want[kept])
    cut = got != want
    assert (got[cut] > bound).all() and (got[cut] < want[cut]).all()
    if idx >= 0:
        assert (got[cut] > val).all()
    stages_cl.Reduce(runtime)(b, n)
    res = read(runtime, b["result"], st["result"])
    assert (res[1], np.uint32(res[2])) == (idx, val)
    return int(cut.sum())


@pytest.mark.parametrize("variant", ["local", "global"])
@pytest.mark.parametrize("patch", [3, 5, 9])
@pytest.mark.parametrize("shape", [(40, 77), (61, 90)])
def test_pruned_ssd_keeps_the_best_patch(runtime, rng, variant, patch, shape):
    h, w = shape
    half = patch // 2
    st = frozen_state(rng, h, w, half)
    fy, fx = np.nonzero(st["front"])
    for k in (int(np.argmin(fx)), len(fy) // 2):   # near the border, and inside
        st["result"][0] = int(fy[k]) * w + int(fx[k])
        for cen in [(half, half, w - half, h - half), (half + 3, half + 1, w - half - 5, h - half - 2)]:
            assert check_pruned_map(runtime, st, cen, half, variant) > 0   # it did prune


@pytest.mark.parametrize("variant", ["local", "global"])
def test_pruned_ssd_ties_take_the_smallest_index(runtime, rng, variant):
    # A periodic image: every period repeats the target's known pixels exactly (SSD 0).
    h, w, half = 40, 77, 2
    st = frozen_state(rng, h, w, half)
    tile = rng.integers(0, 256, (5, 7, 3))
    st["rgb"][..., :3] = np.tile(tile, (h // 5 + 1, w // 7 + 1, 1))[:h, :w]
    fy, fx = np.nonzero(st["front"])
    st["result"][0] = int(fy[0]) * w + int(fx[0])
    cen = (half, half, w - half, h - half)
    check_pruned_map(runtime, st, cen, half, variant)
    want = np.zeros(h * w, np.uint32)
    reference.ssd(st["rgb"][..., :3], st["unknown"], st["valid"], int(st["result"][0]), cen, half, want)
    assert (want == 0).sum() > 1


@hs.composite
def ssd_states(draw):
    h, w = draw(hs.integers(8, 48)), draw(hs.integers(8, 48))
    half = draw(hs.integers(1, min(h, w) // 2 - 1))
    rng = np.random.default_rng(draw(hs.integers(0, 2**31 - 1)))
    st = frozen_state(rng, h, w, half)
    if draw(hs.booleans()):   # few colours: many equal SSDs
        st["rgb"][..., :3] = rng.integers(0, 3, (h, w, 3)) * 100
    # Any pixel as the target (in or out of the object), any sub-rectangle of centres.
    st["result"][0] = draw(hs.integers(0, h * w - 1))
    x0 = draw(hs.integers(half, w - half - 1))
    y0 = draw(hs.integers(half, h - half - 1))
    cen = (x0, y0, draw(hs.integers(x0 + 1, w - half)), draw(hs.integers(y0 + 1, h - half)))
    return st, cen, half, draw(hs.sampled_from(["local", "global"]))


@given(ssd_states())
def test_pruned_ssd_on_random_states(runtime, state):
    st, cen, half, variant = state
    check_pruned_map(runtime, st, cen, half, variant)


def test_reduce_ties_and_no_candidate(runtime):
    ssd = np.full(1000, 0xFFFFFFFF, np.uint32)
    st = {"ssd": ssd, "result": np.array([5, 12345, 12345, -1], np.int32)}   # a target; sentinels
    b = to_device(runtime, st)
    red = stages_cl.Reduce(runtime)
    red(b, 1000)
    assert read(runtime, b["result"], st["result"])[1] == -1
    ssd[[700, 321, 999]] = 42
    st["result"][1:3] = 12345
    b = to_device(runtime, st)
    red(b, 1000)
    assert list(read(runtime, b["result"], st["result"])[:3]) == [5, 321, 42]
    assert reference.argmin_ssd(ssd, 1000) == (321, 42)
    # No target (the device-resident loop's fill is complete): the result is left alone.
    st["result"][:] = (-1, 777, 888, -1)
    b = to_device(runtime, st)
    red(b, 1000)
    assert list(read(runtime, b["result"], st["result"])) == [-1, 777, 888, -1]


@pytest.mark.parametrize("patch", [3, 7])
def test_copy(runtime, rng, patch):
    h, w = 24, 31
    half = patch // 2
    st = frozen_state(rng, h, w, half)
    fy, fx = np.nonzero(st["front"])
    target = (int(fy[0]), int(fx[0]))
    vy, vx = np.nonzero(st["valid"])
    source = (int(vy[-1]), int(vx[-1]))
    want = {k: st[k].copy() for k in ("rgb", "grey", "unknown", "conf")}
    reference.copy_patch(want["rgb"], want["grey"], want["unknown"], want["conf"], st["cpatch"], target, source, half)
    b = to_device(runtime, st)
    stages_cl.Copy(runtime)(b, w, h, half, target, source)
    for k in want:
        assert read(runtime, b[k], st[k]).tobytes() == want[k].tobytes(), k
    assert not want["unknown"][max(target[0] - half, 0):target[0] + half + 1,
                               max(target[1] - half, 0):target[1] + half + 1].any()


@pytest.mark.parametrize("shape", [(13, 11), (40, 77), (77, 130)])
@pytest.mark.parametrize("half", [1, 4, 8])
def test_valid_from_the_integral_image(runtime, rng, shape, half):
    h, w = shape
    st = frozen_state(rng, h, w, half)
    for rect in [(0, 0, w, h), (3, 2, w - 4, h - 1)]:
        want = np.full((h, w), 5, np.uint8)
        reference.valid(st["unknown"], want, rect, half)
        b = to_device(runtime, st, {"valid": 5})
        stages_cl.Valid(runtime)(b, w, h, half, rect, (0, 0, w, h), use_integral=True)
        np.testing.assert_array_equal(read(runtime, b["valid"], st["valid"]), want)


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(1, 5000), levels=hs.integers(1, 6), invalid=hs.floats(0, 1), chunk=hs.integers(1, 700),
       seed=hs.integers(0, 2 ** 16))
def test_reduce_split_over_work_groups(runtime, n, levels, invalid, chunk, seed):
    """The GPU's two-launch argmin (slices, then their pairs) equals the reference: ties go to
    the smallest index, invalid entries (UINT_MAX) never win, all-invalid gives -1."""
    rng = np.random.default_rng(seed)
    ssd = rng.integers(0, levels, n).astype(np.uint32) * 1000       # few levels: many ties
    ssd[rng.random(n) < invalid] = 0xFFFFFFFF
    red = stages_cl.Reduce(runtime)
    groups = -(-n // chunk)
    if groups > red.MAX_GROUPS:
        chunk = -(-n // red.MAX_GROUPS)
        groups = -(-n // chunk)
    red.split = lambda _n: (groups, chunk)
    st = {"ssd": ssd, "result": np.array([3, 12345, 12345, -1], np.int32)}
    b = to_device(runtime, st)
    red(b, n)
    got = read(runtime, b["result"], st["result"])
    idx, val = reference.argmin_ssd(ssd, n)
    assert got[1] == idx
    if idx >= 0:
        assert int(got[2:3].view(np.uint32)[0]) == val


@pytest.mark.parametrize("patch", [3, 5])
def test_every_stage_runs_on_its_stage_context_alone(runtime, rng, patch):
    """Through the stage table, with a :class:`StageContext` and no job: each stage on the device
    leaves the arrays it writes equal to the same stage on the host, stage after stage."""
    from types import SimpleNamespace

    from inpaint import geometry
    from inpaint.methods.criminisi.buffers import Buffers
    from inpaint.methods.criminisi.stages import NAMES, STAGES, StageContext, bundle_for

    h, w, half = 24, 31, patch // 2
    st = frozen_state(rng, h, w, half)
    box = geometry.bbox(st["unknown"] != 0)
    stats = SimpleNamespace(transfer_seconds=0.0)
    on_host = StageContext(w, h, patch, box, "global", False)
    on_host.buffers = Buffers({k: v.copy() for k, v in st.items()}, None, set(), stats)
    on_device = StageContext(w, h, patch, box, "global", False, runtime=runtime)
    bundle = bundle_for(runtime, NAMES, patch, "global", False)
    on_device.kernels = {s.name: s.wrapper(runtime, on_device, bundle) for s in STAGES}
    on_device.buffers = Buffers({k: v.copy() for k, v in st.items()}, runtime, set(st), stats)
    cen = geometry.centres((0, 0, w, h), half)
    whole = (0, 0, w, h)
    for stage in STAGES:
        if stage.name == "copy":  # the target and the best source the stages before found
            res = on_host.buffers.host["result"]
            ty, tx = divmod(int(res[0]), w)
            ry, rx = divmod(int(res[1]), cen[2] - cen[0])
            args = ((ty, tx), (cen[1] + ry, cen[0] + rx))
        else:
            args = {"ssd": (cen,), "reduce": (geometry.area(cen),)}.get(stage.name, (whole,))
        for ctx, device in ((on_host, False), (on_device, True)):
            side = "device" if device else "host"
            ctx.buffers.need(stage.reads, side)
            stage.run(ctx, device, *args)
            ctx.buffers.wrote(stage.writes, side)
        on_device.buffers.need(stage.writes, "host")
        for name in stage.writes:
            np.testing.assert_array_equal(on_device.buffers.host[name], on_host.buffers.host[name], err_msg=name)
    assert on_host.buffers.host["result"][1] >= 0 and not (on_host.buffers.host["rgb"] == st["rgb"]).all()

"""The multiscale fill stays on the device: between the upload of the photo and the read of the
result no level's data comes back to the host, and the fill is still numpy's bit for bit, on
fills of several levels, with several seeds and candidate counts, and with holes far apart."""

import dataclasses

import numpy as np
import pyopencl as cl
import pytest

from inpaint.api import inpaint
from inpaint.methods.multiscale import job as ms, levels, opencl as mcl, reference as ref

pytestmark = pytest.mark.opencl

#: The most blocking reads from the device one fill (one group of the hole's parts) may make.
MAX_READS = 2


def _scene(h, w, seed):
    """A textured photo (stripes, a gradient and noise) and one rectangular hole in it."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([(xx * 3 + yy) % 256, (yy * 5) % 256, ((xx - yy) * 7) % 256], -1)
    img = np.clip(img + rng.integers(-25, 26, img.shape), 0, 255).astype(np.uint8)
    mask = np.zeros((h, w), bool)
    y0, x0 = int(rng.integers(h // 4, h // 2)), int(rng.integers(w // 4, w // 2))
    mask[y0:y0 + h // 3, x0:x0 + w // 3] = True
    return img, mask


def _far_scene():
    """Two holes in opposite corners: filled one after the other."""
    img, _ = _scene(150, 220, 4)
    mask = np.zeros((150, 220), bool)
    mask[10:30, 12:34] = True
    mask[118:140, 180:205] = True
    return img, mask


@pytest.fixture
def reads(monkeypatch):
    """Every copy from a device buffer into host memory, counted (pyopencl's enqueue_copy is the
    one way the backend reads)."""
    seen = []
    copy = cl.enqueue_copy

    def counted(queue, dest, src, **kw):
        if isinstance(dest, np.ndarray) and isinstance(src, cl.MemoryObjectHolder):
            seen.append(dest.nbytes)
        return copy(queue, dest, src, **kw)

    monkeypatch.setattr(cl, "enqueue_copy", counted)
    return seen


@pytest.mark.parametrize("make, groups", [(lambda: _scene(150, 180, 1), 1), (_far_scene, 2)])
def test_a_fill_reads_from_the_device_at_most_twice(runtime, reads, make, groups):
    img, mask = make()
    got = inpaint(img, mask, backend="opencl", device=runtime.device)
    assert got.stats.groups == groups
    assert groups > 1 or len(got.stats.levels) >= 3  # several levels, each handing the next its matches
    assert 0 < len(reads) <= MAX_READS * groups, f"{len(reads)} reads from the device"


def test_progress_images_are_reads_of_their_own(runtime, reads):
    """A read counted above is the fill's: asking for the current image reads once more."""
    img, mask = _scene(150, 180, 1)
    job = ms.MultiscaleInpainter(img, mask, backend="opencl", device=runtime.device)
    job.step()
    job.image  # noqa: B018 - the current image is a read
    assert len(reads) == 1


@pytest.mark.parametrize("h, w, seed, candidates", [(150, 180, 1, 1), (130, 170, 2, 3), (160, 140, 3, 1)])
def test_opencl_equals_numpy_on_fills_of_several_levels(runtime, h, w, seed, candidates):
    img, mask = _scene(h, w, seed)
    kw = dict(candidates=candidates, seed=seed)
    a = inpaint(img, mask, backend="numpy", **kw)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, **kw)
    assert len(a.stats.levels) >= 3
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


def test_opencl_equals_numpy_on_far_holes_with_another_seed(runtime):
    img, mask = _far_scene()
    a = inpaint(img, mask, backend="numpy", seed=5)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, seed=5)
    assert a.stats.groups == 2
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


def test_opencl_equals_numpy_where_the_hole_expects_two_textures(runtime):
    """Two parts of one fill more than a cell apart: each expects the texture of its own
    surroundings (a launch each on the device), and the fills are the same bit for bit."""
    img, _ = _scene(150, 260, 6)
    mask = np.zeros((150, 260), bool)
    mask[60:80, 20:40] = True
    mask[64:84, 180:200] = True
    lev = levels.prepare_level(mask, 3, 1.0)
    assert len(ref.texture_groups(lev.solve_map, lev.work, mask.shape, 3)[1]) == 2
    a = inpaint(img, mask, backend="numpy", seed=2)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, seed=2)
    assert a.stats.groups == 1  # one fill
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


@pytest.mark.parametrize("h, w, density", [(9, 200, 0.02), (40, 97, 0.5), (3, 33, 1.0), (50, 64, 0.001)])
def test_random_sources_are_drawn_alike_on_the_device(runtime, h, w, density):
    """The device finds the k-th valid centre through block counts, the reference through row
    counts: the same centres, on wide rows, sparse maps, whole blocks without one, and rows of
    a block and a bit (sentinel-filled outputs)."""
    rng = np.random.default_rng(int(density * 1000) + w)
    mask = np.zeros((h, w), bool)
    mask[h // 2, w // 8:w - w // 8] = True  # hundreds of targets: hundreds of draws
    valid = rng.random((h, w)) < density
    valid[h - 1, w - 1] = True  # at least one
    lev = dataclasses.replace(levels.prepare_level(mask, 1, None), valid=valid.astype(np.uint8),
                              valid_box=())  # the box of these centres, found afresh
    n, k = len(lev.targets), 2
    mf = cl.mem_flags

    def buf(a):
        return cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(a))

    b = {"valid": buf(lev.valid), "ends": buf(levels.valid_ends(lev)),
         "nnf": buf(np.full((n, k, 2), -7, np.int32)), "cost": buf(np.full((n, k), 7, np.uint32))}
    best = buf(np.full((n, 2), -7, np.int32))
    mcl.PatchMatch(runtime, 1, k).start(b, n, w, h, 0xC0FFEE, best)
    got = np.empty((n, 2), np.int32)
    cl.enqueue_copy(runtime.queue, got, best)
    np.testing.assert_array_equal(got, levels.random_sources(lev, 0xC0FFEE))


def test_the_host_queues_at_most_a_level_ahead_of_the_device(runtime, monkeypatch):
    """Without the read between levels, the host waits (on an event) until the device has
    started the coarser level before it queues the next: progress and cancelling keep up."""
    seen = []
    lift = mcl.DeviceLevel.lift

    def recorded(self, coarse, key):
        lift(self, coarse, key)
        seen.append(coarse.first.command_execution_status)

    monkeypatch.setattr(mcl.DeviceLevel, "lift", recorded)
    img, mask = _scene(150, 180, 1)
    got = inpaint(img, mask, backend="opencl", device=runtime.device, timings=False)
    assert len(seen) == len(got.stats.levels) - 1 >= 2
    assert seen == [cl.command_execution_status.COMPLETE] * len(seen)


def test_the_host_queues_at_most_a_round_ahead_of_the_device(runtime, monkeypatch):
    """Within a level too (a large hole's finest round runs for seconds): before each round the
    host waits until the device has started the round before, and the job's progress counts the
    round just queued only once the next one is queued."""
    from inpaint.api import start

    seen, statuses = [], []
    pace = mcl.DeviceLevel.pace

    def recorded(self):
        before = self._round_first
        pace(self)
        if before is not None:
            statuses.append(before.command_execution_status)

    monkeypatch.setattr(mcl.DeviceLevel, "pace", recorded)
    img, mask = _scene(150, 180, 1)
    job = start(img, mask, backend="opencl", device=runtime.device)
    while not job.done:
        job.step()
        seen.append(job.progress)
    levels = len(job.result().stats.levels)
    fill = job._part  # the one group's fill
    assert len(statuses) == len(fill._rounds) - levels > 0  # every round but a level's first
    assert statuses == [cl.command_execution_status.COMPLETE] * len(statuses)
    plan = np.cumsum(fill._plan) / sum(fill._plan)
    assert seen[-1] == 1.0 and seen == sorted(seen)
    np.testing.assert_allclose(seen[1:-1], plan[:len(seen) - 2])  # a step behind the queued rounds


def test_a_second_fill_on_a_runtime_builds_nothing_and_gives_the_same_fill(runtime, monkeypatch):
    """The wrappers are made once per runtime and options: a second fill on the runtime fetches no
    kernel, parses no prototype and looks up no program, and fills the same bits."""
    img, mask = _scene(130, 170, 2)
    kw = dict(candidates=2, seed=4, backend="opencl", device=runtime.device)
    first = inpaint(img, mask, **kw)
    assert mcl.kernels(runtime, 1, 2) is mcl.kernels(runtime, 1, 2) is not mcl.kernels(runtime, 1, 3)
    looked_up = []

    def spied(real):
        def spy(self, *args, **kwargs):
            looked_up.append(args[:2])
            return real(self, *args, **kwargs)
        return spy

    for name in ("program", "kernel"):
        monkeypatch.setattr(type(runtime), name, spied(getattr(type(runtime), name)))
    monkeypatch.setattr(mcl, "named_kernel", lambda *a, **k: looked_up.append(a[2:3]) or pytest.fail("fetched"))
    second = inpaint(img, mask, **kw)
    assert looked_up == []
    np.testing.assert_array_equal(first.image, second.image)
    np.testing.assert_array_equal(first.source_map, second.source_map)


def test_fills_on_threads_equal_the_same_fills_one_after_the_other(runtime):
    """A batch's threads each open a runtime of their own (sharing the context's programs), so each
    has its own wrappers: fills run side by side give the bits they give one at a time."""
    import concurrent.futures

    from inpaint.cl.runtime import get_runtime

    scenes = [(_scene(150, 180, 1), 1), (_scene(130, 170, 2), 2), (_far_scene(), 3), (_scene(160, 140, 3), 1)]

    def fill(scene):
        (img, mask), seed = scene
        rt = get_runtime(runtime.device)
        with rt.turn():
            got = inpaint(img, mask, backend="opencl", device=runtime.device, seed=seed, timings=False)
        return rt, mcl.kernels(rt, 1, 1), got

    serial = [fill(s) for s in scenes]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        side_by_side = list(pool.map(fill, scenes + scenes))
    runtimes = {id(rt) for rt, _, _ in side_by_side}
    assert len(runtimes) == 2 and id(runtime) not in runtimes  # one runtime, and one set of wrappers, a thread
    assert len({id(kn["poisson"]) for _, kn, _ in side_by_side}) == 2
    for (_, _, a), (_, _, b) in zip(serial + serial, side_by_side):
        np.testing.assert_array_equal(a.image, b.image)
        np.testing.assert_array_equal(a.source_map, b.source_map)


def test_no_upload_waits_for_the_device(runtime, monkeypatch):
    """Every copy from host memory to the device is queued (the host goes on setting up the level
    while the device finishes the one before), a level's lists and maps cross in one copy (the
    photo and its hole for the features, the first fill's layers and the expected texture take
    one each), and the fill is the same."""
    blocking = []
    copy = cl.enqueue_copy

    def recorded(queue, dest, src, **kw):
        if isinstance(src, np.ndarray) and isinstance(dest, cl.MemoryObjectHolder):
            blocking.append(kw.get("is_blocking", True))
        return copy(queue, dest, src, **kw)

    img, mask = _scene(150, 180, 1)
    a = inpaint(img, mask, backend="numpy", seed=2)
    monkeypatch.setattr(cl, "enqueue_copy", recorded)
    b = inpaint(img, mask, backend="opencl", device=runtime.device, seed=2, timings=False)
    assert len(b.stats.levels) <= len(blocking) <= len(b.stats.levels) + 4 and not any(blocking)
    np.testing.assert_array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.source_map, b.source_map)


@pytest.mark.parametrize("pooled", [False, True])
def test_packed_uploads_and_cleared_buffers_hold_their_parts(runtime, monkeypatch, pooled):
    """Arrays uploaded together come back whole from their parts (the small ones parts of one
    buffer, a large one a buffer of its own); cleared parts are zero; every part starts where the
    device allows a sub-buffer; a rectangle copied from a part's home lands where a copy from host
    memory would put it."""
    from inpaint.cl import runtime as rtmod

    monkeypatch.setattr(runtime, "pooled", pooled)
    monkeypatch.setattr(runtime, "_pool", None)
    rng = np.random.default_rng(5)
    arrays = [rng.integers(0, 2**31, (7, 2), dtype=np.int32), rng.integers(0, 255, (13, 9), dtype=np.uint8),
              np.arange(3, dtype=np.uint32), rng.integers(0, 255, (1,), dtype=np.uint8),
              rng.integers(0, 255, (rtmod.PACK_MAX + 3,), dtype=np.uint8)]  # large: a copy of its own
    sent = runtime.uploads(arrays)
    zeroed = runtime.cleared([12, 1, 4096])
    align = runtime.device.mem_base_addr_align // 8
    assert all(at % align == 0 for _, at in sent.homes + zeroed.homes)
    assert len({id(b) for b, _ in sent.homes[:4]}) == 1 and sent.homes[4] == (sent.parts[4], 0)
    for arr, part in zip(arrays, sent.parts):
        back = np.empty_like(arr)
        cl.enqueue_copy(runtime.queue, back, part)
        np.testing.assert_array_equal(back, arr)
    for size, part in zip([12, 1, 4096], zeroed.parts):
        back = np.full(size, 7, np.uint8)
        cl.enqueue_copy(runtime.queue, back, part)
        assert not back.any()
    big = runtime.buffer(20 * 30)
    cl.enqueue_fill_buffer(runtime.queue, big, np.uint8(0), 0, 20 * 30)
    home, at = sent.homes[1]
    cl.enqueue_copy(runtime.queue, big, home, src_origin=(at, 0), dst_origin=(4, 5),
                    region=(9, 13), src_pitches=(9,), dst_pitches=(30,))
    want = np.zeros((20, 30), np.uint8)
    want[5:18, 4:13] = arrays[1]
    got = np.empty((20, 30), np.uint8)
    cl.enqueue_copy(runtime.queue, got, big)
    np.testing.assert_array_equal(got, want)


def test_a_level_names_its_patchmatch_arguments_once(runtime, monkeypatch):
    """The arguments that stay over a level's PatchMatch iterations are gathered once a level; each
    iteration names only its key, its best-match buffers and its switches."""
    made, launched = [], []
    level = mcl.PatchMatch.level

    def counted(self, *args, **kwargs):
        launch = level(self, *args, **kwargs)
        made.append(args[1])

        def counted_launch(*a, **k):
            launched.append(a[0])
            return launch(*a, **k)
        return counted_launch

    monkeypatch.setattr(mcl.PatchMatch, "level", counted)
    img, mask = _scene(150, 180, 1)
    got = inpaint(img, mask, backend="opencl", device=runtime.device, timings=False)
    assert len(made) == len(got.stats.levels) >= 3
    assert len(launched) == ms.PM_ITERATIONS * (got.stats.iterations + 1)  # (twice as many in the first round)


def test_pooled_buffers_reused_by_later_fills_give_the_same_fills(runtime, monkeypatch):
    """With buffers from the runtime's pool (as on a GPU), a fill reuses the device memory of the
    fills before it, whatever those left in it, and still fills numpy's bits; the pool keeps the
    memory between fills, up to its bound."""
    from inpaint.cl import runtime as rtmod

    runtime = rtmod.get_runtime(runtime.device)  # the one the fills below open, whatever earlier tests cached
    monkeypatch.setattr(runtime, "pooled", True)
    monkeypatch.setattr(runtime, "_pool", None)
    scenes = [(_scene(150, 180, 1), 1), (_far_scene(), 3), (_scene(130, 170, 2), 2), (_scene(150, 180, 1), 5)]
    managed = []
    for (img, mask), seed in scenes + scenes:
        want = inpaint(img, mask, backend="numpy", seed=seed)
        got = inpaint(img, mask, backend="opencl", device=runtime.device, seed=seed, timings=True)  # (this runtime)
        np.testing.assert_array_equal(want.image, got.image)
        np.testing.assert_array_equal(want.source_map, got.source_map)
        managed.append(runtime._pool.managed_bytes)
    assert managed[0] > 0
    assert managed[4:] == managed[3:-1]  # the second round of the same fills allocates nothing more
    monkeypatch.setattr(rtmod, "POOL_KEEP", 0)
    runtime.finished()
    assert runtime._pool.managed_bytes == runtime._pool.active_bytes  # over the bound: nothing unused kept

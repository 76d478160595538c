"""The device-resident Criminisi loop: its kernels against the numpy reference and a naive
oracle, and whole fills against the host-driven loop and numpy, bit for bit.

On the device-resident loop the device works out each iteration's rectangle and patches
itself (``kernels/criminisi/loop.cl``); these tests hold its two kernels to what the stage kernels do
with what the host would have passed them.
"""

import numpy as np
import pyopencl as cl
import pytest
from hypothesis import given, settings, strategies as hs
from test_stages import frozen_state, read, to_device

from inpaint.api import Inpainter, inpaint
from inpaint.errors import InputError
from inpaint.methods.criminisi import opencl as stages_cl, reference
from inpaint.methods.criminisi.stages import bundle_for

STAGES = ("grey", "front", "valid", "confidence", "priority", "ssd", "reduce", "copy")


def loop_kernels(runtime):
    """The loop's kernels.  Their patch radius is an argument; the bundle's PATCH define is
    findBestPatch's alone, so one build serves every radius here."""
    return stages_cl.Loop(runtime, bundle_for(runtime, STAGES, 9, resident=True))


def launch(runtime, *launches):
    """Enqueue bound launches (kernel, size, local) as the loop does."""
    for knl, size, local in launches:
        cl.enqueue_nd_range_kernel(runtime.queue, knl, size, local)


def as_rect_buffer(rect, done=0):
    x0, y0, x1, y1 = rect
    return np.array([x0, y0, x1 - x0, y1 - y0, done], np.int32)


@pytest.mark.parametrize("rect", [(0, 0, 31, 24), (2, 3, 30, 22), (15, 1, 20, 6), (5, 5, 5, 9)])
@pytest.mark.parametrize("box", [(0, 0, 31, 24), (4, 2, 27, 20)])
def test_update_and_pick_is_stages_2_4_5_and_the_argmax(runtime, rng, rect, box):
    """One work-group runs stages 2, 4 and 5 over the rectangle in turn, then the argmax over
    the box: exactly the reference's arrays (sentinels outside the rectangle stay) and target."""
    h, w, half = 24, 31, 2
    st = frozen_state(rng, h, w, half)
    st["unknown"][rng.random((h, w)) < 0.1] = 1                       # a front that changed since
    want = {"front": np.full((h, w), 9, np.uint8), "cpatch": np.full((h, w), -3, np.float32),
            "prio": np.full((h, w), -7, np.float32)}
    reference.front(st["unknown"], want["front"], rect)
    reference.confidence(st["conf"], want["front"], want["cpatch"], rect, half)
    reference.priority(st["grey"], st["unknown"], want["front"], want["cpatch"], want["prio"], rect)
    target = reference.argmax_priority(want["prio"], box)
    st["rect"] = as_rect_buffer(rect)
    b = to_device(runtime, st, {"front": 9, "cpatch": -3, "prio": -7})
    launch(runtime, loop_kernels(runtime).bind_update(b, w, h, half, box))
    for name, arr in want.items():
        assert read(runtime, b[name], st[name]).tobytes() == arr.tobytes(), name
    assert read(runtime, b["result"], st["result"])[0] == target


def naive_next_rect(p, w, h, half, box):
    """The rectangle stages 2, 4 and 5 update after a copy at p: every pixel whose inputs the
    copy may have changed, i.e. within 2 * half of the patch, inside the image and the box."""
    ty, tx = divmod(p, w)
    bx0, by0, bx1, by1 = box
    xs = [x for x in range(w) if bx0 <= x < bx1 and tx - 3 * half <= x <= tx + 3 * half]
    ys = [y for y in range(h) if by0 <= y < by1 and ty - 3 * half <= y <= ty + 3 * half]
    return xs[0], ys[0], xs[-1] - xs[0] + 1, ys[-1] - ys[0] + 1


def pair_buffers(runtime, values, indices):
    mf = cl.mem_flags
    return (cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.asarray(values, np.uint32)),
            cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.asarray(indices, np.int32)))


@pytest.mark.parametrize("patch", [3, 7])
def test_pick_copy_and_next(runtime, rng, patch):
    """The argmin of the slices' pairs, the copy from that source, the log and the next rectangle."""
    h, w = 24, 31
    half = patch // 2
    box = (3, 2, 27, 21)
    st = frozen_state(rng, h, w, half)
    fy, fx = np.nonzero(st["front"])
    target = (int(fy[0]), int(fx[0]))
    cen = (half + 1, half + 2, w - half - 3, h - half)           # a centre map with an origin
    vy, vx = np.nonzero(st["valid"][cen[1]:cen[3], cen[0]:cen[2]])
    index = int(vy[-1]) * (cen[2] - cen[0]) + int(vx[-1])
    source = (cen[1] + int(vy[-1]), cen[0] + int(vx[-1]))
    st["result"][:3] = (target[0] * w + target[1], 12345, 12345)
    st["rect"] = np.array([-9, -9, -9, -9, 7], np.int32)           # 7 iterations done before
    st["log"] = np.full(15, -9, np.int32)
    want = {k: st[k].copy() for k in ("rgb", "grey", "unknown", "conf")}
    # Slices' pairs: the best value twice (the smaller index wins), a slice with no candidate.
    pairs = pair_buffers(runtime, [5000, 4321, 0xFFFFFFFF, 4321, 9000], [2, index, -1, index + 3, 1])
    reference.copy_patch(want["rgb"], want["grey"], want["unknown"], want["conf"], st["cpatch"], target, source, half)
    b = to_device(runtime, st)
    kn = loop_kernels(runtime)
    launch(runtime, kn.bind_copy(b, pairs, 5, 5, w, h, half, cen, box))
    for k in want:
        assert read(runtime, b[k], st[k]).tobytes() == want[k].tobytes(), k
    assert list(read(runtime, b["result"], st["result"])[:3]) == [target[0] * w + target[1], index, 4321]
    rect = read(runtime, b["rect"], st["rect"])
    assert tuple(rect[:4]) == naive_next_rect(target[0] * w + target[1], w, h, half, box) and rect[4] == 8
    log = read(runtime, b["log"], st["log"]).reshape(5, 3)
    assert tuple(log[7 % 5]) == (target[0] * w + target[1], index, 4321)
    assert (np.delete(log, 7 % 5, axis=0) == -9).all()
    # No target left: nothing is copied, the log says so, the rectangle is empty.
    st["result"][0] = -1
    b = to_device(runtime, st)
    launch(runtime, kn.bind_copy(b, pairs, 5, 5, w, h, half, cen, box))
    for k in want:
        assert read(runtime, b[k], st[k]).tobytes() == st[k].tobytes(), k
    assert tuple(read(runtime, b["rect"], st["rect"])[2:]) == (0, 0, 8)
    assert read(runtime, b["log"], st["log"]).reshape(5, 3)[2, 0] == -1


@settings(max_examples=60, deadline=None)
@given(w=hs.integers(5, 60), h=hs.integers(5, 60), half=hs.integers(1, 8), data=hs.data())
def test_the_next_rectangle_on_random_geometry(runtime, w, h, half, data):
    bx0 = data.draw(hs.integers(0, w - 1))
    by0 = data.draw(hs.integers(0, h - 1))
    box = (bx0, by0, data.draw(hs.integers(bx0 + 1, w)), data.draw(hs.integers(by0 + 1, h)))
    ty = data.draw(hs.integers(box[1], box[3] - 1))
    tx = data.draw(hs.integers(box[0], box[2] - 1))
    n = (w - 2 * half) * (h - 2 * half)
    st = {"rgb": np.zeros((h, w, 4), np.uint8), "grey": np.zeros((h, w), np.uint8),
          "unknown": np.zeros((h, w), np.uint8), "conf": np.ones((h, w), np.float32),
          "cpatch": np.zeros((h, w), np.float32), "result": np.array([ty * w + tx, 0, 0, -1], np.int32),
          "rect": np.full(5, 0, np.int32), "log": np.full(3, -9, np.int32)}
    b = to_device(runtime, st)
    cen = (half, half, w - half, h - half) if n > 0 else (0, 0, 1, 1)
    pairs = pair_buffers(runtime, [0], [0])
    launch(runtime, loop_kernels(runtime).bind_copy(b, pairs, 1, 1, w, h, half, cen, box))
    assert tuple(read(runtime, b["rect"], st["rect"])[:4]) == naive_next_rect(ty * w + tx, w, h, half, box)


def scene(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([(xx * 7) % 256, (yy * 5) % 256, ((xx + yy) * 3) % 256], -1).astype(np.uint8)
    img[rng.random((h, w)) < 0.2] = rng.integers(0, 256, 3)
    return img


@settings(max_examples=25, deadline=None)
@given(seed=hs.integers(0, 10 ** 6), patch=hs.sampled_from([3, 5, 9]), alpha=hs.sampled_from([0.05, 0.5, "full"]),
       h=hs.integers(24, 48), w=hs.integers(24, 48))
def test_device_loop_equals_numpy(runtime, seed, patch, alpha, h, w):
    """Whole fills: the device-resident loop gives the numpy reference's image, patches and SSDs."""
    rng = np.random.default_rng(seed)
    img = scene(rng, h, w)
    mask = np.zeros((h, w), bool)
    y0, x0 = int(rng.integers(2, h // 2)), int(rng.integers(2, w // 2))
    mask[y0:y0 + int(rng.integers(3, h // 2)), x0:x0 + int(rng.integers(3, w // 2))] = True
    mask &= rng.random((h, w)) < 0.9
    try:
        want = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="numpy")
    except InputError:                                   # no valid source patch for this draw
        return
    got = inpaint(img, mask, method="criminisi", alpha=alpha, patch=patch, backend="opencl", loop="device")
    assert got.stats.loop == "device"
    assert got.image.tobytes() == want.image.tobytes()
    assert got.stats.patches == want.stats.patches and got.stats.ssd == want.stats.ssd
    np.testing.assert_array_equal(got.source_map, want.source_map)


@pytest.mark.opencl
def test_auto_takes_the_device_loop_only_when_it_can(rng):
    img = scene(rng, 30, 40)
    mask = np.zeros((30, 40), bool)
    mask[10:18, 12:22] = True
    assert Inpainter(img, mask, patch=5, backend="opencl").stats.loop == "device"
    assert Inpainter(img, mask, patch=5, backend="opencl", loop="host").stats.loop == "host"
    assert Inpainter(img, mask, patch=5, backend="opencl", source="filled").stats.loop == "host"
    assert Inpainter(img, mask, patch=5, backend="opencl", partition="coprocess").stats.loop == "host"
    assert Inpainter(img, mask, patch=5, backend="numpy").stats.loop == "host"
    for bad in ({"source": "filled"}, {"partition": "coprocess"}, {"backend": "numpy"}):
        with pytest.raises(InputError, match=r"loop 'device' \(--fill-loop device\) needs"):
            Inpainter(img, mask, patch=5, loop="device", **{"backend": "opencl", **bad})
    with pytest.raises(InputError, match="loop must be"):
        Inpainter(img, mask, patch=5, loop="gpu")


def test_device_loop_with_the_reduction_split_as_on_a_gpu(runtime, rng, monkeypatch):
    """A CPU never splits stage 7 over work-groups; force it, and the fill is still the reference's."""
    monkeypatch.setattr(stages_cl.Reduce, "split", lambda self, n: (-(-n // 97), 97))
    img = scene(rng, 40, 52)
    mask = np.zeros((40, 52), bool)
    mask[12:25, 14:30] = True
    want = inpaint(img, mask, method="criminisi", alpha="full", patch=5, backend="numpy")
    for loop in ("device", "host"):
        got = inpaint(img, mask, method="criminisi", alpha="full", patch=5, backend="opencl", loop=loop)
        assert got.image.tobytes() == want.image.tobytes() and got.stats.patches == want.stats.patches

"""Several jobs on one OpenCL device: a driver that runs kernels from one queue at a time in a
process (PoCL 3.0, 4 and 5) gets one job's fill at a time, and the results are those of one job."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

import inpaint.api
from inpaint.cl import runtime as rtmod

pytestmark = pytest.mark.opencl


class _Device:
    """The parts of a device :func:`rtmod.one_queue_at_a_time` reads."""

    def __init__(self, platform: str, version: str, kind: str):
        self.platform = type("Platform", (), {"name": platform, "version": version})()
        self.type = getattr(rtmod.cl.device_type, kind)


@pytest.mark.parametrize(("platform", "version", "kind", "expected"), [
    ("Portable Computing Language", "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release", "CPU", True),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts", "CPU", False),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 4.0  Linux, Release", "CPU", True),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts", "CPU", True),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 6.0  Linux, Release", "CPU", False),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 7.0  Linux, Release", "CPU", False),
    ("Portable Computing Language", "OpenCL 3.0 PoCL 5.0  Linux, Release", "GPU", False),
    ("NVIDIA CUDA", "OpenCL 3.0 CUDA 12.4.131", "GPU", False),
])
def test_which_drivers_run_kernels_from_one_queue_at_a_time(platform, version, kind, expected):
    assert rtmod.one_queue_at_a_time(_Device(platform, version, kind)) is expected


def _one_queue_device() -> str:
    for pi, di, device in rtmod.preference():
        if rtmod.one_queue_at_a_time(device) and rtmod.cannot_build(device) is None:
            return f"{pi}:{di}"
    pytest.skip("no OpenCL device here runs its kernels from one queue at a time (PoCL 3.0, 4 or 5)")


@pytest.fixture
def photos(tmp_path):
    """Five photos of different sizes (their levels launch kernels of different sizes), with masks."""
    rng = np.random.default_rng(7)
    folder = tmp_path / "in"
    folder.mkdir()
    for i, (h, w) in enumerate([(40, 52), (33, 61), (48, 40), (29, 45), (44, 70)]):
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(folder / f"p{i}.png")
        save_mask(folder / f"p{i}_mask.png", box_mask(h, w, slice(h // 3, h // 3 + 7), slice(w // 3, w // 3 + 9)))
    return folder


def test_jobs_on_a_one_queue_driver_fill_one_at_a_time_with_the_same_results(photos, tmp_path, monkeypatch, run):
    device = _one_queue_device()
    real = inpaint.api.inpaint
    lock = threading.Lock()
    running, most = [0], [0]

    def watched(*args, **kwargs):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.05)  # a window in which another job's fill would be seen
            return real(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(inpaint.api, "inpaint", watched)
    code, _, err = run(photos, "-o", f"{tmp_path / 'four'}/", "--device", device, "--jobs", "4", "-q")
    assert code == 0, err
    assert most[0] == 1
    monkeypatch.setattr(inpaint.api, "inpaint", real)
    code, _, err = run(photos, "-o", f"{tmp_path / 'one'}/", "--device", device, "-q")
    assert code == 0, err
    for i in range(5):
        a = np.asarray(Image.open(tmp_path / "four" / f"p{i}.png"))
        b = np.asarray(Image.open(tmp_path / "one" / f"p{i}.png"))
        assert np.array_equal(a, b), f"p{i}.png"


def test_threads_share_one_context_each_with_its_own_queue_and_kernels(runtime):
    from inpaint.integral.opencl import IntegralPlan

    found = {}
    both = threading.Barrier(2)  # both threads alive at once: an ended thread's id can be given to the next

    def open_on_thread(name):
        rt = rtmod.get_runtime(device=runtime.device, profiling=False)
        found[name] = (rt, IntegralPlan((13, 11), runtime=rt, method="naive").kernels["row_scan"])
        both.wait(timeout=60)

    threads = [threading.Thread(target=open_on_thread, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a, ka), (b, kb) = found["a"], found["b"]
    assert a is not b
    assert a.context.int_ptr == b.context.int_ptr
    assert a.queue.int_ptr != b.queue.int_ptr
    # one program, built once; a kernel object for each thread (setting arguments is not thread-safe)
    assert ka.kernel.program.int_ptr == kb.kernel.program.int_ptr
    assert ka.kernel.int_ptr != kb.kernel.int_ptr


def _on_a_thread(job):
    """``job()`` on a thread of its own, which has ended when this returns; its result."""
    got = []
    thread = threading.Thread(target=lambda: got.append(job()))
    thread.start()
    thread.join()
    return got[0]


@pytest.fixture
def builds():
    """The sources of every program build started in this process while the test runs."""
    from inpaint.cl import build as cl_build

    started = []

    def listener(event, sources, seconds):
        if event == "start":
            started.append(sources)

    cl_build.add_build_listener(listener)
    yield started
    cl_build.remove_build_listener(listener)


def test_the_runtimes_of_ended_threads_are_forgotten(runtime, builds):
    from inpaint.integral.api import integral

    image = np.arange(13 * 11, dtype=np.uint8).reshape(13, 11)
    expected = image.astype(np.int64).cumsum(0).cumsum(1)
    main = rtmod.get_runtime(device=runtime.device)
    assert np.array_equal(integral(image, runtime=main, method="naive"), expected)  # built here, if not yet
    builds.clear()

    def job():
        rt = rtmod.get_runtime(device=runtime.device, profiling=False)
        return rt, np.array_equal(integral(image, runtime=rt, method="naive"), expected)

    # One after another: each thread may be given the id of the one before it.
    ended = [_on_a_thread(job) for _ in range(4)]
    assert all(ok for _, ok in ended)
    assert len({id(rt) for rt, _ in ended}) == 4  # each its own runtime, none an ended thread's
    assert all(rt.context is main.context for rt, _ in ended)

    assert rtmod.get_runtime(device=runtime.device) is main
    assert not any(rt is cached for rt, _ in ended for cached in rtmod._RUNTIMES.values())
    assert np.array_equal(integral(image, runtime=main, method="naive"), expected)
    assert builds == []  # the threads used the main thread's programs; nothing was built again


def test_a_context_outlives_its_threads_for_the_next_to_share(runtime, builds, monkeypatch):
    from inpaint.integral.api import integral

    monkeypatch.setattr(rtmod, "_RUNTIMES", {})  # no live thread's runtime on the context
    image = np.arange(7 * 9, dtype=np.uint8).reshape(7, 9)

    def job():
        rt = rtmod.get_runtime(device=runtime.device)
        integral(image, runtime=rt, method="naive")
        return rt

    first = _on_a_thread(job)
    assert builds  # a context of its own, with its programs
    builds.clear()
    second = _on_a_thread(job)
    assert second is not first
    assert second.context is first.context
    assert builds == []
    _on_a_thread(job)
    assert list(rtmod._RUNTIMES.values()).count(first) == 1  # the context's one runtime kept
    assert len(rtmod._RUNTIMES) == 2  # and the third thread's, until the next call

"""Window-free parts of the app: history, photo files, the worker thread (no Kivy)."""

import threading
import time
from functools import partial

import numpy as np
import pytest
from PIL import Image

from inpaint.io import atomic
from mobile_ui import devices, samples
from mobile_ui.history import History, Snapshot
from mobile_ui.masktools import load_mask
from mobile_ui.storage import load_image, save_image, save_photo, suggest_save_path
from mobile_ui.worker import Cancelled, Worker, run_inpaint


@pytest.fixture
def photo(rng):
    return rng.integers(0, 256, (13, 11, 3), dtype=np.uint8)


# -- history ----------------------------------------------------------------------------
def test_snapshot_round_trips_masks_and_freezes_the_image(photo, rng):
    mask = rng.random((13, 11)) < 0.3
    keep = rng.random((13, 11)) < 0.2
    snap = Snapshot.capture(photo, mask, keep, "stroke")
    np.testing.assert_array_equal(snap.mask, mask)
    np.testing.assert_array_equal(snap.keep, keep)
    np.testing.assert_array_equal(snap.image, photo)
    assert not snap.image.flags.writeable
    mask[0, 0] = not mask[0, 0]          # later painting does not reach the snapshot
    assert snap.mask[0, 0] != mask[0, 0]
    assert snap.mask_bits.nbytes == (13 * 11 + 7) // 8
    with pytest.raises(ValueError, match="do not match"):
        Snapshot.capture(photo, mask[:5])


def test_undo_redo_sequence(photo):
    h = History()
    states = [Snapshot.capture(photo, np.eye(13, 11, k, dtype=bool)) for k in range(4)]
    for s in states[:3]:
        h.push(s)
    current = states[3]
    back = h.undo(current)
    assert back is states[2] and h.can_redo
    fwd = h.redo(back)
    assert fwd.image is current.image and np.array_equal(fwd.mask, current.mask)  # the state undone
    h.undo(current)
    h.push(states[0])                    # a new change drops the redo branch
    assert not h.can_redo
    assert h.undo(current) is states[0]
    assert History().undo(current) is None and History().redo(current) is None


def test_history_is_bounded_and_shares_images(photo):
    one = Snapshot.capture(photo, np.zeros((13, 11), bool))
    per_mask = 2 * one.mask_bits.nbytes
    h = History(max_bytes=photo.nbytes + 5 * per_mask, max_steps=100)
    for _ in range(20):
        h.push(Snapshot.capture(one.image, np.zeros((13, 11), bool)))   # same read-only image object
    assert len(h) == 5                                                   # image counted once
    assert h.nbytes <= h.max_bytes
    h2 = History(max_steps=3)
    for _ in range(10):
        h2.push(one)
    assert len(h2) == 3
    big = History(max_bytes=10)
    big.push(one)
    assert len(big) == 1                 # the newest step survives even over budget
    with pytest.raises(ValueError):
        History(max_bytes=0)


# -- files ------------------------------------------------------------------------------
def test_save_png_is_lossless_atomic_and_never_overwrites(tmp_path, photo):
    out = save_image(photo, tmp_path / "a.png")
    np.testing.assert_array_equal(np.asarray(Image.open(out)), photo)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]     # no temp file left
    with pytest.raises(FileExistsError, match="already exists"):
        save_image(photo[::-1], out)
    np.testing.assert_array_equal(np.asarray(Image.open(out)), photo)
    save_image(photo[::-1].copy(), out, overwrite=True)
    np.testing.assert_array_equal(np.asarray(Image.open(out)), photo[::-1])


def test_save_refuses_the_original_and_bad_names(tmp_path, photo):
    orig = tmp_path / "orig.png"
    Image.fromarray(photo).save(orig)
    with pytest.raises(FileExistsError, match="original"):
        save_image(photo, orig, original=orig)
    with pytest.raises(ValueError, match=".png"):
        save_image(photo, tmp_path / "x.gif")
    with pytest.raises(ValueError, match="uint8"):
        save_image(photo.astype(np.float32), tmp_path / "y.png")
    with pytest.raises(FileNotFoundError, match="folder"):
        save_image(photo, tmp_path / "no" / "z.png")


def test_failed_write_leaves_no_partial_file(tmp_path, photo, monkeypatch):
    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(atomic, "encode", boom)
    with pytest.raises(OSError, match="disk full"):
        save_image(photo, tmp_path / "c.png")
    assert list(tmp_path.iterdir()) == []


def test_jpeg_keeps_exif_and_applies_orientation(tmp_path):
    img = np.zeros((6, 10, 3), np.uint8)
    img[:, :5] = (255, 0, 0)                       # left half red
    exif = Image.Exif()
    exif[0x0112] = 6                               # rotate 90 degrees clockwise for display
    exif[0x010F] = "PhoneMaker"                    # camera make
    src = tmp_path / "p.jpg"
    Image.fromarray(img).save(src, exif=exif.tobytes(), quality=100, subsampling=0)
    photo = load_image(src)
    assert photo.pixels.shape == (10, 6, 3)        # upright: portrait
    assert photo.pixels[0, 0, 0] > 200 and photo.pixels[-1, 0, 0] < 60
    out = save_image(photo.pixels, tmp_path / "p_removed.jpg", exif=photo.exif, original=src)
    with Image.open(out) as im:
        saved = im.getexif()
        assert saved[0x010F] == "PhoneMaker"
        assert saved.get(0x0112, 1) == 1            # not rotated twice
        assert im.size == (6, 10)


def _jpeg_photo(path, subsampling=2, orientation=None):
    from pathlib import Path

    img = Image.open(Path(__file__).resolve().parents[1] / "datasets/objects/fig_bowl/image.png").convert("RGB")
    kw = {}
    if orientation:
        exif = Image.Exif()
        exif[0x0112] = orientation
        kw["exif"] = exif.tobytes()
    img.crop((0, 0, 200, 152)).save(path, quality=87, subsampling=subsampling, **kw)


@pytest.mark.parametrize("kind", ["I;16", "I", "F"])
def test_a_wide_grey_photo_opens_as_the_command_reads_it(tmp_path, kind):
    # convert("RGB") clipped them: a 16-bit ramp opened nearly all white, a float one black.
    from inpaint.io import read_image

    ramp = np.tile(np.linspace(0, 1, 90), (20, 1))
    src = tmp_path / ("g.png" if kind == "I;16" else "g.tif")
    values = {"I;16": (ramp * 65535).astype(np.uint16), "I": (ramp * 65535).astype(np.int32),
              "F": ramp.astype(np.float32)}[kind]
    Image.fromarray(values).save(src)
    pixels = load_image(src).pixels
    assert np.array_equal(pixels, read_image(src).rgb) and abs(pixels.mean() - 127.5) < 1


@pytest.mark.parametrize("subsampling,orientation", [(2, None), (1, 6), (0, 3)])
def test_jpeg_save_keeps_the_blocks_of_unchanged_pixels(tmp_path, subsampling, orientation):
    jpeglib = pytest.importorskip("jpeglib")
    from inpaint.io import jpeg_edit

    src, out = tmp_path / "p.jpg", tmp_path / "p_inpainted.jpg"
    _jpeg_photo(src, subsampling, orientation)
    photo = load_image(src)
    work = photo.pixels.copy()
    work[40:61, 50:83] = (10, 200, 30)          # a removal
    work[5, 7] = 255 - work[5, 7]               # and one pixel
    written, notes = save_photo(work, out, photo)
    assert written == out and notes == []
    changed = (work != photo.pixels).any(axis=2)
    a, b = jpeglib.read_dct(str(src)), jpeglib.read_dct(str(out))
    vv, hv = (int(x) for x in np.asarray(a.samp_factor)[0])
    grid = jpeg_edit.touched_mcus(jpeg_edit.STORED[orientation or 1](changed), (8 * vv, 8 * hv))
    ygrid = np.kron(grid, np.ones((vv, hv), bool))[:a.Y.shape[0], :a.Y.shape[1]]
    assert np.array_equal(a.Y[~ygrid], b.Y[~ygrid])
    for c in ("Cb", "Cr"):
        assert np.array_equal(getattr(a, c)[~grid], getattr(b, c)[~grid])
    assert not np.array_equal(a.Y[ygrid], b.Y[ygrid])
    assert np.array_equal(a.qt, b.qt)
    back = load_image(out).pixels
    assert np.abs(back[44:57, 54:79].mean(axis=(0, 1)) - (10, 200, 30)).max() < 25   # the change, upright


def test_jpeg_save_resized_or_of_a_changed_file_says_it_was_encoded_again(tmp_path):
    src = tmp_path / "p.jpg"
    _jpeg_photo(src, 1)
    photo = load_image(src)
    out, notes = save_photo(photo.pixels[:, :150].copy(), tmp_path / "small.jpg", photo)
    assert any("encoded again at its new size" in n for n in notes), notes
    with Image.open(out) as im, Image.open(src) as orig:
        assert im.quantization == orig.quantization and im.size == (150, 152)
    Image.fromarray(photo.pixels[::-1].copy()).save(src, quality=87)      # the file changed after opening
    _, notes = save_photo(photo.pixels, tmp_path / "again.jpg", photo)
    assert any("changed since it was opened" in n for n in notes)
    _, notes = save_photo(photo.pixels, tmp_path / "a.png", photo)         # PNG: lossless, nothing to say
    assert notes == []
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "a.png")), photo.pixels)


def test_load_errors_are_readable(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such image"):
        load_image(tmp_path / "missing.png")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    with pytest.raises(ValueError, match="bad.png is not an image"):
        load_image(bad)
    Image.fromarray(np.zeros((4, 5), np.uint8)).save(tmp_path / "m.png")
    with pytest.raises(ValueError, match="5x4"):
        load_mask(tmp_path / "m.png", (5, 5))
    assert load_mask(tmp_path / "m.png", (4, 5)).shape == (4, 5)


def test_a_decompression_bomb_is_the_commands_one_line_too_large(tmp_path, monkeypatch):
    from inpaint.io.read import read_image

    Image.fromarray(np.zeros((60, 50, 3), np.uint8)).save(tmp_path / "big.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)       # 3000 pixels: over twice the limit
    with pytest.raises(ValueError) as app_error:
        load_image(tmp_path / "big.png")
    with pytest.raises(ValueError) as cli_error:
        read_image(tmp_path / "big.png")
    assert str(app_error.value) == str(cli_error.value)
    assert "too large" in str(app_error.value) and "\n" not in str(app_error.value)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 2000)       # over the limit, under twice it
    with pytest.raises(ValueError, match="too large"):
        load_image(tmp_path / "big.png")


def test_rgba_photos_are_flattened(tmp_path):
    rgba = np.zeros((3, 3, 4), np.uint8)
    rgba[0, 0] = (10, 20, 30, 255)
    Image.fromarray(rgba, "RGBA").save(tmp_path / "t.png")
    px = load_image(tmp_path / "t.png").pixels
    assert px.shape == (3, 3, 3) and tuple(px[0, 0]) == (10, 20, 30) and tuple(px[1, 1]) == (255, 255, 255)


def test_suggested_names_do_not_exist(tmp_path):
    orig = tmp_path / "holiday.jpg"
    orig.write_bytes(b"")
    first = suggest_save_path(orig, tmp_path)
    assert first.name == "holiday_removed.jpg"
    first.write_bytes(b"")
    assert suggest_save_path(orig, tmp_path).name == "holiday_removed-2.jpg"
    assert suggest_save_path(None, tmp_path, "walkingman").name == "walkingman_removed.png"


def test_a_failed_save_says_why_for_the_file_asked_for():
    from mobile_ui.document import _not_written

    exc = PermissionError(1, "Operation not permitted", "/card/.p_removed.png~inpaint.0bbfd16a.31613.ec6a.tmp")
    assert _not_written(exc, "/card/p_removed.png") == "Cannot write p_removed.png: Operation not permitted."
    mine = FileExistsError("p.png is the original photo; choose another name")  # the app's own words stay
    assert _not_written(mine, "/card/p.png") == "p.png is the original photo; choose another name"


def test_a_suggested_name_for_a_photo_of_a_long_name_can_be_saved(tmp_path):
    # "é" is two bytes: the name is cut on a character, within the 255 bytes a name may have
    orig = tmp_path / ("é" * 120 + "x.png")
    Image.new("RGB", (8, 6)).save(orig)
    photo = load_image(orig)
    path = suggest_save_path(orig, tmp_path)
    assert path.name.endswith("_removed.png") and path.name.startswith("é" * 100)
    written, _ = save_photo(photo.pixels, path, photo)
    assert written.exists()


# -- worker thread ----------------------------------------------------------------------
class _Steps:
    """An Inpainter-like stand-in that records the thread it runs on."""

    def __init__(self, image, mask, *, n=5, gate=None, **_params):
        self.thread = threading.get_ident()
        self.n, self.iterations, self.gate = n, 0, gate
        self._img = image.copy()

    done = property(lambda self: self.iterations >= self.n)
    progress = property(lambda self: self.iterations / self.n)
    image = property(lambda self: self._img.copy())

    def step(self):
        if self.gate is not None:
            self.gate.wait(5)
        assert threading.get_ident() == self.thread, "stepped on another thread than created"
        self.iterations += 1
        self._img[0, 0] = self.iterations
        return not self.done

    def result(self):
        return self


def test_jobs_run_on_the_one_worker_thread(photo):
    w = Worker()
    made = []

    def factory(*a, **k):
        made.append(_Steps(*a, **k))
        return made[-1]

    got = []
    for _ in range(2):
        job = w.submit(lambda j: run_inpaint(j, photo, np.ones((13, 11), bool), {"n": 3}, factory=factory),
                       on_done=got.append)
        assert job.wait(10)
    assert w.wait_idle(10) and not w.busy
    assert [m.thread for m in made] == [w.ident, w.ident] != [threading.get_ident()] * 2
    result, seconds = got[0]
    assert result.iterations == 3 and seconds >= 0
    w.shutdown()


def test_cancel_stops_between_steps_and_reports(photo):
    w = Worker()
    gate = threading.Event()
    progress, cancelled, done = [], [], []
    job = w.submit(lambda j: run_inpaint(j, photo, np.ones((13, 11), bool), {"n": 1000, "gate": gate},
                                         on_progress=lambda *a: progress.append(a), interval=0.0,
                                         factory=_Steps),
                   on_done=done.append, on_cancel=lambda: cancelled.append(True))
    job.cancel()
    gate.set()
    assert job.wait(10)
    assert job.outcome == "cancelled" and cancelled == [True] and done == []
    w.shutdown()


def test_errors_reach_the_ui_callback_not_the_thread(photo):
    w = Worker()
    errors = []

    def bad(job):
        raise ValueError("mask covers the whole image")

    job = w.submit(bad, on_error=errors.append)
    assert job.wait(10) and job.outcome == "error"
    assert isinstance(errors[0], ValueError)
    ok = w.submit(lambda j: 42, on_done=errors.append)      # the thread survived
    assert ok.wait(10) and errors[-1] == 42
    with pytest.raises(Cancelled):
        ok.cancel() or ok.check()
    w.shutdown()


def test_progress_reports_partial_images(photo):
    w = Worker()
    seen = []
    job = w.submit(lambda j: run_inpaint(j, photo, np.ones((13, 11), bool), {"n": 4},
                                         on_progress=lambda img, f, it: seen.append((img[0, 0, 0], f, it)),
                                         interval=0.0, factory=_Steps, share=1.0))
    assert job.wait(10) and job.outcome == "done"
    assert [s[2] for s in seen] == [1, 2, 3] and seen[0][0] == 1 and seen[1][1] == 0.5
    w.shutdown()


class _Clock:
    """A clock that moves only when told: the fill's steps and its partial images take set times."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now

    time = staticmethod(time.time)


@pytest.mark.parametrize("image_cost", [0.0, 0.2])
def test_partial_images_take_at_most_a_tenth_of_the_fill(photo, monkeypatch, image_cost):
    """A large photo's partial image takes tenths of a second to make, on the worker, while the
    fill waits: the previews are spaced so that they take at most 10 % of the time (a cheap one
    still comes every 0.1 s)."""
    from mobile_ui import worker

    clock = _Clock()
    monkeypatch.setattr(worker, "time", clock)
    made = []

    class Timed(_Steps):
        def step(self):
            clock.now += 0.01                  # 200 steps: 2 s of fill
            return super().step()

        @property
        def image(self):
            made.append(clock.now)
            clock.now += image_cost
            return self._img.copy()

    seen = []
    run_inpaint(worker.Job(lambda job: None, None, None, None), photo, np.ones((13, 11), bool),
                {"n": 200}, on_progress=lambda *a: seen.append(a[2]), factory=Timed)
    assert len(seen) == len(made) >= 1, "the fill still shows its progress"
    if image_cost:
        assert len(made) * image_cost <= 0.1 * clock.now + image_cost, (len(made), clock.now)
    else:
        assert 15 <= len(made) <= 20, "a cheap partial image every 0.1 s"

def test_phases_are_told_in_order_and_a_build_on_the_worker_is_compiling(photo, tmp_path, monkeypatch):
    """A build on the worker (while set up, or during a step) is told as compiling, then the
    phase it interrupted again; a build on another thread is not this job's."""
    from inpaint.cl import build as cl_build

    monkeypatch.setenv("POCL_CACHE_DIR", str(tmp_path))   # no compiled program appears there

    def announce():                  # what inpaint.cl.build.build tells its listeners
        for listener in list(cl_build._BUILD_LISTENERS):
            listener("start", ("x",), 0.0)
        for listener in list(cl_build._BUILD_LISTENERS):
            listener("end", ("x",), 0.5)

    class Builds(_Steps):
        def __init__(self, *a, **k):
            announce()
            other = threading.Thread(target=announce)
            other.start()
            other.join()
            super().__init__(*a, **k)

        def step(self):
            if self.iterations == 1:
                announce()
            return super().step()

    w = Worker()
    phases = []
    job = w.submit(lambda j: run_inpaint(j, photo, np.ones((13, 11), bool), {"n": 3}, factory=Builds,
                                         on_phase=phases.append))
    assert job.wait(10) and job.outcome == "done"
    assert phases == ["preparing", "compiling", "preparing", "filling", "compiling", "filling"]
    assert not cl_build._BUILD_LISTENERS, "the listener is removed after the run"
    w.shutdown()


def test_after_a_build_that_compiled_the_phase_stays_compiling_until_the_first_progress(photo, tmp_path,
                                                                                        monkeypatch):
    """A build after which PoCL's cache holds a new file compiled the program, and the driver then
    compiles each kernel at its first launch: no phase is told until the fill's first progress,
    then 'filling'.  A build that wrote nothing there (a cache load) is told as before."""
    from inpaint.cl import build as cl_build

    monkeypatch.setenv("POCL_CACHE_DIR", str(tmp_path))

    def builds(writes):
        def announce():          # what inpaint.cl.build.build tells its listeners around a build
            for listener in list(cl_build._BUILD_LISTENERS):
                listener("start", ("x",), 0.0)
            if writes:
                time.sleep(0.02)  # past the file system's clock step
                (tmp_path / f"program-{time.time_ns()}.bc").write_bytes(b"compiled")
            for listener in list(cl_build._BUILD_LISTENERS):
                listener("end", ("x",), 0.2)

        class Builds(_Steps):
            def __init__(self, *a, **k):
                announce()
                super().__init__(*a, **k)
        return Builds

    w = Worker()
    for writes, expected in ((True, ["preparing", "compiling", "filling", 1, 2, 3]),
                             (False, ["preparing", "compiling", "preparing", "filling", 1, 2, 3])):
        told = []
        fn = partial(run_inpaint, image=photo, mask=np.ones((13, 11), bool), params={"n": 5},
                     factory=builds(writes), interval=0.0, share=1.0, on_phase=told.append,
                     on_progress=lambda _im, _f, it, told=told: told.append(it))
        job = w.submit(fn)
        assert job.wait(10) and job.outcome == "done"
        assert told[:len(expected)] == expected, (writes, told)
    w.shutdown()


def test_a_kernel_compiled_at_its_first_launch_is_compiling_until_the_next_progress(photo):
    """A step whose launch compiles a kernel (PoCL, at its first launch) is told as compiling, and
    'filling' comes back with the next progress."""
    from inpaint.cl import build as cl_build

    class Compiles(_Steps):
        def step(self):
            if self.iterations == 1:
                for listener in list(cl_build._BUILD_LISTENERS):
                    listener("compile", ("vote",), 0.0)
            return super().step()

    w = Worker()
    told = []
    job = w.submit(partial(run_inpaint, image=photo, mask=np.ones((13, 11), bool), params={"n": 4},
                           factory=Compiles, interval=0.0, share=1.0, on_phase=told.append,
                           on_progress=lambda _im, _f, it: told.append(it)))
    assert job.wait(10) and job.outcome == "done"
    assert told[:6] == ["preparing", "filling", 1, "compiling", "filling", 2], told
    w.shutdown()


def test_a_tap_too_large_for_an_object_is_retried_at_half_the_tolerance():
    from mobile_ui import masktools

    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :40] = (100, 100, 100)
    img[:, 40:] = (130, 130, 130)                       # two halves 30 levels apart
    img[20:30, 10:20] = (20, 200, 20)                   # a small object
    assert masktools.tap_select(img, (5, 5), 64).mean() > 0.9       # 64 (and 32) take both halves
    region, used = masktools.tap_select_plausible(img, (5, 5), 64, limit=0.6)
    assert used == 16                                    # 64 -> 32 -> 16: one half, under the limit
    np.testing.assert_array_equal(region, masktools.tap_select(img, (5, 5), 16))
    assert not region[:, 40:].any() and region[:, :40].mean() > 0.9 and region.mean() <= 0.6
    region, used = masktools.tap_select_plausible(img, (5, 5), 64, limit=0.4)
    assert used == masktools.MIN_TOLERANCE and region.mean() > 0.4   # still too large: the app asks
    region, used = masktools.tap_select_plausible(img, (25, 15), 64)
    assert used == 64 and region[20:30, 10:20].all() and region.mean() < masktools.MAX_REGION


def test_the_app_s_tap_adds_at_most_an_object_and_a_tap_on_the_selection_takes_away():
    from mobile_ui import masktools

    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :40] = (100, 100, 100)
    img[:, 40:] = (130, 130, 130)                       # two halves 30 levels apart
    img[20:30, 10:20] = (20, 200, 20)                   # a small object
    none = np.zeros((60, 80), bool)
    sel, used = masktools.select_tap(img, (5, 5), 64, none, limit=0.6)
    assert not sel[:, 40:].any() and sel.mean() <= 0.6     # the tolerance lowered to one half
    sel, used = masktools.select_tap(img, (25, 15), 64, none)
    assert used == 64 and sel[20:30, 10:20].all() and sel.mean() < masktools.MAX_REGION
    grey = none.copy()
    grey[:, 40:] = True                                  # a selection more than the limit...
    after, used = masktools.select_tap(img, (5, 60), 64, grey, limit=0.1)
    assert used == 64 and not after[5, 60] and after.sum() < grey.sum()  # ...a tap on it takes away, never lowered


def test_device_notes_reach_the_job_and_other_warnings_go_on(photo):
    import warnings

    from inpaint.errors import FallbackWarning

    fallback = "PoCL cannot compile for this CPU; using numpy, about 15 times slower; install PoCL"
    instead = "the GPU driver cannot compile; using pthread-cpu instead"

    def job_fn(job):
        warnings.warn(fallback, FallbackWarning)
        warnings.warn(fallback, FallbackWarning)                 # told twice: one note
        warnings.warn(instead, FallbackWarning)
        warnings.warn("invalid value encountered in divide", RuntimeWarning)   # numpy's: not a note
        warnings.warn("only the first frame is used", UserWarning)
        return 7

    w = Worker()
    done = []
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            job = w.submit(job_fn, on_done=done.append)
            assert job.wait(10)
        assert job.outcome == "done" and done == [7]
        assert job.notes == [fallback, instead]
        assert sorted(str(x.message) for x in seen) == ["invalid value encountered in divide",
                                                        "only the first frame is used"]
        # pytest's filters turn warnings into errors: a note is recorded all the same, not raised.
        job = w.submit(lambda j: warnings.warn(fallback, FallbackWarning) or 8, on_done=done.append)
        assert job.wait(10) and job.outcome == "done" and job.notes == [fallback] and done[-1] == 8
        quiet = w.submit(lambda j: 9)
        assert quiet.wait(10) and quiet.notes == []
    finally:
        w.shutdown()


def test_device_notes_are_the_librarys_fallback_warnings():
    from inpaint.errors import FallbackWarning, InputWarning
    from mobile_ui.worker import is_device_note

    assert is_device_note(FallbackWarning)
    for other in (RuntimeWarning, UserWarning, InputWarning):  # numpy's arithmetic, the kernel cache's...
        assert not is_device_note(other)


def test_device_errors_get_a_hint_naming_the_settings():
    from pathlib import Path

    from inpaint.cl import BACKENDS
    from inpaint.errors import BuildFailure, DeviceError, InputError, OpenCLUnavailable, ProfileError

    fake_cl_error = type("LogicError", (RuntimeError,), {"__module__": "pyopencl._cl"})
    for exc in (BuildFailure("cause; fix", details="log"), OpenCLUnavailable("no platform"),
                DeviceError("no device 3:0"), fake_cl_error("clEnqueueNDRangeKernel failed: OUT_OF_RESOURCES")):
        assert devices.is_device_error(exc) and devices.error_hint(exc) == devices.DEVICE_HINT, exc
    for exc in (InputError("the mask is empty"), ValueError("x"), RuntimeError("x"), MemoryError()):
        assert not devices.is_device_error(exc) and devices.error_hint(exc) == ""
    assert devices.error_hint(ProfileError("the device cannot meet it")) == devices.PROFILE_HINT
    # The hints name what the Settings screen shows: its labels, and a backend it offers.
    kv = Path(devices.__file__).with_name("inpaint.kv").read_text(encoding="utf-8")
    settings_rule = kv[kv.index("<SettingsPopup>:"):]
    for label in ("Advanced", "Run on", "OpenCL device", "Tuned for"):
        assert f"text: '{label}'" in settings_rule and label in devices.DEVICE_HINT + devices.PROFILE_HINT
    assert "numpy" in BACKENDS and "set Run on to the processor (numpy" in devices.DEVICE_HINT
    assert "native" in devices.list_profiles()



# -- settings helpers -------------------------------------------------------------------
def test_alpha_parsing():
    from inpaint.methods.checks import parse_alpha  # the settings' alpha goes through the library's parser

    assert parse_alpha(" Full ") == "full"
    assert parse_alpha("0.5") == 0.5
    for bad in ("-1", "abc", "nan"):
        with pytest.raises(ValueError, match="alpha"):
            parse_alpha(bad)


def test_device_listing_never_raises():
    choices, why = devices.list_devices()
    assert (choices and why is None) or (not choices and why)
    for c in choices:
        assert ":" in c.spec and c.label.startswith(c.spec)
        text = devices.describe(c.device, "native")
        assert "local memory" in text and "profile 'native'" in text
    assert devices.describe(None, None).startswith("numpy")
    assert "native" in devices.list_profiles()


def test_demo_scene_has_an_object_inside_the_mask():
    img, mask = samples.demo_scene(64, 48)
    assert img.shape == (48, 64, 3) and img.dtype == np.uint8
    assert 0 < mask.sum() < mask.size
    image, m, title = samples.load_sample()
    assert image.shape[:2] == m.shape and m.any() and title


# -- settings file ----------------------------------------------------------------------
def test_settings_defaults_follow_the_default_method():
    from inpaint.methods.registry import DEFAULT_METHOD, DEFAULTS
    from mobile_ui import settings

    d = settings.defaults()
    assert d["alpha"] == str(DEFAULTS[DEFAULT_METHOD]["alpha"]) and d["patch"] == str(DEFAULTS[DEFAULT_METHOD]["patch"])
    assert settings.to_save(d, {}, {}) == {}                  # nothing changed: nothing pinned


def test_old_settings_files_do_not_pin_the_old_method():
    from mobile_ui import settings

    v1 = {"alpha": "0.05", "patch": "9", "backend": "numpy", "device": "auto", "profile": "native",
          "last_image": "/p/a.jpg", "last_dir": "/p"}
    changed, state = settings.read(v1)
    assert changed == {"backend": "numpy", "device": "auto", "profile": "native"}
    assert state == {"last_image": "/p/a.jpg", "last_dir": "/p"}
    assert settings.read({"alpha": "0.2", "patch": "13"})[0] == {"alpha": "0.2", "patch": "13"}  # chosen


def test_settings_round_trip_and_bad_values():
    from mobile_ui import settings

    current = dict(settings.defaults(), patch="11", grow=4, tolerance=settings.defaults()["tolerance"])
    doc = settings.document(settings.to_save(current, {}, {}), {"last_dir": "/x"})
    assert doc == {"version": 2, "changed": {"patch": "11", "grow": 4}, "last_dir": "/x"}
    assert settings.read(doc) == ({"patch": "11", "grow": 4}, {"last_dir": "/x"})
    bad = {"version": 2, "changed": {"grow": -3, "tolerance": 1e9, "patch": 9, "alpha": "0.5", "nope": 1,
                                     "backend": ["numpy"]}}
    assert settings.read(bad)[0] == {"alpha": "0.5"}
    assert settings.read({"version": 99, "changed": {"patch": "5"}, "last_dir": "/y"}) == ({}, {"last_dir": "/y"})
    assert settings.read("not a dict") == ({}, {})


def test_recent_folders_are_kept_newest_first_and_bounded():
    from mobile_ui import settings

    folders = [f"/f{i}" for i in range(12)]
    doc = settings.document({}, {"last_dir": "/f0", settings.RECENT: folders})
    assert doc[settings.RECENT] == folders[:settings.MAX_RECENT] and settings.MAX_RECENT == 8
    assert settings.read(doc)[1] == {"last_dir": "/f0", settings.RECENT: folders[:8]}
    assert settings.read({"version": 2, settings.RECENT: ["/a", 3, None, "/b"]})[1] == {settings.RECENT: ["/a", "/b"]}
    assert settings.read({"version": 2, settings.RECENT: "/a"})[1] == {}      # not a list: dropped
    assert settings.RECENT not in settings.document({}, {settings.RECENT: []})


def test_a_session_option_is_not_saved_as_a_choice():
    from mobile_ui import settings

    current = dict(settings.defaults(), backend="numpy")
    assert settings.to_save(current, {"backend": "opencl"}, {"backend": "numpy"}) == {"backend": "opencl"}
    assert settings.to_save(current, {}, {"backend": "numpy"}) == {}
    current["backend"] = "auto"                               # changed again in Settings: the user's choice
    assert settings.to_save(current, {"backend": "opencl"}, {"backend": "numpy"}) == {}


# -- mask files ---------------------------------------------------------------------------
def test_mask_files_use_the_command_rule_and_round_trip(tmp_path):
    from inpaint.io import read_mask
    from mobile_ui import masktools

    rng = np.random.default_rng(2)
    mask = rng.random((9, 12)) < 0.3
    out = masktools.save_mask(mask, tmp_path / "m.png")
    with Image.open(out) as im:
        assert im.mode == "L" and set(np.unique(np.asarray(im))) <= {0, 255}
    np.testing.assert_array_equal(masktools.load_mask(out, (9, 12)), mask)
    np.testing.assert_array_equal(read_mask(out, (12, 9)), mask)
    with pytest.raises(FileExistsError):
        masktools.save_mask(mask, out)
    masktools.save_mask(~mask, out, overwrite=True)
    np.testing.assert_array_equal(load_mask(out, (9, 12)), ~mask)
    with pytest.raises(ValueError, match="png"):
        masktools.save_mask(mask, tmp_path / "m.jpg")
    grey = np.array([[0, 127, 128, 255]], np.uint8)                      # > 127 marks the object
    Image.fromarray(grey).save(tmp_path / "g.png")
    assert load_mask(tmp_path / "g.png", (1, 4)).tolist() == [[False, False, True, True]]


def test_colour_tap_select_fills_holes_in_the_region():
    from mobile_ui import masktools

    img = np.zeros((20, 20, 3), np.uint8)
    img[4:16, 4:16] = (200, 40, 40)
    img[9:11, 9:11] = (20, 200, 20)                                      # a speck of another colour
    got = masktools.tap_select_colour(img, (5, 5), 30)
    want = np.zeros((20, 20), bool)
    want[5:15, 5:15] = True              # colours are 3x3 means: the square's outer ring mixes with black
    np.testing.assert_array_equal(got, want)


def test_previews_are_upright_small_cached_and_follow_the_file(tmp_path):
    import os

    from mobile_ui import thumbs

    px = np.zeros((300, 600, 3), np.uint8)
    px[:, :300] = (250, 0, 0)                             # red left half, blue right half
    px[:, 300:] = (0, 0, 250)
    photo = tmp_path / "side.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6                                      # shown turned 90° clockwise
    Image.fromarray(px).save(photo, exif=exif, quality=95)
    cache = tmp_path / "cache"
    first = thumbs.thumbnail(photo, cache)
    small = np.asarray(Image.open(first).convert("RGB"), int)
    assert small.shape == (thumbs.SIZE, thumbs.SIZE // 2, 3)   # upright: taller than wide
    assert small[5, :, 0].mean() > 200 and small[-5, :, 2].mean() > 200   # red on top after the turn
    assert thumbs.thumbnail(photo, cache) == first and len(list(cache.iterdir())) == 1   # cached
    Image.fromarray(px[:, ::-1].copy()).save(photo, quality=95)
    os.utime(photo, ns=(1, 10 ** 18))                     # a new version of the file
    second = thumbs.thumbnail(photo, cache)
    assert second != first and np.asarray(Image.open(second)).shape == (thumbs.SIZE // 2, thumbs.SIZE, 3)
    (tmp_path / "notes.png").write_text("not a picture")
    assert thumbs.thumbnail(tmp_path / "notes.png", cache) is None
    assert thumbs.thumbnail(tmp_path / "missing.png", cache) is None


def test_previews_keep_to_their_number_dropping_those_shown_longest_ago(tmp_path, monkeypatch):
    import os

    from mobile_ui import thumbs

    monkeypatch.setattr(thumbs, "KEEP", 3)
    cache = tmp_path / "cache"
    photos = []
    for i in range(5):
        photos.append(tmp_path / f"p{i}.png")
        Image.fromarray(np.full((8, 8, 3), i * 40, np.uint8)).save(photos[-1])
    made = [thumbs.thumbnail(p, cache) for p in photos[:3]]
    for i, path in enumerate(made):
        os.utime(path, (1000 + i, 1000 + i))
    assert thumbs.thumbnail(photos[0], cache) == made[0]  # shown again: now the newest
    thumbs.thumbnail(photos[3], cache)
    thumbs.thumbnail(photos[4], cache)
    kept = {p.name for p in cache.iterdir()}
    assert kept == {thumbs.cache_name(p) for p in (photos[0], photos[3], photos[4])}


def test_settings_naming_a_method_or_choice_this_app_lacks_fall_back_to_the_defaults():
    from mobile_ui import settings

    changed = {"method": "lama", "backend": "cuda", "patch": "7", "device": "whatever"}
    assert settings.read({"version": 2, "changed": changed})[0] == {"patch": "7", "device": "whatever"}
    assert settings.read({"version": 2, "changed": {"method": "criminisi"}})[0] == {"method": "criminisi"}


def _winding_oracle(points, h, w):
    """Pixel centres the closed path winds round, by summing the angles it turns through (naive)."""
    pts = np.asarray(points, float)
    out = np.zeros((h, w), bool)
    for r in range(h):
        for c in range(w):
            d = pts - (c + 0.5, r + 0.5)
            a = np.arctan2(d[:, 1], d[:, 0])
            turn = np.diff(np.append(a, a[0]))
            turn = (turn + np.pi) % (2 * np.pi) - np.pi
            out[r, c] = abs(turn.sum()) > np.pi
    return out


@pytest.mark.parametrize("turns", [0.97, 1.5, 1.95, 2.6])
def test_a_loop_drawn_round_more_than_once_encloses_all_it_goes_round(turns):
    from mobile_ui.geometry import lasso_mask

    angles = np.linspace(0, 2 * np.pi * turns, 60)
    pts = [(20.3 + 14.1 * np.cos(a), 15.2 + 11.7 * np.sin(a)) for a in angles]
    got = lasso_mask(pts, (30, 41))
    want = _winding_oracle(pts, 30, 41)
    # the path's own pixels are in it too; every centre it winds round is, and nothing else
    from PIL import Image, ImageDraw
    line = Image.new("1", (41, 30), 0)
    ImageDraw.Draw(line).polygon([(u - 0.5, v - 0.5) for u, v in pts], outline=1)
    np.testing.assert_array_equal(got, want | np.array(line, bool))
    assert got[15, 20], "the centre the loop goes round is inside"


def test_a_loop_of_one_point_or_none_is_that_pixel_or_nothing():
    from mobile_ui.geometry import lasso_mask

    assert lasso_mask([(1.5, 2.5)], (5, 5)).sum() == 1 and lasso_mask([(1.5, 2.5)], (5, 5))[2, 1]
    assert not lasso_mask([], (5, 5)).any()


def test_opening_says_what_the_apps_8_bit_colour_cannot_keep_and_saving_says_it_again(tmp_path):
    rgba = np.zeros((6, 8, 4), np.uint8)
    rgba[..., 0], rgba[..., 3] = 200, 128
    Image.fromarray(rgba, "RGBA").save(tmp_path / "logo.png")
    Image.fromarray(np.full((6, 8), 60000, np.uint16)).save(tmp_path / "scan.png")
    Image.fromarray(np.zeros((6, 8, 3), np.uint8)).save(tmp_path / "plain.png")
    logo, scan, plain = (load_image(tmp_path / n) for n in ("logo.png", "scan.png", "plain.png"))
    assert logo.flattened == ("transparency",) and scan.flattened == ("depth beyond 8 bits a channel",)
    assert plain.flattened == () and plain.flattened_note() == ""
    _, notes = save_photo(logo.pixels, tmp_path / "out.png", logo)
    assert notes == ["the app edits 8-bit colour, so logo.png's transparency is not kept "
                     "(the inpaint command keeps it)"]
    assert save_photo(plain.pixels, tmp_path / "out2.png", plain)[1] == []


def test_a_folder_or_a_bare_extension_gets_a_message_that_says_so(tmp_path, photo):
    from mobile_ui.masktools import save_mask

    with pytest.raises(IsADirectoryError, match="is a folder, not an image file"):
        load_image(tmp_path)
    with pytest.raises(ValueError, match=r"\.png is an extension without a name"):
        save_mask(np.zeros((4, 4), bool), tmp_path / ".png")
    with pytest.raises(ValueError, match=r"\.jpg is an extension without a name"):
        save_image(photo, tmp_path / ".jpg")


def test_saving_a_jpeg_whose_file_is_gone_says_so(tmp_path, photo):
    Image.fromarray(photo).save(tmp_path / "gone.jpg", quality=90)
    opened = load_image(tmp_path / "gone.jpg")
    (tmp_path / "gone.jpg").unlink()
    _, notes = save_photo(opened.pixels, tmp_path / "out.jpg", opened)
    assert notes == ["gone.jpg is no longer there, so the JPEG was encoded again at quality 95"]


def test_a_tiny_photo_is_too_small_to_select_in_and_the_app_calls_its_gesture_a_loop(photo):
    from inpaint.errors import InputError
    from inpaint.select import select_around, select_box

    with pytest.raises(InputError, match="the 7x6 image is too small to select in"):
        select_box(photo[:6, :7], (2, 2, 4, 4))
    big = np.zeros((40, 40, 3), np.uint8)
    rough = np.ones((40, 40), bool)
    rough[0, :10] = False
    with pytest.raises(InputError, match="^the loop covers"):
        select_around(big, rough, name="the loop")


def test_undo_and_redo_name_the_change_both_ways(photo):
    h = History()
    plain = Snapshot.capture(photo, np.zeros((13, 11), bool))
    h.push(Snapshot.capture(photo, np.zeros((13, 11), bool), label="resize"))
    back = h.undo(plain)
    assert back.label == "resize"
    forward = h.redo(back)
    assert forward.label == "resize"                   # what Redo redoes
    assert h.undo(forward).label == "resize"           # and Undo again undoes the same change


def test_a_photo_too_large_for_the_memory_is_said_so_in_the_app(tmp_path, monkeypatch):
    """Turning or converting a photo that does not fit raises the app's ValueError with the
    command's words, not a bare MemoryError (an empty "Cannot open" message, or the error popup)."""
    from mobile_ui import storage

    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(tmp_path / "big.png")

    def full(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(storage.ImageOps, "exif_transpose", full)
    with pytest.raises(ValueError, match="big.png is too large for the memory available"):
        storage.load_image(tmp_path / "big.png")

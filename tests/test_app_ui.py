"""Drive the real Kivy app with Kivy's own test tools (``UnitTestTouch``, ``EventLoop.idle``).

Needs a display: runs under ``xvfb-run -a`` in CI; without ``DISPLAY`` it starts ``Xvfb``
itself when installed, and is skipped (with the reason) otherwise.  All tests share one
window and one app (Kivy allows one window per process); each starts from a fresh
document.
"""

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import first_by_default, library_fill
from PIL import Image

pytestmark = pytest.mark.ui

_KIVY_HOME = tempfile.mkdtemp(prefix="inpaint-kivy-home-")
atexit.register(shutil.rmtree, _KIVY_HOME, ignore_errors=True)   # Kivy writes there until the process ends
for _key, _value in (("KIVY_NO_ARGS", "1"), ("KIVY_NO_CONSOLELOG", "1"), ("KIVY_NO_FILELOG", "1"),
                     ("KIVY_HOME", _KIVY_HOME), ("KIVY_METRICS_DENSITY", "1")):
    os.environ[_key] = _value

from inpaint.methods.defaults import DEFAULT_METHOD  # noqa: E402 - window-free
from mobile_ui import settings  # noqa: E402 - window-free
from mobile_ui.masktools import DEFAULT_TOLERANCE  # noqa: E402 - window-free

WINDOW = (480, 800)          # portrait, phone-like
TIMEOUT = 120.0              # seconds: an upper bound for any wait on the 2-core CI machine


def _start_xvfb():
    """Start Xvfb on a free display; returns the process (or None)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        return None
    read, write = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1400x1400x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as fh:
        number = fh.readline().strip()
    if not number:
        proc.kill()
        return None
    os.environ["DISPLAY"] = f":{number}"
    return proc


@pytest.fixture(scope="module")
def display():
    proc = None
    if not os.environ.get("DISPLAY"):
        proc = _start_xvfb()
        if proc is None:
            pytest.skip("no display for the Kivy UI tests: set DISPLAY, run under `xvfb-run -a`, "
                        "or install Xvfb (apt-get install xvfb)")
    yield os.environ["DISPLAY"]
    if proc is not None:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def kv(display):
    """Kivy with one window of WINDOW size and no real input devices."""
    pytest.importorskip("kivy")
    from kivy.config import Config

    Config.set("graphics", "width", str(WINDOW[0]))
    Config.set("graphics", "height", str(WINDOW[1]))
    Config.set("kivy", "exit_on_escape", "0")
    for name, _ in Config.items("input"):
        Config.remove_option("input", name)
    from kivy.base import EventLoop
    from kivy.core.window import Window

    if EventLoop.window is None or Window is None:
        pytest.skip("Kivy could not open a window on this display")
    # The configured size is a request: a window manager or SDL may fit it to the screen.  Set it
    # again so that every test sees the same window on any display.
    Window.size = WINDOW
    EventLoop.idle()
    assert tuple(Window.size) == WINDOW, f"the test window is {Window.size}, not {WINDOW}"
    return Window


@pytest.fixture(scope="module")
def app(kv, tmp_path_factory):
    from kivy.base import runTouchApp

    from mobile_ui.app import InpaintApp

    a = InpaintApp(state_dir=str(tmp_path_factory.mktemp("state")), catch_errors=False,
                   overrides={"backend": "numpy", "alpha": "0.2", "patch": "5"})
    a._run_prepare()
    runTouchApp(embedded=True)
    pump(5)
    yield a
    a._stop()


def pump(frames=1):
    from kivy.base import EventLoop

    for _ in range(frames):
        EventLoop.idle()


def pump_until(cond, timeout=TIMEOUT, what="condition"):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        pump()


def settle(app):
    """Wait for the worker to finish and its callbacks to reach the UI thread."""
    assert app.worker.wait_idle(TIMEOUT), "worker still busy"
    pump(3)


def tap(widget):
    """A finger's tap on ``widget``'s centre, which must lie in the window (where a finger reaches)."""
    from kivy.core.window import Window
    from kivy.tests.common import UnitTestTouch

    x, y = widget.to_window(*widget.center)
    assert 0 <= x <= Window.width and 0 <= y <= Window.height, f"{widget} lies outside the window: out of reach"
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()
    pump()


def tool(app, name):
    """The control with id ``name`` where a finger reaches it: the row under the photo shows it,
    else (portrait) its More button opens the sheet of tools that holds it."""
    shell = app.root
    widget, parent = shell.ids[name], shell.ids[name].parent
    while parent is not shell and parent not in (shell.toolbox, shell.topbar):
        parent = parent.parent
    if shell.portrait and parent is not shell and not shell.sheet_open:
        tap(shell.ids.more_btn)
        pump(2)
        assert shell.sheet_open, "More opens the sheet of tools"
    return widget


def screen_of(app, row, col):
    """Window coordinates of the centre of image pixel (row, col)."""
    ed = app.editor
    x, y = ed.view.pixel_centre(row, col)
    return ed.x + x, ed.y + y


def drag(points):
    from kivy.tests.common import UnitTestTouch

    t = UnitTestTouch(*points[0])
    t.touch_down()
    for p in points[1:]:
        t.touch_move(*p)
    t.touch_up()
    pump()


@pytest.fixture
def scene():
    from mobile_ui.samples import demo_scene

    return demo_scene(72, 56)


@pytest.fixture
def fresh(app, scene):
    """The app with a fresh copy of the small scene (mask included) and default tools."""
    img, mask = scene
    if app.busy:
        app.removal.cancel()
    settle(app)
    app.dialogs.dismiss_popup()
    app.engine = None
    app.method = DEFAULT_METHOD  # a test that chose another method may have failed before putting it back
    app.document.set_document(img.copy(), mask.copy(), "scene")
    app.editor.tool = "brush"
    app.editor.brush_size = 36
    app.grow = 0
    app.select_mode = "add"
    app.tolerance = DEFAULT_TOLERANCE
    app.root.sheet_open = False
    pump(2)
    return app


@pytest.fixture
def quick(fresh):
    """``fresh`` with the Criminisi method chosen: for tests of dialogs, history, saving and notes
    that need some removal, not the default method's (its numpy fill takes seconds here, the
    Criminisi method's a fraction of one; the tests of the fill itself keep the default)."""
    method = fresh.method
    fresh.method = "criminisi"
    yield fresh
    fresh.method = method


# -- painting ---------------------------------------------------------------------------
def test_stroke_paints_the_pixels_under_it(fresh):
    app, ed = fresh, fresh.editor
    ed.mask[...] = False
    ed.brush_size = 2 * 1.5 * ed.view.scale           # radius 1.5 image pixels
    row = 10
    points = [screen_of(app, row, c) for c in (8, 20, 33)]   # far-apart events: interpolation fills the gaps
    drag(points)
    assert ed.mask[row, 8:34].all()
    assert ed.mask[row - 1, 8:34].all() and ed.mask[row + 1, 8:34].all()
    assert not ed.mask[: row - 2].any() and not ed.mask[row + 3:].any()
    assert not ed.mask[:, :6].any() and not ed.mask[:, 36:].any()
    assert app.can_undo
    pump(2)
    assert app.info.startswith("72x56")


def test_eraser_and_clear_are_undoable(fresh):
    app, ed = fresh, fresh.editor
    before = ed.mask.copy()
    assert before.any()
    ed.tool = "eraser"
    ed.brush_size = 2 * 40 * ed.view.scale
    r, c = np.argwhere(before)[0]
    drag([screen_of(app, r, c)])
    assert not ed.mask.any()
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, before)
    tap(tool(app, "clear_btn"))
    assert not ed.mask.any()
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, before)
    app.document.redo()
    assert not ed.mask.any()


def test_zoom_then_paint_hits_the_right_pixel(fresh):
    from kivy.tests.common import UnitTestTouch

    app, ed = fresh, fresh.editor
    ed.mask[...] = False
    ed.zoom_by(2.0)                                   # the image now covers the editor
    scale0 = ed.view.scale
    # Mouse wheel over pixel (40, 50): zooms about the pointer.
    x, y = screen_of(app, 40, 50)
    for _ in range(4):
        wheel = UnitTestTouch(x, y)
        wheel.profile.append("button")
        wheel.button = "scrolldown"
        wheel.touch_down()
        wheel.touch_up()
    pump()
    assert ed.view.scale > 1.5 * scale0
    assert ed.view.pixel_at(x - ed.x, y - ed.y) == (40, 50)
    assert not ed.mask.any()                          # zooming paints nothing
    ed.brush_size = 4.0                               # finer than a pixel: exactly one pixel
    assert ed.brush_size / 2 < ed.view.scale / 2
    for target in [(40, 50), (38, 48), (41, 52)]:
        pos = screen_of(app, *target)
        assert ed.collide_point(*pos)
        drag([pos])
        assert ed.mask[target], f"pixel {target} not painted after zooming"
    assert ed.mask.sum() == 3


def test_pinch_zooms_and_pans_without_painting(fresh):
    from kivy.tests.common import UnitTestTouch

    app, ed = fresh, fresh.editor
    ed.mask[...] = False
    cx, cy = ed.center
    under = ed.view.widget_to_image(cx - ed.x, cy - ed.y)
    a, b = UnitTestTouch(cx - 20, cy), UnitTestTouch(cx + 20, cy)
    a.touch_down()
    b.touch_down()
    for step in range(1, 6):
        a.touch_move(cx - 20 - 12 * step, cy)
        b.touch_move(cx + 20 + 12 * step, cy)
    b.touch_up()
    a.touch_up()
    pump()
    assert ed.zoom > 2.0
    assert not ed.mask.any(), "the first finger's stroke must be undone when a pinch starts"
    assert not app.can_undo
    u, v = ed.view.widget_to_image(cx - ed.x, cy - ed.y)
    assert abs(u - under[0]) < 0.5 and abs(v - under[1]) < 0.5
    tap(tool(app, "fit_btn"))
    assert abs(ed.zoom - 1.0) < 1e-9


def test_move_tool_pans(fresh):
    ed = fresh.editor
    ed.zoom_by(4.0)
    ed.tool = "move"
    before_mask = ed.mask.copy()
    ox = ed.view.ox
    cx, cy = ed.center
    drag([(cx, cy), (cx + 30, cy), (cx + 60, cy)])
    assert ed.view.ox == pytest.approx(ox + 60)
    np.testing.assert_array_equal(ed.mask, before_mask)


def test_bracket_keys_change_the_brush(fresh, kv):
    ed = fresh.editor
    size = ed.brush_size
    kv.dispatch("on_key_down", 93, 0, "]", [])
    assert ed.brush_size == pytest.approx(size * 1.25)
    kv.dispatch("on_key_down", 91, 0, "[", [])
    kv.dispatch("on_key_down", 91, 0, "[", [])
    assert ed.brush_size == pytest.approx(size / 1.25)
    assert fresh.root.ids.brush_slider.value == pytest.approx(ed.brush_size)


def test_zoom_label_is_the_displayed_scale_and_1_is_actual_size(fresh, kv):
    from inpaint.report import format_percent

    app, ed = fresh, fresh.editor
    ed.fit()
    pump()
    shown = ed._img_rect.size[0] / ed.image.shape[1]        # screen pixels per image pixel, as drawn
    assert shown == pytest.approx(ed.view.scale) and abs(shown - 1.0) > 0.01
    assert app.info.endswith(f"zoom {format_percent(shown)} (fit)")
    kv.dispatch("on_key_down", 49, 0, "1", [])
    pump()
    assert ed.view.scale == 1.0
    assert tuple(ed._img_rect.size) == (ed.image.shape[1], ed.image.shape[0])
    assert app.info.endswith("zoom 100%")
    tap(tool(app, "fit_btn"))
    assert app.info.endswith("(fit)")
    tap(tool(app, "actual_size_btn"))
    assert ed.view.scale == 1.0


@pytest.mark.parametrize("target", [(0, 0), (0, 71), (55, 0), (55, 71), (28, 1)])
def test_wheel_zoom_keeps_the_point_under_the_pointer_at_the_edges(fresh, target):
    from kivy.tests.common import UnitTestTouch

    app, ed = fresh, fresh.editor
    ed.fit()
    for step in range(6):                             # from fitted (letterboxed) to far zoomed in
        x, y = screen_of(app, *target)
        before = ed.view.widget_to_image(x - ed.x, y - ed.y)
        wheel = UnitTestTouch(x, y)
        wheel.profile.append("button")
        wheel.button = "scrolldown"
        wheel.touch_down()
        wheel.touch_up()
        after = ed.view.widget_to_image(x - ed.x, y - ed.y)
        assert after == pytest.approx(before, abs=1e-6), f"step {step}: the point moved"
    assert ed.view.pixel_at(x - ed.x, y - ed.y) == target
    assert ed.zoom > 2.0


def test_default_window_fits_the_screen(display):
    from mobile_ui.__main__ import default_window_size, screen_size

    screen = screen_size(display)
    assert screen is not None and screen[0] >= 64 and screen[1] >= 64
    w, h = default_window_size(screen)
    assert w <= screen[0] and h <= screen[1] and w * h >= 0.5 * min(screen[0] * screen[1], 1600 * 1000)
    assert default_window_size((1280, 800)) == (1152, 680)      # not 800x600 on a laptop screen


# -- the Open dialog ---------------------------------------------------------------------
def test_open_dialog_starts_in_the_start_folder_and_takes_a_typed_path(fresh, scene, tmp_path, monkeypatch):
    from PIL import Image

    from mobile_ui.popups import OpenPopup

    app = fresh
    img, _ = scene
    photos = tmp_path / "photos"
    photos.mkdir()
    Image.fromarray(img).save(photos / "beach.png")
    monkeypatch.setattr(app, "start_dir", str(tmp_path))
    monkeypatch.setitem(app.prefs.state, "last_dir", str(photos))
    popup = app.dialogs.show_open()                                # an example is open: the start folder
    pump(3)
    assert isinstance(popup, OpenPopup) and popup.ids.chooser.path == str(tmp_path)
    assert popup.ids.path_input.text == str(tmp_path), "the field shows the current folder"
    assert "example" in popup.ids.cases.text.lower()
    assert not app.dialogs.open_typed(popup, "nowhere") and "No such file or folder" in popup.problem
    assert app.dialogs.open_typed(popup, "photos")                 # relative to the folder shown: browse it
    pump(2)
    assert popup.ids.chooser.path == str(photos) and popup.ids.path_input.text == str(photos)
    assert app.dialogs.open_typed(popup, "beach.png")              # a file: opened
    pump(2)
    assert app.doc_name == "beach.png" and app.dialogs.popup is None
    assert app.photo.path == photos / "beach.png"
    app.dialogs.show_open()                                        # now: the photo's folder
    pump(2)
    assert app.dialogs.popup.ids.chooser.path == str(photos)
    app.dialogs.dismiss_popup()


def test_a_photo_opens_with_its_paired_mask_beside_it(fresh, scene, tmp_path):
    from PIL import Image

    app = fresh
    img, _ = scene
    mask = np.zeros(img.shape[:2], bool)
    mask[10:20, 30:45] = True
    Image.fromarray(img).save(tmp_path / "beach.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "beach_mask.png")
    app.document.open_path(str(tmp_path / "beach.png"))
    pump(2)
    np.testing.assert_array_equal(app.editor.mask, mask)
    assert "beach_mask.png" in app.status
    Image.fromarray(img).save(tmp_path / "walk.png")         # no mask beside it: an empty one
    app.document.open_path(str(tmp_path / "walk.png"))
    assert not app.editor.mask.any() and "mask" not in app.status.split(".", 1)[1]
    Image.fromarray(img).save(tmp_path / "hill.png")         # a mask of another size: not used, said so
    Image.fromarray(np.zeros((5, 5), np.uint8)).save(tmp_path / "hill_mask.png")
    app.document.open_path(str(tmp_path / "hill.png"))
    assert not app.editor.mask.any() and "hill_mask.png is not used" in app.status


def _thumbs(widget):
    from mobile_ui.popups import PhotoThumb

    return {t.photo: t for t in widget.walk() if isinstance(t, PhotoThumb) and t.photo}


def test_open_dialog_shows_previews_and_recent_folders(fresh, scene, tmp_path, monkeypatch):
    from PIL import Image

    app = fresh
    img, _ = scene
    monkeypatch.setitem(app.prefs.state, "recent_dirs", [])
    beach, walks = tmp_path / "beach", tmp_path / "walks"
    beach.mkdir(), walks.mkdir()
    Image.fromarray(img).save(beach / "scene.png")
    Image.new("RGB", (400, 300), (220, 20, 20)).save(walks / "red.jpg", quality=95)
    (walks / "notes.txt").write_text("not a photo")
    app.document.open_path(str(beach / "scene.png"))
    app.document.open_path(str(walks / "red.jpg"))
    popup = app.dialogs.show_open()
    pump(3)
    assert popup.ids.recent.values == [str(walks), str(beach)], "newest first"
    popup.ids.recent.text = str(beach)                   # a recent folder: browsed
    pump(3)
    assert popup.ids.chooser.path == str(beach)
    popup.ids.chooser.path = str(walks)
    pump_until(lambda: str(walks / "red.jpg") in _thumbs(popup), timeout=20, what="the photo's entry")
    assert set(_thumbs(popup)) == {str(walks / "red.jpg")}, "only photos are listed"
    thumb = _thumbs(popup)[str(walks / "red.jpg")]
    pump_until(lambda: thumb.preview, timeout=30, what="the preview")
    preview = np.asarray(Image.open(thumb.preview).convert("RGB"), float)
    assert preview.shape[:2] == (144, 192)               # 400x300 within 192 px a side
    assert np.abs(preview.mean(axis=(0, 1)) - (220, 20, 20)).max() < 6, "the photo's own picture"
    assert thumb.source == thumb.preview and thumb.texture is not None
    popup.ids.chooser.selection = [str(walks / "red.jpg")]
    pump()
    tap(popup.ids.open_btn)
    pump(2)
    assert app.doc_name == "red.jpg"


def test_save_dialog_browses_folders_with_the_suggested_name(fresh, scene, tmp_path):
    from PIL import Image

    app = fresh
    img, _ = scene
    photos, elsewhere = tmp_path / "photos", tmp_path / "elsewhere"
    photos.mkdir(), elsewhere.mkdir()
    Image.fromarray(img).save(photos / "beach.png")
    Image.fromarray(img[::-1].copy()).save(elsewhere / "old.png")
    app.document.open_path(str(photos / "beach.png"))
    popup = app.dialogs.show_save()
    pump(3)
    assert popup.ids.folder.path == str(photos) and popup.ids.path.text == "beach_removed.png"
    assert popup.ids.folder_label.text == f"In {photos}"
    tap(popup.ids.save_up_btn)                           # up, then into another folder
    assert popup.ids.folder.path == str(tmp_path)
    popup.ids.folder.path = str(elsewhere)
    pump_until(lambda: str(elsewhere / "old.png") in _thumbs(popup), timeout=20, what="the folder's photos")
    popup.ids.folder.selection = [str(elsewhere / "old.png")]   # a tapped file gives its name
    pump()
    assert popup.ids.path.text == "old.png"
    popup.ids.path.text = "beach_removed.png"
    tap(popup.ids.save_confirm)
    pump(2)
    np.testing.assert_array_equal(np.asarray(Image.open(elsewhere / "beach_removed.png")), img)
    assert not (photos / "beach_removed.png").exists()
    assert app.prefs.recent_folders()[:2] == [str(elsewhere), str(photos)], "a folder saved to is recent too"


def test_last_photo_is_stored_absolute_and_a_missing_one_is_reported(fresh, scene, tmp_path, monkeypatch):
    import json

    from PIL import Image

    app = fresh
    img, _ = scene
    Image.fromarray(img).save(tmp_path / "gone.png")
    saved_dir = app._state_dir
    monkeypatch.chdir(tmp_path)
    try:
        app._state_dir = tmp_path / "state"
        app.document.open_path("gone.png")                           # a relative path, as typed on a command line
        data = json.loads((app._state_dir / "settings.json").read_text())
        assert data["last_image"] == str(tmp_path / "gone.png")
        (tmp_path / "gone.png").unlink()
        app.prefs.load()
        app.document.open_startup()
        assert app.photo.path is None, "the example opens instead"
        assert app.status.startswith(f"The last photo, {tmp_path / 'gone.png'}, is no longer there")
    finally:
        app._state_dir = saved_dir
        app.prefs.load()
        for key, value in app.overrides.items():
            setattr(app, key, value)


# -- closing ----------------------------------------------------------------------------
def test_closing_with_an_unsaved_result_asks_first(quick, scene, kv, monkeypatch, tmp_path):
    from mobile_ui.popups import ClosePopup, SavePopup

    app = quick
    img, mask = scene
    stops = []
    monkeypatch.setattr(app, "stop", lambda *a: stops.append(True))
    try:
        assert not app.document.unsaved and not kv.dispatch("on_request_close"), "nothing to save: close at once"
        kv.dispatch("on_key_down", 113, 0, "q", ["ctrl"])
        assert stops == [True]
        stops.clear()
        app.dialogs.quitting = False

        app.removal.remove()
        pump_until(lambda: not app.busy, what="the removal")
        settle(app)
        assert app.document.unsaved
        assert kv.dispatch("on_request_close") is True, "the window must stay open"
        assert isinstance(app.dialogs.popup, ClosePopup) and not stops
        pump(3)
        tap(app.dialogs.popup.ids.cancel_close)
        assert app.dialogs.popup is None and not stops and app.document.unsaved

        kv.dispatch("on_key_down", 113, 0, "q", ["ctrl"])        # Ctrl+Q asks the same
        assert isinstance(app.dialogs.popup, ClosePopup) and not stops
        pump(3)
        tap(app.dialogs.popup.ids.discard)
        assert stops == [True]
        stops.clear()
        app.dialogs.quitting = False

        assert kv.dispatch("on_request_close") is True
        pump(3)
        tap(app.dialogs.popup.ids.save_close)                         # Save: the Save dialog, then close
        pump(3)
        popup = app.dialogs.popup
        assert isinstance(popup, SavePopup) and popup.what == "photo" and not stops
        out = tmp_path / "kept.png"
        popup.ids.path.text = str(out)
        tap(popup.ids.save_confirm)
        assert out.is_file() and stops == [True] and not app.document.unsaved
        app.dialogs.quitting = False
        app.document.undo()                                            # back to the photo as opened:
        assert app.document.unsaved                                    # differs from what was saved
    finally:
        app.dialogs.quitting = False
        app.dialogs.dismiss_popup()


# -- replacing an unsaved result ----------------------------------------------------------
_OPENERS = ("open_button", "typed_path", "example", "dropped_file")


def _unsaved_result(app):
    """Remove, then paint a next stroke; returns the image, mask and Undo depth as they are."""
    app.removal.remove()
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    app.editor.brush_size = 2 * 3 * app.editor.view.scale
    drag([screen_of(app, 10, c) for c in (8, 30)])        # a next object marked: Cancel keeps it too
    assert app.document.unsaved and app.editor.mask.any() and len(app.history) == 2
    return app.image.copy(), app.editor.mask.copy(), len(app.history)


def _open_another(app, kv, how, photo):
    """Open a photo as the user would (``how``, one of _OPENERS): ``photo`` is the file for the
    Open dialog and the drop.  Returns the image and the name the opened photo must have."""
    from mobile_ui import samples, storage

    if how == "dropped_file":
        kv.dispatch("on_drop_file", str(photo).encode("utf-8"), 10, 10)    # as SDL gives it: bytes
        pump()
        return storage.load_image(photo).pixels, photo.name
    popup = app.dialogs.show_open()
    pump(3)
    if how == "open_button":
        popup.ids.chooser.path = str(photo.parent)
        popup.ids.chooser.selection = [str(photo)]
        pump(2)
        tap(popup.ids.open_btn)
    elif how == "typed_path":
        popup.ids.path_input.text = str(photo)
        popup.ids.path_input.dispatch("on_text_validate")
    else:
        name = popup.ids.cases.values[-1]
        popup.ids.cases.text = name
        image, _mask, title = samples.load_sample(None if name == "demo" else name)
        pump()
        return image, title
    pump()
    return storage.load_image(photo).pixels, photo.name


def _assert_opened(app, image, name):
    np.testing.assert_array_equal(app.image, image)
    assert app.doc_name == name and not app.document.unsaved
    assert len(app.history) == 0 and not app.can_undo


@pytest.mark.parametrize("how", first_by_default(_OPENERS))
def test_open_and_drop_ask_before_replacing_an_unsaved_result(quick, scene, kv, tmp_path, how):
    from PIL import Image

    from mobile_ui.popups import ClosePopup, MessagePopup, SavePopup

    app = quick
    img, mask = scene
    photo = tmp_path / "other.png"
    Image.fromarray(np.ascontiguousarray(img[::-1, ::-1])).save(photo)
    try:
        assert not app.document.unsaved                                   # nothing to save: opens at once
        image, name = _open_another(app, kv, how, photo)
        assert not isinstance(app.dialogs.popup, ClosePopup)
        _assert_opened(app, image, name)

        # Cancel: nothing changes, Undo included.
        app.document.set_document(img.copy(), mask.copy(), "scene")
        result, marked, depth = _unsaved_result(app)
        _open_another(app, kv, how, photo)
        question = app.dialogs.popup
        assert isinstance(question, ClosePopup) and question.text.startswith("scene has changes")
        assert question.text.endswith(f"before opening {photo.name}?" if how != "example"
                                      else f"before opening the example {name}?" if name != "demo"
                                      else "before opening the example?")
        pump(3)
        tap(question.ids.cancel_close)
        assert app.dialogs.popup is None and app.doc_name == "scene" and app.document.unsaved
        np.testing.assert_array_equal(app.image, result)
        np.testing.assert_array_equal(app.editor.mask, marked)
        np.testing.assert_array_equal(app.editor.displayed, result)
        assert len(app.history) == depth
        app.document.undo()                                               # the history is the one before
        app.document.undo()
        np.testing.assert_array_equal(app.image, img)
        np.testing.assert_array_equal(app.editor.mask, mask)
        app.document.redo()
        app.document.redo()
        np.testing.assert_array_equal(app.image, result)
        np.testing.assert_array_equal(app.editor.mask, marked)

        # Discard: the new photo opens.
        assert app.document.unsaved
        _open_another(app, kv, how, photo)
        assert isinstance(app.dialogs.popup, ClosePopup)
        pump(3)
        tap(app.dialogs.popup.ids.discard)
        _assert_opened(app, image, name)
        assert app.dialogs.popup is None

        # Save…: a save that fails opens nothing; once saved, the new photo opens.
        app.document.set_document(img.copy(), mask.copy(), "scene")
        result, marked, depth = _unsaved_result(app)
        taken, out = tmp_path / "taken.png", tmp_path / "kept.png"
        taken.write_bytes(b"someone else's file")
        for target in (taken, out):
            _open_another(app, kv, how, photo)
            assert isinstance(app.dialogs.popup, ClosePopup)
            pump(3)
            tap(app.dialogs.popup.ids.save_close)
            pump(3)
            save = app.dialogs.popup
            assert isinstance(save, SavePopup) and save.what == "photo"
            save.ids.path.text = str(target)
            tap(save.ids.save_confirm)
            if target is taken:                                  # not replaced without the tick
                assert isinstance(app.dialogs.popup, MessagePopup) and app.dialogs.popup.title == "Not saved"
                assert taken.read_bytes() == b"someone else's file"
                assert app.doc_name == "scene" and app.document.unsaved and len(app.history) == depth
                np.testing.assert_array_equal(app.image, result)
                np.testing.assert_array_equal(app.editor.mask, marked)
                app.dialogs.dismiss_popup()
        assert out.is_file()
        np.testing.assert_array_equal(np.asarray(Image.open(out)), result)
        _assert_opened(app, image, name)
        assert app.dialogs.popup is None
    finally:
        app.dialogs.dismiss_popup()
        pump()


# -- remove -----------------------------------------------------------------------------
def test_remove_equals_the_library_and_undo_redo_are_exact(fresh, scene):
    app = fresh
    img, mask = scene
    params = app.run_params()
    tap(tool(app, "remove_btn"))
    assert app.busy or app.history.can_undo
    pump_until(lambda: not app.busy, what="the removal to finish")
    settle(app)
    expected = library_fill(img, mask, **params)
    np.testing.assert_array_equal(app.image, expected.image)
    np.testing.assert_array_equal(app.editor.displayed, expected.image)
    assert not app.editor.mask.any(), "the mask clears when the removal is done"
    assert app.last_result.stats.iterations == expected.stats.iterations
    assert app.status.startswith("Removed in ") and f"({int(mask.sum()):,} px filled)" in app.status

    tap(tool(app, "undo_btn"))
    np.testing.assert_array_equal(app.image, img)
    np.testing.assert_array_equal(app.editor.mask, mask)
    np.testing.assert_array_equal(app.editor.displayed, img)
    tap(tool(app, "redo_btn"))
    np.testing.assert_array_equal(app.image, expected.image)
    assert not app.editor.mask.any()


def test_second_removal_edits_the_result(quick, scene):
    """Iterative editing: a second mask is removed from the first result."""
    from inpaint.api import inpaint

    app, ed = quick, quick.editor
    img, mask = scene
    params = app.run_params()
    app.removal.remove()
    pump_until(lambda: not app.busy, what="first removal")
    first = app.image.copy()
    second = np.zeros_like(mask)
    second[5:9, 10:15] = True
    ed.mask[...] = second
    app.removal.remove()
    pump_until(lambda: not app.busy, what="second removal")
    settle(app)
    np.testing.assert_array_equal(first, library_fill(img, mask, **params).image)
    np.testing.assert_array_equal(app.image, inpaint(first, second, **params).image)
    app.document.undo()
    np.testing.assert_array_equal(app.image, first)
    app.document.undo()
    np.testing.assert_array_equal(app.image, img)


def test_try_again_gives_another_fill_and_undo_brings_the_previous_back(fresh, scene, kv):
    from inpaint.api import inpaint
    from mobile_ui.popups import MessagePopup

    app = fresh
    img, mask = scene
    params = app.run_params()
    button = app.root.ids.try_again_btn
    assert not app.can_try_again and button.parent.opacity == 0, "Try again before any removal"
    tap(tool(app, "remove_btn"))
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    first = app.image
    assert app.can_try_again and button.parent.opacity == 1
    pump(2)
    assert button.texture_size[0] <= button.width and button.right <= app.root.ids.remove_btn.parent.right + 1
    fills = [first]
    tap(tool(app, "try_again_btn"))  # a Try again cancelled at once is no try: the next is still the first
    app.removal.cancel()
    assert not app.busy and app.image is first
    # the first fill's seed with the colour adaptation, then the next seed without it
    for seed, adapt, again in ((0, "on", lambda: tap(tool(app, "try_again_btn"))),
                               (1, "off", lambda: kv.dispatch("on_key_down", 114, 0, "r", []))):
        again()                      # the button, then the R key (IOPaint's key for the same)
        pump_until(lambda: not app.busy, what="another fill")
        settle(app)
        expected = inpaint(img, mask, seed=seed, adapt=adapt, **params).image  # the same input and mask
        np.testing.assert_array_equal(app.image, expected)
        np.testing.assert_array_equal(app.editor.displayed, expected)
        assert (app.image[mask] != fills[-1][mask]).any(axis=1).mean() > 0.2, "Try again gave the same fill"
        fills.append(app.image)
        assert f"seed {seed}" in app.status and app.can_try_again
        assert ("colours adapted" in app.status) == (adapt == "on"), app.status
    for previous in (fills[1], fills[0]):   # each Try again is one undo step
        tap(tool(app, "undo_btn"))
        np.testing.assert_array_equal(app.image, previous)
    assert app.can_try_again
    tap(tool(app, "undo_btn"))
    np.testing.assert_array_equal(app.image, img)
    np.testing.assert_array_equal(app.editor.mask, mask)
    assert not app.can_try_again and button.parent.opacity == 0, "the photo shown is no fill"
    tap(tool(app, "redo_btn"))
    np.testing.assert_array_equal(app.image, first)
    assert app.can_try_again
    method = app.method
    app.method = "criminisi"   # a method without a seed: Try again explains instead of filling the same
    try:
        depth = len(app.history)
        tap(tool(app, "try_again_btn"))
        popup = app.dialogs.popup
        assert not app.busy and isinstance(popup, MessagePopup) and "same way every time" in popup.text
        assert len(app.history) == depth and app.image is first
    finally:
        app.method = method
        app.dialogs.dismiss_popup()
        pump()


def test_try_again_alternates_the_colour_adaptation_and_the_seed():
    from inpaint.methods import registry
    from inpaint.methods.defaults import MAX_SEED
    from mobile_ui.removal import ALTERNATE, next_try

    multiscale = registry.get("multiscale")
    assert ALTERNATE[0] in multiscale.names and ALTERNATE[1] in multiscale.option(ALTERNATE[0]).choices
    assert [next_try(multiscale, 0, n) for n in range(1, 6)] == [(0, True), (1, False), (1, True), (2, False),
                                                                  (2, True)]
    assert next_try(multiscale, MAX_SEED, 2) == (0, False)          # past the last seed: the first

    class Seeded:                   # a method with a seed and no colour adaptation: each try the next seed
        names = ("seed",)

    assert [next_try(Seeded, 5, n) for n in (1, 2, 3)] == [(6, False), (7, False), (8, False)]


class _Slow:
    """The real Inpainter, slowed down, and held after 3 steps until ``gate`` opens.

    So the test sees live progress and cancels mid-run whatever the machine's load.
    """

    threads = []
    gate = threading.Event()
    hold_after = 3

    def __init__(self, *args, **kwargs):
        from inpaint.methods.criminisi.job import Inpainter

        self.threads.append(threading.get_ident())
        kwargs.pop("method", None)       # always the Criminisi job: its steps are short and many
        self._job = Inpainter(*args, **kwargs)

    def step(self):
        time.sleep(0.06)                 # > the worker's 0.1 s progress interval within 2 steps
        if self._job.iterations >= self.hold_after:
            self.gate.wait(TIMEOUT)
        return self._job.step()

    def __getattr__(self, name):
        return getattr(self._job, name)


def test_fill_is_shown_live_and_cancel_leaves_the_image(fresh, scene):
    app, ed = fresh, fresh.editor
    img, mask = scene
    app.engine = _Slow
    _Slow.threads.clear()
    _Slow.gate.clear()
    shown = []
    ed_show = ed.show_pixels

    def spy(pixels, rect=None):
        shown.append(pixels)
        ed_show(pixels, rect)

    ed.show_pixels = spy
    try:
        tap(tool(app, "bar_remove_btn"))                 # the phone's row under the photo
        assert app.busy
        pump()
        ids = app.root.ids
        for cancel, progress, remove in (("bar_cancel_btn", "bar_progress", "bar_remove_btn"),
                                         ("cancel_btn", "progress_bar", "remove_btn")):   # the row and the sheet
            assert ids[cancel].width >= 44 and ids[progress].width >= 44, "progress bar and Cancel must show"
            assert ids[remove].width == 0, "Remove makes room for the progress bar"
        pump_until(lambda: app.progress > 0, what="live progress")
        assert any(not np.array_equal(p, img) for p in shown), "the partially filled image was never shown"
        assert ed._overlay_color.a == 0, "the live fill replaces the red mask"
        assert re.fullmatch(r"Removing… \d+%( · about \d+:\d\d left)?", app.status), \
            app.status
        assert app.busy, "the run must still be held at the gate"
        tap(tool(app, "bar_cancel_btn"))
    finally:
        _Slow.gate.set()
        del ed.show_pixels
    assert not app.busy
    np.testing.assert_array_equal(app.image, img)
    np.testing.assert_array_equal(ed.mask, mask)
    np.testing.assert_array_equal(ed.displayed, img)
    settle(app)                                    # late callbacks of the cancelled job are ignored
    np.testing.assert_array_equal(app.image, img)
    np.testing.assert_array_equal(ed.displayed, img)
    assert not app.can_undo
    assert _Slow.threads == [app.worker.ident] and app.worker.ident != threading.get_ident()
    assert "unchanged" in app.status
    pump()
    assert app.root.ids.bar_remove_btn.width >= 44 and app.root.ids.bar_cancel_btn.width == 0


def test_a_live_fill_uploads_only_its_hole(fresh, scene, monkeypatch):
    """A partial image differs from the photo in the mask alone: only the mask's bounding box is
    converted and uploaded (a large photo's preview costs what its hole costs), and the texture
    then holds exactly the partial image."""
    from inpaint.geometry import bbox
    from mobile_ui import editor as editor_module

    app, ed = fresh, fresh.editor
    img, mask = scene
    converted = []
    real = editor_module.rgba
    monkeypatch.setattr(editor_module, "rgba", lambda px: converted.append(px.shape[:2]) or real(px))
    app.engine = _Slow
    _Slow.threads.clear()
    _Slow.gate.clear()
    try:
        app.removal.remove()
        pump_until(lambda: app.progress > 0, what="live progress")
        x0, y0, x1, y1 = bbox(mask)
        assert converted and set(converted) == {(y1 - y0, x1 - x0)} and (y1 - y0, x1 - x0) != img.shape[:2]
        shown = np.frombuffer(ed._tex.pixels, np.uint8).reshape(img.shape[0], img.shape[1], 4)
        assert not np.array_equal(ed.displayed, img), "a partial fill is shown"
        np.testing.assert_array_equal(shown[..., :3], ed.displayed)
    finally:
        _Slow.gate.set()
        app.removal.cancel()
    settle(app)


class _Held(_Slow):
    """Held before its first step until ``gate`` opens: nothing of the fill is shown yet."""

    gate = threading.Event()
    hold_after = 0


def test_red_mask_stays_until_the_live_fill_replaces_it(fresh, scene):
    app, ed = fresh, fresh.editor
    img, mask = scene
    app.engine = _Held
    _Held.gate.clear()
    try:
        app.removal.remove()
        pump(3)
        assert app.busy and app.progress == 0
        assert ed._overlay_color.a == 1, "the mask overlay must stay while nothing is filled yet"
        np.testing.assert_array_equal(ed.displayed, img)
    finally:
        _Held.gate.set()
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    assert not ed.mask.any() and ed._overlay_color.a == 1   # the next mask shows again


class _HeldAtStart(_Slow):
    """Held before the fill is even set up (a large photo's pyramids, the device) until ``gate``."""

    gate = threading.Event()

    def __init__(self, *args, **kwargs):
        self.gate.wait(TIMEOUT)
        super().__init__(*args, **kwargs)


def _statuses(app):
    """Every status line the app shows from now on (``app.unbind(status=...)`` with the second)."""
    seen = []

    def spy(_app, text):
        seen.append(text)

    app.bind(status=spy)
    return seen, spy


def test_a_removal_says_what_it_prepares_before_the_fill_shows_progress(fresh, scene):
    app = fresh
    app.engine = _HeldAtStart
    _HeldAtStart.gate.clear()
    seen, spy = _statuses(app)
    try:
        app.removal.remove()
        assert app.status == "Removing: preparing the fill (72x56, 0.0 MP)…", app.status
        assert app.busy and app.progress == 0 and app.root.ids.cancel_btn.width >= 0
        pump_until(lambda: app.status.endswith(" s"), timeout=20, what="the seconds of preparing")
        assert re.fullmatch(r"Removing: preparing the fill \(72x56, 0\.0 MP\)… [12] s", app.status), app.status
    finally:
        _HeldAtStart.gate.set()
        pump_until(lambda: not app.busy, what="the removal")
        settle(app)
        app.unbind(status=spy)
    filling = [i for i, text in enumerate(seen) if re.fullmatch(r"Removing… \d+%( · .*)?", text)]
    assert filling and seen.index("Removing: preparing the fill (72x56, 0.0 MP)…") < filling[0], seen
    assert seen[filling[0]] == "Removing… 0%", seen
    assert app.status.startswith("Removed in "), app.status


def _pocl_files_written(since: float, until: float) -> int:
    """How many files PoCL wrote into its kernel cache between two ``time.time()`` moments."""
    from inpaint.cl.kcache import pocl_cache_dir

    found = 0
    for dirpath, _dirs, files in os.walk(pocl_cache_dir()):
        for name in files:
            try:
                mtime = os.stat(os.path.join(dirpath, name)).st_mtime
            except OSError:
                continue
            found += since < mtime < until and name != "last_accessed" and not name.startswith("tempfile")
    return found


@pytest.mark.opencl
def test_a_first_run_says_it_compiles_until_the_fill_shows_progress(fresh, scene, monkeypatch):
    """The real OpenCL fill of a program no kernel cache holds (a define never used before), as on
    a device's first run: PoCL compiles the program when it is built, then each kernel at its first
    launch, in the fill's first steps.  The note is shown from the build on and stays, with nothing
    else, until the fill's first progress (or its end)."""
    from inpaint.cl import build as cl_build
    from inpaint.cl.runtime import opencl_available
    from inpaint.methods.multiscale import opencl as multiscale

    if not opencl_available():
        pytest.skip("no OpenCL device")
    defines = multiscale._defines
    never = time.time_ns()
    monkeypatch.setattr(multiscale, "_defines",
                        lambda *args: {**defines(*args), "INPAINT_NEVER_BUILT": never})
    app = fresh
    built = []
    seen = []

    def spy(_app, text):
        seen.append((time.time(), text))

    def listener(event, _sources, _seconds):
        if event == "end":
            built.append(time.time())

    app.backend = "opencl"
    app.bind(status=spy)
    cl_build.add_build_listener(listener)
    try:
        app.removal.remove()
        pump_until(lambda: not app.busy, what="the removal")
        settle(app)
    finally:
        cl_build.remove_build_listener(listener)
        app.unbind(status=spy)
        app.backend = "numpy"
    texts = [text for _, text in seen]
    assert texts[-1].startswith("Removed in "), texts
    if "Portable Computing Language" not in app.last_result.stats.device:
        pytest.skip(f"{app.last_result.stats.device} does not compile kernels at their first launch as PoCL does")
    compiling = [i for i, text in enumerate(texts) if text.startswith("Removing: preparing the device, compiling")]
    assert compiling and texts.index("Removing: preparing the fill (72x56, 0.0 MP)…") < compiling[0], texts
    shown = next(i for i in range(compiling[0], len(texts)) if not texts[i].startswith(
        "Removing: preparing the device, compiling"))
    assert re.fullmatch(r"Removing… \d+(\.\d+)?%", texts[shown]) \
        or texts[shown].startswith("Removed in "), texts
    # Kernels compiled after the program's build (at their first launch) while the note was shown.
    ends = [t for t in built if t < seen[shown][0]]
    assert ends and _pocl_files_written(ends[-1], seen[shown][0]) > 0, (built, seen[shown][0])


def test_progress_gives_the_time_left(fresh):
    app = fresh
    app.removal.begin_job("Removing…")
    try:
        app.removal.job_started = time.monotonic() - 10.0        # a quarter done after 10 s: 30 s to go
        app.removal.show_progress(0.25)
        assert app.progress == 0.25
        assert app.status == "Removing… 25% · about 0:30 left"
        app.removal.job_started = time.monotonic()
        app.removal.show_progress(0.0)
        assert app.status == "Removing… 0%", "no estimate yet: the percentage, no placeholder"
        app.removal.show_progress(0.0003)                       # a large photo's first seconds: it moves
        assert app.status == "Removing… 0.03%", app.status
        # After a first run's compiling the clock starts at the fill's first progress (20 %): the
        # pace is that of the 40 % done since, in 10 s, so the 40 % left take 10 s more.
        app.removal.job_started, app.removal.fraction_started = time.monotonic() - 10.0, 0.2
        app.removal.show_progress(0.6)
        assert app.status == "Removing… 60% · about 0:10 left", app.status
    finally:
        app.removal.finish_job()


@pytest.mark.opencl
def test_remove_runs_opencl_on_the_worker_thread(fresh, scene):
    from inpaint.cl.runtime import opencl_available

    if not opencl_available():
        pytest.skip("no OpenCL device")
    from inpaint.api import inpaint

    app = fresh
    img, mask = scene
    app.backend = "opencl"
    try:
        params = app.run_params()
        app.removal.remove()
        pump_until(lambda: not app.busy, what="the OpenCL removal")
        settle(app)
        assert app.last_result.stats.backend in ("opencl", "mixed"), app.status
        expected = inpaint(img, mask, **params)
        np.testing.assert_array_equal(app.image, expected.image)
    finally:
        app.backend = "numpy"


def test_resize_with_seam_carving_is_undoable(fresh, scene):
    seam = pytest.importorskip("inpaint.seam", reason="seam carving (inpaint.seam) is not in this build")
    app, ed = fresh, fresh.editor
    img, _ = scene
    ed.mask[...] = False
    keep = np.zeros(ed.keep.shape, bool)
    keep[20:40, 30:45] = True
    ed.keep[...] = keep                              # as painted with the Protect brush
    app.has_seam = True
    popup = app.dialogs.show_resize()
    pump()
    assert (popup.target_w, popup.target_h) == (72, 56)   # 100 % until a size is chosen
    popup.size_text = "64x56!"
    pump()
    tap(popup.ids.resize_confirm)
    pump_until(lambda: not app.busy, what="the resize")
    settle(app)
    expected = seam.resize(img, 64, 56, keep_mask=keep, backend="numpy")
    assert app.image.shape == (56, 64, 3), app.status
    np.testing.assert_array_equal(app.image, expected)
    assert ed.mask.shape == (56, 64) and not ed.keep.any()
    app.document.undo()
    np.testing.assert_array_equal(app.image, img)
    np.testing.assert_array_equal(ed.keep, keep)


def test_resize_offers_percentages_and_the_command_s_sizes(fresh, scene):
    app = fresh
    app.has_seam = True
    popup = app.dialogs.show_resize()
    pump(2)
    buttons = {b.text: b for b in popup.ids.presets.children}
    assert set(buttons) == {"50%", "75%", "90%", "Narrower 80%", "Shorter 80%", "Wider 120%"}
    assert all(b.height >= 48 for b in buttons.values()), "touch targets"
    for text, want in (("50%", (36, 28)), ("75%", (54, 42)), ("90%", (65, 50)), ("Narrower 80%", (58, 56)),
                       ("Shorter 80%", (72, 45)), ("Wider 120%", (86, 56))):
        tap(buttons[text])
        assert (popup.target_w, popup.target_h) == want, text     # 72x56 times the share, rounded
        assert buttons[text].state == "down" and popup.ids.size_input.text == popup.size_text
        assert f"Becomes {want[0]} x {want[1]} px" in popup.ids.resize_result.text
        assert not popup.ids.resize_confirm.disabled
    for typed, want in (("640x480!", (640, 480)), ("36x36", (36, 28)), ("x28", (36, 28)), ("36", (36, 28)),
                        ("50%x100%", (36, 56)), ("100x100", (100, 78))):
        popup.ids.size_input.text = typed                # the command's --size, read by its own parser
        pump()
        from inpaint.cli.options import parse_geometry
        assert parse_geometry(typed)(72, 56) == want     # the command reads it alike
        if max(want[0] / 72, want[1] / 56) > 2:
            assert popup.problem and "twice" in popup.problem and popup.ids.resize_confirm.disabled
        else:
            assert (popup.target_w, popup.target_h) == want and not popup.problem, typed
            assert not any(b.state == "down" for b in buttons.values())
    popup.ids.size_input.text = "big"
    pump()
    assert popup.ids.resize_confirm.disabled and "Type a size such as 75%" in popup.ids.resize_result.text
    app.dialogs.dismiss_popup()


# -- mask tools -------------------------------------------------------------------------
def _overlay_spy(monkeypatch):
    """The overlays the editor uploads, newest last."""
    from mobile_ui import editor as editor_module

    seen = []
    real = editor_module.overlay

    def spy(layers, shape):
        seen.append(real(layers, shape))
        return seen[-1]

    monkeypatch.setattr(editor_module, "overlay", spy)
    return seen


def test_grow_previews_the_outline_and_remove_fills_the_grown_mask(quick, scene, monkeypatch):
    from inpaint.api import inpaint
    from inpaint.masks import grow
    from mobile_ui.editor import GROW_RGBA, MASK_RGBA

    app, ed = quick, quick.editor
    img, mask = scene
    seen = _overlay_spy(monkeypatch)
    app.root.ids.grow_slider.value = 3
    assert app.grow == 3 and ed.grow_px == 3
    pump(2)
    grown = grow(mask, 3)
    np.testing.assert_array_equal(ed.grown, grown)
    shown = seen[-1]
    assert (shown[grown & ~mask] == GROW_RGBA).all(), "the grown ring is previewed in its own colour"
    assert (shown[mask] == MASK_RGBA).all() and not shown[~grown].any()
    assert "grow 3 px" in app.info
    ed.brush_size = 2 * 1.5 * ed.view.scale
    drag([screen_of(app, 5, c) for c in (5, 15)])      # the preview follows a new stroke
    pump(2)
    painted = ed.mask.copy()
    np.testing.assert_array_equal(ed.grown, grow(painted, 3))
    params = app.run_params()
    tap(tool(app, "remove_btn"))
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    np.testing.assert_array_equal(app.image, inpaint(img, grow(painted, 3), **params).image)
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, painted)      # the mask as painted, not grown
    app.root.ids.grow_slider.value = 0
    pump(2)
    assert ed.grown is ed.mask and not (seen[-1] == GROW_RGBA).all(axis=-1).any()


def test_protect_strokes_are_never_copied_into_the_fill(fresh, scene):
    from inpaint.api import inpaint

    app, ed = fresh, fresh.editor
    img, mask = scene
    rows, cols = np.nonzero(mask)
    ed.tool = "protect"
    ed.brush_size = 2 * 3 * ed.view.scale
    r = int(rows.mean())
    drag([screen_of(app, r, c) for c in range(int(cols.max()) + 5, min(int(cols.max()) + 16, img.shape[1] - 1))])
    keep = ed.keep.copy()
    assert keep.any() and not (keep & mask).any()
    params = app.run_params()
    tap(tool(app, "remove_btn"))
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    src = app.last_result.source_map[mask]
    assert not keep[src[:, 0], src[:, 1]].any(), "a filled pixel copies a protected pixel"
    np.testing.assert_array_equal(app.image, inpaint(img, mask, protect=keep, **params).image)
    assert not np.array_equal(app.image, library_fill(img, mask, **params).image), "the stroke changed nothing"
    np.testing.assert_array_equal(ed.keep, keep)          # protection stays for the next edit


def test_select_taps_add_an_object_and_a_tap_on_it_takes_away(fresh, scene):
    from mobile_ui import masktools

    app, ed = fresh, fresh.editor
    img, _ = scene
    ed.mask[...] = False
    tap(tool(app, "select_btn"))
    assert ed.tool == "select" and "box around the object" in app.status, app.status
    ids = app.root.ids
    assert ids.tolerance_slider.width > 40 and ids.brush_slider.width == 0, "Select shows its tolerance slider"
    ball, sky = (34, 41), (5, 5)
    nothing = np.zeros_like(ed.mask)
    drag([screen_of(app, *ball)])                        # a tap: selected on the worker
    settle(app)
    ball_region, _ = masktools.select_tap(img, ball, DEFAULT_TOLERANCE, nothing)
    assert ball_region[ball] and 10 < ball_region.sum() < 400
    np.testing.assert_array_equal(ed.mask, ball_region)
    drag([screen_of(app, *ball)])                        # a tap on the selection takes its colour away
    settle(app)
    assert not ed.mask[ball] and ed.mask.sum() < ball_region.sum() and not (ed.mask & ~ball_region).any()
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, ball_region)

    tap(tool(app, "select_mode_btn"))
    assert app.select_mode == "subtract" and ids.select_mode_btn.text == "Subtract"
    drag([screen_of(app, *sky)])                         # with Subtract, a tap beside the mask does nothing
    assert not app.busy and "Nothing changed" in app.status, app.status
    np.testing.assert_array_equal(ed.mask, ball_region)
    app.document.undo()
    assert not ed.mask.any() and not app.can_undo

    tap(tool(app, "select_mode_btn"))
    ids.tolerance_slider.value = 4                       # the slider's tolerance is the tap's
    assert app.tolerance == 4
    drag([screen_of(app, *ball)])
    settle(app)
    np.testing.assert_array_equal(ed.mask, masktools.select_tap(img, ball, 4, nothing)[0])


def _disc_scene():
    """A red disc on a green-brown texture, 160x120, and the disc's true mask."""
    rng = np.random.default_rng(7)
    h, w = 120, 160
    img = rng.integers(60, 140, (h, w, 3)).astype(np.uint8)
    img[..., 1] += 30
    yy, xx = np.mgrid[:h, :w]
    disc = (yy - 60) ** 2 + (xx - 80) ** 2 <= 28 ** 2
    img[disc] = np.clip(np.array([210, 50, 40]) + rng.integers(-15, 16, (int(disc.sum()), 3)), 0, 255)
    return img, disc


def _iou(a, b):
    return (a & b).sum() / (a | b).sum()


def _at(app, u, v):
    """Window coordinates of image point (u, v) (column, row; may lie beyond the photo)."""
    ed = app.editor
    x, y = ed.view.image_to_widget(u, v)
    return ed.x + x, ed.y + y


def _gesture(app, points, during=None):
    """A one-finger drag through image points; ``during()`` runs before the finger lifts."""
    from kivy.tests.common import UnitTestTouch

    t = UnitTestTouch(*_at(app, *points[0]))
    t.touch_down()
    for p in points[1:]:
        t.touch_move(*_at(app, *p))
    pump()
    if during is not None:
        during()
    t.touch_up()
    pump()


def _lasso(cx, cy, rx, ry, n=40, turn=0.95):
    """A loose loop around (cx, cy) that stops short of its start, as a hand draws it."""
    return [(cx + rx * np.cos(a), cy + ry * np.sin(a)) for a in np.linspace(0, 2 * np.pi * turn, n)]


@pytest.mark.parametrize("kind", ["box", "lasso"])
def test_a_box_or_a_loop_around_an_object_selects_it_as_one_undo_step(fresh, kind):
    from mobile_ui.geometry import lasso_mask

    app, ed = fresh, fresh.editor
    img, disc = _disc_scene()
    app.document.set_document(img, None, "disc")
    app.selection.set_tool("select")
    pump(2)
    if kind == "box":                                    # a straight-ish drag: its ends are the corners
        points = [(44, 24), (70, 52), (95, 70), (118, 98)]
        outside = np.ones_like(disc)
        outside[24:98, 44:118] = False
    else:
        points = _lasso(80, 60, 40, 38)
        outside = ~lasso_mask(points, disc.shape)
    seen = {}

    def outline():
        seen["kind"], seen["points"] = ed.outline_kind, list(ed.outline.points)

    _gesture(app, points, outline)
    assert seen["kind"] == kind and len(seen["points"]) >= 8, seen   # outlined while drawn...
    assert ed.outline_kind is None and not ed.outline.points           # ...and gone when it ends
    if kind == "box":                                    # the outline is the box the drag spans
        xs, ys = seen["points"][0::2], seen["points"][1::2]
        (ax, ay), (bx, by) = _at(app, *points[0]), _at(app, *points[-1])
        assert min(xs) == pytest.approx(min(ax, bx)) and max(ys) == pytest.approx(max(ay, by))
    settle(app)
    assert _iou(ed.mask, disc) >= 0.8, (_iou(ed.mask, disc), app.status)
    assert not (ed.mask & outside).any(), "nothing outside the gesture"
    assert app.status.startswith("Added "), app.status
    app.document.undo()                                  # one step takes the whole selection away
    assert not ed.mask.any() and not app.can_undo


def test_a_tap_inside_a_loop_selection_takes_part_away(fresh):
    app, ed = fresh, fresh.editor
    img, disc = _disc_scene()
    img[55:66, 75:86] = (40, 60, 220)                    # a blue patch on the disc
    app.document.set_document(img, None, "disc")
    app.selection.set_tool("select")
    pump(2)
    _gesture(app, _lasso(80, 60, 40, 38))
    settle(app)
    selected = ed.mask.copy()
    assert selected[60, 80] and _iou(selected, disc) >= 0.8
    drag([screen_of(app, 60, 80)])                       # a tap on the blue patch, inside the selection
    settle(app)
    assert not ed.mask[56:65, 76:85].any() and ed.mask.sum() < selected.sum()   # (3x3 means: corners mix)
    assert not (ed.mask & ~selected).any() and app.status.startswith("Removed "), app.status
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, selected)


@pytest.mark.parametrize("kind", ["box", "lasso"])
def test_a_gesture_beside_the_photo_is_a_one_line_message(fresh, kind):
    app, ed = fresh, fresh.editor
    img, _ = _disc_scene()
    app.document.set_document(img, None, "disc")
    app.selection.set_tool("select")
    pump(2)
    points = ([(20, -30), (60, -18), (100, -6)] if kind == "box"
              else _lasso(80, -25, 30, 12))             # in the margin above the photo
    assert all(ed.collide_point(*_at(app, *p)) for p in points), "the margin must be the editor's"
    _gesture(app, points)
    settle(app)
    assert app.status.startswith("Not selected: ") and "misses the photo" in app.status, app.status
    assert "\n" not in app.status and app.dialogs.popup is None
    assert not ed.mask.any() and not app.can_undo and not app.busy


def test_without_opencv_a_box_uses_colours_and_says_so_once(fresh, monkeypatch):
    import inpaint.select

    monkeypatch.setattr(inpaint.select, "grabcut_available", lambda: False)
    monkeypatch.setattr(fresh.selection, "_told_fallback", False)
    app, ed = fresh, fresh.editor
    img, disc = _disc_scene()
    app.document.set_document(img, None, "disc")
    app.editor.tool = "select"
    pump(2)
    box = [(44, 24), (80, 60), (118, 98)]
    _gesture(app, box)
    settle(app)
    assert app.status.startswith("OpenCV is not installed") and "Added " in app.status, app.status
    assert _iou(ed.mask, disc) >= 0.8
    app.document.undo()
    _gesture(app, box)
    settle(app)
    assert app.status.startswith("Added "), "said once"


class _Gate:
    """Wraps a function of the worker: each call waits for ``gate`` (so a test sees the UI while
    the call runs), then runs the real function."""

    def __init__(self, fn):
        self.fn, self.gate, self.calls = fn, threading.Event(), []

    def __call__(self, *args, **kwargs):
        self.calls.append(args)
        self.gate.wait(TIMEOUT)
        return self.fn(*args, **kwargs)


def test_a_tap_says_selecting_at_once_ignores_taps_meanwhile_and_is_one_undo_step(fresh, scene, monkeypatch):
    from mobile_ui import masktools
    from mobile_ui.editor import MASK_RGBA

    app, ed = fresh, fresh.editor
    img, _ = scene
    seen = _overlay_spy(monkeypatch)
    ed.mask[...] = False
    ed.mask[2:9, 60:70] = True                           # painted before the tap
    ed.refresh_mask()
    before = ed.mask.copy()
    gated = _Gate(masktools.select_tap)
    monkeypatch.setattr(masktools, "select_tap", gated)
    app.selection.set_tool("select")
    ball, sky = (34, 41), (5, 5)
    try:
        drag([screen_of(app, *ball)])
        assert app.status == "Selecting…" and app.busy, app.status   # at once, before any result
        assert app.root.ids.cancel_btn.width >= 44
        drag([screen_of(app, *sky)])                     # a second tap while the first runs
        assert "Tap ignored" in app.status and "still being made" in app.status, app.status
    finally:
        gated.gate.set()
    settle(app)
    assert len(gated.calls) == 1, "the ignored tap must not run later"
    after, used = masktools.select_tap(img, ball, DEFAULT_TOLERANCE, before)
    np.testing.assert_array_equal(ed.mask, after)
    assert (after & ~before).any() and app.status.startswith("Added "), app.status
    app.document.undo()                                           # one step: exactly the mask before the tap
    pump(2)
    np.testing.assert_array_equal(ed.mask, before)
    assert (seen[-1][before] == MASK_RGBA).all() and not seen[-1][~before].any(), "Undo must show it"
    assert not app.can_undo
    app.document.redo()
    np.testing.assert_array_equal(ed.mask, after)


def test_a_tap_that_selects_more_than_an_object_asks_first(fresh, monkeypatch):
    from inpaint.report import format_percent
    from mobile_ui import masktools
    from mobile_ui.popups import QuestionPopup

    app, ed = fresh, fresh.editor
    img = np.zeros((56, 72, 3), np.uint8)
    img[:, :] = (90, 140, 200)                           # a plain sky: one colour at any tolerance...
    img[40:56, 30:40] = (250, 250, 40)                   # ...with a small yellow object on its edge
    app.document.set_document(img, None, "sky")
    app.selection.set_tool("select")
    pump(2)
    want, used = masktools.select_tap(img, (10, 10), DEFAULT_TOLERANCE, np.zeros(img.shape[:2], bool))
    assert used == masktools.MIN_TOLERANCE and want.mean() > 0.9   # the sky, even at the lowest tolerance
    drag([screen_of(app, 10, 10)])
    settle(app)
    popup = app.dialogs.popup
    assert isinstance(popup, QuestionPopup), popup
    assert f"selects {format_percent(want.mean())} of the photo" in popup.text, popup.text
    assert not ed.mask.any(), "nothing is selected before the answer"
    tap(popup.ids.no_btn)
    pump_until(lambda: popup.parent is None, what="the question to close")  # it takes touches until gone
    assert app.dialogs.popup is None and not ed.mask.any() and not app.can_undo
    assert "unchanged" in app.status
    drag([screen_of(app, 10, 10)])
    settle(app)
    tap(app.dialogs.popup.ids.yes_btn)
    pump(2)
    np.testing.assert_array_equal(ed.mask, want)
    app.document.undo()
    assert not ed.mask.any()
    drag([screen_of(app, 48, 35)])                       # the object: selected without a question
    settle(app)
    assert app.dialogs.popup is None and ed.mask[40:56, 30:40].all() and ed.mask.mean() < masktools.MAX_REGION


def test_a_tap_during_a_removal_is_ignored_and_said(fresh, scene):
    app, ed = fresh, fresh.editor
    app.engine = _Held
    _Held.gate.clear()
    try:
        app.removal.remove()
        pump(2)
        app.editor.tool = "select"
        mask = ed.mask.copy()
        drag([screen_of(app, 5, 5)])
        assert app.status == "Tap ignored: wait until removing is done.", app.status
        np.testing.assert_array_equal(ed.mask, mask)
    finally:
        _Held.gate.set()
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)


def test_refine_completes_the_selection_on_the_worker(fresh, scene, monkeypatch):
    from mobile_ui import masktools
    from mobile_ui.popups import MessagePopup

    app, ed = fresh, fresh.editor
    img, _ = scene
    ed.mask[...] = False
    ed.mask[31:38, 38:45] = True                         # the middle of the ball
    part = ed.mask.copy()
    if not masktools.grabcut_available():
        assert not app.can_refine and app.root.ids.refine_btn.width == 0
        app.selection.refine_mask()
        assert isinstance(app.dialogs.popup, MessagePopup) and "OpenCV" in app.dialogs.popup.text
        app.dialogs.dismiss_popup()
        pytest.skip("Refine needs OpenCV (optional)")
    assert app.can_refine and app.root.ids.refine_btn.width >= 48
    tap(tool(app, "refine_btn"))
    pump_until(lambda: not app.busy, what="the refinement")
    settle(app)
    want = masktools.refine(img, part)
    np.testing.assert_array_equal(ed.mask, want)
    assert (want >= part).all() and want.sum() > part.sum()
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, part)


def test_invert_mask_is_undoable(fresh, scene, kv):
    app, ed = fresh, fresh.editor
    _, mask = scene
    tap(tool(app, "invert_btn"))
    np.testing.assert_array_equal(ed.mask, ~mask)
    kv.dispatch("on_key_down", 105, 0, "i", [])          # the i key inverts too
    np.testing.assert_array_equal(ed.mask, mask)
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, ~mask)
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, mask)


def test_mask_export_and_import_follow_the_command_s_mask_rule(fresh, scene, tmp_path):
    from PIL import Image

    from inpaint.io import read_mask
    from mobile_ui.popups import MessagePopup

    app, ed = fresh, fresh.editor
    img, mask = scene
    h, w = mask.shape
    orig = tmp_path / "photo.png"
    Image.fromarray(img).save(orig)
    app.document.open_path(str(orig))
    ed.mask[...] = mask
    popup = app.dialogs.show_save()
    pump()
    tap(popup.ids.save_mask_choice)
    assert popup.what == "mask" and popup.target() == tmp_path / "photo_mask.png"
    tap(popup.ids.save_confirm)
    out = tmp_path / "photo_mask.png"
    with Image.open(out) as im:
        assert im.mode == "L" and im.size == (w, h)
        saved = np.asarray(im)
    assert set(np.unique(saved)) == {0, 255}
    np.testing.assert_array_equal(saved == 255, mask)
    np.testing.assert_array_equal(read_mask(out, (w, h)), mask)   # what `inpaint --mask` reads
    assert app.document.export_mask(str(out)) is None and "exists" in app.dialogs.popup.text
    app.dialogs.dismiss_popup()

    grey = np.zeros((h, w), np.uint8)                    # anti-aliased: only > 127 is the object
    grey[10:20, 10:30] = 200
    grey[30:40, 5:15] = 127
    Image.fromarray(grey).save(tmp_path / "grey.png")
    popup = app.dialogs.show_open()
    pump()
    popup.ids.chooser.selection = [str(tmp_path / "grey.png")]
    pump()
    tap(popup.ids.import_mask_btn)
    np.testing.assert_array_equal(ed.mask, grey > 127)
    rgba = np.zeros((h, w, 4), np.uint8)                 # with transparency: the opaque pixels
    rgba[5:15, 40:60, 3] = 255
    rgba[40:50, 40:60] = (255, 255, 255, 100)
    Image.fromarray(rgba, "RGBA").save(tmp_path / "alpha.png")
    assert app.document.import_mask(str(tmp_path / "alpha.png"))
    np.testing.assert_array_equal(ed.mask, rgba[..., 3] > 127)
    app.document.undo()
    np.testing.assert_array_equal(ed.mask, grey > 127)
    Image.fromarray(np.zeros((5, 6), np.uint8)).save(tmp_path / "small.png")
    assert not app.document.import_mask(str(tmp_path / "small.png"))
    assert isinstance(app.dialogs.popup, MessagePopup) and "6x5" in app.dialogs.popup.text
    np.testing.assert_array_equal(ed.mask, grey > 127)
    app.dialogs.dismiss_popup()
    pump()


def test_a_broken_settings_file_gives_the_defaults_and_a_failed_save_leaves_no_part_file(app, tmp_path):
    saved_dir, saved_overrides = app._state_dir, app.overrides
    try:
        app._state_dir, app.overrides = tmp_path, {}
        # nested past Python's recursion limit: json raised RecursionError, and the app did not start
        (tmp_path / "settings.json").write_text('{"version": 2, "changed": ' + "[" * 5000 + "]" * 5000 + "}")
        app.prefs.load()
        default = settings.defaults()
        assert all(getattr(app, k) == default[k] for k in settings.KEYS)
        (tmp_path / "settings.json").unlink()
        (tmp_path / "settings.json").mkdir()                   # cannot be replaced
        app.prefs.save()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
    finally:
        app._state_dir, app.overrides = saved_dir, saved_overrides
        app.prefs.load()
        for key, value in saved_overrides.items():
            setattr(app, key, value)


def test_settings_keep_only_what_the_user_changed(app, tmp_path, monkeypatch):
    import json

    saved_dir, saved_overrides = app._state_dir, app.overrides
    try:
        app._state_dir, app.overrides = tmp_path, {}
        (tmp_path / "settings.json").write_text(json.dumps(      # written by the first app version
            {"alpha": "0.05", "patch": "9", "backend": "numpy", "device": "auto", "profile": "native"}))
        app.prefs.load()
        default = settings.defaults()
        assert (app.alpha, app.patch, app.backend) == (default["alpha"], default["patch"], "numpy"), \
            "an old file's Criminisi alpha/patch must not pin the default method"
        app.patch = "11"
        app.grow = 4
        app.prefs.save()
        data = json.loads((tmp_path / "settings.json").read_text())
        assert data["version"] == 2 and data["changed"] == {"backend": "numpy", "patch": "11", "grow": 4}
        app.overrides = {"backend": "opencl"}                 # --backend opencl, this session only
        app.backend = "opencl"
        app.prefs.save()
        assert json.loads((tmp_path / "settings.json").read_text())["changed"]["backend"] == "numpy"
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "fresh" / "config"))   # no ~/.config yet
        folder = app._get_user_data_dir()
        assert folder == str(tmp_path / "fresh" / "config" / "inpaint") and os.path.isdir(folder)
    finally:
        app._state_dir, app.overrides = saved_dir, saved_overrides
        app.prefs.load()
        for key, value in saved_overrides.items():
            setattr(app, key, value)
        app.grow = 0


# -- messages, compare, save, settings, layout -----------------------------------------
def test_problems_are_messages_not_crashes(fresh, scene):
    from mobile_ui.popups import MessagePopup

    app, ed = fresh, fresh.editor
    img, _ = scene
    ed.mask[...] = False
    app.removal.remove()
    assert isinstance(app.dialogs.popup, MessagePopup) and "Paint over" in app.dialogs.popup.text
    app.dialogs.dismiss_popup()
    pump()
    ed.mask[...] = True                              # impossible: nothing left to copy from
    app.removal.remove()
    pump_until(lambda: not app.busy, what="the failing job")
    settle(app)
    assert isinstance(app.dialogs.popup, MessagePopup) and "mask" in app.dialogs.popup.text
    np.testing.assert_array_equal(app.image, img)
    app.dialogs.dismiss_popup()
    app.document.open_file("/nonexistent/photo.png")
    assert isinstance(app.dialogs.popup, MessagePopup) and "no such image" in app.dialogs.popup.text
    app.dialogs.dismiss_popup()
    pump()


def test_compare_shows_the_original_while_held(quick, scene, kv):
    from kivy.tests.common import UnitTestTouch

    app, ed = quick, quick.editor
    img, _ = scene
    app.removal.remove()
    pump_until(lambda: not app.busy, what="removal")
    settle(app)
    result = app.image.copy()
    btn = app.root.ids.compare_btn
    t = UnitTestTouch(*btn.to_window(*btn.center))
    t.touch_down()
    pump()
    np.testing.assert_array_equal(ed.displayed, img)
    t.touch_up()
    pump()
    np.testing.assert_array_equal(ed.displayed, result)
    label = app.root.ids.original_label
    assert label.opacity == 0, "no label while the result shows"
    for _ in range(3):                                   # Tab held (its key repeats), as in IOPaint
        kv.dispatch("on_key_down", 9, 0, "\t", [])
        pump()
        np.testing.assert_array_equal(ed.displayed, img)
        assert label.opacity == 1 and label.text == "original"
        assert ed.collide_point(*label.pos) and ed.collide_point(label.right, label.top), "over the photo"
    kv.dispatch("on_key_up", 9, 0)
    pump()
    np.testing.assert_array_equal(ed.displayed, result)
    assert label.opacity == 0


def test_save_keeps_the_original(quick, tmp_path, scene):
    from PIL import Image

    from mobile_ui import storage

    app = quick
    img, _ = scene
    orig = tmp_path / "orig.png"
    Image.fromarray(img).save(orig)
    app.document.open_path(str(orig))
    app.editor.mask[20:30, 30:40] = True
    app.removal.remove()
    pump_until(lambda: not app.busy, what="removal")
    settle(app)
    popup = app.dialogs.show_save()
    pump()
    suggested = str(popup.target())
    assert suggested.endswith("orig_removed.png") and not os.path.exists(suggested)
    tap(popup.ids.save_confirm)
    np.testing.assert_array_equal(np.asarray(Image.open(suggested)), app.image)
    assert app.document.save_to(str(orig)) is None            # refused: it is the original
    assert "original" in app.dialogs.popup.text
    app.dialogs.dismiss_popup()
    np.testing.assert_array_equal(storage.load_image(orig).pixels, img)
    assert app.document.save_to(str(orig), overwrite=True) is not None     # only when asked
    np.testing.assert_array_equal(storage.load_image(orig).pixels, app.image)


def test_save_of_a_jpeg_keeps_the_blocks_outside_the_removal(quick, tmp_path, scene):
    from PIL import Image

    jpeglib = pytest.importorskip("jpeglib")
    from inpaint.io import jpeg_edit

    app = quick
    img, _ = scene
    orig, out = tmp_path / "orig.jpg", tmp_path / "orig_inpainted.jpg"
    Image.fromarray(img).save(orig, quality=90, subsampling=2)
    app.document.open_path(str(orig))
    opened = app.image.copy()
    app.editor.mask[20:30, 30:40] = True
    app.removal.remove()
    pump_until(lambda: not app.busy, what="removal")
    settle(app)
    assert app.document.save_to(str(out)) == out
    assert app.status == f"Saved {out}"
    changed = (app.image != opened).any(axis=2)
    assert changed.any()
    a, b = jpeglib.read_dct(str(orig)), jpeglib.read_dct(str(out))
    grid = jpeg_edit.touched_mcus(changed, (16, 16))
    ygrid = np.kron(grid, np.ones((2, 2), bool))[:a.Y.shape[0], :a.Y.shape[1]]
    assert np.array_equal(a.Y[~ygrid], b.Y[~ygrid]) and np.array_equal(a.Cb[~grid], b.Cb[~grid])
    assert np.array_equal(a.qt, b.qt)


def test_settings_show_the_device_and_its_limits(fresh):
    from inpaint.cl.runtime import opencl_available

    app = fresh
    app.backend = "auto"
    try:
        popup = app.dialogs.show_settings()
        pump(2)
        info = popup.ids.device_info.text
        if opencl_available():
            assert "local memory" in info and "compute units" in info
            assert len(app.device_choices) >= 2
        else:
            assert info.startswith("numpy") and popup.ids.opencl_note.text
        popup.ids.patch.text = "7"
        assert app.run_params()["patch"] == 7
        popup.ids.quality.text = "Fast"
        assert (app.alpha, app.patch) == (settings.QUALITY["Fast"]["alpha"], settings.QUALITY["Fast"]["patch"])
        popup.ids.quality.text = "Balanced"
        assert (app.alpha, app.patch) == (settings.defaults()["alpha"], settings.defaults()["patch"])
        assert app.run_params()["method"] == "multiscale"
        popup.ids.patch.text = "9"                      # an advanced change: the choice says Custom
        pump()
        assert popup.ids.quality.text == settings.CUSTOM
        popup.ids.method.text = "criminisi"
        assert app.run_params()["method"] == "criminisi"
        popup.ids.method.text = "multiscale"
        popup.ids.patch.text = "5"
        app.dialogs.dismiss_popup()
        pump()
    finally:
        app.backend = "numpy"


def test_settings_speak_in_words_and_keep_the_options(fresh):
    from mobile_ui import devices, words

    app = fresh
    popup = app.dialogs.show_settings()
    pump(2)
    ids = popup.ids
    try:
        for key, spinner, values in (("method", ids.method, settings.METHODS), ("alpha", ids.alpha, devices.ALPHAS),
                                     ("patch", ids.patch, devices.PATCHES),
                                     ("backend", ids.backend, devices.BACKENDS),
                                     ("profile", ids.profiles, popup.profile_values)):
            assert len(spinner.values) == len(values) and len(set(spinner.values)) == len(values), key
            for shown, value in zip(list(spinner.values), values):
                assert shown != value and f"({value})" in shown, (key, shown)   # words, then the value
                spinner.text = shown
                pump()
                assert getattr(app, key) == value, (key, shown)
                assert spinner.text == shown
        ids.alpha.text = words.label("alpha", "full")
        ids.patch.text = words.label("patch", "7")
        assert app.run_params()["alpha"] == "full" and app.run_params()["patch"] == 7
        assert ids.quality.text == "Best quality"
        assert words.label("alpha", "full") == "The whole photo (full)"
        labels = [w.text for w in popup.walk() if w.__class__.__name__ == "Label" and w.text]
        assert not {"Search area α", "Backend", "Profile", "Patch size"} & set(labels), "no internal words"
    finally:
        app.backend, app.method = "numpy", "multiscale"
        app.alpha, app.patch, app.profile = "0.2", "5", "native"
        app.dialogs.dismiss_popup()


def test_settings_rows_are_the_methods_declared_options(quick, monkeypatch):
    import dataclasses

    from inpaint.methods import registry

    app = quick
    criminisi = registry.get("criminisi")
    no_alpha = dataclasses.replace(criminisi, name="noalpha",
                                   options=tuple(o for o in criminisi.options if o.name != "alpha"))
    monkeypatch.setitem(registry.METHODS, "noalpha", no_alpha)
    popup = app.dialogs.show_settings()
    pump(2)
    try:
        assert {"alpha", "patch"} <= set(popup.ids) and popup.has_quality
        app.method = "noalpha"
        pump(2)
        assert "alpha" not in popup.ids and "patch" in popup.ids and not popup.has_quality
        shown = [w.text for w in popup.ids.tune.children]
        assert "Copy texture from" not in shown and "Texture piece size" in shown
        params = app.run_params()
        assert "alpha" not in params and params["patch"] == int(app.patch)
        app.dialogs.dismiss_popup()
        pump()
        assert popup.parent is None and app.dialogs.popup is None, "closed"
        app.removal.remove()                                          # a removal with that method runs
        pump_until(lambda: not app.busy, what="removal")
        settle(app)
        assert not app.editor.mask.any() and app.last_removal is not None
        app.method = "criminisi"
        pump(2)
    finally:
        app.dialogs.dismiss_popup()


def _within(widget, box) -> bool:
    """Whether ``widget``'s window rectangle lies within ``box`` (x, y, right, top)."""
    x, y = widget.to_window(widget.x, widget.y)
    return box[0] - 1 <= x and box[1] - 1 <= y and x + widget.width <= box[2] + 1 and y + widget.height <= box[3] + 1


def test_every_settings_row_shows_inside_the_popup(fresh, kv):
    app = fresh
    app.device_choices = []
    try:
        for size in (WINDOW, (800, 480)):
            kv.size = size
            pump(3)
            popup = app.dialogs.show_settings()
            popup.ids.device_info.text = "\n".join(f"limit {i}: a line of the device's description" for i in range(6))
            pump(3)
            sv = popup.ids.settings_scroll
            x, y = sv.to_window(sv.x, sv.y)
            shown = (x, y, x + sv.width, y + sv.height)          # what the scroll view shows now
            area = (popup.x, popup.y, popup.right, popup.top)
            rows = [w for w in popup.ids.settings_rows.walk() if w.__class__.__name__ == "ChoiceSpinner"
                    and not w.disabled or w in (popup.ids.profiles, popup.ids.device)]
            assert len(rows) >= 6
            for row in rows + [popup.ids.device_info]:
                if size == WINDOW:                                 # a phone's height: all at once
                    assert _within(row, shown) and _within(row, area), f"{size}: {row.text!r} hidden"
                else:                                              # a short window: each scrolled to
                    sv.scroll_to(row, padding=0, animate=False)
                    pump(2)
                    x, y = sv.to_window(sv.x, sv.y)
                    assert _within(row, (x, y, x + sv.width, y + sv.height)) and _within(row, area), \
                        f"{size}: {row.text!r} out of reach"
            app.dialogs.dismiss_popup()
            pump()
    finally:
        kv.size = WINDOW
        pump(3)


def _in_window(widget, kv) -> bool:
    return _within(widget, (0, 0, kv.width, kv.height))


def test_layout_adapts_to_landscape(fresh, kv):
    shell = fresh.root
    ed, box, bar, status = shell.editor, shell.toolbox, shell.bar, shell.statusbar
    assert shell.portrait and bar.y == pytest.approx(shell.y) and bar.width == kv.width
    assert status.y == pytest.approx(bar.top) and ed.y == pytest.approx(status.top)
    assert ed.top == pytest.approx(kv.height)
    assert not _in_window(box, kv) and not _in_window(shell.topbar, kv), "the sheet of tools waits below the window"
    try:
        kv.size = (800, 480)
        pump(3)
        assert not shell.portrait
        assert ed.right <= box.x + 1 and ed.height == pytest.approx(kv.height)
        names = ["remove_btn", "undo_btn", "settings_btn", "brush_btn", "select_btn", "fit_btn", "compare_btn",
                 "invert_btn", "clear_btn"] + (["refine_btn"] if fresh.can_refine else [])
        for name in names:
            btn = shell.ids[name]
            assert _in_window(btn, kv), f"{name} shows in the side panel"
            assert btn.height >= 48 and btn.width >= 48, f"{name}: touch targets must stay large (48 dp)"
        assert status.y == pytest.approx(shell.y) and box.y == pytest.approx(status.top) \
            and box.top == pytest.approx(shell.topbar.y) and shell.topbar.top == pytest.approx(kv.height), \
            "the side panel takes the window's whole height"
        assert not _in_window(bar, kv), "no phone row in a wide window"
        help_label = shell.ids.keys_help
        assert help_label.height > 48 and "Ctrl+Q" in help_label.text, "the free height lists the keys"
        fresh.status = "A long status line " * 12
        pump(3)
        label = shell.ids.status_label
        assert label.is_shortened and label.texture_size[0] <= label.width + 1 \
            and label.texture_size[1] <= label.height <= 24, "a long status stays one line, ending in an ellipsis"
    finally:
        kv.size = WINDOW
        pump(3)
    assert shell.portrait


def _shown(widget, top) -> bool:
    """Whether ``widget`` and the boxes around it, up to ``top``, take room and show."""
    while widget is not top:
        if widget.width <= 0 or widget.opacity <= 0:
            return False
        widget = widget.parent
    return True


#: What a phone shows under the photo: the row of main tools and the view's zoom beside the status;
#: the rest is in the sheet the row's More button opens.
_ROW = ("bar_brush_btn", "bar_select_btn", "bar_undo_btn", "bar_remove_btn", "more_btn", "fit_btn",
        "actual_size_btn")
#: Every action of the top bar and the toolbox, shown in any state without a job running
#: (the Select tool's own two once it is chosen).
_ACTIONS = ("open_btn", "save_btn", "undo_btn", "redo_btn", "settings_btn", "brush_btn", "eraser_btn", "select_btn",
            "move_btn", "clear_btn", "brush_slider", "grow_slider", "invert_btn", "compare_btn", "remove_btn")


@pytest.mark.parametrize("size", [WINDOW, (360, 740)])
def test_a_phone_gives_the_photo_most_of_the_height_and_keeps_every_tool_in_reach(fresh, kv, size):
    from kivy.uix.button import Button
    from kivy.uix.slider import Slider

    app, shell = fresh, fresh.root
    ids = shell.ids
    named = {id(w.__self__): n for n, w in ids.items()}     # ids holds weak proxies
    try:
        kv.size = size
        pump(3)
        assert shell.portrait
        assert shell.editor.height / kv.height >= 0.70, f"{size}: the photo gets {shell.editor.height / kv.height:.0%}"
        assert shell.editor.width == kv.width
        for name in _ROW:
            assert _in_window(ids[name], kv) and ids[name].height >= 48 and ids[name].width >= 48, name
        sheet = [w for part in (shell.topbar, shell.toolbox) for w in part.walk(restrict=True)
                 if isinstance(w, (Button, Slider)) and id(w) in named]
        assert len(sheet) > len(_ACTIONS) and all(not _in_window(w, kv) for w in sheet), \
            "the sheet is closed: none of its tools shows"
        wanted = set(_ACTIONS) | ({"refine_btn"} if app.can_refine else set()) \
            | ({"protect_btn", "resize_btn"} if app.has_seam else set())
        for tool_name in ("brush", "select"):
            tap(ids[f"bar_{tool_name}_btn"])                  # the row's tools take effect at once
            assert app.editor.tool == tool_name
            tap(ids.more_btn)                                 # More opens the sheet
            assert shell.sheet_open and ids.more_btn.text == "Close"
            shown = [w for w in sheet if _shown(w, shell)]
            for w in shown:
                assert _in_window(w, kv) and w.y >= shell.statusbar.top - 1, f"{size}: {named[id(w)]} out of reach"
                assert w.height >= 44 and w.width >= (96 if isinstance(w, Slider) else 44), \
                    f"{size}: {named[id(w)]} too small to tap or slide"
            wanted -= {named[id(w)] for w in shown}
            assert shell.editor.height / kv.height >= 0.70, "the sheet lies over the photo, which keeps its size"
            tap(ids.more_btn)                                 # 'Close'
            assert not shell.sheet_open and not _in_window(shell.toolbox, kv)
        wanted -= {"tolerance_slider", "select_mode_btn"}
        assert not wanted, f"not reachable on a phone: {sorted(wanted)}"
        # Esc (a phone's back button) closes the sheet first; a job starting closes it too.
        tap(ids.more_btn)
        kv.dispatch("on_key_down", 27, 0, None, [])
        assert not shell.sheet_open and not app.popup_open
        tap(ids.more_btn)
        tap(tool(app, "invert_btn"))                          # a tool in the sheet works from there
        assert app.editor.mask.mean() > 0.5 and shell.sheet_open
    finally:
        kv.size = WINDOW
        pump(3)


# -- errors and device notes ------------------------------------------------------------
_BUILD_MESSAGE = ("PoCL 3.0 from pip cannot compile for this CPU (AMD family 26, newer than its LLVM 14); install "
                  "your distribution's PoCL: apt install pocl-opencl-icd "
                  + "clBuildProgram failed: BUILD_PROGRAM_FAILURE - " * 14)
_BUILD_LOG = "pthread-cpu (Portable Computing Language, OpenCL 3.0 PoCL 3.0):\n" + "".join(
    f"<kernel>:{i}:7: error: unknown target CPU 'znver5'; candidate CPUs are: nocona, core2\n" for i in range(120))


def _box(widget):
    """``(left, bottom, right, top)`` of a widget in window coordinates."""
    x0, y0 = widget.to_window(widget.x, widget.y)
    x1, y1 = widget.to_window(widget.right, widget.top)
    return x0, y0, x1, y1


def _inside(inner, outer, slack=1.0):
    a, b = _box(inner), _box(outer)
    return a[0] >= b[0] - slack and a[1] >= b[1] - slack and a[2] <= b[2] + slack and a[3] <= b[3] + slack


def _title_label(popup):
    from kivy.uix.label import Label

    return next(w for w in popup.walk(restrict=True) if isinstance(w, Label) and w.text == popup.title)


def _check_message_fits(popup, kv):
    """The popup lies in the window; its message wraps in its scroll area, under the title and
    above the buttons, and the whole message can be scrolled to."""
    from kivy.uix.scrollview import ScrollView

    ids = popup.ids
    view, message, hint_view, hint = ids.message_view, ids.message, ids.hint_view, ids.hint
    assert popup.x >= 0 and popup.y >= 0 and popup.right <= kv.width and popup.top <= kv.height, \
        (popup.pos, popup.size, kv.size)
    for part in (view, hint_view, ids.ok_btn):
        assert _inside(part, popup._container), part
    assert isinstance(view, ScrollView) and not view.do_scroll_x
    assert _box(_title_label(popup))[1] >= _box(view)[3] - 1, "the message is drawn under the title"
    assert _box(view)[1] >= _box(hint_view)[3] - 1 and _box(hint_view)[1] >= _box(ids.ok_btn)[3] - 1
    assert message.texture_size[0] <= view.width and message.height >= message.texture_size[1], \
        "the message wraps inside the box"
    if message.height > view.height:                 # too long: the rest is reached by scrolling
        view.scroll_y = 0
        pump(2)
        assert abs(_box(message)[1] - _box(view)[1]) <= 1, "scrolled down, the message's end shows"
        view.scroll_y = 1
        pump(2)
    assert abs(_box(message)[3] - _box(view)[3]) <= 1, "the message starts at the top of its area"
    assert hint.texture_size[0] <= hint_view.width


def test_a_build_failure_fits_its_popup_and_shows_the_details(fresh, scene, kv, monkeypatch):
    from kivy.uix.textinput import TextInput

    from inpaint.errors import BuildFailure
    from mobile_ui.devices import DEVICE_HINT
    from mobile_ui.popups import MessagePopup

    app, shell = fresh, fresh.root
    img, _ = scene
    tools = [shell.ids[n].y for n in ("remove_btn", "brush_btn", "grow_slider")]
    editor_height = shell.editor.height
    assert len(_BUILD_MESSAGE) > 600 and len(_BUILD_LOG) > 5000

    def failing_start(*_args, **_kwargs):           # the job start the app uses for Remove
        raise BuildFailure(_BUILD_MESSAGE, details=_BUILD_LOG)

    monkeypatch.setattr("inpaint.api.start", failing_start)
    app.removal.remove()
    pump_until(lambda: not app.busy, what="the failing removal")
    settle(app)
    popup = app.dialogs.popup
    try:
        assert isinstance(popup, MessagePopup) and popup.title == "Remove failed"
        assert popup.text == _BUILD_MESSAGE and popup.hint == DEVICE_HINT
        assert "Settings" in popup.hint and "Run on to the processor (numpy" in popup.hint
        np.testing.assert_array_equal(app.image, img)
        for size in (WINDOW, (320, 360), (1000, 700)):
            kv.size = size
            pump(4)
            _check_message_fits(popup, kv)
            if size == WINDOW:
                assert popup.ids.hint.height <= popup.ids.hint_view.height + 1, "the hint shows whole"
            if size == (320, 360):
                assert popup.ids.message.height > popup.ids.message_view.height, "a small window scrolls"
        kv.size = WINDOW
        pump(4)

        # Details: the driver's log, read-only and selectable, from its start, in place of the message.
        details_btn = popup.ids.details_btn
        assert details_btn.width > 40 and details_btn.opacity == 1 and details_btn.text == "Details"
        assert popup.ids.ok_btn.width > details_btn.width, "OK stays the main button"
        tap(details_btn)
        pump(3)
        area = popup.ids.details_text
        assert isinstance(area, TextInput) and area.readonly and not area.disabled and area.opacity == 1
        assert area.text == _BUILD_LOG and area.cursor == (0, 0) and area.scroll_y == 0
        assert area.height > 200 and _inside(area, popup._container) and _inside(popup, shell)
        assert popup.ids.message_view.height == 0 and popup.ids.message_view.opacity == 0
        area.select_all()
        assert area.selection_text == _BUILD_LOG
        tap(details_btn)                                     # 'Message': back to the message
        pump(3)
        assert not popup.showing_details and popup.ids.message_view.height > 100 and area.height == 0
        tap(popup.ids.ok_btn)
        assert app.dialogs.popup is None
    finally:
        kv.size = WINDOW
        app.dialogs.dismiss_popup()
        pump(3)

    # The status line: one line, shortened, the tools where they were.
    label = shell.ids.status_label
    assert app.status.startswith("Remove failed: PoCL 3.0 from pip cannot compile")
    assert label.is_shortened and label.shorten_from == "right" and label.texture_size[1] <= label.height <= 24
    assert label.texture_size[0] <= label.width + 1
    assert [shell.ids[n].y for n in ("remove_btn", "brush_btn", "grow_slider")] == tools, "the tools moved"
    assert shell.editor.height == editor_height


def test_other_long_errors_fit_and_only_device_errors_point_to_settings(fresh, kv):
    from mobile_ui.devices import DEVICE_HINT

    app = fresh
    cl_error = type("RuntimeError", (RuntimeError,), {"__module__": "pyopencl._cl"})   # as pyopencl's
    cases = [(cl_error("clEnqueueNDRangeKernel failed: OUT_OF_RESOURCES - " + "x" * 700), DEVICE_HINT),
             (ValueError("the mask leaves nothing to copy from: " + "y " * 400), "")]
    for exc, hint in cases:
        class _Raising:
            def __init__(self, *_args, _exc=exc, **_kwargs):
                raise _exc

        app.engine = _Raising
        app.removal.remove()
        pump_until(lambda: not app.busy, what="the failing removal")
        settle(app)
        popup = app.dialogs.popup
        try:
            assert popup.text == str(exc) and popup.hint == hint
            _check_message_fits(popup, kv)
            assert popup.ids.hint_view.height == (0 if not hint else popup.ids.hint.height)
            assert not popup.details and not popup.ids.details_btn.parent.shown, "no details: no Details button"
            assert popup.ids.details_btn.width == 0 and popup.ids.ok_btn.x == pytest.approx(popup._container.x)
            assert popup.ids.ok_btn.width == pytest.approx(popup._container.width), "OK takes the whole row"
        finally:
            app.dialogs.dismiss_popup()
            pump()


def test_a_shortened_status_shows_whole_when_tapped(fresh):
    from mobile_ui.popups import MessagePopup

    app, label = fresh, fresh.root.ids.status_label
    app.status = "Saved /a/very/long/folder/name/that/does/not/fit/on/one/line/of/the/phone/photo-edited.jpg " \
                 "(the EXIF data was kept; the orientation was applied)"
    pump(2)
    assert label.is_shortened and label.height <= 24
    tap(label)
    try:
        assert isinstance(app.dialogs.popup, MessagePopup) and app.dialogs.popup.text == app.status
    finally:
        app.dialogs.dismiss_popup()
        pump()
    app.status = "Mask inverted."
    pump(2)
    assert not label.is_shortened
    tap(label)
    assert app.dialogs.popup is None, "a status shown whole is no button"


def test_a_fallback_to_numpy_is_told_once(quick, scene, monkeypatch):
    import uuid

    import inpaint.cl.runtime as runtime
    from inpaint.errors import BuildFailure

    app, ed = quick, quick.editor
    img, mask = scene
    cause = f"Fake driver {uuid.uuid4().hex[:8]} cannot compile for this CPU"   # the library warns once per text

    def cannot_build(*_args, **_kwargs):
        raise BuildFailure(f"{cause}; install another driver", details="log")

    monkeypatch.setattr(runtime, "get_runtime", cannot_build)
    app.backend = "auto"
    try:
        app.removal.remove()                                   # the real library: auto falls back to numpy
        pump_until(lambda: not app.busy, what="the removal on numpy")
        settle(app)
        assert not np.array_equal(app.image, img) and not ed.mask.any(), app.status
        popup = app.dialogs.popup
        assert popup is not None and popup.title == "Ran on numpy", app.status
        assert popup.text.startswith(f"{cause}; using numpy") and popup.text.endswith("install another driver")
        assert "Settings" in popup.hint and "Run on to the processor (numpy" in popup.hint
        assert app.status.startswith("Ran on numpy. Removed in ") and f"Note: {cause}; using numpy" in app.status
        app.dialogs.dismiss_popup()
        pump()

        # The same note again (from a job that repeats it): told once per session.
        note = f"{cause} (GPU); using Fake CPU instead"

        class _Noting:
            def __init__(self, *args, **kwargs):
                import warnings

                from inpaint.api import start
                from inpaint.errors import FallbackWarning

                warnings.warn(note, FallbackWarning)
                self._job = start(*args, **kwargs)

            def __getattr__(self, name):
                return getattr(self._job, name)

        app.backend = "numpy"
        app.engine = _Noting
        for told in (True, False):
            ed.mask[...] = mask
            app.removal.remove()
            pump_until(lambda: not app.busy, what="the removal")
            settle(app)
            if told:
                assert app.dialogs.popup.title == "Ran on another device" and app.dialogs.popup.text == note
                assert "OpenCL device" in app.dialogs.popup.hint
                assert app.status.startswith("Ran on another device. Removed in ")
                assert app.status.endswith(f"Note: {note}")
                app.dialogs.dismiss_popup()
                pump()
            else:
                assert app.dialogs.popup is None and "Note" not in app.status and app.status.startswith("Removed in ")
    finally:
        app.backend = "numpy"
        app.engine = None
        app.dialogs.dismiss_popup()


def test_a_resize_tells_of_its_fallback(fresh, scene, monkeypatch):
    seam = pytest.importorskip("inpaint.seam", reason="seam carving (inpaint.seam) is not in this build")
    import warnings

    app = fresh
    app.editor.mask[...] = False
    note = "Fake carving driver cannot compile; using numpy, about 15 times slower; install another"
    real = seam.resize

    def noting_resize(*args, **kwargs):
        from inpaint.errors import FallbackWarning

        warnings.warn(note, FallbackWarning)
        return real(*args, **kwargs)

    monkeypatch.setattr(seam, "resize", noting_resize)
    app.has_seam = True
    try:
        app.removal.resize(64, 56)
        pump_until(lambda: not app.busy, what="the resize")
        settle(app)
        assert app.image.shape == (56, 64, 3), app.status
        popup = app.dialogs.popup
        assert popup is not None and popup.title == "Ran on numpy" and popup.text == note
        assert app.status.startswith("Ran on numpy. Resized to 64x56") and app.status.endswith(f"Note: {note}")
    finally:
        app.dialogs.dismiss_popup()
        pump()


def test_huge_details_are_clipped_with_a_note(fresh):
    from mobile_ui.popups import MAX_DETAILS

    log = "".join(f"line {i}: warning: something the driver says\n" for i in range(5000))   # ~240 KB
    assert len(log) > MAX_DETAILS
    popup = fresh.dialogs.show_message("Remove failed", "cause; fix", details=log)
    try:
        popup.showing_details = True
        pump(3)
        text = popup.ids.details_text.text
        assert text.startswith(log[:MAX_DETAILS]) and len(text) < MAX_DETAILS + 100
        assert text.endswith(f"({len(log) - MAX_DETAILS:,} more characters not shown)")
        assert popup.details == log
    finally:
        fresh.dialogs.dismiss_popup()
        pump()


# -- a photo replaced while a question about it is open -----------------------------------
def test_a_photo_dropped_while_a_question_is_open_closes_it_and_a_late_answer_does_nothing(fresh, kv, tmp_path):
    from mobile_ui.popups import QuestionPopup

    app, ed = fresh, fresh.editor
    sky = np.zeros((56, 72, 3), np.uint8)
    sky[:, :] = (90, 140, 200)                           # a tap selects nearly all of it: the question
    app.document.set_document(sky, None, "sky")
    app.selection.set_tool("select")
    pump(2)
    drag([screen_of(app, 10, 10)])
    settle(app)
    question = app.dialogs.popup
    assert isinstance(question, QuestionPopup), question
    other = np.random.default_rng(3).integers(0, 256, (30, 40, 3), dtype=np.uint8)
    Image.fromarray(other).save(tmp_path / "other.png")
    kv.dispatch("on_drop_file", str(tmp_path / "other.png").encode("utf-8"), 10, 10)
    pump(2)
    assert app.doc_name == "other.png" and app.dialogs.popup is None and question.parent is None
    question.on_yes()                                    # an answer that arrives anyway
    pump(2)
    assert not ed.mask.any() and ed.mask.shape == (30, 40) and not app.can_undo
    np.testing.assert_array_equal(app.image, other)


def test_a_photo_whose_mask_name_would_be_too_long_opens_and_save_suggests_names_it_can_write(fresh, tmp_path):
    app = fresh
    stem = "p" * 246                                     # a legal name; with "_mask.png" it is not
    img = np.random.default_rng(4).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    Image.fromarray(img).save(tmp_path / f"{stem}.png")
    app.document.open_file(str(tmp_path / f"{stem}.png"))
    pump(2)
    assert app.dialogs.popup is None and app.doc_name == f"{stem}.png"
    for suggested in (app.document.suggested_mask_path(), app.document.suggested_save_path()):
        assert Path(suggested).parent == tmp_path and len(Path(suggested).name.encode()) <= 255 - 16
    (tmp_path / Path(app.document.suggested_mask_path()).name).write_bytes(b"")   # taken: the next is "-2"
    assert Path(app.document.suggested_mask_path()).stem.endswith("_mask-2")


def test_a_bad_mask_given_at_start_opens_the_photo_without_it_and_says_why(fresh, tmp_path):
    from mobile_ui.popups import MessagePopup

    app = fresh
    img = np.random.default_rng(5).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    Image.fromarray(img).save(tmp_path / "photo.png")
    Image.fromarray(np.zeros((5, 5), np.uint8)).save(tmp_path / "wrong.png")
    saved = app.startup
    try:
        app.startup = (str(tmp_path / "photo.png"), str(tmp_path / "wrong.png"), None)
        app.document.open_startup()
        pump(2)
    finally:
        app.startup = saved
    assert app.doc_name == "photo.png" and not app.editor.mask.any()
    np.testing.assert_array_equal(app.image, img)
    popup = app.dialogs.popup
    assert isinstance(popup, MessagePopup) and popup.title == "Mask not used", popup
    assert "wrong.png" in popup.text and "same size" in popup.text
    app.dialogs.dismiss_popup()


def test_save_suggests_a_writable_folder_for_a_photo_in_a_read_only_one(fresh, tmp_path, monkeypatch):
    from mobile_ui import document

    app = fresh
    shut, start = tmp_path / "shut", tmp_path / "start"
    shut.mkdir()
    start.mkdir()
    img = np.random.default_rng(6).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    Image.fromarray(img).save(shut / "photo.png")
    app.document.open_file(str(shut / "photo.png"))
    pump(2)
    real = os.access
    # as an ordinary user sees a read-only folder (the tests may run as root, who may write anywhere)
    monkeypatch.setattr(document.os, "access", lambda p, mode: Path(p) != shut and real(p, mode))
    monkeypatch.setattr("mobile_ui.storage.os.access", lambda p, mode: Path(p) != shut and real(p, mode))
    monkeypatch.setattr(app, "start_dir", str(start))
    assert Path(app.document.suggested_save_path()) == start / "photo_removed.png"
    assert Path(app.document.suggested_mask_path()) == start / "photo_mask.png"
    assert app.document.default_folder() == str(shut), "Open still starts beside the photo"


# -- Protect, Compare, Resize and the Open dialog: what they say and keep --------------------------
@pytest.mark.parametrize("how", ["grow", "invert"])
def test_grow_and_invert_leave_the_protected_pixels_as_they_are(quick, scene, how):
    app, ed = quick, quick.editor
    img, _ = scene
    ed.mask[...] = False
    ed.mask[20:36, 20:36] = True
    ed.keep[...] = False
    ed.keep[20:36, 37:40] = True                        # a green strip beside the object
    if how == "grow":
        app.grow = 4
    else:
        app.selection.invert_mask()
        assert not (ed.mask & ed.keep).any() and "protected pixels stay unmarked" in app.status
    protected = ed.keep.copy()
    app.removal.remove()
    pump_until(lambda: not app.busy, what="the removal")
    settle(app)
    np.testing.assert_array_equal(app.image[protected], img[protected])
    app.grow = 0


def test_compare_after_a_resize_says_why_it_shows_nothing_else(fresh, scene):
    pytest.importorskip("inpaint.seam", reason="seam carving (inpaint.seam) is not in this build")
    app, ed = fresh, fresh.editor
    ed.mask[...] = False
    app.has_seam = True
    app.removal.resize(64, 56)
    pump_until(lambda: not app.busy, what="the resize")
    settle(app)
    app.selection.compare(True)
    assert not ed.show_original and "Undo the resize to compare" in app.status
    app.selection.compare(False)
    app.document.undo()
    app.selection.compare(True)
    assert ed.show_original
    app.selection.compare(False)


def test_resizing_to_the_same_size_with_nothing_marked_says_so(fresh):
    app, ed = fresh, fresh.editor
    ed.mask[...] = False
    app.has_seam = True
    h, w = app.image.shape[:2]
    app.removal.resize(w, h)
    assert not app.busy and app.status.startswith(f"Nothing to resize: the photo is already {w}x{h}")


def test_a_resizes_errors_name_the_strokes_not_the_librarys_arguments(fresh):
    from inpaint.errors import SeamError

    app = fresh
    app.removal.begin_job("Resizing…")
    exc = SeamError("every pixel of {drop_mask} is also in {keep_mask}: nothing could be removed")
    app.removal.job_error(app.removal.token, "Resize failed", exc)
    pump(2)
    assert app.dialogs.popup.text == ("every pixel of the red mask is also in the green Protect mask: nothing "
                                      "could be removed")
    app.dialogs.dismiss_popup()


def test_the_open_dialog_says_what_a_typed_path_or_a_recent_folder_is(fresh, tmp_path):
    app = fresh
    popup = app.dialogs.show_open()
    pump(2)
    assert not app.dialogs.open_typed(popup, "~nosuchuser_at_all/photo.png")   # no such user: no crash
    assert popup.problem.startswith("No such file or folder: ")
    assert not app.dialogs.open_typed(popup, "/dev/null")
    assert popup.problem == "/dev/null is not a photo file (a device or a pipe)"
    gone = tmp_path / "gone"
    app.dialogs.browse(popup, str(gone))
    assert popup.problem == f"{gone} is no longer there"
    app.dialogs.browse(popup, str(tmp_path))
    assert popup.problem == "" and popup.ids.chooser.path == str(tmp_path)
    img = np.random.default_rng(9).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    Image.fromarray(img).save(tmp_path / "beach .png")            # a name that ends in a space
    assert app.dialogs.open_typed(popup, str(tmp_path / "beach .png"))
    pump(2)
    assert app.doc_name == "beach .png"


def test_settings_say_when_the_chosen_device_is_not_on_this_machine(fresh):
    app = fresh
    saved = app.backend, app.device
    try:
        app.backend, app.device = "auto", "7:3 Some Phone GPU"
        popup = app.dialogs.show_settings()
        pump(2)
        app.prefs.update_device_info(popup)
        if app.prefs.devices:
            assert popup.ids.device_info.text == "7:3 Some Phone GPU is not on this machine: choose another device."
        app.dialogs.dismiss_popup()
    finally:
        app.backend, app.device = saved


def test_a_file_name_that_is_not_utf8_shows_in_the_status(fresh):
    """A photo named with bytes that are no UTF-8 (kept as surrogates) is named with a replacement
    character: Kivy cannot draw the surrogates."""
    app, label = fresh, fresh.root.ids.status_label
    app.status = "Opened caf\udce9.png"
    pump(2)
    assert app.status == "Opened caf\ufffd.png" and label.text == app.status
    app.info = "caf\udce9.png 64x48"
    assert app.info == "caf\ufffd.png 64x48"


def test_a_settings_folder_that_cannot_be_made_never_stops_the_app(fresh, tmp_path):
    """Settings that cannot be saved (their folder is a file) are logged: saving, as quitting
    does, goes on; and the command refuses such a --state-dir before the app starts."""
    import argparse

    from mobile_ui import __main__ as app_main

    blocked = tmp_path / "state.png"
    blocked.write_bytes(b"a file")
    old = fresh._state_dir
    fresh._state_dir = blocked / "inside"
    try:
        fresh.prefs.save()  # (raised FileExistsError / NotADirectoryError before)
        assert fresh.state_dir == blocked / "inside"
    finally:
        fresh._state_dir = old
    args = argparse.Namespace(case=None, image=None, mask=None, backend="numpy", state_dir=str(blocked))
    assert app_main.input_problem(args) == f"--state-dir {blocked} is a file, not a folder"

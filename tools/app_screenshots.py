"""Render the app's main states to PNG files for the docs (needs a display, e.g. Xvfb, and the app extra).

A documentation tool of the checkout, not part of the app package.
``python tools/app_screenshots.py docs/screenshots`` renders a phone in portrait (480x800)
and a desktop window (1280x800), each in its own process because Kivy fixes the screen
density at import.  Each PNG takes at most :data:`MAX_BYTES` (see :func:`save_small`).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRESETS = {
    # name: (width, height, density): the window, in pixels, and the pixels of one dp
    "phone": (480, 800, 1.0),
    "desktop": (1280, 800, 1.0),
}
#: The most one screenshot may take: a larger one is saved with 256 colours, then scaled down.
MAX_BYTES = 300_000


def save_small(img, path: Path, max_bytes: int = MAX_BYTES) -> str:
    """Save ``img`` (PIL, RGB) as an optimised PNG at ``path`` taking at most ``max_bytes``: as it
    is, else with a 256-colour palette (text and buttons stay sharp; a photo's gradients keep
    well), else that scaled down by steps of 15 %.  Returns how it was saved ("" for as it is)."""
    from PIL import Image

    img.save(path, optimize=True)
    if path.stat().st_size <= max_bytes:
        return ""
    scale = 1.0
    while True:
        size = (round(img.width * scale), round(img.height * scale))
        small = img if scale == 1.0 else img.resize(size, Image.LANCZOS)
        small.quantize(256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
        if path.stat().st_size <= max_bytes or min(size) < 64:
            return "256 colours" + (f", scaled to {scale:.0%}" if scale < 1 else "")
        scale *= 0.85


def _render(preset: str, out: Path) -> None:
    width, height, density = PRESETS[preset]
    os.environ["KIVY_METRICS_DENSITY"] = str(density)
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    if "KIVY_HOME" not in os.environ:
        os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="inpaint-shots-")
        atexit.register(shutil.rmtree, os.environ["KIVY_HOME"], ignore_errors=True)
    from kivy.config import Config

    Config.set("graphics", "width", str(width))
    Config.set("graphics", "height", str(height))
    for name, _ in Config.items("input"):
        Config.remove_option("input", name)
    from kivy.base import EventLoop, runTouchApp
    from kivy.core.window import Window
    from PIL import Image

    from mobile_ui.app import InpaintApp

    class Slow:
        """The app's own fill job (the default method), slowed so the half-filled state can be captured."""

        def __init__(self, *a, **k):
            from inpaint.api import start
            self._job = start(*a, **k)

        def step(self):
            time.sleep(0.3)          # the default method takes few, long steps
            return self._job.step()

        def __getattr__(self, name):
            return getattr(self._job, name)

    def pump(n=1):
        for _ in range(n):
            EventLoop.idle()

    def until(cond, timeout=120.0):
        end = time.monotonic() + timeout
        while not cond() and time.monotonic() < end:
            pump()

    def shot(name):
        pump(4)
        tmp = Window.screenshot(name=str(out / f".{preset}-{name}-%(cnt)s.png"))
        img = Image.open(tmp).convert("RGB")
        os.unlink(tmp)
        assert img.size == (width, height), f"the window is {img.size}, not {(width, height)}"
        how = save_small(img, out / f"{preset}-{name}.png")
        print(f"{preset}-{name}.png" + (f" ({how})" if how else ""))

    from inpaint.cl.runtime import opencl_available
    backend = "opencl" if opencl_available() else "numpy"
    state = tempfile.mkdtemp(prefix="inpaint-shots-state-")
    atexit.register(shutil.rmtree, state, ignore_errors=True)
    app = InpaintApp(state_dir=state, catch_errors=False,
                     case="walkingman", overrides={"backend": backend})
    app._run_prepare()
    runTouchApp(embedded=True)
    Window.size = (width, height)     # the configured size is a request: pin it, as the UI tests do
    pump(6)
    ed = app.editor
    shot("start")

    # Select in one gesture: a loose loop drawn around the astronaut (outlined while drawn),
    # the object it selects, and the fill after Remove.
    import numpy as np
    from kivy.tests.common import UnitTestTouch

    app.document.open_sample("walkingman")
    pump(2)
    rows, cols = np.nonzero(ed.mask)
    cy, cx = (rows.min() + rows.max()) / 2, (cols.min() + cols.max()) / 2
    ry, rx = 0.7 * (rows.max() - rows.min()) + 8, 0.75 * (cols.max() - cols.min()) + 8
    ed.mask[...] = False
    ed.refresh_mask()
    app.document.update_info()
    app.selection.set_tool("select")
    pump(2)
    at = [ed.view.image_to_widget(cx + rx * np.cos(a), cy + ry * np.sin(a))
          for a in np.linspace(-np.pi / 2, 1.45 * np.pi, 48)]
    finger = UnitTestTouch(ed.x + at[0][0], ed.y + at[0][1])
    finger.touch_down()
    for x, y in at[1:]:
        finger.touch_move(ed.x + x, ed.y + y)
    shot("lasso")
    finger.touch_up()
    until(lambda: not app.busy)
    pump(3)
    shot("lasso-selected")
    app.removal.remove()
    until(lambda: not app.busy)
    pump(3)
    shot("lasso-removed")

    # Zoomed in, painting an extra stroke with the brush outline visible.
    ed.zoom_by(2.2, ed.width * 0.45, ed.height * 0.5)
    ed.mask[...] = False
    from mobile_ui.geometry import stamp_segment
    stamp_segment(ed.mask, (215, 150), (240, 230), 14)
    stamp_segment(ed.mask, (240, 230), (232, 290), 12)
    ed.refresh_mask()
    x, y = ed.view.image_to_widget(232, 290)
    ed._cursor_pos = (x, y)
    ed._update_cursor()
    app.status = "Painting: 2 strokes"
    app.document.update_info()
    shot("painting")
    ed._cursor_pos = None
    ed._update_cursor()

    # Before the fill: what Remove prepares (held 2.5 s, as a 12 MP photo takes about 3 s on numpy).
    class SlowStart(Slow):
        def __init__(self, *a, **k):
            time.sleep(2.5)
            super().__init__(*a, **k)

    app.document.open_sample("walkingman")
    pump(2)
    app.engine = SlowStart
    app.removal.remove()
    until(lambda: app.status.endswith(" s"), timeout=30)
    shot("preparing")
    app.removal.cancel()
    until(lambda: app.worker.wait_idle(0))

    # The fill running live, with progress and Cancel.
    app.document.open_sample("walkingman")
    pump(2)
    app.engine = Slow
    app.removal.remove()
    until(lambda: app.progress > 0.3 or not app.busy)
    shot("removing")
    until(lambda: not app.busy)
    pump(3)
    shot("result")

    app.dialogs.show_settings()
    pump(3)
    shot("settings")
    app.dialogs.dismiss_popup()

    # Mask tools on the walking man: Select taps, Refine, the Grow preview, saving the mask.
    from mask_tools_eval import simulate_taps  # (tools/ is this script's folder)

    app.document.open_sample("walkingman")
    pump(2)
    image = app.image
    obj = app.editor.mask.copy()
    x, y = ed.view.image_to_widget(367, 322)
    ed.zoom_by(2.0, x, y)
    x, y = ed.view.image_to_widget(367, 322)
    ed.pan_by(ed.width / 2 - x, ed.height / 2 - y)
    ed.mask[...] = False
    app.selection.set_tool("select")
    taps = []
    default = int(app.tolerance)
    simulate_taps(image, obj, default, 4, record=taps)
    from mobile_ui.popups import QuestionPopup
    for (row, col), tol in taps:
        if ed.mask[row, col]:         # already selected by an earlier tap: a tap there would take part away
            continue
        app.tolerance = tol
        app.selection.select_at(row, col)
        until(lambda: not app.busy)
        pump(2)
        if isinstance(app.dialogs.popup, QuestionPopup):   # a region larger than an object: keep the sim's
            app.dialogs.popup.answer_yes()
    app.tolerance = default
    pump(2)
    shot("select")
    if app.root.portrait:             # a phone: the sheet of tools the row's More opens
        app.root.sheet_open = True
        shot("tools")
        app.root.sheet_open = False
    if app.can_refine:
        app.selection.refine_mask()
        until(lambda: not app.busy)
        pump(3)
        shot("refine")
    app.grow = 4
    app.selection.set_tool("brush")
    pump(3)
    shot("grow")
    app.dialogs.show_save("mask")
    pump(3)
    shot("save-mask")
    app.dialogs.dismiss_popup()

    # The dialogs: Open with previews and recent folders, Save into a folder, Resize, and the
    # question a tap larger than an object asks.
    home = Path(tempfile.mkdtemp(prefix="inpaint-shots-home-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    folder = home / "Pictures"
    folder.mkdir()
    root = Path(__file__).resolve().parent.parent / "datasets" / "objects"
    for case in ("nuthatch_bark", "dog_window", "fig_bowl", "tower_sky", "bottle_table", "dandelion_meadow"):
        shutil.copyfile(root / case / "image.png", folder / f"{case}.png")
    app.document.open_path(str(folder / "nuthatch_bark.png"))
    app.prefs.remember_folder(home)
    app.prefs.remember_folder(folder)
    pump(2)
    popup = app.dialogs.show_open()
    popup.ids.chooser.selection = [str(folder / "dog_window.png")]
    thumbs_done = lambda: all(t.preview for t in popup.walk()            # noqa: E731
                              if type(t).__name__ == "PhotoThumb" and t.photo)
    pump(6)
    until(thumbs_done, timeout=60)
    shot("open")
    app.dialogs.dismiss_popup()
    popup = app.dialogs.show_save("photo")
    pump(6)
    until(lambda: all(t.preview for t in popup.walk() if type(t).__name__ == "PhotoThumb" and t.photo), 60)
    shot("save")
    app.dialogs.dismiss_popup()
    if app.has_seam:
        popup = app.dialogs.show_resize()
        popup.size_text = "80%x100%"
        pump(3)
        shot("resize")
        app.dialogs.dismiss_popup()
    # A tap on the wall by the bowl: at the default tolerance most of the photo, so it is
    # selected again at a lower one (the status line says so), and asked about if still too large.
    app.document.open_path(str(folder / "fig_bowl.png"))
    app.selection.set_tool("select")
    app.tolerance = default
    app.selection.select_at(40, 40)
    until(lambda: not app.busy)
    pump(3)
    shot("select-lowered")            # the tolerance lowered, or the question where even 4 takes too much
    app._stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out", type=Path, help="folder for the PNG files")
    p.add_argument("--preset", choices=sorted(PRESETS), help="render one preset in this process")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.preset:
        _render(args.preset, args.out)
        return 0
    for preset in PRESETS:
        rc = subprocess.call([sys.executable, str(Path(__file__).resolve()), str(args.out), "--preset", preset])
        if rc:
            return rc
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The Kivy app: its state and its parts; the layout lives in ``inpaint.kv``.

The app holds the document (``image``, ``original``, ``photo``, ``history``) and the Kivy
properties the layout follows (``busy``, ``status``, the settings…).  Its behaviour is in plain
controllers, each in its own module: :attr:`InpaintApp.document` (open, undo, save),
:attr:`~InpaintApp.removal` (the jobs on the worker: Remove, Try again, Resize),
:attr:`~InpaintApp.selection` (the mask tools), :attr:`~InpaintApp.dialogs` (the popups),
:attr:`~InpaintApp.prefs` (the saved settings) and :attr:`~InpaintApp.keys` (keyboard and mouse).
Every long operation runs on the one :class:`~mobile_ui.worker.Worker` thread and reports back
through :func:`kivy.clock.mainthread`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.factory import Factory
from kivy.logger import Logger
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    OptionProperty,
    StringProperty,
)
from kivy.uix.layout import Layout
from kivy.utils import platform

from . import devices, masktools, popups, settings, storage  # noqa: F401 - popups: kv classes
from .dialogs import DialogController
from .document import DocumentController
from .editor import ImageEditor
from .history import History
from .keys import KeyController
from .preferences import SettingsController, run_params
from .removal import Removal, RemovalController
from .selection import SelectionController
from .worker import Worker

KV_FILE = str(Path(__file__).with_name("inpaint.kv"))


class Shell(Layout):
    """Phone-first root layout.

    Portrait (a phone): the photo takes the height above the status line and one row of the
    main tools (thumb reach); the row's More opens a bottom sheet, the top bar and the toolbox,
    over the photo's lower part, and closes it (so does a job starting, or Esc / back).
    Landscape (a desktop window): the photo on the left, the top bar, the toolbox and the status
    line stacked in a side panel; the row is not shown.
    """

    topbar = ObjectProperty(None)
    editor = ObjectProperty(None)
    toolbox = ObjectProperty(None)
    statusbar = ObjectProperty(None)
    bar = ObjectProperty(None)                 # the phone's row of main tools
    original_label = ObjectProperty(None)      # shown over the photo while the original is
    portrait = BooleanProperty(True)
    sheet_open = BooleanProperty(False)        # portrait: the top bar and toolbox show over the photo
    panel_width = NumericProperty(dp(360))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(size=self._trigger_layout, pos=self._trigger_layout, sheet_open=self._trigger_layout)

    def on_original_label(self, _shell, label):
        if label is not None:
            label.bind(size=self._trigger_layout)

    def on_toolbox(self, _shell, box):
        if box is not None:
            box.bind(minimum_height=self._trigger_layout)

    def do_layout(self, *_args):
        parts = (self.topbar, self.toolbox, self.editor, self.statusbar, self.bar)
        if not all(parts):
            return
        tb, box, ed, st, bar = parts
        x, y, w, h = self.x, self.y, self.width, self.height
        self.portrait = h >= w
        if self.portrait:
            bar.size = (w, bar.height)
            bar.pos = (x, y)
            st.size = (w, st.height)
            st.pos = (x, bar.top)
            ed.pos = (x, st.top)
            ed.size = (w, max(h - bar.height - st.height, 1))
            tb.size = (w, tb.height)
            box.size = (w, box.minimum_height)
            # The sheet rests on the status line while open, else lies below the window's edge
            # (out of sight and out of reach of touches).
            box.y = st.top if self.sheet_open else y - h - box.height - tb.height
            box.x = tb.x = x
            tb.y = box.top
        else:
            pw = min(self.panel_width, w * 0.45)
            px = x + w - pw
            tb.size = (pw, tb.height)
            tb.pos = (px, y + h - tb.height)
            st.size = (pw, st.height)
            st.pos = (px, y)
            box.size = (pw, max(h - tb.height - st.height, box.minimum_height))   # the panel's free height
            box.pos = (px, tb.y - box.height)
            bar.size = (w, bar.height)
            bar.pos = (x, y - h - bar.height)   # the phone's row: out of sight in a wide window
            ed.pos = (x, y)
            ed.size = (max(w - pw, 1), h)
        if self.original_label is not None:   # the photo's top-left corner, inside it
            self.original_label.pos = (ed.x + dp(8), ed.top - self.original_label.height - dp(8))


def printable(text: str) -> str:
    """``text`` as it can be drawn: a file name's undecodable bytes as replacement characters."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a lone surrogate of another kind
        return text.encode("utf-8", "replace").decode("utf-8")


class InpaintApp(App):
    """Object removal on a touch screen: paint a mask, tap Remove, keep editing."""

    title = "Inpaint"
    kv_file = KV_FILE

    busy = BooleanProperty(False)
    progress = NumericProperty(0.0)
    status = StringProperty("")
    info = StringProperty("")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)
    can_try_again = BooleanProperty(False)            # the picture shown is the last removal's fill
    has_seam = BooleanProperty(False)
    popup_open = BooleanProperty(False)

    method = StringProperty(settings.defaults()["method"])
    alpha = StringProperty(settings.defaults()["alpha"])
    patch = StringProperty(settings.defaults()["patch"])
    backend = StringProperty("auto")
    device = StringProperty("auto")
    profile = StringProperty("native")
    device_choices = ListProperty([])

    grow = NumericProperty(0)                         # Grow slider: pixels Remove adds around the mask
    tolerance = NumericProperty(masktools.DEFAULT_TOLERANCE)   # Select: colour tolerance
    select_mode = OptionProperty("add", options=["add", "subtract"])
    can_refine = BooleanProperty(False)               # GrabCut (OpenCV) is installed

    #: Keyword arguments for the fill from the current settings.
    run_params = run_params

    def __init__(self, image_path: str | None = None, mask_path: str | None = None,
                 case: str | None = None, state_dir: str | None = None,
                 engine: Callable[..., Any] | None = None, overrides: dict | None = None,
                 catch_errors: bool = True, **kwargs):
        super().__init__(**kwargs)
        self.startup = (image_path, mask_path, case)
        self._state_dir = Path(state_dir) if state_dir else None
        self.engine = engine                  # job factory; None = inpaint.api.start (default method)
        self.overrides = dict(overrides or {})   # settings given at start, for this session only
        self.catch_errors = catch_errors
        self.worker: Worker | None = None
        self.editor: ImageEditor | None = None
        self.history = History()
        self.photo: storage.Photo | None = None
        self.image: np.ndarray | None = None
        self.original: np.ndarray | None = None
        self.doc_name = ""
        self.job = None
        self.last_result = None
        self.last_removal: Removal | None = None
        self.last_wall_seconds = 0.0
        self.start_dir = os.getcwd()        # where the app was started: the Open dialog's first folder
        self.document = DocumentController(self)
        self.removal = RemovalController(self)
        self.selection = SelectionController(self)
        self.dialogs = DialogController(self)
        self.prefs = SettingsController(self)
        self.keys = KeyController(self)

    def on_status(self, _app: Any, text: str) -> None:
        """A file name that is not valid UTF-8 (its bytes kept as surrogates) shows with a
        replacement character: Kivy cannot draw the surrogates, and would fail."""
        self.status = printable(text)

    def on_info(self, _app: Any, text: str) -> None:
        self.info = printable(text)

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def state_dir(self) -> Path:
        """The folder of the settings and previews, made when missing (where it cannot be, the
        writes there fail and are logged: the app, and quitting it, go on)."""
        if self._state_dir is None:
            self._state_dir = Path(self.user_data_dir)
        try:
            self._state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            Logger.warning(f"Inpaint: cannot make the settings folder {self._state_dir}: {exc}")
        return self._state_dir

    def _get_user_data_dir(self):
        # Kivy's own creates only the last folder (no ~/.config on a fresh home: settings lost).
        if platform in ("android", "ios"):  # pragma: no cover - phones
            return super()._get_user_data_dir()
        if platform == "win":  # pragma: no cover
            base = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        elif platform == "macosx":  # pragma: no cover
            base = str(Path.home() / "Library" / "Application Support")
        else:
            base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        folder = Path(base).expanduser() / self.name
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder)

    @property
    def thumbnail_dir(self) -> Path:
        """Where the Open and Save dialogs keep their photo previews."""
        return self.state_dir / "previews"

    def get_application_config(self, defaultpath="%(appdir)s/%(appname)s.ini"):
        # Never write an .ini beside the code: Kivy's own config goes with our state.
        return str(self.state_dir / "kivy-app.ini")

    def build(self):
        self.has_seam = devices.seam_available()
        self.can_refine = masktools.grabcut_available()
        self.worker = Worker()
        self.prefs.load()
        for key, value in self.overrides.items():
            setattr(self, key, int(value) if key in settings.NUMBERS else str(value))
        root = Factory.Shell()
        self.editor = root.editor
        self.editor.grow_px = int(self.grow)
        self.bind(grow=self.selection.on_grow)
        doc = self.document
        self.editor.bind(on_stroke_start=doc.on_stroke_start, on_stroke_end=doc.on_stroke_end,
                         on_stroke_cancel=doc.on_stroke_cancel, on_view_changed=doc.update_info,
                         on_tap=self.selection.on_tap, on_gesture=self.selection.on_gesture)
        self.keys.bind(Window)
        return root

    def on_start(self):
        if self.catch_errors:
            self.dialogs.install_error_handler()
        if platform == "android":
            self._android_permissions()
        Clock.schedule_once(lambda dt: self.document.open_startup(), 0)

    def on_stop(self):
        if self.job is not None:
            self.job.cancel()
        if self.worker is not None:
            self.worker.shutdown(timeout=2.0)
        self.prefs.save()

    def on_pause(self):  # Android: keep the state when switched away
        self.prefs.save()
        return True

    def _android_permissions(self):  # pragma: no cover - Android only
        try:
            from android.permissions import Permission, request_permissions
            request_permissions([Permission.READ_EXTERNAL_STORAGE, Permission.WRITE_EXTERNAL_STORAGE,
                                 getattr(Permission, "READ_MEDIA_IMAGES", Permission.READ_EXTERNAL_STORAGE)])
        except Exception as exc:  # noqa: BLE001 - permissions are a convenience: the app runs without
            Logger.warning(f"Inpaint: storage permissions not requested: {exc}")

"""The Kivy app: behaviour only; the layout lives in ``inpaint.kv``.

The document is ``image`` (read-only working image), ``mask``/``keep`` (painted in place
by the editor) and ``original`` (as opened, for compare).  Every change goes through
:class:`~mobile_ui.history.History`; every long operation runs on the one
:class:`~mobile_ui.worker.Worker` thread and reports back through
:func:`kivy.clock.mainthread`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import weakref
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock, mainthread
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

from inpaint.methods.defaults import MAX_SEED
from inpaint.report import format_percent, format_seconds, seconds_left

from . import devices, masktools, popups, samples, settings, storage  # noqa: F401 - popups: kv classes
from .editor import ImageEditor
from .history import History, Snapshot, frozen
from .worker import Worker, run_inpaint

KV_FILE = str(Path(__file__).with_name("inpaint.kv"))
TAB = 9   # the key code Kivy gives the Tab key


@dataclasses.dataclass
class Removal:
    """The last removal, for Try again: its input, the mask it filled, the protected pixels, the
    seed of its latest fill, and its fills (weak references: the history holds the pictures)."""

    image: np.ndarray
    mask: np.ndarray
    protect: np.ndarray | None
    seed: int | None
    fills: list = dataclasses.field(default_factory=list)

    def showing(self, image: np.ndarray | None) -> bool:
        """Whether ``image`` is one of this removal's fills."""
        return any(ref() is image for ref in self.fills)


def _duration(seconds: float) -> str:
    """``1.23`` -> ``'1.2 s'``; a minute or more as ``'1:15'``."""
    return f"{seconds:.1f} s" if seconds < 59.95 else format_seconds(seconds)


class Shell(Layout):
    """Phone-first root layout.

    Portrait: top bar above, editor in the middle, toolbox below (thumb reach).
    Landscape: editor on the left, top bar and toolbox stacked in a side panel.
    """

    topbar = ObjectProperty(None)
    editor = ObjectProperty(None)
    toolbox = ObjectProperty(None)
    original_label = ObjectProperty(None)  # shown over the photo while the original is
    portrait = BooleanProperty(True)
    panel_width = NumericProperty(dp(360))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(size=self._trigger_layout, pos=self._trigger_layout)

    def on_original_label(self, _shell, label):
        if label is not None:
            label.bind(size=self._trigger_layout)

    def on_toolbox(self, _shell, box):
        if box is not None:
            box.bind(minimum_height=self._trigger_layout)

    def do_layout(self, *_args):
        if not (self.topbar and self.editor and self.toolbox):
            return
        x, y, w, h = self.x, self.y, self.width, self.height
        self.portrait = h >= w
        tb, box, ed = self.topbar, self.toolbox, self.editor
        if self.portrait:
            tb.size = (w, tb.height)
            tb.pos = (x, y + h - tb.height)
            box.size = (w, box.minimum_height)
            box.pos = (x, y)
            ed.pos = (x, y + box.height)
            ed.size = (w, max(h - tb.height - box.height, 1))
        else:
            pw = min(self.panel_width, w * 0.45)
            tb.size = (pw, tb.height)
            tb.pos = (x + w - pw, y + h - tb.height)
            box.size = (pw, max(h - tb.height, box.minimum_height))   # the panel's whole height
            box.pos = (x + w - pw, y + h - tb.height - box.height)
            ed.pos = (x, y)
            ed.size = (max(w - pw, 1), h)
        if self.original_label is not None:   # the photo's top-left corner, inside it
            self.original_label.pos = (ed.x + dp(8), ed.top - self.original_label.height - dp(8))


class InpaintApp(App):
    """Object removal on a touch screen: paint a mask, tap Remove, keep editing."""

    title = "Inpaint"
    kv_file = KV_FILE
    #: The keyboard shortcuts, listed in the side panel of a landscape (desktop) window.
    KEYS_HELP = ("Keys: B brush · E eraser · S select · M move · I invert\n"
                 "[ ] brush size · wheel zoom · right-drag pan · F or Ctrl+0 fit\n"
                 "1 or Ctrl+1 100 % · Enter remove · R try again · Esc cancel\n"
                 "hold Tab compare · Ctrl+Z undo · Ctrl+Y redo\n"
                 "Ctrl+O open · Ctrl+S save · Ctrl+Q quit")

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

    def __init__(self, image_path: str | None = None, mask_path: str | None = None,
                 case: str | None = None, state_dir: str | None = None,
                 engine: Callable[..., Any] | None = None, overrides: dict | None = None,
                 catch_errors: bool = True, **kwargs):
        super().__init__(**kwargs)
        self._startup = (image_path, mask_path, case)
        self._state_dir = Path(state_dir) if state_dir else None
        self.engine = engine                  # job factory; None = inpaint.api.start (default method)
        self._overrides = dict(overrides or {})
        self.catch_errors = catch_errors
        self.worker: Worker | None = None
        self.history = History()
        self.photo: storage.Photo | None = None
        self.image: np.ndarray | None = None
        self.original: np.ndarray | None = None
        self.doc_name = ""
        self.job = None
        self.last_result = None
        self.last_removal: Removal | None = None
        self.last_wall_seconds = 0.0
        self._token = 0
        self._popup = None
        self._settings: dict = {}           # other saved state: last photo and folder
        self._saved_image: np.ndarray | None = None   # the working image as last opened or saved
        self._quitting = False              # the user chose to close (Discard, or Save then close)
        self.start_dir = os.getcwd()        # where the app was started: the Open dialog's first folder
        self._saved: dict = {}              # the settings file's changed settings
        self._error_handler = None
        self._told: set[str] = set()        # device notes already told (see _tell_notes)
        self._job_status = ""               # the running job's status, without its dots
        self._phase: str | None = None      # the removal's phase (worker.PHASES) until it fills
        self._phase_started = 0.0
        self._fraction_started = 0.0        # the progress when the time-left clock started

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def state_dir(self) -> Path:
        if self._state_dir is None:
            self._state_dir = Path(self.user_data_dir)
        self._state_dir.mkdir(parents=True, exist_ok=True)
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

    def recent_folders(self) -> list[str]:
        """The folders photos were last opened from or saved to, newest first, that still exist."""
        return [d for d in self._settings.get(settings.RECENT, []) if Path(d).is_dir()]

    def _remember_folder(self, folder: Path) -> None:
        name = str(Path(folder).resolve())
        older = [d for d in self._settings.get(settings.RECENT, []) if d != name]
        self._settings[settings.RECENT] = [name] + older[:settings.MAX_RECENT - 1]

    def get_application_config(self, defaultpath="%(appdir)s/%(appname)s.ini"):
        # Never write an .ini beside the code: Kivy's own config goes with our state.
        return str(self.state_dir / "kivy-app.ini")

    def build(self):
        self.has_seam = devices.seam_available()
        self.can_refine = masktools.grabcut_available()
        self.worker = Worker()
        self._load_settings()
        for key, value in self._overrides.items():
            setattr(self, key, int(value) if key in settings.NUMBERS else str(value))
        root = Factory.Shell()
        self.editor: ImageEditor = root.editor
        self.editor.grow_px = int(self.grow)
        self.bind(grow=self._on_grow)
        self.editor.bind(on_stroke_start=self._on_stroke_start, on_stroke_end=self._on_stroke_end,
                         on_stroke_cancel=self._on_stroke_cancel, on_view_changed=self._update_info,
                         on_tap=self._on_tap)
        Window.bind(on_key_down=self._on_key_down, on_key_up=self._on_key_up, mouse_pos=self._on_mouse_pos,
                    on_drop_file=self._on_drop_file, on_request_close=self._on_request_close)
        return root

    def on_start(self):
        if self.catch_errors:
            self._install_error_handler()
        if platform == "android":
            self._android_permissions()
        Clock.schedule_once(lambda dt: self._open_startup(), 0)

    def on_stop(self):
        if self.job is not None:
            self.job.cancel()
        if self.worker is not None:
            self.worker.shutdown(timeout=2.0)
        self._save_settings()

    def on_pause(self):  # Android: keep the state when switched away
        self._save_settings()
        return True

    # -- unsaved results: ask before closing or replacing the photo ------------------------
    @property
    def unsaved(self) -> bool:
        """Whether the working image differs from the photo as last opened or saved.

        Undo back to the opened photo counts as saved again; mask strokes alone do not count
        (the mask is not part of the photo).
        """
        return self.image is not None and self.image is not self._saved_image

    def confirm_unsaved(self, action: Callable[[], Any], doing: str = "closing",
                        run_now: bool = True) -> bool:
        """Do ``action`` (close the app, open another photo), asking "Save changes?" first when
        the result is not saved.

        The one place that decides whether to ask: closing, Open and a dropped file all come
        here, so they ask alike.

        Parameters
        ----------
        action : callable
            What replaces or closes the photo; called without arguments, at once when nothing
            is unsaved, else after Save (once saved) or Discard, and never after Cancel.
        doing : str
            Ends the question: "Save them before <doing>?".
        run_now : bool
            False: when nothing is unsaved, leave ``action`` to the caller (the window's close
            button closes by itself).

        Returns
        -------
        bool
            Whether the question was asked (``action`` waits for the answer).
        """
        if self._quitting or not self.unsaved:
            if run_now:
                action()
            return False
        self.show_close_question(action, doing)
        return True

    def _on_request_close(self, *_args, **_kwargs) -> bool:
        """The window's close button: ask first when a result is not saved (True keeps the window)."""
        return self.confirm_unsaved(self.quit_now, run_now=False)

    def request_quit(self) -> None:
        """Quit (Ctrl+Q, Android back): at once, or after asking when a result is not saved."""
        self.confirm_unsaved(self.quit_now)

    def quit_now(self) -> None:
        """Close the app without asking (unsaved changes are dropped)."""
        self._quitting = True
        self.dismiss_popup()
        self.stop()

    def show_close_question(self, then: Callable[[], Any] | None = None, doing: str = "closing"):
        """The "Save changes?" question: Save… (then ``then``), Discard (``then`` at once) or
        Cancel (nothing changes).

        Parameters
        ----------
        then : callable, optional
            What to do after Save or Discard; closing the app by default.
        doing : str
            Ends the question: "Save them before <doing>?".

        Returns
        -------
        ClosePopup
        """
        popup = Factory.ClosePopup()
        popup.then = then or self.quit_now
        popup.text = (f"{self.doc_name or 'The photo'} has changes that are not saved. "
                      f"Save them before {doing}?")
        return self._show(popup)

    def discard_and_continue(self, popup) -> None:
        """Discard, in the question: drop the result and do what was asked (close, open)."""
        popup.dismiss(animation=False)
        popup.then()

    def save_and_continue(self, popup):
        """Save…, in the question: the Save dialog, and what was asked (close, open) once the
        photo is saved; nothing more if it is not."""
        save = self.show_save("photo")
        if save is not None:
            save.then = popup.then
        return save

    def _install_error_handler(self):
        from kivy.base import ExceptionHandler, ExceptionManager
        app = self

        class _Handler(ExceptionHandler):
            def handle_exception(self, exc):
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    return ExceptionManager.RAISE
                Logger.exception("Inpaint: unexpected error")
                app.show_message("Something went wrong", f"{type(exc).__name__}: {exc}")
                return ExceptionManager.PASS

        self._error_handler = _Handler()
        ExceptionManager.add_handler(self._error_handler)

    def _android_permissions(self):  # pragma: no cover - Android only
        try:
            from android.permissions import Permission, request_permissions
            request_permissions([Permission.READ_EXTERNAL_STORAGE, Permission.WRITE_EXTERNAL_STORAGE,
                                 getattr(Permission, "READ_MEDIA_IMAGES", Permission.READ_EXTERNAL_STORAGE)])
        except Exception as exc:  # noqa: BLE001 - permissions are a convenience: the app runs without
            Logger.warning(f"Inpaint: storage permissions not requested: {exc}")

    # -- settings -----------------------------------------------------------------------
    def _settings_path(self) -> Path:
        return self.state_dir / "settings.json"

    def _load_settings(self):
        try:
            data = json.loads(self._settings_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self._saved, self._settings = settings.read(data)
        defaults = settings.defaults()
        for key in settings.KEYS:
            setattr(self, key, self._saved.get(key, defaults[key]))

    def settings_to_save(self) -> dict:
        """The settings the user changed from their defaults (see :mod:`mobile_ui.settings`)."""
        return settings.to_save({k: getattr(self, k) for k in settings.KEYS}, self._saved, self._overrides)

    def _save_settings(self):
        state = dict(self._settings)
        if self.photo is not None and self.photo.path is not None:
            state["last_image"] = str(self.photo.path)
            state["last_dir"] = str(self.photo.path.parent)
        try:
            path = self._settings_path()
            tmp = path.with_suffix(".json.part")
            tmp.write_text(json.dumps(settings.document(self.settings_to_save(), state), indent=1), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            Logger.warning(f"Inpaint: settings not saved: {exc}")

    def run_params(self) -> dict:
        """Keyword arguments for the pipeline from the current settings."""
        from inpaint.methods import registry

        method = registry.get(self.method)  # each setting's text parsed by the method's declaration
        params = {"method": self.method}
        params.update({o.name: o.parse(getattr(self, o.name), o.name) for o in settings.tune_options(method)})
        params["backend"] = self.backend
        if self.backend != "numpy":
            params["device"] = None if self.device in ("", devices.AUTO) else self.device.split()[0]
            params["profile"] = self.profile or None
            params["timings"] = False  # the app shows no stage times: skip the profiling queue
        return params

    # -- document -----------------------------------------------------------------------
    def _open_startup(self):
        image_path, mask_path, case = self._startup
        try:
            if image_path:
                self.open_path(image_path, mask_path)
                return
            last = None if case else self._settings.get("last_image")
            if isinstance(last, str) and Path(last).is_absolute() and Path(last).is_file():
                self.open_path(last)
                return
            self.open_sample(case)
            if isinstance(last, str):
                self.status = f"The last photo, {last}, is no longer there: showing the example {self.doc_name}."
        except Exception as exc:  # noqa: BLE001 - any photo that fails to open is a message, not a crash
            self.show_message("Cannot open", str(exc))
            if self.image is None:
                self.open_sample(None)

    def set_document(self, image: np.ndarray, mask: np.ndarray | None, name: str,
                     photo: storage.Photo | None = None) -> None:
        """Replace the whole document (a newly opened photo); clears the history."""
        self.cancel()
        image = frozen(np.ascontiguousarray(image, dtype=np.uint8))
        if mask is None:
            mask = np.zeros(image.shape[:2], dtype=bool)
        self.photo = photo or storage.Photo(image, None)
        self.image = image
        self.original = image
        self._saved_image = image
        self.doc_name = name
        self.history.clear()
        self.last_result = None
        self.last_removal = None
        self.editor.set_document(image, np.array(mask, dtype=bool), None, original=image, refit=True)
        self._history_changed()
        h, w = image.shape[:2]
        self.status = f"{name}: {w}x{h}. Paint over what to remove, then tap Remove."
        self._update_info()

    def open_path(self, path: str, mask_path: str | None = None) -> None:
        """Open the photo at ``path`` with the mask at ``mask_path``; without one, the photo's
        paired mask (``NAME_mask.png`` beside it, the batch command's rule) when there is one."""
        from inpaint.io.naming import paired_file

        photo = storage.load_image(path)
        note = ""
        if mask_path:
            mask = masktools.load_mask(mask_path, photo.pixels.shape[:2])
        else:
            mask = None
            paired = paired_file(photo.path, None)
            if paired.is_file():
                try:
                    mask = masktools.load_mask(paired, photo.pixels.shape[:2])
                    note = f" Started from its mask {paired.name}."
                except (OSError, ValueError) as exc:
                    note = f" Its mask {paired.name} is not used: {exc}"
        self.set_document(photo.pixels, mask, Path(path).name, photo)
        self.status += note
        self._remember_folder(Path(path).parent)
        self._save_settings()

    def open_sample(self, name: str | None = None) -> None:
        image, mask, title = samples.load_sample(name)
        self.set_document(image, mask, title)

    def open_example(self, name: str | None = None) -> bool:
        """Open a bundled example (the Open dialog's Examples), asking first when the result is
        not saved.

        Parameters
        ----------
        name : str or None
            A case name; None for the first example.

        Returns
        -------
        bool
            Whether the question was asked instead of opening at once.
        """
        return self.confirm_unsaved(partial(self.open_sample, name),
                                    "opening the example" + (f" {name}" if name else ""))

    def snapshot(self, label: str = "") -> Snapshot:
        return Snapshot.capture(self.image, self.editor.mask, self.editor.keep, label)

    def _restore(self, snap: Snapshot) -> None:
        self.image = snap.image
        self.editor.set_document(snap.image, snap.mask, snap.keep)

    def _history_changed(self):
        self.can_undo = self.history.can_undo
        self.can_redo = self.history.can_redo
        self.can_try_again = self.last_removal is not None and self.last_removal.showing(self.image)

    def _on_stroke_start(self, _editor):
        self.history.push(self.snapshot("stroke"))
        self._history_changed()

    def _on_stroke_end(self, _editor, changed):
        if not changed:
            self.history.discard_last()
        self._history_changed()
        self._update_info()

    def _on_stroke_cancel(self, _editor):
        self.history.discard_last()
        self._history_changed()

    def undo(self):
        if self.busy:
            return
        snap = self.history.undo(self.snapshot())
        if snap is not None:
            self._restore(snap)
            self.status = f"Undid {snap.label or 'change'}."
        self._history_changed()
        self._update_info()

    def redo(self):
        if self.busy:
            return
        snap = self.history.redo(self.snapshot())
        if snap is not None:
            self._restore(snap)
            self.status = "Redone."
        self._history_changed()
        self._update_info()

    def clear_mask(self):
        if self.busy or self.editor.mask is None or not (self.editor.mask.any() or self.editor.keep.any()):
            return
        self.history.push(self.snapshot("clear"))
        self.editor.mask[...] = False
        self.editor.keep[...] = False
        self.editor.refresh_mask()
        self._history_changed()
        self._update_info()

    def set_tool(self, tool: str):
        self.editor.tool = tool
        if tool == "select":
            what = ("it (its colours, completed to its edges)" if masktools.grabcut_available()
                    else "a region of similar colour")
            self.status = (f"Tap the object to {self.select_mode} {what} "
                           f"(tolerance {int(self.tolerance)}); drag to pan.")

    # -- mask tools ---------------------------------------------------------------------
    def _mask_changed(self, before: Snapshot) -> bool:
        """Record ``before`` in the history if the masks changed; redraw.  Returns whether they did."""
        changed = not np.array_equal(before.mask, self.editor.mask)
        if changed:
            self.history.push(before)
        self.editor.refresh_mask()
        self._history_changed()
        self._update_info()
        return changed

    def _on_grow(self, *_args):
        self.editor.grow_px = int(self.grow)
        self._update_info()

    def removal_mask(self) -> np.ndarray:
        """The mask Remove fills: the painted mask grown by the Grow setting."""
        radius = int(self.grow)
        return masktools.grow(self.editor.mask, radius) if radius > 0 else self.editor.mask.copy()

    def _on_tap(self, _editor, row, col):
        self.select_at(row, col)

    def select_at(self, row: int, col: int) -> bool:
        """Add (or subtract, by :attr:`select_mode`) the object a tap at pixel ``(row, col)``
        selects (:func:`mobile_ui.masktools.tap_select_plausible`), on the worker.

        "Selecting…" shows at once; a tap while a selection (or another job) runs is ignored,
        and the status says so.  A region larger than an object
        (:data:`~mobile_ui.masktools.MAX_REGION` of the photo, even at the lowest tolerance)
        is only applied once the user agrees.  Each applied tap is one undo step.

        Returns
        -------
        bool
            Whether the tap started a selection.
        """
        if self.image is None:
            return False
        if self.busy:
            running = "the last tap is still being selected" if self._job_status == "Selecting" else \
                f"wait until {self._job_status.lower()} is done"
            self.status = f"Tap ignored: {running}."
            return False
        before = self.snapshot("select")
        image, seed, tolerance = self.image, (int(row), int(col)), int(self.tolerance)
        self._begin_job("Selecting…")
        token = self._token
        self.job = self.worker.submit(lambda job: masktools.tap_select_plausible(image, seed, tolerance),
                                      on_done=partial(self._select_done, token, before, tolerance),
                                      on_error=partial(self._job_error, token, "Select failed"),
                                      on_cancel=partial(self._job_cancelled, token))
        return True

    @mainthread
    def _select_done(self, token, before, asked, outcome):
        if token != self._token:
            return
        self._finish_job()
        region, used = outcome
        share = float(region.mean())
        if share > masktools.MAX_REGION:
            popup = Factory.QuestionPopup(
                title="Select this much?",
                text=(f"This tap selects {format_percent(share)} of the photo, more than an object usually "
                      f"covers (even at tolerance {used}). Select it anyway, or cancel and paint the "
                      "object with the Brush?"),
                yes_text="Select it")
            popup.on_yes = partial(self._apply_selection, before, region, used, asked)
            popup.bind(on_dismiss=self._selection_declined)
            self._show(popup)
            self.status = f"The tap selects {format_percent(share)} of the photo: select it anyway?"
            return
        self._apply_selection(before, region, used, asked)

    def _selection_declined(self, popup):
        if not popup.answered:
            self.status = "Not selected: the mask is unchanged."

    def _apply_selection(self, before: Snapshot, region: np.ndarray, used: int, asked: int) -> int:
        """Add or subtract ``region``: one undo step; returns how many mask pixels changed."""
        mask = self.editor.mask
        old = int(mask.sum())
        if self.select_mode == "add":
            mask |= region
        else:
            mask &= ~region
        changed = self._mask_changed(before)
        n = abs(int(mask.sum()) - old)
        verb = "Added" if self.select_mode == "add" else "Removed"
        lowered = (f" Tolerance lowered to {used} for this tap: at {asked} the region was larger than an object."
                   if used != asked else "")
        if not changed:
            self.status = f"Nothing changed: that region ({int(region.sum()):,} px) is already " + \
                ("selected." if self.select_mode == "add" else "unselected.")
            return 0
        self.status = (f"{verb} {n:,} px ({format_percent(region.mean())} of the photo).{lowered} "
                       + ("Tap again to add more" if self.select_mode == "add" else "Tap again to take more away")
                       + (", or Refine the edges." if self.can_refine and self.select_mode == "add" else "."))
        return n

    def toggle_select_mode(self):
        self.select_mode = "subtract" if self.select_mode == "add" else "add"

    def invert_mask(self):
        """Everything not marked becomes marked, and the other way round."""
        if self.busy or self.editor.mask is None:
            return
        before = self.snapshot("invert")
        np.logical_not(self.editor.mask, out=self.editor.mask)
        self._mask_changed(before)
        self.status = "Mask inverted."

    def refine_mask(self):
        """Complete the mask to the object's edges with GrabCut, on the worker (needs OpenCV)."""
        if self.busy or self.image is None:
            return
        if not self.can_refine:
            self.show_message("Refine", "Refining needs OpenCV: pip install opencv-python-headless")
            return
        if not self.editor.mask.any():
            self.show_message("Nothing to refine", "Select or paint part of the object first.")
            return
        before = self.snapshot("refine")
        image, mask = self.image, self.editor.mask.copy()
        self._begin_job("Refining the selection…")
        token = self._token
        self.job = self.worker.submit(lambda job: masktools.refine(image, mask),
                                      on_done=partial(self._refine_done, token, before),
                                      on_error=partial(self._job_error, token, "Refine failed"),
                                      on_cancel=partial(self._job_cancelled, token))

    @mainthread
    def _refine_done(self, token, before, refined):
        if token != self._token:
            return
        self._finish_job()
        added = int(refined.sum()) - int(self.editor.mask.sum())
        self.editor.mask[...] = refined
        self._mask_changed(before)
        self.status = f"Refined: {added} px added along the object's edges."

    def import_mask(self, path: str) -> bool:
        """Replace the mask with a mask file (the command's rule: > 127, or opaque, marks the object)."""
        if self.busy or self.image is None:
            return False
        try:
            mask = masktools.load_mask(path, self.image.shape[:2])
        except (OSError, ValueError) as exc:
            self.show_message("Cannot use that mask", str(exc))
            return False
        before = self.snapshot("import mask")
        self.editor.mask[...] = mask
        self._mask_changed(before)
        self.status = f"Mask from {Path(path).name}: {int(mask.sum())} px."
        return True

    def suggested_mask_path(self) -> str:
        orig = self.photo.path if self.photo is not None else None
        if orig is not None:
            folder = orig.parent if os.access(orig.parent, os.W_OK) else Path(self.default_folder())
            stem = orig.stem
        else:
            folder, stem = Path(self.default_folder()), self.doc_name or "photo"
        candidate, n = folder / f"{stem}_mask.png", 2
        while candidate.exists():
            candidate, n = folder / f"{stem}_mask-{n}.png", n + 1
        return str(candidate)

    def export_mask(self, path: str, overwrite: bool = False) -> Path | None:
        """Save the mask as an 8-bit PNG, 255 on the object (``inpaint IMAGE --mask FILE`` reads it back)."""
        if self.editor.mask is None:
            return None
        orig = self.photo.path if self.photo is not None else None
        try:
            if orig is not None and not overwrite and Path(path).expanduser().resolve() == orig.resolve():
                raise FileExistsError(f"{Path(path).name} is the original photo; choose another name")
            written = masktools.save_mask(self.editor.mask, path, overwrite=overwrite)
        except (OSError, ValueError) as exc:
            self.show_message("Mask not saved", str(exc))
            return None
        grow_note = (f" Remove grows it by {int(self.grow)} px (the command: --grow {int(self.grow)})."
                     if self.grow else "")
        self.status = f"Saved the mask to {written}.{grow_note}"
        return written

    def change_brush(self, factor: float):
        slider_min, slider_max = dp(4), dp(160)
        self.editor.brush_size = float(min(max(self.editor.brush_size * factor, slider_min), slider_max))

    def compare(self, on: bool):
        self.editor.show_original = bool(on) and not self.busy

    def _update_info(self, *_args):
        if self.image is None or self.editor.mask is None:
            return
        h, w = self.image.shape[:2]
        n = int(self.editor.mask.sum())
        grown = f" + grow {int(self.grow)} px" if self.grow else ""
        fitted = " (fit)" if abs(self.editor.zoom - 1.0) < 1e-6 else ""
        self.info = f"{w}x{h} · mask {n} px{grown} · zoom {format_percent(self.editor.scale)}{fitted}"

    # -- remove (inpainting on the worker) -----------------------------------------------
    def _begin_job(self, status: str) -> None:
        self._token += 1
        self.busy = True
        self.progress = 0.0
        self._job_started = time.monotonic()
        self._fraction_started = 0.0
        self._job_status = status.rstrip("…")
        self.editor.painting_enabled = False
        self.editor.show_original = False
        self.status = status

    def remove(self):
        if self.busy or self.image is None:
            return
        if not self.editor.mask.any():
            self.show_message("Nothing to remove", "Paint over the object you want to remove first "
                                                   "(or tap it with Select).")
            return
        params = self._settings_or_say()
        if params is None:
            return
        if self.editor.keep.any():  # the green Protect strokes: never copied into the hole
            params["protect"] = self.editor.keep.copy()
        removal = Removal(self.image, self.removal_mask(), params.get("protect"), self._seed_default())
        self._run_removal(removal, params, self.snapshot("remove"), "Removing…")

    def _settings_or_say(self) -> dict | None:
        """The run's parameters from the settings, or None once a message has said what is wrong."""
        try:
            return self.run_params()
        except ValueError as exc:
            self.show_message("Check the settings", str(exc))
            return None

    def _seed_default(self) -> int | None:
        """The chosen method's default seed; None when it takes none (its fill is always the same)."""
        from inpaint.methods import registry

        method = registry.get(self.method)
        return method.option("seed").default if "seed" in method.names else None

    def try_again(self):
        """Fill the last removal's mask in its input again with the next seed: another fill
        replaces the one shown, as one undo step (Undo brings the previous fill back)."""
        removal = self.last_removal
        if self.busy or removal is None or not removal.showing(self.image):
            return
        params = self._settings_or_say()
        if params is None:
            return
        default = self._seed_default()
        if default is None:
            self.show_message("Always the same fill",
                              f"The {self.method} method has no randomness: it fills the same way every time.",
                              hint="For another fill, choose another method in Settings, or paint the mask "
                                   "differently and Remove again.")
            return
        removal.seed = default if removal.seed is None else (removal.seed + 1) % (MAX_SEED + 1)
        if removal.protect is not None:
            params["protect"] = removal.protect
        params["seed"] = removal.seed  # the first fill took the default: this one is another
        self._run_removal(removal, params, self.snapshot("try again"), "Trying again…")

    def _run_removal(self, removal: Removal, params: dict, before: Snapshot, status: str) -> None:
        """Fill ``removal`` on the worker; on success the fill replaces the picture (one undo step)."""
        self._begin_job(status)
        token = self._token
        self._phase_started = time.monotonic()
        self._phase_text(token, "preparing")
        fn = partial(run_inpaint, image=removal.image, mask=removal.mask, params=params,
                     on_progress=partial(self._job_progress, token), factory=self.engine,
                     on_phase=partial(self._job_phase, token))
        self.job = self.worker.submit(
            fn, on_done=partial(self._remove_done, token, before, removal),
            on_error=partial(self._job_error, token, "Remove failed"),
            on_cancel=partial(self._job_cancelled, token))

    #: A kernel build that ends sooner than this was a cache load: it is not called compiling.
    COMPILE_NOTE_AFTER = 0.3

    def _phase_text(self, token, phase: str, *_args) -> None:
        """The status line of a removal before its fill shows progress (see
        :data:`mobile_ui.worker.PHASES`), with the seconds spent in the phase so far."""
        if token != self._token or not self.busy or getattr(self, "_phase", None) == "filling" \
                and phase != "filling":
            return
        self._phase = phase
        elapsed = time.monotonic() - self._phase_started
        seconds = f" {elapsed:.0f} s" if elapsed >= 1 else ""
        if phase == "preparing":
            h, w = self.image.shape[:2]
            self.status = f"Removing: preparing the fill ({w}x{h}, {w * h / 1e6:.1f} MP)…{seconds}"
        elif phase == "compiling":
            self.status = ("Removing: preparing the device, compiling its kernels (first run on this device "
                           f"only; later runs reuse them)…{seconds}")
        else:
            self._show_progress(self.progress)

    @mainthread
    def _job_phase(self, token, phase: str) -> None:
        if token != self._token or not self.busy:
            return
        if self._phase == "compiling" and self.progress == 0:
            # A build slow enough to be announced compiled the program; a driver that compiles
            # each kernel at its first launch (PoCL) goes on compiling in the fill's first steps,
            # for seconds before any progress: the note stays until the first (_job_progress).
            return
        Clock.unschedule(self._tick_phase)
        self._phase_started = time.monotonic()
        if phase == "filling" and self._phase in ("preparing", "compiling", "compiling-soon") \
                and self.progress == 0:
            self._job_started = self._phase_started   # the time left counts from the fill's start
        if phase == "compiling":   # said only if the build is slow: a cached one takes milliseconds
            self._phase = "compiling-soon"
            Clock.schedule_once(partial(self._compiling, token), self.COMPILE_NOTE_AFTER)
            return
        self._phase_text(token, phase)
        if phase != "filling":
            Clock.schedule_interval(self._tick_phase, 0.5)

    def _compiling(self, token, *_args) -> None:
        if token == self._token and self.busy and self._phase == "compiling-soon":
            self._phase_text(token, "compiling")
            Clock.schedule_interval(self._tick_phase, 0.5)

    def _tick_phase(self, *_args):
        if not self.busy or self._phase not in ("preparing", "compiling"):
            return False
        self._phase_text(self._token, self._phase)

    @mainthread
    def _job_progress(self, token, image, fraction, iterations):
        if token != self._token or not self.busy:
            return
        if self._phase == "compiling":   # the first launches are compiled: the fill shows its own progress
            Clock.unschedule(self._tick_phase)
            self._phase = "filling"
            if self.progress == 0:       # the time left counts from here, at the pace from here
                self._job_started, self._fraction_started = time.monotonic(), fraction
        self.editor.show_pixels(image)
        self.editor._overlay_color.a = 0      # the red mask stays until the live fill replaces it
        self._show_progress(fraction)

    def _show_progress(self, fraction: float) -> None:
        """The progress bar and the status line: percent done and the time left."""
        self.progress = fraction
        base = self._fraction_started     # done before the clock started: not part of the pace
        done = (fraction - base) / (1.0 - base) if base < 1.0 else 0.0
        left = seconds_left(time.monotonic() - self._job_started, done)
        # Until there is a pace to go by, the percentage alone: a large photo's fill spends its
        # first seconds on coarse levels, a small share of the work, and 0.03 % rather than 0 %
        # shows that it moves.
        eta = f" · about {format_seconds(left)} left" if left is not None else ""
        self.status = f"{self._job_status}… {format_percent(fraction)}{eta}"

    @mainthread
    def _remove_done(self, token, before, removal, outcome):
        if token != self._token:
            return
        again = removal is self.last_removal
        result, wall = outcome
        out = np.asarray(result.image)
        if out.shape != self.image.shape or out.dtype != np.uint8:
            self._finish_job()
            self.show_message("Remove failed", f"the pipeline returned {out.dtype} {out.shape}")
            return
        notes = self._job_notes()
        self.last_result = result
        self.history.push(before)
        self.image = frozen(out)
        if not again:  # the painted mask is used up; after Try again it is what the user painted since
            self.last_removal = removal
            self.editor.mask[...] = False
        removal.fills.append(weakref.ref(self.image))
        self.editor.set_document(self.image, self.editor.mask, self.editor.keep)
        self._finish_job()
        self._history_changed()
        self.last_wall_seconds = wall
        filled = int(removal.mask.sum())
        if again:
            done = (f"Filled again in {_duration(wall)} ({filled:,} px, seed {removal.seed}). "
                    "Undo brings the previous fill back.")
        else:
            done = f"Removed in {_duration(wall)} ({filled:,} px filled). Undo takes it back; Save keeps it."
        self._tell_notes(notes, done)
        self._update_info()

    @mainthread
    def _job_error(self, token, title, exc):
        if token != self._token:
            return
        self._finish_job(restore=True)
        message = str(exc) or type(exc).__name__
        self.status = f"{title}: {' '.join(message.split())}"
        details = getattr(exc, "details", None)   # BuildFailure: the driver's build log
        self.show_message(title, message, hint=devices.error_hint(exc),
                          details=str(details) if details else "")

    def _job_notes(self) -> list[str]:
        """The running job's device notes not yet told in this session (each is told once)."""
        notes = [n for n in (self.job.notes if self.job is not None else []) if n not in self._told]
        self._told.update(notes)
        return notes

    def _tell_notes(self, notes: list[str], done: str) -> None:
        """Put ``done`` in the status line, and when the job ran on numpy or another device than
        asked (``notes``), say so there, first (the line is shortened at its end), and in a message."""
        if not notes:
            self.status = done
            return
        if any("numpy" in n for n in notes):   # the other notes name the device used instead
            title, hint = "Ran on numpy", ("To skip OpenCL from now on: open Settings and, under Advanced, "
                                           "set Run on to the processor (numpy); or choose another OpenCL device.")
        else:
            title, hint = "Ran on another device", "Open Settings and, under Advanced, choose the OpenCL device to use."
        self.status = f"{title}. {done} Note: {' '.join(notes)}"
        self.show_message(title, "\n\n".join(notes), hint=hint)

    @mainthread
    def _job_cancelled(self, token):
        if token == self._token:  # normally cancel() has already reset the UI
            self._finish_job(restore=True)

    def _finish_job(self, restore: bool = False):
        Clock.unschedule(self._tick_phase)
        self._phase = None
        self.busy = False
        self.job = None
        self.progress = 0.0
        self.editor.painting_enabled = True
        if restore and self.image is not None:
            self.editor.set_document(self.image, self.editor.mask, self.editor.keep)
        self.editor._upload_overlay()

    def cancel(self):
        """Stop the running job; the document stays exactly as it was."""
        if self.job is None:
            return
        self.job.cancel()
        self._token += 1          # late callbacks of the cancelled job are ignored
        self._finish_job(restore=True)
        self.status = "Cancelled; the image is unchanged."

    # -- resize (seam carving, when inpaint.seam exists) ----------------------------------
    def resize(self, width: int, height: int):
        if self.busy or self.image is None:
            return
        if not self.has_seam:
            self.show_message("Resize", "Seam carving is not available in this build.")
            return
        width, height = int(width), int(height)
        h, w = self.image.shape[:2]
        keep = self.editor.keep.copy() if self.editor.keep.any() else None
        drop = self.editor.mask.copy() if self.editor.mask.any() else None
        if (width, height) == (w, h) and drop is None:
            return
        opts = {"backend": self.backend}
        if self.backend != "numpy":
            params = self.run_params()
            opts.update(device=params.get("device"), profile=params.get("profile"))
        before = self.snapshot("resize")
        self._begin_job(f"Resizing to {width}x{height}…")
        token = self._token
        image = self.image

        def job_fn(job):
            from inpaint.seam import resize

            def progress(*args, **_kw):
                job.check()
                if args and isinstance(args[0], (int, float)):
                    frac = float(args[0]) if len(args) == 1 else float(args[0]) / max(float(args[1]), 1.0)
                    self._resize_progress(token, min(max(frac, 0.0), 1.0))

            start = time.perf_counter()
            out = resize(image, width, height, keep_mask=keep, drop_mask=drop, progress=progress, **opts)
            return out, time.perf_counter() - start

        self.job = self.worker.submit(job_fn, on_done=partial(self._resize_done, token, before),
                                      on_error=partial(self._job_error, token, "Resize failed"),
                                      on_cancel=partial(self._job_cancelled, token))

    @mainthread
    def _resize_progress(self, token, fraction):
        if token == self._token and self.busy:
            self._show_progress(fraction)

    @mainthread
    def _resize_done(self, token, before, outcome):
        if token != self._token:
            return
        out, wall = outcome
        notes = self._job_notes()
        out = getattr(out, "image", out)
        out = np.ascontiguousarray(np.asarray(out, dtype=np.uint8)[..., :3])
        self.history.push(before)
        self.image = frozen(out)
        h, w = out.shape[:2]
        self.editor.set_document(self.image, np.zeros((h, w), bool), np.zeros((h, w), bool))
        self._finish_job()
        self._history_changed()
        self._tell_notes(notes, f"Resized to {w}x{h} in {_duration(wall)}.")
        self._update_info()

    # -- files --------------------------------------------------------------------------
    def default_folder(self) -> str:
        """Where Open starts (and Save suggests for an example): the folder of the photo being
        edited, else the folder the app was started from, else the last photo's folder."""
        if self.photo is not None and self.photo.path is not None and self.photo.path.parent.is_dir():
            return str(self.photo.path.parent)
        if platform != "android" and Path(self.start_dir).is_dir():
            return self.start_dir
        last = self._settings.get("last_dir")
        if isinstance(last, str) and Path(last).is_absolute() and Path(last).is_dir():
            return last
        if platform == "android":  # pragma: no cover - Android only
            try:
                from android.storage import primary_external_storage_path
                return str(Path(primary_external_storage_path()) / "Pictures")
            except Exception:  # noqa: BLE001 - no Android storage: the home folder below
                pass
        pictures = Path.home() / "Pictures"
        return str(pictures if pictures.is_dir() else Path.home())

    def suggested_save_path(self) -> str:
        orig = self.photo.path if self.photo is not None else None
        return str(storage.suggest_save_path(orig, self.default_folder(), self.doc_name or "photo"))

    def save_to(self, path: str, overwrite: bool = False) -> Path | None:
        """Save the working image; returns the written path (a message tells the user)."""
        try:
            written, notes = storage.save_photo(self.image, path, self.photo, overwrite=overwrite)
        except (OSError, ValueError) as exc:
            self.show_message("Not saved", str(exc))
            return None
        self.status = f"Saved {written}" + (f" ({'; '.join(notes)})" if notes else "")
        self._saved_image = self.image
        self._remember_folder(Path(written).parent)
        self._save_settings()
        return written

    def _on_drop_file(self, _window, filename, *_args):
        path = filename.decode("utf-8") if isinstance(filename, bytes) else str(filename)
        self.open_file(path)

    def open_file(self, path: str) -> bool:
        """Open a photo the user chose (Open dialog, typed path, dropped file), asking first when
        the result is not saved; a file that cannot be read is a message.

        Parameters
        ----------
        path : str
            The photo's path.

        Returns
        -------
        bool
            Whether the question was asked instead of opening at once.
        """
        return self.confirm_unsaved(partial(self._open_file_now, path), f"opening {Path(path).name}")

    def _open_file_now(self, path: str) -> None:
        try:
            self.open_path(path)
        except (OSError, ValueError) as exc:
            self.show_message("Cannot open", str(exc))

    # -- popups -------------------------------------------------------------------------
    def _show(self, popup):
        self.dismiss_popup()
        self._popup = popup
        self.popup_open = True
        popup.bind(on_dismiss=self._popup_closed)
        popup.open()
        return popup

    def _popup_closed(self, popup):
        if self._popup is popup:
            self._popup = None
            self.popup_open = False

    def dismiss_popup(self):
        if self._popup is not None:
            self._popup.dismiss(animation=False)

    def show_message(self, title: str, text: str, hint: str = "", details: str = ""):
        """A message with OK; ``hint`` says what to do in the app, and ``details`` (e.g. a driver's
        build log) are behind a Details button.

        Parameters
        ----------
        title, text : str
            The popup's title and message (a long one scrolls inside the popup).
        hint : str, optional
            What the user can change in the app, shown under the message.
        details : str, optional
            A long text shown on request.

        Returns
        -------
        MessagePopup
        """
        return self._show(Factory.MessagePopup(title=title, text=text, hint=hint, details=details))

    def show_open(self):
        popup = Factory.OpenPopup()
        popup.ids.chooser.path = self.default_folder()
        popup.ids.cases.values = samples.case_names() or ["demo"]
        popup.ids.recent.values = self.recent_folders()
        return self._show(popup)

    def open_typed(self, popup, text: str) -> bool:
        """The Open dialog's path field: a folder is browsed, a file is opened.

        A relative path is taken from the folder shown.  Returns whether the text named something.
        """
        chooser = popup.ids.chooser
        path = Path(text.strip()).expanduser()
        if not path.is_absolute():
            path = Path(chooser.path) / path
        if path.is_dir():
            chooser.path = str(path.resolve())
            popup.problem = ""
            return True
        if path.is_file():
            popup.dismiss()
            self.open_file(str(path))
            return True
        popup.problem = f"No such file or folder: {path}"
        return False

    def show_save(self, what: str = "photo"):
        if self.image is None:
            return None
        popup = Factory.SavePopup()
        popup.what = what
        popup.refresh_path()
        return self._show(popup)

    def save_from_popup(self, popup) -> Path | None:
        path, overwrite = str(popup.target()), popup.ids.overwrite.active
        if popup.what == "mask":
            return self.export_mask(path, overwrite)
        written = self.save_to(path, overwrite)
        if written is not None and popup.then is not None:
            popup.then()
        return written

    def show_settings(self):
        choices, why = devices.list_devices()
        self.device_choices = [devices.AUTO] + [c.label for c in choices]
        popup = Factory.SettingsPopup()
        popup.follow(self)
        popup.ids.opencl_note.text = "" if not why else f"OpenCL unavailable, using numpy: {why}"
        popup.profile_values = devices.list_profiles()
        self._devices = choices
        self._show(popup)
        self.update_device_info(popup)
        return popup

    def set_quality(self, name: str) -> None:
        """Apply a Quality choice (:data:`mobile_ui.settings.QUALITY`) to the fill's settings."""
        from inpaint.methods import registry

        values = settings.QUALITY.get(name)
        if values is not None and settings.has_quality(registry.get(self.method)):
            for key, value in values.items():
                setattr(self, key, value)

    def update_device_info(self, popup=None):
        popup = popup or self._popup
        if popup is None or "device_info" not in popup.ids:
            return
        choices = getattr(self, "_devices", [])
        dev = None
        if self.backend != "numpy" and choices:
            spec = self.device.split()[0] if self.device not in ("", devices.AUTO) else None
            match = [c for c in choices if c.spec == spec]
            if match:
                dev = match[0].device
            else:
                try:
                    from inpaint.cl.runtime import select_device
                    dev = select_device(spec)
                except Exception:  # noqa: BLE001 - a device that fails to resolve: show the first
                    dev = choices[0].device
        popup.ids.device_info.text = devices.describe(dev, self.profile)
        self._save_settings()

    def show_resize(self):
        if self.image is None:
            return None
        popup = Factory.ResizePopup()
        h, w = self.image.shape[:2]
        popup.orig_w, popup.orig_h = w, h
        return self._show(popup)

    # -- input --------------------------------------------------------------------------
    def _on_mouse_pos(self, _window, pos):
        if not self.popup_open:
            self.editor.hover(pos)

    def _on_key_up(self, _window, key, *_args):
        if key == TAB:
            self.compare(False)
            return True
        return False

    def _on_key_down(self, _window, key, _scancode, codepoint, modifiers):
        if key == 27:  # Escape / Android back: close a popup, cancel a job
            if self.popup_open:
                self.dismiss_popup()
                return True
            if self.busy:
                self.cancel()
                return True
            if platform == "android":  # pragma: no cover
                self.request_quit()
            return True
        if self.popup_open:
            return False
        ctrl = "ctrl" in modifiers or "meta" in modifiers
        if codepoint == "[":
            self.change_brush(1 / 1.25)
        elif codepoint == "]":
            self.change_brush(1.25)
        elif ctrl and codepoint == "z" and "shift" in modifiers or ctrl and codepoint == "y":
            self.redo()
        elif ctrl and codepoint == "z":
            self.undo()
        elif ctrl and codepoint == "s":
            self.show_save()
        elif ctrl and codepoint == "o":
            self.show_open()
        elif ctrl and codepoint == "q":
            self.request_quit()
        elif not ctrl and codepoint in ("b", "e", "m", "s"):
            self.set_tool({"b": "brush", "e": "eraser", "m": "move", "s": "select"}[codepoint])
        elif not ctrl and codepoint == "i":
            self.invert_mask()
        elif not ctrl and codepoint == "r":   # as IOPaint's R: the last removal again
            self.try_again()
        elif key == TAB and not ctrl:         # held, as IOPaint's Tab: the original shows
            self.compare(True)
        elif codepoint == "f" and not ctrl or codepoint == "0" and ctrl:
            self.editor.fit()
        elif codepoint == "1":
            self.editor.actual_size()
        elif key == 13 and not ctrl:
            self.remove()
        else:
            return False
        return True

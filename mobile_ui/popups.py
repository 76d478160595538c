"""Popup and helper widget classes; their layouts are rules in ``inpaint.kv``."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    OptionProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.filechooser import FileChooserController, FileChooserIconLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup

#: The most of a ``details`` text shown: a driver's build log can run to megabytes, which a text
#: area lays out slowly; its start names the first error.
MAX_DETAILS = 30_000


def clip_details(text: str, limit: int = MAX_DETAILS) -> str:
    """``text`` up to ``limit`` characters, with a last line saying how much was left out.

    Parameters
    ----------
    text : str
        A long text such as a driver's build log.
    limit : int
        The most characters kept.

    Returns
    -------
    str
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit:,} more characters not shown)"


class MessagePopup(Popup):
    """A message with an OK button (errors are shown here, never as a crash).

    The message and the ``hint`` (what to do in the app) scroll inside the box when they are
    too long for it; ``details`` (e.g. a driver's build log) are shown on request, by the Details
    button, in a read-only text area that can be selected and copied.
    """

    text = StringProperty("")
    hint = StringProperty("")
    details = StringProperty("")
    showing_details = BooleanProperty(False)

    def on_showing_details(self, *_args):
        area = self.ids.get("details_text")
        if area is None or not self.showing_details:
            return
        # Filled when shown, and from its start: the device and the first error are at the top
        # (setting the text leaves the view at its end).
        text = clip_details(self.details)
        if area.text != text:
            area.text = text
        area.cursor = (0, 0)


_THUMBS: ThreadPoolExecutor | None = None
_THUMBS_LOCK = threading.Lock()


def _thumb_pool() -> ThreadPoolExecutor:
    """One background thread makes the previews (never the worker: a fill keeps running)."""
    global _THUMBS
    with _THUMBS_LOCK:
        if _THUMBS is None:
            _THUMBS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inpaint-thumbs")
        return _THUMBS


class PhotoThumb(Image):
    """The preview of ``photo`` (made in the background, :func:`mobile_ui.thumbs.thumbnail`);
    until it is ready, or for a file that is not a picture, the widget's own ``source`` (an icon)."""

    photo = StringProperty("")
    #: The preview shown (its cached PNG), or "" while there is none.
    preview = StringProperty("")

    def on_photo(self, *_args):
        self.preview = ""
        app = App.get_running_app()
        if not self.photo or app is None:
            return
        _thumb_pool().submit(self._make, self.photo, app.thumbnail_dir)

    def _make(self, photo: str, cache: Path) -> None:
        from .thumbs import thumbnail

        made = thumbnail(photo, cache)
        if made is not None:
            Clock.schedule_once(lambda _dt: self._show(photo, str(made)), 0)

    def _show(self, photo: str, made: str) -> None:
        if photo == self.photo:
            self.source = made
            self.preview = made


class PhotoIconLayout(FileChooserIconLayout):
    """Kivy's icon layout, its entries showing previews (``PhotoIconEntry`` in ``inpaint.kv``)."""

    _ENTRY_TEMPLATE = "PhotoIconEntry"


class PhotoChooser(FileChooserController):
    """Kivy's icon file chooser (``FileChooserIconView``) with each photo shown as a preview
    (:class:`PhotoThumb`)."""

    _ENTRY_TEMPLATE = "PhotoIconEntry"


class OpenPopup(Popup):
    """Photos as previews (with a path field: type a folder or a file), the recent folders, and
    the bundled example photos."""

    problem = StringProperty("")   # why the typed path was not opened


class SavePopup(Popup):
    """What to save (the photo, or its mask as a PNG), a folder browser, the file name (the
    suggested one first), and 'replace existing file'."""

    what = OptionProperty("photo", options=["photo", "mask"])
    #: Opened from the "Save changes?" question: what to do once the photo is saved (close the
    #: app, open another photo).
    then = ObjectProperty(None, allownone=True)

    def on_what(self, *_args):
        self.refresh_path()

    def refresh_path(self):
        """Suggest a new file name for what is to be saved, in the folder it suggests."""
        app = App.get_running_app()
        if app is not None and "path" in self.ids:
            doc = app.document
            suggested = Path(doc.suggested_mask_path() if self.what == "mask" else doc.suggested_save_path())
            self.ids.folder.path = str(suggested.parent)
            self.ids.path.text = suggested.name

    def target(self) -> Path:
        """Where Save writes: the name in the folder shown (a typed absolute path as it is)."""
        from .storage import user_path

        name = user_path(self.ids.path.text.strip())
        return name if name.is_absolute() else Path(self.ids.folder.path) / name

    def pick(self, selection) -> None:
        """A file tapped in the browser: its name (to replace it, tick the box)."""
        if selection and Path(selection[0]).is_file():
            self.ids.path.text = Path(selection[0]).name


class StatusLabel(Label):
    """The one-line status under the tools: a text too long for it ends in an ellipsis, and a
    tap on it then shows the whole text."""

    def on_touch_down(self, touch):
        if self.collide_point(*touch.pos) and self.is_shortened and not self.disabled:
            touch.ud["status_tap"] = True   # a tap begun here, not a stroke ending over the label
            return True
        return super().on_touch_down(touch)

    def on_touch_up(self, touch):
        if touch.ud.get("status_tap") and self.collide_point(*touch.pos):
            app = App.get_running_app()
            if app is not None:
                app.dialogs.show_message("Status", self.text)
            return True
        return super().on_touch_up(touch)


class ClosePopup(Popup):
    """A result not saved, before closing or opening another photo: Save…, Discard or Cancel."""

    text = StringProperty("")
    #: What was asked for (close the app, open a photo): run after Save or Discard, not after Cancel.
    then = ObjectProperty(None, allownone=True)


class QuestionPopup(Popup):
    """A yes-or-cancel question: ``on_yes`` runs after the yes button, nothing after Cancel."""

    text = StringProperty("")
    yes_text = StringProperty("OK")
    on_yes = ObjectProperty(None, allownone=True)
    answered = BooleanProperty(False)   # the yes button was pressed

    def answer_yes(self):
        self.answered = True
        self.dismiss(animation=False)
        if self.on_yes is not None:
            self.on_yes()


class SettingsPopup(Popup):
    """Fill method and quality; under Advanced, where texture is copied from, the patch size, and
    where the fill runs (backend, device, profile) with the device's limits.  Each option shows
    in words (:mod:`mobile_ui.words`) and keeps its value."""

    profile_values = ListProperty([])   # the profiles' names (the spinner shows them in words)
    has_quality = BooleanProperty(True)  # the method takes the options the Quality choice sets

    def follow(self, app) -> None:
        """Show ``app``'s fill options, rebuilt whenever its method changes."""
        self._app = app
        self._bound: list[tuple[str, int]] = []   # the app's properties the spinners follow
        app.bind(method=self._rebuild)
        self.bind(on_dismiss=self._unfollow)
        self._rebuild()

    def _unfollow(self, *_args) -> None:   # returns None: a true value would keep the popup open
        self._app.unbind(method=self._rebuild)
        self._unbind_app()

    def _unbind_app(self) -> None:
        for name, uid in self._bound:
            self._app.unbind_uid(name, uid)
        self._bound = []

    def _rebuild(self, *_args) -> None:
        """One row per fill option the chosen method declares (:func:`settings.tune_options`):
        its name in words and a spinner of its values in words; ``ids`` names each spinner."""
        from kivy.factory import Factory

        from inpaint.methods import registry

        from . import devices, settings, words

        app, grid = self._app, self.ids.tune
        self._unbind_app()
        for child in grid.children[:]:
            if getattr(child, "option", None) in self.ids:
                del self.ids[child.option]
        grid.clear_widgets()
        method = registry.get(app.method)
        self.has_quality = settings.has_quality(method)
        for option in settings.tune_options(method):
            name = option.name
            current = getattr(app, name)
            values = list(devices.CHOICES.get(name, ())) or list(dict.fromkeys((str(option.default), current)))
            grid.add_widget(Factory.FieldLabel(text=words.TITLES.get(name, name), size_hint_x=0.42))
            spinner = Factory.ChoiceSpinner(values=[words.label(name, v) for v in values],
                                            text=words.label(name, current))
            spinner.option = name
            spinner.bind(text=lambda _s, text, name=name, values=values:
                         setattr(app, name, words.value(name, text, values)))
            uid = app.fbind(name, lambda _a, value, spinner=spinner, name=name:
                            setattr(spinner, "text", words.label(name, value)))
            self._bound.append((name, uid))
            grid.add_widget(spinner)
            self.ids[name] = spinner


#: The Resize dialog's presets: (button text, size as ``inpaint resize --size`` takes it).
RESIZE_PRESETS = (("50%", "50%"), ("75%", "75%"), ("90%", "90%"),
                  ("Narrower 80%", "80%x100%"), ("Shorter 80%", "100%x80%"), ("Wider 120%", "120%x100%"))
#: The most a side may grow, as the command allows without --allow-large.
MAX_ENLARGE = 2


class ResizePopup(Popup):
    """Seam-carving target size: presets and a size field that takes what ``inpaint resize
    --size`` takes (75%, 50%x100%, 640x480!, 640x480, 640, x480)."""

    orig_w = NumericProperty(1)
    orig_h = NumericProperty(1)
    size_text = StringProperty("100%")
    target_w = NumericProperty(0)
    target_h = NumericProperty(0)
    problem = StringProperty("")     # why the size cannot be used; "" when it can

    def on_kv_post(self, _base_widget):
        from kivy.factory import Factory

        for text, size in RESIZE_PRESETS:
            button = Factory.ChoiceButton(text=text, group=f"resize-{id(self)}", allow_no_selection=True)
            button.bind(on_press=lambda _b, size=size: setattr(self, "size_text", size))
            self.ids.presets.add_widget(button)
        self._mark_preset()

    def _mark_preset(self) -> None:
        sizes = dict((text, size) for text, size in RESIZE_PRESETS)
        for button in self.ids.presets.children:
            button.state = "down" if sizes.get(button.text) == self.size_text else "normal"

    def on_size_text(self, *_args):
        self.update_target()
        if "presets" in self.ids:
            self._mark_preset()

    def on_orig_w(self, *_args):
        self.update_target()

    def on_orig_h(self, *_args):
        self.update_target()

    def update_target(self) -> None:
        """Read :attr:`size_text` with the command's rules into :attr:`target_w` and :attr:`target_h`."""
        from inpaint.cli.options import parse_geometry
        from inpaint.errors import InputError

        w0, h0 = int(self.orig_w), int(self.orig_h)
        try:
            tw, th = parse_geometry(self.size_text)(w0, h0)
        except InputError:
            self.problem = "Type a size such as 75%, 50%x100%, 640x480!, 640x480, 640 or x480."
            return
        tw, th = tw or w0, th or h0
        if tw > MAX_ENLARGE * w0 or th > MAX_ENLARGE * h0:
            self.problem = (f"{tw}x{th} is more than twice the photo's size; "
                            f"choose at most {MAX_ENLARGE * w0}x{MAX_ENLARGE * h0}.")
            return
        self.target_w, self.target_h, self.problem = tw, th, ""


class CollapsibleBox(BoxLayout):
    """A box that takes no room, draws nothing and takes no touches while ``shown`` is false.

    (A ``size_hint_x`` of 0 does not do it: BoxLayout reads 0 as "no hint" and keeps the
    last width.)
    """

    shown = BooleanProperty(True)

    def __init__(self, **kwargs):
        self._hint = 1.0
        super().__init__(**kwargs)
        self._apply()

    def on_shown(self, *_args):
        self._apply()

    def _apply(self):
        if self.shown:
            self.size_hint_x = self._hint
            self.opacity = 1
            self.disabled = False
        else:
            if self.size_hint_x is not None:
                self._hint = self.size_hint_x
            self.size_hint_x = None
            self.width = 0
            self.opacity = 0
            self.disabled = True

    def on_touch_down(self, touch):
        return super().on_touch_down(touch) if self.shown else False

    def on_touch_move(self, touch):
        return super().on_touch_move(touch) if self.shown else False

    def on_touch_up(self, touch):
        return super().on_touch_up(touch) if self.shown else False

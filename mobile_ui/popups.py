"""Popup and helper widget classes; their layouts are rules in ``inpaint.kv``."""

from __future__ import annotations

from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, OptionProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
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


class OpenPopup(Popup):
    """File chooser with a path field (shows the folder; type a folder or a file), plus the
    bundled example photos."""

    problem = StringProperty("")   # why the typed path was not opened


class SavePopup(Popup):
    """What to save (the photo, or its mask as a PNG), the destination, and 'replace existing file'."""

    what = OptionProperty("photo", options=["photo", "mask"])
    #: Opened from the "Save changes?" question: what to do once the photo is saved (close the
    #: app, open another photo).
    then = ObjectProperty(None, allownone=True)

    def on_what(self, *_args):
        self.refresh_path()

    def refresh_path(self):
        """Suggest a new file name for what is to be saved."""
        app = App.get_running_app()
        if app is not None and "path" in self.ids:
            self.ids.path.text = app.suggested_mask_path() if self.what == "mask" else app.suggested_save_path()


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
                app.show_message("Status", self.text)
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
    """Search factor, patch size, backend, device, profile, and the device's limits."""


class ResizePopup(Popup):
    """Seam-carving target size."""

    orig_w = NumericProperty(1)
    orig_h = NumericProperty(1)


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

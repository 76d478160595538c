"""The app's popups: messages, Open, Save, Settings, Resize, and "Save changes?" before closing.

One popup shows at a time (:meth:`DialogController.show` closes the one before); the popup
classes and their layout are in :mod:`mobile_ui.popups` and ``inpaint.kv``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.factory import Factory
from kivy.logger import Logger

from . import devices, samples


class DialogController:
    """Opens the app's popups and answers their buttons.

    Parameters
    ----------
    app : InpaintApp
        The app whose ``popup_open`` property tells the kv and the keys a popup is open.
    """

    def __init__(self, app: Any):
        self.app = app
        self.popup = None              # the popup shown, if any
        self.quitting = False          # the user chose to close (Discard, or Save then close)

    def show(self, popup):
        """Show ``popup`` in place of the one shown; returns it."""
        self.dismiss_popup()
        self.popup = popup
        self.app.popup_open = True
        popup.bind(on_dismiss=self._popup_closed)
        popup.open()
        return popup

    def _popup_closed(self, popup):
        if self.popup is popup:
            self.popup = None
            self.app.popup_open = False

    def dismiss_popup(self) -> None:
        if self.popup is not None:
            self.popup.dismiss(animation=False)

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
        return self.show(Factory.MessagePopup(title=title, text=text, hint=hint, details=details))

    def install_error_handler(self):
        """Show an unexpected error as a message instead of closing the app."""
        from kivy.base import ExceptionHandler, ExceptionManager

        dialogs = self

        class _Handler(ExceptionHandler):
            def handle_exception(self, exc):
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    return ExceptionManager.RAISE
                Logger.exception("Inpaint: unexpected error")
                dialogs.show_message("Something went wrong", f"{type(exc).__name__}: {exc}")
                return ExceptionManager.PASS

        ExceptionManager.add_handler(_Handler())

    # -- open and save --------------------------------------------------------------------
    def show_open(self):
        popup = Factory.OpenPopup()
        popup.ids.chooser.path = self.app.document.default_folder()
        popup.ids.cases.values = samples.case_names() or ["demo"]
        popup.ids.recent.values = self.app.prefs.recent_folders()
        return self.show(popup)

    def open_typed(self, popup, text: str) -> bool:
        """The Open dialog's path field: a folder is browsed, a file is opened.

        A relative path is taken from the folder shown.  Returns whether the text named something.
        """
        from .storage import user_path

        chooser = popup.ids.chooser
        typed = [user_path(t) for t in dict.fromkeys((text, text.strip())) if t]  # as typed, then trimmed
        typed = [p if p.is_absolute() else Path(chooser.path) / p for p in typed]
        path = next((p for p in typed if p.exists()), typed[-1] if typed else Path(chooser.path))
        if path.is_dir():
            chooser.path = str(path.resolve())
            popup.problem = ""
            return True
        if path.is_file():
            popup.dismiss()
            self.app.document.open_file(str(path))
            return True
        popup.problem = (f"{path} is not a photo file (a device or a pipe)" if path.exists()
                         else f"No such file or folder: {path}")
        return False

    def browse(self, popup, folder: str) -> None:
        """Show ``folder`` in the Open dialog (a Recent folder); one that is gone is said, not
        shown empty."""
        if Path(folder).is_dir():
            popup.ids.chooser.path = folder
            popup.problem = ""
        else:
            popup.problem = f"{folder} is no longer there"

    def show_save(self, what: str = "photo"):
        if self.app.image is None:
            return None
        popup = Factory.SavePopup()
        popup.what = what
        popup.refresh_path()
        return self.show(popup)

    def save_from_popup(self, popup) -> Path | None:
        path, overwrite = str(popup.target()), popup.ids.overwrite.active
        if popup.what == "mask":
            return self.app.document.export_mask(path, overwrite)
        written = self.app.document.save_to(path, overwrite)
        if written is not None and popup.then is not None:
            popup.then()
        return written

    def show_settings(self):
        app = self.app
        choices, why = devices.list_devices()
        app.device_choices = [devices.AUTO] + [c.label for c in choices]
        popup = Factory.SettingsPopup()
        popup.follow(app)
        popup.ids.opencl_note.text = "" if not why else f"OpenCL unavailable, using numpy: {why}"
        popup.profile_values = devices.list_profiles()
        app.prefs.devices = choices
        self.show(popup)
        app.prefs.update_device_info(popup)
        return popup

    def show_resize(self):
        if self.app.image is None:
            return None
        popup = Factory.ResizePopup()
        h, w = self.app.image.shape[:2]
        popup.orig_w, popup.orig_h = w, h
        return self.show(popup)

    # -- unsaved results: ask before closing or replacing the photo ------------------------
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
        if self.quitting or not self.app.document.unsaved:
            if run_now:
                action()
            return False
        self.show_close_question(action, doing)
        return True

    def on_request_close(self, *_args, **_kwargs) -> bool:
        """The window's close button: ask first when a result is not saved (True keeps the window)."""
        return self.confirm_unsaved(self.quit_now, run_now=False)

    def request_quit(self) -> None:
        """Quit (Ctrl+Q, Android back): at once, or after asking when a result is not saved."""
        self.confirm_unsaved(self.quit_now)

    def quit_now(self) -> None:
        """Close the app without asking (unsaved changes are dropped)."""
        self.quitting = True
        self.dismiss_popup()
        self.app.stop()

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
        popup.text = (f"{self.app.doc_name or 'The photo'} has changes that are not saved. "
                      f"Save them before {doing}?")
        return self.show(popup)

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

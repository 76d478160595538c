"""The keyboard, the mouse pointer and dropped files (a desktop window's input)."""

from __future__ import annotations

from typing import Any

from kivy.utils import platform

TAB = 9        # the key code Kivy gives the Tab key
ESCAPE = 27    # Escape, and Android's back button
ENTER = 13

#: The keyboard shortcuts, listed in the side panel of a landscape (desktop) window.
HELP = ("Keys: B brush · E eraser · S select · M move · I invert\n"
        "[ ] brush size · wheel zoom · right-drag pan · F or Ctrl+0 fit\n"
        "1 or Ctrl+1 100 % · Enter remove · R try again · Esc cancel\n"
        "hold Tab compare · Ctrl+Z undo · Ctrl+Y redo\n"
        "Ctrl+O open · Ctrl+S save · Ctrl+Q quit")

#: Letters that take a tool.
TOOLS = {"b": "brush", "e": "eraser", "m": "move", "s": "select"}


class KeyController:
    """Answers the window's key, mouse and drop events for the app.

    Parameters
    ----------
    app : InpaintApp
        The app whose controllers the keys drive.
    """

    def __init__(self, app: Any):
        self.app = app

    def bind(self, window) -> None:
        """Follow ``window``'s input events (and its close button)."""
        window.bind(on_key_down=self.on_key_down, on_key_up=self.on_key_up, mouse_pos=self.on_mouse_pos,
                    on_drop_file=self.on_drop_file, on_request_close=self.app.dialogs.on_request_close)

    def on_mouse_pos(self, _window, pos):
        if not self.app.popup_open:
            self.app.editor.hover(pos)

    def on_drop_file(self, _window, filename, *_args):
        path = filename.decode("utf-8") if isinstance(filename, bytes) else str(filename)
        self.app.document.open_file(path)

    def on_key_up(self, _window, key, *_args):
        if key == TAB:
            self.app.selection.compare(False)
            return True
        return False

    def on_key_down(self, _window, key, _scancode, codepoint, modifiers):
        app = self.app
        if key == ESCAPE:  # close a popup or the sheet of tools, cancel a job
            if app.popup_open:
                app.dialogs.dismiss_popup()
                return True
            if app.root.portrait and app.root.sheet_open:
                app.root.sheet_open = False
                return True
            if app.busy:
                app.removal.cancel()
                return True
            if platform == "android":  # pragma: no cover
                app.dialogs.request_quit()
            return True
        if app.popup_open:
            return False
        ctrl = "ctrl" in modifiers or "meta" in modifiers
        tools, doc, editor = app.selection, app.document, app.editor
        if codepoint == "[":
            tools.change_brush(1 / 1.25)
        elif codepoint == "]":
            tools.change_brush(1.25)
        elif ctrl and codepoint == "z" and "shift" in modifiers or ctrl and codepoint == "y":
            doc.redo()
        elif ctrl and codepoint == "z":
            doc.undo()
        elif ctrl and codepoint == "s":
            app.dialogs.show_save()
        elif ctrl and codepoint == "o":
            app.dialogs.show_open()
        elif ctrl and codepoint == "q":
            app.dialogs.request_quit()
        elif not ctrl and codepoint in TOOLS:
            tools.set_tool(TOOLS[codepoint])
        elif not ctrl and codepoint == "i":
            tools.invert_mask()
        elif not ctrl and codepoint == "r":   # as IOPaint's R: the last removal again
            app.removal.try_again()
        elif key == TAB and not ctrl:         # held, as IOPaint's Tab: the original shows
            tools.compare(True)
        elif codepoint == "f" and not ctrl or codepoint == "0" and ctrl:
            editor.fit()
        elif codepoint == "1":
            editor.actual_size()
        elif key == ENTER and not ctrl:
            app.removal.remove()
        else:
            return False
        return True

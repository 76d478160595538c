"""The mask tools: the tool in hand, tap Select (add or subtract), Refine, Invert, Clear.

Each change of the mask is one undo step in the app's history; Select and Refine run on
the worker, as the app's other jobs do (:class:`~mobile_ui.removal.RemovalController`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from kivy.clock import mainthread
from kivy.factory import Factory
from kivy.metrics import dp

from inpaint.report import format_percent

from . import masktools
from .history import Snapshot

#: The brush slider's range in the toolbox, in dp.
BRUSH_RANGE = (4, 160)


class SelectionController:
    """Changes the app's mask (the editor's ``mask`` and ``keep``), one undo step a change.

    Parameters
    ----------
    app : InpaintApp
        The app whose editor, history and status the tools use.
    """

    def __init__(self, app: Any):
        self.app = app

    # -- the tool in hand ---------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """Take ``tool`` (brush, eraser, select, protect, move); Select says what a tap does."""
        app = self.app
        app.editor.tool = tool
        if tool == "select":
            what = ("it (its colours, completed to its edges)" if masktools.grabcut_available()
                    else "a region of similar colour")
            app.status = (f"Tap the object to {app.select_mode} {what} "
                          f"(tolerance {int(app.tolerance)}); drag to pan.")

    def change_brush(self, factor: float) -> None:
        """Scale the brush by ``factor``, within the brush slider's range."""
        low, high = (dp(v) for v in BRUSH_RANGE)
        editor = self.app.editor
        editor.brush_size = float(min(max(editor.brush_size * factor, low), high))

    def compare(self, on: bool) -> None:
        """Show the original photo while ``on`` (never while a job runs)."""
        self.app.editor.show_original = bool(on) and not self.app.busy

    def toggle_select_mode(self) -> None:
        self.app.select_mode = "subtract" if self.app.select_mode == "add" else "add"

    def on_grow(self, *_args) -> None:
        self.app.editor.grow_px = int(self.app.grow)
        self.app.document.update_info()

    # -- mask changes ---------------------------------------------------------------------
    def clear_mask(self) -> None:
        """Unmark everything (the mask and the protected strokes)."""
        app, editor = self.app, self.app.editor
        if app.busy or editor.mask is None or not (editor.mask.any() or editor.keep.any()):
            return
        app.history.push(app.document.snapshot("clear"))
        editor.mask[...] = False
        editor.keep[...] = False
        editor.refresh_mask()
        app.document.history_changed()
        app.document.update_info()

    def invert_mask(self) -> None:
        """Everything not marked becomes marked, and the other way round."""
        app = self.app
        if app.busy or app.editor.mask is None:
            return
        before = app.document.snapshot("invert")
        np.logical_not(app.editor.mask, out=app.editor.mask)
        app.document.mask_changed(before)
        app.status = "Mask inverted."

    def on_tap(self, _editor, row, col) -> None:
        self.select_at(row, col)

    def select_at(self, row: int, col: int) -> bool:
        """Add (or subtract, by the app's ``select_mode``) the object a tap at pixel ``(row, col)``
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
        app, jobs = self.app, self.app.removal
        if app.image is None:
            return False
        if app.busy:
            running = "the last tap is still being selected" if jobs.job_status == "Selecting" else \
                f"wait until {jobs.job_status.lower()} is done"
            app.status = f"Tap ignored: {running}."
            return False
        before = app.document.snapshot("select")
        image, seed, tolerance = app.image, (int(row), int(col)), int(app.tolerance)
        jobs.begin_job("Selecting…")
        jobs.submit(lambda job: masktools.tap_select_plausible(image, seed, tolerance),
                    partial(self._select_done, jobs.token, before, tolerance), "Select failed")
        return True

    @mainthread
    def _select_done(self, token, before, asked, outcome):
        app = self.app
        if token != app.removal.token:
            return
        app.removal.finish_job()
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
            app.dialogs.show(popup)
            app.status = f"The tap selects {format_percent(share)} of the photo: select it anyway?"
            return
        self._apply_selection(before, region, used, asked)

    def _selection_declined(self, popup):
        if not popup.answered:
            self.app.status = "Not selected: the mask is unchanged."

    def _apply_selection(self, before: Snapshot, region: np.ndarray, used: int, asked: int) -> int:
        """Add or subtract ``region``: one undo step; returns how many mask pixels changed."""
        app = self.app
        mask, adding = app.editor.mask, app.select_mode == "add"
        old = int(mask.sum())
        if adding:
            mask |= region
        else:
            mask &= ~region
        changed = app.document.mask_changed(before)
        n = abs(int(mask.sum()) - old)
        lowered = (f" Tolerance lowered to {used} for this tap: at {asked} the region was larger than an object."
                   if used != asked else "")
        if not changed:
            app.status = f"Nothing changed: that region ({int(region.sum()):,} px) is already " + \
                ("selected." if adding else "unselected.")
            return 0
        app.status = (f"{'Added' if adding else 'Removed'} {n:,} px ({format_percent(region.mean())} of the "
                      f"photo).{lowered} " + ("Tap again to add more" if adding else "Tap again to take more away")
                      + (", or Refine the edges." if app.can_refine and adding else "."))
        return n

    def refine_mask(self) -> None:
        """Complete the mask to the object's edges with GrabCut, on the worker (needs OpenCV)."""
        app, jobs = self.app, self.app.removal
        if app.busy or app.image is None:
            return
        if not app.can_refine:
            app.dialogs.show_message("Refine", "Refining needs OpenCV: pip install opencv-python-headless")
            return
        if not app.editor.mask.any():
            app.dialogs.show_message("Nothing to refine", "Select or paint part of the object first.")
            return
        before = app.document.snapshot("refine")
        image, mask = app.image, app.editor.mask.copy()
        jobs.begin_job("Refining the selection…")
        jobs.submit(lambda job: masktools.refine(image, mask),
                    partial(self._refine_done, jobs.token, before), "Refine failed")

    @mainthread
    def _refine_done(self, token, before, refined):
        app = self.app
        if token != app.removal.token:
            return
        app.removal.finish_job()
        added = int(refined.sum()) - int(app.editor.mask.sum())
        app.editor.mask[...] = refined
        app.document.mask_changed(before)
        app.status = f"Refined: {added} px added along the object's edges."

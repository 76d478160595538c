"""The mask tools: the tool in hand, Select (a box or a lasso around the object, taps that
add or take away), Refine, Invert, Clear.

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

from inpaint import install_hint
from inpaint.errors import InputError
from inpaint.report import format_percent
from inpaint.select import fallback_note

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
        self._told_fallback = False

    # -- the tool in hand ---------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """Take ``tool`` (brush, eraser, select, protect, move); Select says what a tap does."""
        app = self.app
        app.editor.tool = tool
        if tool == "select":
            verb = "add" if app.select_mode == "add" else "take away"
            app.status = (self._fallback_once() + f"Drag a loop or a box around the object to {verb} it; "
                          "tap to add an object, tap the selection to take part of it away.")

    def _fallback_once(self) -> str:
        """Without OpenCV, the first time: the note that Select uses colours alone, and a space."""
        note = fallback_note()
        if note is None or self._told_fallback:
            return ""
        self._told_fallback = True
        return note.rstrip(".") + ". "

    def change_brush(self, factor: float) -> None:
        """Scale the brush by ``factor``, within the brush slider's range."""
        low, high = (dp(v) for v in BRUSH_RANGE)
        editor = self.app.editor
        editor.brush_size = float(min(max(editor.brush_size * factor, low), high))

    def compare(self, on: bool) -> None:
        """Show the original photo while ``on`` (never while a job runs, nor when a resize gave the
        picture another size than the photo's)."""
        editor = self.app.editor
        resized = (editor.original is not None and editor.image is not None
                   and editor.original.shape != editor.image.shape)
        if on and resized:
            self.app.status = ("Compare shows the photo as opened, which has another size than this resized "
                               "picture: Undo the resize to compare.")
        editor.show_original = bool(on) and not self.app.busy and not resized

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
        if app.editor.keep is not None:  # what is protected stays unmarked: it is kept, not filled
            app.editor.mask &= ~app.editor.keep
        app.document.mask_changed(before)
        app.status = "Mask inverted." + (" The protected pixels stay unmarked."
                                         if app.editor.keep is not None and app.editor.keep.any() else "")

    def on_tap(self, _editor, row, col) -> None:
        self.select_at(row, col)

    def on_gesture(self, _editor, kind, points) -> None:
        self.select_gesture(kind, points)

    def _ignored(self, what: str) -> bool:
        """Whether a job runs (then the status says ``what`` was ignored)."""
        app, jobs = self.app, self.app.removal
        if not app.busy:
            return False
        running = "the last selection is still being made" if jobs.job_status == "Selecting" else \
            f"wait until {jobs.job_status.lower()} is done"
        app.status = f"{what} ignored: {running}."
        return True

    def select_at(self, row: int, col: int) -> bool:
        """The selection after a tap at pixel ``(row, col)``, on the worker
        (:func:`mobile_ui.masktools.select_tap`): a tap outside the mask adds the object under it,
        a tap on the mask takes the part of its colour away.  With Subtract on, a tap outside
        the mask changes nothing (the status says so).

        "Selecting…" shows at once; a tap while a selection (or another job) runs is ignored,
        and the status says so.  A tap that adds more than an object
        (:data:`~mobile_ui.masktools.MAX_REGION` of the photo, even at the lowest tolerance)
        is only applied once the user agrees.  Each applied tap is one undo step.

        Returns
        -------
        bool
            Whether the tap started a selection.
        """
        app, jobs = self.app, self.app.removal
        if app.image is None or self._ignored("Tap"):
            return False
        seed = (int(row), int(col))
        if app.select_mode == "subtract" and not app.editor.mask[seed]:
            app.status = "Nothing changed: with Subtract, tap the selection to take part of it away."
            return False
        before = app.document.snapshot("select")
        image, tolerance, selection = app.image, int(app.tolerance), app.editor.mask.copy()
        jobs.begin_job("Selecting…")
        jobs.submit(lambda job: masktools.select_tap(image, seed, tolerance, selection),
                    partial(self._select_done, jobs.token, before, tolerance, selection), "Select failed")
        return True

    def select_gesture(self, kind: str, points: list[tuple[float, float]]) -> bool:
        """Add (or take away, with Subtract) the object a ``"box"`` or ``"lasso"`` gesture
        outlines (:func:`mobile_ui.masktools.select_gesture`), on the worker, as one undo step.

        A gesture that misses the photo, or holds no object, leaves the mask as it was and
        says why in the status line.

        Returns
        -------
        bool
            Whether the gesture started a selection.
        """
        app, jobs = self.app, self.app.removal
        if app.image is None or self._ignored("Box" if kind == "box" else "Loop"):
            return False
        before = app.document.snapshot("select")
        image, points = app.image, [(float(u), float(v)) for u, v in points]

        def work(job):
            try:
                return masktools.select_gesture(image, kind, points)
            except InputError as exc:   # a gesture beside the photo: said, not an error box
                return str(exc)

        jobs.begin_job("Selecting…")
        jobs.submit(work, partial(self._gesture_done, jobs.token, before, kind), "Select failed")
        return True

    @mainthread
    def _gesture_done(self, token, before, kind, outcome):
        app = self.app
        if token != app.removal.token:
            return
        app.removal.finish_job()
        shape = "box" if kind == "box" else "loop"
        if isinstance(outcome, str):
            app.status = f"Not selected: {outcome}."
            return
        if not outcome.any():
            app.status = (f"Not selected: nothing inside the {shape} stands out from around it; "
                          "draw it closer to the object.")
            return
        mask = app.editor.mask
        after = (mask | outcome) if app.select_mode == "add" else (mask & ~outcome)
        self._apply_selection(before, after, f" inside the {shape}")

    @mainthread
    def _select_done(self, token, before, asked, selection, outcome):
        app = self.app
        if token != app.removal.token:
            return
        app.removal.finish_job()
        after, used = outcome
        share = float((after & ~selection).mean())
        if share > masktools.MAX_REGION:
            popup = Factory.QuestionPopup(
                title="Select this much?",
                text=(f"This tap selects {format_percent(share)} of the photo, more than an object usually "
                      f"covers (even at tolerance {used}). Select it anyway, or cancel and drag a box "
                      "or a loop around the object?"),
                yes_text="Select it")
            popup.on_yes = partial(self._apply_selection, before, after)
            popup.bind(on_dismiss=self._selection_declined)
            app.dialogs.show(popup)
            app.status = f"The tap selects {format_percent(share)} of the photo: select it anyway?"
            return
        lowered = (f" Tolerance lowered to {used} for this tap: at {asked} the region was larger than an object."
                   if used != asked else "")
        self._apply_selection(before, after, "", lowered)

    def _selection_declined(self, popup):
        if not popup.answered:
            self.app.status = "Not selected: the mask is unchanged."

    def _apply_selection(self, before: Snapshot, after: np.ndarray, where: str = "", note: str = "") -> int:
        """Make ``after`` the mask: one undo step; returns how many mask pixels changed (none where
        the photo is no longer the one selected in: a question answered after another was opened)."""
        app = self.app
        if before.image is not app.image:
            return 0
        mask = app.editor.mask
        added, removed = int((after & ~mask).sum()), int((mask & ~after).sum())
        mask[...] = after
        tell = self._fallback_once()
        if not app.document.mask_changed(before):
            app.status = tell + f"Nothing changed: what you selected{where} is already " + \
                ("selected." if app.select_mode == "add" else "unselected.")
            return 0
        what = f"Added {added:,} px" if added >= removed else f"Removed {removed:,} px"
        more = ", or Refine the edges." if app.can_refine and added >= removed else "."
        app.status = (tell + f"{what}{where} (the mask is {format_percent(mask.mean())} of the photo).{note} "
                      f"Tap to add or take away{more}")
        return added + removed

    def refine_mask(self) -> None:
        """Complete the mask to the object's edges with GrabCut, on the worker (needs OpenCV)."""
        app, jobs = self.app, self.app.removal
        if app.busy or app.image is None:
            return
        if not app.can_refine:
            app.dialogs.show_message("Refine", f"Refining needs OpenCV: {install_hint('app')}")
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

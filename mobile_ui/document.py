"""The document and its history: open, undo and redo, save the photo, import and export the mask.

The document is the app's ``image`` (read-only working image), the editor's ``mask`` and
``keep`` (painted in place) and ``original`` (as opened, for compare).  Every change goes
through the app's :class:`~mobile_ui.history.History`.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from kivy.utils import platform

from inpaint.io.naming import MASK_SUFFIX
from inpaint.report import format_percent

from . import masktools, samples, storage
from .history import Snapshot, frozen


class DocumentController:
    """Opens, changes (undo, redo) and saves the app's document.

    Parameters
    ----------
    app : InpaintApp
        The app that holds the document (``image``, ``original``, ``photo``, ``history``).
    """

    def __init__(self, app: Any):
        self.app = app
        self.saved_image: np.ndarray | None = None   # the working image as last opened or saved

    @property
    def unsaved(self) -> bool:
        """Whether the working image differs from the photo as last opened or saved.

        Undo back to the opened photo counts as saved again; mask strokes alone do not count
        (the mask is not part of the photo).
        """
        return self.app.image is not None and self.app.image is not self.saved_image

    # -- open -----------------------------------------------------------------------------
    def open_startup(self) -> None:
        """Open what the app was started with: a photo, else the last photo, else an example."""
        app = self.app
        image_path, mask_path, case = app.startup
        try:
            if image_path:
                self.open_path(image_path, mask_path)
                return
            last = None if case else app.prefs.state.get("last_image")
            if isinstance(last, str) and Path(last).is_absolute() and Path(last).is_file():
                self.open_path(last)
                return
            self.open_sample(case)
            if isinstance(last, str):
                app.status = f"The last photo, {last}, is no longer there: showing the example {app.doc_name}."
        except Exception as exc:  # noqa: BLE001 - any photo that fails to open is a message, not a crash
            if app.image is None:
                self.open_sample(None)
            app.dialogs.show_message("Cannot open", str(exc))

    def set_document(self, image: np.ndarray, mask: np.ndarray | None, name: str,
                     photo: storage.Photo | None = None) -> None:
        """Replace the whole document (a newly opened photo); clears the history."""
        app = self.app
        app.removal.cancel()
        app.dialogs.dismiss_popup()  # a question about the photo before (Select this much?, Save) is moot
        image = frozen(np.ascontiguousarray(image, dtype=np.uint8))
        if mask is None:
            mask = np.zeros(image.shape[:2], dtype=bool)
        app.photo = photo or storage.Photo(image, None)
        app.image = image
        app.original = image
        self.saved_image = image
        app.doc_name = name
        app.history.clear()
        app.last_result = None
        app.last_removal = None
        app.editor.set_document(image, np.array(mask, dtype=bool), None, original=image, refit=True)
        self.history_changed()
        h, w = image.shape[:2]
        app.status = f"{name}: {w}x{h}. Paint over what to remove, then tap Remove."
        self.update_info()

    def open_path(self, path: str, mask_path: str | None = None) -> None:
        """Open the photo at ``path`` with the mask at ``mask_path``; without one, the photo's
        paired mask (``NAME_mask.png`` beside it, the batch command's rule) when there is one."""
        from inpaint.io.naming import paired_file

        photo = storage.load_image(path)
        note, refused = "", None
        mask = None
        if mask_path:  # the mask asked for; one that cannot be used leaves the photo open without it
            try:
                mask = masktools.load_mask(mask_path, photo.pixels.shape[:2])
            except (OSError, ValueError) as exc:
                refused = str(exc)
        else:
            try:
                paired = paired_file(photo.path, None)
                if not paired.is_file():
                    paired = None
            except OSError:  # its name would be too long for the file system: no paired mask
                paired = None
            if paired is not None:
                try:
                    mask = masktools.load_mask(paired, photo.pixels.shape[:2])
                    note = f" Started from its mask {paired.name}."
                except (OSError, ValueError) as exc:
                    note = f" Its mask {paired.name} is not used: {exc}"
        self.set_document(photo.pixels, mask, Path(path).name, photo)
        if photo.flattened:
            note += f" Its {' and '.join(photo.flattened)} will not be saved: the app edits 8-bit colour."
        self.app.status += note
        if refused is not None:
            self.app.dialogs.show_message("Mask not used", f"{photo.path.name} is open without the mask: {refused}")
        self.app.prefs.remember_folder(Path(path).parent)
        self.app.prefs.save()

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
        return self.app.dialogs.confirm_unsaved(partial(self.open_sample, name),
                                                "opening the example" + (f" {name}" if name else ""))

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
        return self.app.dialogs.confirm_unsaved(partial(self._open_file_now, path), f"opening {Path(path).name}")

    def _open_file_now(self, path: str) -> None:
        try:
            self.open_path(path)
        except (OSError, ValueError) as exc:
            self.app.dialogs.show_message("Cannot open", str(exc))

    # -- history --------------------------------------------------------------------------
    def snapshot(self, label: str = "") -> Snapshot:
        editor = self.app.editor
        return Snapshot.capture(self.app.image, editor.mask, editor.keep, label)

    def _restore(self, snap: Snapshot) -> None:
        self.app.image = snap.image
        self.app.editor.set_document(snap.image, snap.mask, snap.keep)

    def history_changed(self) -> None:
        """Update Undo, Redo and Try again to the history and the picture shown."""
        app = self.app
        app.can_undo = app.history.can_undo
        app.can_redo = app.history.can_redo
        app.can_try_again = app.last_removal is not None and app.last_removal.showing(app.image)

    def on_stroke_start(self, _editor) -> None:
        self.app.history.push(self.snapshot("stroke"))
        self.history_changed()

    def on_stroke_end(self, _editor, changed) -> None:
        if not changed:
            self.app.history.discard_last()
        self.history_changed()
        self.update_info()

    def on_stroke_cancel(self, _editor) -> None:
        self.app.history.discard_last()
        self.history_changed()

    def undo(self) -> None:
        self._step(self.app.history.undo, lambda snap: f"Undid {snap.label or 'change'}.")

    def redo(self) -> None:
        self._step(self.app.history.redo, lambda snap: f"Redid {snap.label or 'change'}.")

    def _step(self, step, said) -> None:
        app = self.app
        if app.busy:
            return
        snap = step(self.snapshot())
        if snap is not None:
            self._restore(snap)
            app.status = said(snap)
        self.history_changed()
        self.update_info()

    def mask_changed(self, before: Snapshot) -> bool:
        """Record ``before`` in the history if the masks changed; redraw.  Returns whether they did."""
        changed = not np.array_equal(before.mask, self.app.editor.mask)
        if changed:
            self.app.history.push(before)
        self.app.editor.refresh_mask()
        self.history_changed()
        self.update_info()
        return changed

    def update_info(self, *_args) -> None:
        """The info line: the photo's size, the mask's pixels, Grow and the zoom."""
        app = self.app
        if app.image is None or app.editor.mask is None:
            return
        h, w = app.image.shape[:2]
        n = int(app.editor.mask.sum())
        grown = f" + grow {int(app.grow)} px" if app.grow else ""
        fitted = " (fit)" if abs(app.editor.zoom - 1.0) < 1e-6 else ""
        app.info = f"{w}x{h} · mask {n} px{grown} · zoom {format_percent(app.editor.scale)}{fitted}"

    # -- files ------------------------------------------------------------------------------
    def default_folder(self, writable: bool = False) -> str:
        """Where Open starts (and Save suggests for an example): the folder of the photo being
        edited, else the folder the app was started from, else the last photo's folder; with
        ``writable``, the first of them (then Pictures, then home) that the app may write to."""
        app = self.app
        candidates = []
        if app.photo is not None and app.photo.path is not None:
            candidates.append(app.photo.path.parent)
        if platform != "android":
            candidates.append(Path(app.start_dir))
        last = app.prefs.state.get("last_dir")
        if isinstance(last, str) and Path(last).is_absolute():
            candidates.append(Path(last))
        if platform == "android":  # pragma: no cover - Android only
            try:
                from android.storage import primary_external_storage_path
                candidates.append(Path(primary_external_storage_path()) / "Pictures")
            except Exception:  # noqa: BLE001 - no Android storage: the home folder below
                pass
        candidates += [Path.home() / "Pictures", Path.home()]
        for folder in candidates:
            if folder.is_dir() and (not writable or os.access(folder, os.W_OK)):
                return str(folder)
        return str(Path.home())

    def _original_path(self) -> Path | None:
        return self.app.photo.path if self.app.photo is not None else None

    def suggested_save_path(self) -> str:
        return str(storage.suggest_save_path(self._original_path(), self.default_folder(writable=True),
                                             self.app.doc_name or "photo"))

    def save_to(self, path: str, overwrite: bool = False) -> Path | None:
        """Save the working image; returns the written path (a message tells the user)."""
        app = self.app
        try:
            written, notes = storage.save_photo(app.image, path, app.photo, overwrite=overwrite)
        except (OSError, ValueError) as exc:
            app.dialogs.show_message("Not saved", _not_written(exc, path))
            return None
        app.status = f"Saved {written}" + (f" ({'; '.join(notes)})" if notes else "")
        self.saved_image = app.image
        app.prefs.remember_folder(Path(written).parent)
        app.prefs.save()
        return written

    def import_mask(self, path: str) -> bool:
        """Replace the mask with a mask file (the command's rule: > 127, or opaque, marks the object)."""
        app = self.app
        if app.busy or app.image is None:
            return False
        try:
            mask = masktools.load_mask(path, app.image.shape[:2])
        except (OSError, ValueError) as exc:
            app.dialogs.show_message("Cannot use that mask", str(exc))
            return False
        before = self.snapshot("import mask")
        app.editor.mask[...] = mask
        self.mask_changed(before)
        app.status = f"Mask from {Path(path).name}: {int(mask.sum())} px."
        return True

    def suggested_mask_path(self) -> str:
        orig = self._original_path()
        folder = Path(self.default_folder(writable=True))
        stem = orig.stem if orig is not None else self.app.doc_name or "photo"
        return str(storage.free_path(folder, stem, MASK_SUFFIX, ".png"))

    def export_mask(self, path: str, overwrite: bool = False) -> Path | None:
        """Save the mask as an 8-bit PNG, 255 on the object (``inpaint IMAGE --mask FILE`` reads it back)."""
        app = self.app
        if app.editor.mask is None:
            return None
        orig = self._original_path()
        try:
            if orig is not None and not overwrite and storage.user_path(path).resolve() == orig.resolve():
                raise FileExistsError(f"{Path(path).name} is the original photo; choose another name")
            written = masktools.save_mask(app.editor.mask, path, overwrite=overwrite)
        except (OSError, ValueError) as exc:
            app.dialogs.show_message("Mask not saved", _not_written(exc, path))
            return None
        grow_note = (f" Remove grows it by {int(app.grow)} px (the command: --grow {int(app.grow)})."
                     if app.grow else "")
        app.status = f"Saved the mask to {written}.{grow_note}"
        return written


def _not_written(exc: Exception, path: str) -> str:
    """Why a save failed, in the app's words: the system's reason for the file asked for, without
    its error number or the name of the temporary file the write went through."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"Cannot write {Path(path).name}: {exc.strerror}."
    return str(exc)

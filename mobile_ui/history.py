"""Bounded undo/redo of the editor's document (image + masks), window-free.

A :class:`Snapshot` is immutable: images are read-only arrays shared between snapshots
(a stroke only changes the mask, so the image is stored once however many strokes
follow), masks are stored bit-packed (8 pixels per byte).  :class:`History` keeps
undo and redo stacks within a memory budget, dropping the oldest steps first.
"""

from __future__ import annotations

import dataclasses

import numpy as np


def frozen(array: np.ndarray) -> np.ndarray:
    """``array`` itself when already read-only, else a read-only copy."""
    if not array.flags.writeable:
        return array
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


@dataclasses.dataclass(frozen=True, eq=False)
class Snapshot:
    """The document at one point in time."""

    image: np.ndarray          # (H, W, 3) uint8, read-only
    mask_bits: np.ndarray      # packed (H, W) bool: the object to remove
    keep_bits: np.ndarray      # packed (H, W) bool: protected (not carved, not a fill source)
    label: str = ""

    @classmethod
    def capture(cls, image: np.ndarray, mask: np.ndarray, keep: np.ndarray | None = None,
                label: str = "") -> Snapshot:
        if keep is None:
            keep = np.zeros(mask.shape, dtype=bool)
        if mask.shape != image.shape[:2] or keep.shape != image.shape[:2]:
            raise ValueError(f"mask shapes {mask.shape}/{keep.shape} do not match image {image.shape[:2]}")
        return cls(frozen(image), np.packbits(mask, axis=None), np.packbits(keep, axis=None), label)

    @property
    def shape(self) -> tuple[int, int]:
        return self.image.shape[0], self.image.shape[1]

    def _unpack(self, bits: np.ndarray) -> np.ndarray:
        h, w = self.shape
        return np.unpackbits(bits, count=h * w).reshape(h, w).astype(bool)

    @property
    def mask(self) -> np.ndarray:
        """A fresh writable copy of the removal mask."""
        return self._unpack(self.mask_bits)

    @property
    def keep(self) -> np.ndarray:
        """A fresh writable copy of the protect mask."""
        return self._unpack(self.keep_bits)


class History:
    """Undo and redo stacks of :class:`Snapshot` within ``max_bytes`` and ``max_steps``.

    Usage: call :meth:`push` with the state *before* a change; :meth:`undo` and
    :meth:`redo` take the *current* state and return the one to restore.
    """

    def __init__(self, max_bytes: int = 256 * 2**20, max_steps: int = 100):
        if max_bytes <= 0 or max_steps <= 0:
            raise ValueError("max_bytes and max_steps must be positive")
        self.max_bytes = int(max_bytes)
        self.max_steps = int(max_steps)
        self._undo: list[Snapshot] = []
        self._redo: list[Snapshot] = []

    def __len__(self) -> int:
        return len(self._undo)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def nbytes(self) -> int:
        """Memory held by both stacks, counting each shared image once."""
        seen: set[int] = set()
        total = 0
        for snap in self._undo + self._redo:
            total += snap.mask_bits.nbytes + snap.keep_bits.nbytes
            if id(snap.image) not in seen:
                seen.add(id(snap.image))
                total += snap.image.nbytes
        return total

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()

    def push(self, before: Snapshot) -> None:
        """Record the state before a change; clears the redo stack; trims the oldest steps."""
        self._undo.append(before)
        self._redo.clear()
        self._trim()

    def discard_last(self) -> Snapshot | None:
        """Forget the most recent :meth:`push` (a change that turned out to change nothing)."""
        return self._undo.pop() if self._undo else None

    def undo(self, current: Snapshot) -> Snapshot | None:
        """The state to restore, or ``None`` when there is nothing to undo.  ``current`` goes to
        the redo stack under the undone change's label (a redo redoes that change)."""
        if not self._undo:
            return None
        back = self._undo.pop()
        self._redo.append(dataclasses.replace(current, label=back.label))
        return back

    def redo(self, current: Snapshot) -> Snapshot | None:
        """The state to restore, or ``None`` when there is nothing to redo; ``current`` goes back
        to the undo stack under the redone change's label."""
        if not self._redo:
            return None
        forward = self._redo.pop()
        self._undo.append(dataclasses.replace(current, label=forward.label))
        return forward

    def _trim(self) -> None:
        # Keep at least the newest step, even when it alone exceeds the budget.
        while len(self._undo) > self.max_steps:
            self._undo.pop(0)
        while len(self._undo) > 1 and self.nbytes > self.max_bytes:
            self._undo.pop(0)

"""The paper's test set (Table 3): WalkingMan, River, DivingMan and Hill.

Each case lives in ``datasets/<name>/`` as ``image.png`` (the photo with the object),
``mask.png`` (255 on the object to remove), ``truth.png`` (the same photo without the
object) and ``manifest.json`` (sizes, object bounding box, sha256 of every PNG).  The
folder is found through :func:`inpaint.resources.data_dir`, so the installed package and
a source checkout behave the same.  ``datasets/SOURCES.md`` credits the photographs.

Examples
--------
>>> from inpaint.io.cases import case_names, load_case
>>> case_names()
['walkingman', 'river', 'divingman', 'hill']
>>> case = load_case("WalkingMan")
>>> case.image.shape, case.mask.dtype
((384, 512, 3), dtype('bool'))
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ..errors import CaseDataError
from ..resources import data_dir

__all__ = ["Case", "CaseDataError", "case_names", "load_case"]

_FILES = ("image.png", "mask.png", "truth.png")


@dataclass(frozen=True)
class Case:
    """One test case of the paper's evaluation.

    Attributes
    ----------
    name : str
        Lower-case case name (``'walkingman'``, ``'river'``, ``'divingman'``, ``'hill'``).
    image : numpy.ndarray
        (H, W, 3) uint8 RGB photograph with the object to remove.
    mask : numpy.ndarray
        (H, W) bool, True on the object (the target region).
    truth : numpy.ndarray
        (H, W, 3) uint8 RGB photograph without the object; equals ``image`` outside
        ``mask``.
    manifest : dict
        The parsed ``manifest.json`` (``width``, ``height``, ``object_bbox``,
        ``mask_pixels``, ``sha256``, ``description``...).
    paths : dict of str to pathlib.Path
        ``'image'``, ``'mask'``, ``'truth'`` and ``'manifest'`` file paths.
    """

    name: str
    image: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    manifest: dict[str, Any] = field(repr=False)
    paths: dict[str, Path] = field(repr=False)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the case."""
        return int(self.image.shape[1]), int(self.image.shape[0])

    @property
    def bbox(self) -> tuple[int, int, int, int]:
        """Object bounding box ``(x, y, w, h)`` from the manifest."""
        b = self.manifest["object_bbox"]
        return int(b["x"]), int(b["y"]), int(b["w"]), int(b["h"])


def _root() -> Path:
    return data_dir("datasets")


def case_names() -> list[str]:
    """Return the case names in the paper's order.

    Returns
    -------
    list of str
        ``['walkingman', 'river', 'divingman', 'hill']`` as listed by
        ``datasets/index.json``.

    Raises
    ------
    CaseDataError
        If ``index.json`` is missing or unreadable.
    """
    path = _root() / "index.json"
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        return [str(n) for n in index["cases"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CaseDataError(f"cannot read the test-set index {path}: {exc}") from None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_png(path: Path, mode: str) -> np.ndarray:
    try:
        with Image.open(path) as img:
            if img.mode != mode:
                raise CaseDataError(f"{path} is mode {img.mode}, expected {mode}")
            return np.asarray(img, dtype=np.uint8).copy()
    except OSError as exc:
        raise CaseDataError(f"cannot decode {path}: {exc}") from None


def load_case(name: str, *, verify: bool = True) -> Case:
    """Load one test case by name.

    Parameters
    ----------
    name : str
        Case name, case-insensitive (``'WalkingMan'`` works).
    verify : bool, default True
        Check each PNG against the sha256 recorded in the manifest.

    Returns
    -------
    Case
        The images, mask, manifest and file paths.

    Raises
    ------
    ValueError
        If ``name`` is not a case; the message lists the valid names.
    CaseDataError
        If a file is missing, corrupt (checksum mismatch, undecodable) or disagrees with
        the manifest (size, mask pixel count).
    """
    names = case_names()
    key = str(name).strip().lower()
    if key not in names:
        raise ValueError(f"unknown test case {name!r}; valid names: {', '.join(names)}")
    folder = _root() / key
    paths = {f.split(".")[0]: folder / f for f in _FILES}
    paths["manifest"] = folder / "manifest.json"
    try:
        manifest = json.loads(paths["manifest"].read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CaseDataError(f"cannot read {paths['manifest']}: {exc}") from None
    sums = manifest.get("sha256", {})
    for fname in _FILES:
        path = folder / fname
        if not path.is_file():
            raise CaseDataError(f"test-set file {path} is missing; reinstall the package")
        if verify:
            expected = sums.get(fname)
            actual = _sha256(path)
            if expected != actual:
                raise CaseDataError(
                    f"test-set file {path} is corrupt: sha256 {actual}, manifest says "
                    f"{expected}; restore it from the repository or reinstall"
                )
    image = _read_png(paths["image"], "RGB")
    truth = _read_png(paths["truth"], "RGB")
    mask = _read_png(paths["mask"], "L") > 127
    shape = (int(manifest["height"]), int(manifest["width"]))
    for label, arr in (("image", image), ("truth", truth), ("mask", mask)):
        if arr.shape[:2] != shape:
            raise CaseDataError(
                f"{paths[label]} is {arr.shape[1]}x{arr.shape[0]}, manifest says "
                f"{shape[1]}x{shape[0]}"
            )
    if int(mask.sum()) != int(manifest["mask_pixels"]):
        raise CaseDataError(
            f"{paths['mask']} has {int(mask.sum())} mask pixels, manifest says "
            f"{manifest['mask_pixels']}"
        )
    for arr in (image, truth, mask):
        arr.setflags(write=False)
    return Case(name=key, image=image, mask=mask, truth=truth, manifest=manifest, paths=paths)

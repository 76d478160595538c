"""Opening and saving photos (Pillow), window-free.

* :func:`load_image` returns upright RGB pixels (EXIF orientation applied) and keeps the
  EXIF block (with the orientation reset) and ICC profile so a save can carry them over.
* :func:`save_image` writes PNG or JPEG atomically (temporary file in the same folder,
  then :func:`os.replace`), and refuses to replace an existing file, above all the
  original, unless ``overwrite=True``.
* :func:`save_photo` saves an opened photo: a JPEG saved as JPEG keeps the DCT blocks of every
  pixel unchanged since it was opened.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from inpaint.io import same_file as _same_file
from inpaint.io.naming import REMOVED_SUFFIX, free_name
from inpaint.io.previews import exif_without_previews
from inpaint.io.read import WIDE_GREY, grey_view8, open_image, wide_samples

#: Extensions :func:`save_image` writes, and the Pillow format of each.
SAVE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
#: Extensions offered by the file chooser.
OPEN_PATTERNS = ["*.png", "*.jpg", "*.jpeg", "*.bmp", "*.webp", "*.tif", "*.tiff",
                 "*.PNG", "*.JPG", "*.JPEG"]

_ORIENTATION = 0x0112


@dataclasses.dataclass
class Photo:
    """An opened photo: upright RGB pixels plus the metadata a save keeps."""

    pixels: np.ndarray            # (H, W, 3) uint8
    path: Path | None = None      # absolute
    exif: bytes | None = None     # EXIF block with orientation = 1, or None
    icc_profile: bytes | None = None
    format: str | None = None
    #: What the app's 8-bit colour does not keep of the file ("transparency", shown on white; the
    #: "depth beyond 8 bits a channel").
    flattened: tuple[str, ...] = ()

    def flattened_note(self) -> str:
        """A note naming what a save of this photo cannot keep; empty where it keeps everything."""
        if not self.flattened or self.path is None:
            return ""
        verb, them = ("is", "it") if len(self.flattened) == 1 else ("are", "them")
        return (f"the app edits 8-bit colour, so {self.path.name}'s {' and '.join(self.flattened)} {verb} "
                f"not kept (the inpaint command keeps {them})")


def user_path(text: str | os.PathLike[str]) -> Path:
    """A path the user typed: ``~`` and ``~name`` expanded where they name a home folder, else as
    typed (``~nosuchuser/x.png`` is then a name that does not exist, not an error of its own)."""
    path = Path(text)
    try:
        return path.expanduser()
    except RuntimeError:  # no such user, or no home folder
        return path


def load_image(path: str | os.PathLike[str]) -> Photo:
    """Open ``path`` as upright RGB.

    Raises
    ------
    FileNotFoundError, ValueError
        Missing file, or a file Pillow cannot read or that is too large (the message says which,
        in the command's words: :func:`inpaint.io.read.open_image`).
    """
    p = Path(os.path.abspath(user_path(path)))   # absolute: the app reopens it from anywhere
    if p.is_dir():
        raise IsADirectoryError(f"{p} is a folder, not an image file")
    if not p.is_file():
        raise FileNotFoundError(f"no such image file: {p}")
    # The command's reader: its checks and its one-line messages (a decompression bomb is "too large").
    img, tiles = open_image(p, "image")
    flattened = []
    try:
        with img as im:
            fmt = im.format
            exif = im.getexif()
            icc = im.info.get("icc_profile")
            if wide_samples(im, tiles):
                flattened.append("depth beyond 8 bits a channel")
            upright = ImageOps.exif_transpose(im)
            if upright.mode in ("RGBA", "LA", "PA") or (upright.mode == "P" and "transparency" in upright.info):
                flattened.insert(0, "transparency")
                rgba = upright.convert("RGBA")
                flat = Image.new("RGB", rgba.size, (255, 255, 255))
                flat.paste(rgba, mask=rgba.getchannel("A"))
                rgb = flat
            elif upright.mode in WIDE_GREY:  # scaled as the command sees them (a plain convert clips)
                rgb = Image.fromarray(grey_view8(upright)).convert("RGB")
            else:
                rgb = upright.convert("RGB")
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"cannot read {p.name} as an image: {exc}") from None
    except MemoryError:  # turning or converting it: said as the command says it
        raise ValueError(f"image {p.name} is too large for the memory available") from None
    exif_bytes = None
    if len(exif):
        if _ORIENTATION in exif:
            exif[_ORIENTATION] = 1
        # no copy of the picture as it was (a maker note's preview...): a save would still show what was removed
        exif_bytes = exif_without_previews(exif)[0].tobytes()
    try:
        pixels = np.ascontiguousarray(np.asarray(rgb, dtype=np.uint8))
    except MemoryError:
        raise ValueError(f"image {p.name} is too large for the memory available") from None
    return Photo(pixels, p, exif_bytes, icc, fmt, tuple(flattened))


def save_image(pixels: np.ndarray, path: str | os.PathLike[str], *, exif: bytes | None = None,
               icc_profile: bytes | None = None, original: str | os.PathLike[str] | None = None,
               overwrite: bool = False, quality: int = 95) -> Path:
    """Write ``pixels`` to ``path`` as PNG or JPEG (chosen by the extension), atomically.

    Parameters
    ----------
    pixels : (H, W, 3) uint8 ndarray
    path : path-like
        Destination ending in ``.png``, ``.jpg`` or ``.jpeg``.
    exif, icc_profile : bytes, optional
        Metadata to embed (from :func:`load_image`).
    original : path-like, optional
        The file the photo was opened from; replacing it needs ``overwrite=True``.
    overwrite : bool
        Allow replacing an existing file.
    quality : int
        JPEG quality.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ValueError
        Unsupported extension or bad pixel array.
    FileExistsError
        ``path`` exists (or is the original) and ``overwrite`` is false.
    OSError
        The folder is not writable; no partial file is left behind.
    """
    dest, arr = _destination(pixels, path, original, overwrite)
    from inpaint.io import save_image

    # Shared atomic writer: temp file in the folder, fsync, then os.replace.
    save_image(Image.fromarray(np.ascontiguousarray(arr), "RGB"), dest, exif=exif or None,
               icc_profile=icc_profile, quality=int(quality))
    return dest


def _destination(pixels: np.ndarray, path: str | os.PathLike[str], original: str | os.PathLike[str] | None,
                 overwrite: bool) -> tuple[Path, np.ndarray]:
    """The checks of :func:`save_image` before anything is written: the destination and the pixels."""
    dest = user_path(path)
    fmt = SAVE_FORMATS.get(dest.suffix.lower())
    if fmt is None and dest.name.lower() in SAVE_FORMATS:
        raise ValueError(f"{dest.name} is an extension without a name: name the file, such as photo{dest.name}")
    if fmt is None:
        raise ValueError(f"cannot save as {dest.suffix or 'a file without extension'!r}; "
                         f"use one of {', '.join(SAVE_FORMATS)}")
    arr = np.asarray(pixels)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"pixels must be an (H, W, 3) uint8 array, got {arr.dtype} {arr.shape}")
    if not overwrite:
        if original is not None and _same_file(dest, Path(original)):
            raise FileExistsError(f"{dest.name} is the original photo; choose another name "
                                  "or tick 'replace existing file'")
        if dest.exists():
            raise FileExistsError(f"{dest} already exists; choose another name or tick 'replace existing file'")
    if not dest.parent.is_dir():
        raise FileNotFoundError(f"folder {dest.parent} does not exist")
    return dest, arr


def save_photo(pixels: np.ndarray, path: str | os.PathLike[str], photo: Photo | None, *,
               overwrite: bool = False) -> tuple[Path, list[str]]:
    """Save the working image of ``photo`` as :func:`save_image` does, keeping what its JPEG can keep.

    A photo opened from a JPEG and saved as JPEG is written as the ``inpaint`` command writes it
    (:func:`inpaint.io.plan_output`): the blocks without a pixel that differs from the photo as
    it was opened keep their DCT coefficients, the others are encoded again with the photo's own
    quantisation tables and subsampling, and its markers are kept.  A resized photo is encoded
    again with those tables, with a note.  Any other photo or format goes to :func:`save_image`
    with the photo's EXIF block and ICC profile.

    Parameters
    ----------
    pixels : (H, W, 3) uint8 ndarray
        The working image.
    path : path-like
        Destination ending in ``.png``, ``.jpg`` or ``.jpeg``.
    photo : Photo or None
        The photo as opened (:func:`load_image`); replacing its file needs ``overwrite=True``.
    overwrite : bool
        Allow replacing an existing file.

    Returns
    -------
    pathlib.Path, list of str
        The written file, and what the file could not keep.

    Raises
    ------
    ValueError, FileExistsError, OSError
        As :func:`save_image`.
    """
    original = photo.path if photo is not None else None
    dest, arr = _destination(pixels, path, original, overwrite)
    if photo is None or original is None or photo.format != "JPEG" or SAVE_FORMATS[dest.suffix.lower()] != "JPEG":
        save_image(arr, dest, exif=photo.exif if photo else None, icc_profile=photo.icc_profile if photo else None,
                   original=original, overwrite=True)
        flattened = photo.flattened_note() if photo is not None else ""
        return dest, [flattened] if flattened else []
    from inpaint import io as imageio
    from inpaint.errors import InputError

    why = "changed since it was opened"
    try:
        pic = imageio.read_image(original)
        kept = pic.rgb.shape == photo.pixels.shape and np.array_equal(pic.rgb, photo.pixels)
    except (InputError, OSError):
        kept = False
        if not Path(original).exists():
            why = "is no longer there"
    if not kept:  # its blocks are no longer those of the photo as opened
        save_image(arr, dest, exif=photo.exif, icc_profile=photo.icc_profile, original=original, overwrite=True)
        return dest, [f"{Path(original).name} {why}, so the JPEG was encoded again at quality 95"]
    h, w = arr.shape[:2]
    plan = imageio.plan_output(pic, dest, size=(w, h))
    notes = list(plan.notes)
    changed = (arr != pic.rgb).any(axis=2) if arr.shape == pic.rgb.shape else None  # resized: the plan says so
    note = imageio.save_images([(Image.fromarray(np.ascontiguousarray(arr), "RGB"), dest,
                                 {"plan": plan, "mask": changed})])[0]
    return dest, notes + ([note] if note else [])


def suggest_save_path(original: str | os.PathLike[str] | None, folder: str | os.PathLike[str],
                      name: str = "photo", ext: str = ".png") -> Path:
    """A path that does not exist yet: ``<stem>_removed.png`` (the command's name for a result),
    then ``<stem>_removed-2.png``... (:mod:`inpaint.io.naming`).

    The folder is the original's when it is writable, else ``folder``.
    """
    if original is not None:
        orig = Path(original)
        stem = orig.stem
        base = orig.parent if os.access(orig.parent, os.W_OK) else Path(folder)
        if orig.suffix.lower() in SAVE_FORMATS and ext == ".png":
            ext = ".jpg" if orig.suffix.lower() in (".jpg", ".jpeg") else ".png"
    else:
        stem, base = name, Path(folder)
    return free_path(base, stem, REMOVED_SUFFIX, ext)


def free_path(folder: Path, stem: str, suffix: str, ext: str) -> Path:
    """``folder/<stem><suffix><ext>``, or ``...-2<ext>`` and so on where that exists, the stem
    shortened so that a save can write the name: 255 bytes, less the 16 its temporary file adds
    and a "-99"."""
    room = 255 - 16 - len(os.fsencode(f"{suffix}-99{ext}"))
    while len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    return free_name(folder / f"{stem}{suffix}{ext}")

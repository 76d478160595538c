"""How results are named, and the one overwrite rule, for the commands and the app alike.

* A result's default name is the input's stem with :data:`REMOVED_SUFFIX` (object removal, in the
  command and the app) or :data:`RESIZED_SUFFIX` (``inpaint resize``), and the input's extension.
* An existing file is never replaced unless the user says so: the commands refuse it unless
  ``--overwrite`` is given (:func:`check_new`); the app suggests a free name (:func:`free_name`)
  and replaces a file only when "replace existing file" is ticked.  An input is never replaced
  by a batch.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from ..errors import InputError


def shown(path: str | os.PathLike[str]) -> str:
    """A file name as a message line shows it: control characters (a newline in a name, an
    escape sequence) written as escapes, so that one message stays one line and says which file."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


#: Name ending of object-removal results (``photo_removed.jpg``).
REMOVED_SUFFIX = "_removed"
#: Name ending of ``inpaint resize`` results.
RESIZED_SUFFIX = "_resized"
#: Name ending of a mask file paired with its image (``photo_mask.png``).
MASK_SUFFIX = "_mask"
#: Name endings of the commands' results, which a batch never takes for inputs.
RESULT_SUFFIXES = (REMOVED_SUFFIX, RESIZED_SUFFIX)


def result_name(image: str | os.PathLike[str], suffix: str = REMOVED_SUFFIX, ext: str | None = None) -> Path:
    """``<stem><suffix><ext>`` beside ``image`` (its own extension, or ``.png`` when it has none)."""
    p = Path(image)
    return p.with_name(f"{p.stem}{suffix}{ext if ext is not None else (p.suffix or '.png')}")


def free_name(path: str | os.PathLike[str]) -> Path:
    """``path`` when no file has that name, else the first free ``<stem>-2<ext>``, ``-3``..."""
    p = Path(path)
    n = 2
    candidate = p
    while os.path.lexists(candidate):
        candidate = p.with_name(f"{p.stem}-{n}{p.suffix}")
        n += 1
    return candidate


def check_new(path: str | os.PathLike[str], overwrite: bool, what: str = "output") -> None:
    """Refuse an existing ``path`` unless ``overwrite`` (the commands' ``--overwrite``).

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is false.
    """
    if not overwrite and os.path.lexists(path):
        raise InputError(f"the {what} {path} already exists; use --overwrite to replace it")


#: The file endings of the images the commands read from a folder, and that masks may have.
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".gif")


def is_image_name(path: Path) -> bool:
    """Whether ``path`` ends as an image file (:data:`IMAGE_EXTENSIONS`, any case)."""
    return path.suffix.lower() in IMAGE_EXTENSIONS


def other_names(image: Path) -> list[Path]:
    """The other names of the file ``image`` names: the file a symbolic link leads to, and the
    hard links to it in the folders of both names (image files only); none for a plain file.
    They are relative to the working folder when they lie under it."""
    names: list[Path] = []
    try:
        st = os.stat(image)
    except (OSError, ValueError):
        return names
    real = Path(os.path.realpath(image))
    with contextlib.suppress(ValueError):
        real = real.relative_to(Path.cwd().resolve())
    if image.is_symlink():  # a linked folder on the way holds the link's mask already
        names.append(real)
    if st.st_nlink > 1:  # hard links: only then is a folder listed
        for folder in dict.fromkeys((image.parent, real.parent)):
            try:
                entries = sorted(folder.iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.name in (image.name, real.name) or not is_image_name(entry) or entry.is_symlink():
                    continue
                with contextlib.suppress(OSError):
                    other = os.stat(entry)
                    if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                        names.append(entry)
    return names


def _paired(image: Path, folder: Path | None, suffix: str) -> Path | None:
    """``FOLDER/<stem>.<ext>`` or ``<stem><suffix>.<ext>`` beside ``image``: the first that
    exists (PNG first), else None."""
    where, stem = (folder, image.stem) if folder is not None else (image.parent, f"{image.stem}{suffix}")
    for ext in IMAGE_EXTENSIONS:
        for candidate in (where / f"{stem}{ext}", where / f"{stem}{ext.upper()}"):
            if _is_file(candidate):
                return candidate
    # an extension in mixed case (.Png): the folder's names, by name without the case of the
    # extension, listed once a folder (a batch misses here once an image without a mask)
    for ext in IMAGE_EXTENSIONS:
        name = _mixed_case_names(str(where)).get(f"{stem}{ext}")
        if name is not None and _is_file(where / name):
            return where / name
    return None


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False where the name cannot exist (longer than the file system takes)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _mixed_case_names(folder: str) -> dict[str, str]:
    """``{stem + lower-case extension: name}`` of the folder's image files whose extension is in
    mixed case; read again when the folder changes (its modification time)."""
    try:
        return _listed(folder, os.stat(folder).st_mtime_ns)
    except (OSError, ValueError):
        return {}


@functools.lru_cache(maxsize=32)
def _listed(folder: str, _mtime_ns: int) -> dict[str, str]:
    try:
        names = os.listdir(folder)
    except (OSError, ValueError):
        return {}
    found = {}
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext.lower() in IMAGE_EXTENSIONS and ext not in (ext.lower(), ext.upper()):
            found[stem + ext.lower()] = name
    return found


def find_mask(image: Path, folder: Path | None = None, suffix: str = MASK_SUFFIX) -> tuple[Path, Path | None]:
    """An image's mask by the pairing rule, and the other name of the image it was found by.

    The mask is ``FOLDER/<stem>.<ext>`` (a mask folder), else ``<stem><suffix>.<ext>`` beside the
    image (any image extension, PNG first), for the name given; for a link, then for the file's
    other names (:func:`other_names`: the file a symbolic link names, its hard links).  The second
    value is that other name, or None when the mask pairs with the name given.  When no mask
    exists, the PNG name beside the name given, so that the error names it.
    """
    own = _paired(image, folder, suffix)
    if own is not None:
        return own, None
    for other in other_names(image):
        found = _paired(other, folder, suffix)
        if found is not None:
            return found, other
    where, stem = (folder, image.stem) if folder is not None else (image.parent, f"{image.stem}{suffix}")
    return where / f"{stem}.png", None


def paired_file(image: Path, folder: Path | None, suffix: str = MASK_SUFFIX) -> Path:
    """An image's mask: ``FOLDER/<stem>.<ext>``, or ``<stem><suffix>.<ext>`` beside the image
    (:func:`find_mask`, links followed)."""
    return find_mask(image, folder, suffix)[0]



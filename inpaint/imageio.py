"""Reading images and masks, and writing results safely (Pillow).

* Images are turned upright by their EXIF orientation; the result is written upright with
  the orientation tag reset, other EXIF and the ICC profile kept where the format allows.
* The pipeline works on an 8-bit RGB view, but results are written back into the
  *original* pixel array (grey, 16-bit, palette, alpha...) through the source map, so every
  pixel outside the mask keeps its exact original value and filled pixels copy original
  values (alpha included).
* Writes are atomic: a temporary file in the destination folder, then ``os.replace``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import InputError

_ORIENTATION = 0x0112
_EXIF_FORMATS = {"JPEG", "PNG", "WEBP", "TIFF"}
_FORMAT_MODES = {  # modes each format can store as they are; others are converted first
    "JPEG": {"L", "RGB", "CMYK"},
    "PNG": {"1", "L", "LA", "P", "RGB", "RGBA", "I;16"},  # Pillow cannot write mode "I" as PNG
    "WEBP": {"RGB", "RGBA"},
    "BMP": {"1", "L", "P", "RGB"},
    "GIF": {"L", "P"},
    "PPM": {"1", "L", "RGB", "I;16"},
}


@dataclasses.dataclass
class Picture:
    """An upright image: its 8-bit RGB view plus everything needed to write it back.

    Attributes
    ----------
    rgb : ndarray, (H, W, 3) uint8
    image : PIL.Image.Image
        Upright image in its original mode.
    exif : PIL.Image.Exif
    icc_profile : bytes or None
    path : pathlib.Path or None
    """

    rgb: np.ndarray
    image: Image.Image
    exif: Any
    icc_profile: bytes | None
    path: Path | None = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return self.image.size


def _open(path: "str | os.PathLike[str]", what: str) -> Image.Image:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{what} {p} does not exist")
    if p.is_dir():
        raise InputError(f"{what} {p} is a folder, not an image file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(p)
            try:
                img.load()
            except BaseException:
                img.close()  # a failed load left the file open (ResourceWarning)
                raise
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        # Pillow's own message quotes its error threshold (twice the limit); state the limit.
        size = re.search(r"\((\d+) pixels\)", str(exc))
        raise InputError(
            f"{what} {p} is too large: {size.group(1) + ' pixels, ' if size else ''}more than the limit of "
            f"{Image.MAX_IMAGE_PIXELS} pixels (a guard against decompression bombs); raise it with "
            "--max-pixels") from None
    except UnidentifiedImageError:
        raise InputError(f"{what} {p} is not an image Pillow can read") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {p}: {exc}") from None
    return img


def _to_rgb8(img: Image.Image) -> np.ndarray:
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img).astype(np.int64)
        if mode == "I" and arr.max(initial=0) <= 255 and arr.min(initial=0) >= 0:
            grey = arr.astype(np.uint8)
        else:
            grey = (np.clip(arr, 0, 65535) >> 8).astype(np.uint8)
        return np.repeat(grey[..., None], 3, axis=2)
    if mode == "F":
        grey = np.clip(np.rint(np.asarray(img)), 0, 255).astype(np.uint8)
        return np.repeat(grey[..., None], 3, axis=2)
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()


def read_image(path: "str | os.PathLike[str]") -> Picture:
    """Read an image, upright, with its 8-bit RGB view.

    Raises
    ------
    InputError
        Missing, unreadable, not an image, or larger than Pillow's decompression-bomb limit.
    """
    img = _open(path, "image")
    exif = img.getexif()
    icc = img.info.get("icc_profile")
    upright = ImageOps.exif_transpose(img)
    if upright is None:  # pragma: no cover - older Pillow returned None for in-place
        upright = img
    if _ORIENTATION in exif:
        exif[_ORIENTATION] = 1
    return Picture(rgb=_to_rgb8(upright), image=upright, exif=exif, icc_profile=icc, path=Path(path))


def mask_from_image(img: Image.Image) -> np.ndarray:
    """The object mask of a mask image.

    Pixels brighter than mid-grey mark the object; for a mask with transparency (an alpha
    channel that is not fully opaque, or a palette with a transparent entry), its opaque
    pixels (alpha > 127) do.
    """
    if img.mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    if img.mode in ("RGBA", "LA", "PA", "La", "RGBa"):
        alpha = np.asarray(img.getchannel("A"))
        if alpha.min() < 255:
            return alpha > 127
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img).astype(np.int64)
        return arr > (127 if arr.max(initial=0) <= 255 else 32767)
    if img.mode == "F":
        arr = np.asarray(img)
        return arr > (0.5 if arr.max(initial=0) <= 1.0 else 127.0)
    return np.asarray(img.convert("L")) > 127


def read_mask(path: "str | os.PathLike[str]", size: tuple[int, int]) -> np.ndarray:
    """Read a mask (see :func:`mask_from_image`) that must be ``size`` = (width, height)."""
    img = _open(path, "mask")
    upright = ImageOps.exif_transpose(img) or img
    if upright.size != tuple(size):
        raise InputError(
            f"mask {path} is {upright.size[0]}x{upright.size[1]} but the image is {size[0]}x{size[1]}; "
            "they must be the same size")
    return mask_from_image(upright)


def apply_source_map(picture: Picture, source_map: np.ndarray, mask: np.ndarray) -> Image.Image:
    """The original-mode image with each masked pixel copied from its source pixel."""
    img = picture.image
    arr = np.asarray(img)
    out = arr.copy()
    rows, cols = source_map[mask, 0], source_map[mask, 1]
    if rows.size and (rows < 0).any():
        raise ValueError("source map does not cover every masked pixel")
    out[mask] = arr[rows, cols]
    if img.mode == "1":
        res = Image.fromarray(out)
    else:
        res = Image.frombytes(img.mode, img.size, np.ascontiguousarray(out).tobytes())
    if img.mode in ("P", "PA"):
        res.putpalette(img.getpalette())
    for key in ("transparency", "dpi", "gamma"):
        if key in img.info:
            res.info[key] = img.info[key]
    return res


#: Modes whose filled pixels take the blended fill; other modes (palette, bilevel, CMYK...) are
#: filled by copying whole source pixels.
_BLENDED_MODES = ("RGB", "RGBA", "RGBX", "L", "LA", "I;16", "I;16B", "I;16L", "I", "F")


def apply_fill(picture: Picture, filled: np.ndarray, source_map: np.ndarray,
               mask: np.ndarray) -> tuple[Image.Image, str | None]:
    """The original-mode image with the hole filled; and a note if the fill had to be simplified.

    ``filled`` is the fill on the 8-bit RGB view; ``source_map`` gives each hole pixel's source
    pixel.  Pixels outside ``mask`` keep their exact values.  RGB(A) and grey images take the
    blended fill (alpha and other extra channels are copied from the source pixel); 16-bit and
    float grey images add the fill's change against the copied source pixel to the source's
    full-precision value; palette, bilevel and other modes copy the source pixel as it is.
    """
    res = apply_source_map(picture, source_map, mask)
    mode = res.mode
    if mode not in _BLENDED_MODES:
        kind = {"P": "palette", "PA": "palette", "1": "black-and-white"}.get(mode, mode)
        return res, f"{kind} images are filled by copying source pixels (blending needs RGB or grey)"
    out = np.array(res)
    fill = np.asarray(filled)[mask].astype(np.int64)
    if mode in ("RGB", "RGBA", "RGBX"):
        out[mask, :3] = fill
    elif mode == "L":
        out[mask] = fill[:, 0]
    elif mode == "LA":
        out[mask, 0] = fill[:, 0]
    else:  # 16-bit, 32-bit integer or float grey: move the full-precision copy by the blend's change
        rows, cols = source_map[mask, 0], source_map[mask, 1]
        change = fill[:, 0] - picture.rgb[rows, cols, 0].astype(np.int64)
        if mode == "F":
            out[mask] = out[mask] + change.astype(out.dtype)
        else:
            wide = out.astype(np.int64)
            scale = 1 if mode == "I" and wide.max(initial=0) <= 255 and wide.min(initial=0) >= 0 else 257
            lo, hi = (0, 65535) if mode.startswith("I;16") else (np.iinfo(np.int32).min, np.iinfo(np.int32).max)
            out[mask] = np.clip(wide[mask] + change * scale, lo, hi).astype(out.dtype)
    if mode == "1":
        img = Image.fromarray(out)
    else:
        img = Image.frombytes(mode, res.size, np.ascontiguousarray(out).tobytes())
    img.info.update(res.info)
    return img, None


def output_format(path: "str | os.PathLike[str]") -> str:
    """The Pillow format name for ``path``'s extension."""
    ext = Path(path).suffix.lower()
    Image.init()
    fmt = Image.EXTENSION.get(ext)
    if fmt is None:
        raise InputError(f"cannot tell the image format of {path}: use an extension such as .png or .jpg")
    return fmt


def convert_for(img: Image.Image, fmt: str) -> tuple[Image.Image, str | None]:
    """Convert ``img`` to a mode ``fmt`` can store; return it and a note if something is lost."""
    allowed = _FORMAT_MODES.get(fmt)
    if allowed is None or img.mode in allowed:
        return img, None
    has_alpha = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
    if img.mode in ("I;16", "I;16B", "I"):
        wide = np.asarray(img).astype(np.int64)
        if img.mode == "I" and wide.size and wide.min() >= 0 and wide.max() <= 255:
            target = Image.fromarray(wide.astype(np.uint8))  # 8-bit values, as read_image sees them
            note = None
        elif "I;16" in allowed:  # e.g. a 32-bit "I" image to PNG: keep 16 bits
            target = Image.fromarray(np.clip(wide, 0, 65535).astype(np.uint16))
            clipped = wide.size and (wide.min() < 0 or wide.max() > 65535)
            note = f"{fmt} stores at most 16 bits: values were clipped to 0..65535" if clipped else None
        else:
            target = Image.fromarray((np.clip(wide, 0, 65535) >> 8).astype(np.uint8))
            note = f"{fmt} stores 8 bits per channel: the 16-bit image was reduced to 8 bits"
    elif img.mode in ("L", "LA") and "L" in allowed:
        target = img.convert("L")
        note = f"{fmt} has no alpha channel: transparency was dropped" if has_alpha else None
    elif "RGBA" in allowed and has_alpha:
        target = img.convert("RGBA")
        note = None
    else:
        target = img.convert("RGB")
        note = f"{fmt} has no alpha channel: transparency was dropped" if has_alpha else None
    return target, note


def same_file(a: "str | os.PathLike[str]", b: "str | os.PathLike[str]") -> bool:
    """Whether two existing paths name the same file (links and ``..`` included)."""
    try:
        return Path(a).exists() and Path(b).exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _target_mode(path: Path) -> int:
    """The mode a replaced file keeps, or 0666 minus the umask for a new one."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def save_image(img: Image.Image, path: "str | os.PathLike[str]", *, exif: Any = None,
               icc_profile: bytes | None = None, quality: int = 95) -> str | None:
    """Write ``img`` to ``path`` atomically; return a note when the format lost something.

    The image goes to a temporary file in the same folder first and replaces ``path`` only
    when complete, so a failure never leaves a truncated file.
    """
    path = Path(path)
    fmt = output_format(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"output folder {folder} does not exist")
    img, note = convert_for(img, fmt)
    kwargs: dict[str, Any] = {}
    if exif is not None and len(exif) and fmt in _EXIF_FORMATS:
        kwargs["exif"] = exif.tobytes() if hasattr(exif, "tobytes") else exif
    if icc_profile and fmt in ("JPEG", "PNG", "WEBP", "TIFF"):
        kwargs["icc_profile"] = icc_profile
    if fmt in ("JPEG", "WEBP"):
        kwargs["quality"] = quality
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            img.save(fh, format=fmt, **kwargs)
            fh.flush()
            os.fsync(fh.fileno())  # the data is on disk before the rename makes it visible
        os.chmod(tmp, _target_mode(path))  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return note

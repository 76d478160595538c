"""Pictures of where a fill came from (``--save-mapping``), one per method's source record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def draw_mapping(rgb: Any, patches: Sequence[tuple[int, int, int, int]], patch: int) -> Any:
    """The image with each target patch (red) joined to its source patch (green), as a PIL image."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(rgb).convert("RGB")
    draw = ImageDraw.Draw(img)
    half = patch // 2
    for ty, tx, sy, sx in patches:
        draw.line([(tx, ty), (sx, sy)], fill=(255, 220, 0), width=1)
        draw.rectangle([tx - half, ty - half, tx + half, ty + half], outline=(255, 0, 0))
        draw.rectangle([sx - half, sy - half, sx + half, sy + half], outline=(0, 255, 0))
    return img


def draw_offsets(rgb: Any, source_map: Any, mask: Any) -> Any:
    """The image with every filled pixel coloured by where its source lies (hue: direction,
    brightness: distance) and the rest dimmed, as a PIL image.  Regions of one colour were
    copied as one piece; many small specks mean many small pieces."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(rgb)
    mask = np.asarray(mask, bool)
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    dy = source_map[ys, xs, 0].astype(np.float64) - ys
    dx = source_map[ys, xs, 1].astype(np.float64) - xs
    dist = np.hypot(dy, dx)
    hsv = np.zeros((h, w, 3), np.uint8)
    hsv[ys, xs, 0] = (((np.arctan2(dy, dx) / (2 * np.pi)) % 1.0) * 255).astype(np.uint8)
    hsv[ys, xs, 1] = 255
    hsv[ys, xs, 2] = (64 + 191 * dist / max(dist.max(initial=0.0), 1.0)).astype(np.uint8)
    out = np.asarray(Image.fromarray(hsv, "HSV").convert("RGB")).copy()
    grey = rgb.astype(np.uint16).mean(axis=2, keepdims=True).astype(np.uint8) // 2
    out[~mask] = np.repeat(grey, 3, axis=2)[~mask]
    return Image.fromarray(out)

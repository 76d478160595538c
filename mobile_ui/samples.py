"""The photo shown on first start: a bundled dataset case, or a generated scene."""

from __future__ import annotations

import numpy as np

FIRST_CASE = "walkingman"


def case_names() -> list[str]:
    """Names of the bundled dataset cases (empty when the dataset is not installed)."""
    from inpaint.io.cases import case_names as names

    try:
        return list(names())
    except Exception:  # noqa: BLE001 - no dataset folder, or a damaged index: the app starts on a generated scene
        return []


def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    from inpaint.io.cases import load_case

    case = load_case(name)
    return np.asarray(case.image), np.asarray(case.mask)


def load_sample(name: str | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """``(image, mask, title)`` of a bundled case (``name`` or :data:`FIRST_CASE`).

    Falls back to :func:`demo_scene` when the dataset is not installed.
    """
    try:
        names = case_names()
        pick = name or (FIRST_CASE if FIRST_CASE in names else (names[0] if names else FIRST_CASE))
        image, mask = _load(pick)
        image = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3])
        mask = np.asarray(mask, dtype=bool).copy()
        if mask.shape != image.shape[:2]:
            raise ValueError(f"case {pick}: mask {mask.shape} does not match image {image.shape[:2]}")
        return image, mask, pick
    except Exception:
        if name:
            raise
        image, mask = demo_scene()
        return image, mask, "demo"


def demo_scene(width: int = 320, height: int = 240) -> tuple[np.ndarray, np.ndarray]:
    """A small synthetic photo (sky, hills, a striped field) with a yellow ball to remove."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    img = np.zeros((height, width, 3), dtype=np.float64)
    sky = yy / height
    img[..., 0] = 110 + 80 * sky
    img[..., 1] = 160 + 50 * sky
    img[..., 2] = 235 - 20 * sky
    horizon = height * 0.55 + 12 * np.sin(xx / width * 2 * np.pi * 1.5)
    ground = yy > horizon
    stripes = (np.sin(xx / 6.0 + yy / 9.0) > 0).astype(np.float64)
    img[ground, 0] = (70 + 25 * stripes)[ground]
    img[ground, 1] = (120 + 30 * stripes)[ground]
    img[ground, 2] = (50 + 10 * stripes)[ground]
    cx, cy, r = width * 0.58, height * 0.62, height * 0.11
    ball = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
    shade = np.clip(1.2 - ((xx - cx + r / 3) ** 2 + (yy - cy + r / 3) ** 2) / (r * r), 0.3, 1.0)
    img[ball, 0] = (250 * shade)[ball]
    img[ball, 1] = (215 * shade)[ball]
    img[ball, 2] = (60 * shade)[ball]
    mask = (xx - cx) ** 2 + (yy - cy) ** 2 <= (r + 3) ** 2
    return np.clip(img, 0, 255).astype(np.uint8), mask

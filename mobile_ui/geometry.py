"""Window-free geometry for the editor: widget <-> image coordinates and stroke rasterising.

Two coordinate systems meet in the editor:

* **widget coordinates** ``(x, y)``: Kivy's, in pixels relative to the editor widget's
  bottom-left corner, ``y`` growing **upwards**;
* **image coordinates** ``(u, v)``: continuous, relative to the image's **top-left**
  corner, ``u`` growing right and ``v`` growing **down**, so that pixel ``(row, col)`` of
  the numpy array covers ``col <= u < col + 1`` and ``row <= v < row + 1`` and its centre
  is ``(col + 0.5, row + 0.5)``.

:class:`View` is the only place that converts between them; :func:`stamp_segment`
paints a round brush along a segment given in image coordinates.  Nothing here imports
Kivy, so all of it is unit-tested without a window.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

#: Smallest brush radius in image pixels: large enough that the pixel under the touch is
#: always painted (no point of a pixel is farther than sqrt(2)/2 from its centre).
MIN_RADIUS = math.sqrt(0.5) + 1e-9


@dataclasses.dataclass(frozen=True)
class View:
    """How an ``image_w`` x ``image_h`` image is shown in a ``widget_w`` x ``widget_h`` widget.

    ``scale`` is widget pixels per image pixel; ``(ox, oy)`` is where the image's
    bottom-left corner lies in widget coordinates.  Views are immutable: the zoom and pan
    methods return new ones.
    """

    image_w: int
    image_h: int
    widget_w: float
    widget_h: float
    scale: float = 1.0
    ox: float = 0.0
    oy: float = 0.0

    def __post_init__(self) -> None:
        if self.image_w <= 0 or self.image_h <= 0:
            raise ValueError(f"image size must be positive, got {self.image_w}x{self.image_h}")
        if not (self.scale > 0 and math.isfinite(self.scale)):
            raise ValueError(f"scale must be a positive finite number, got {self.scale!r}")

    # -- construction -------------------------------------------------------------------
    @staticmethod
    def fit_scale(image_size: tuple[int, int], widget_size: tuple[float, float]) -> float:
        """Largest scale at which the whole image fits the widget (``image_size`` is (w, h))."""
        iw, ih = image_size
        ww, wh = max(float(widget_size[0]), 1.0), max(float(widget_size[1]), 1.0)
        return min(ww / iw, wh / ih)

    @classmethod
    def fit(cls, image_size: tuple[int, int], widget_size: tuple[float, float]) -> View:
        """The image scaled to fit the widget, centred."""
        iw, ih = int(image_size[0]), int(image_size[1])
        ww, wh = float(widget_size[0]), float(widget_size[1])
        s = cls.fit_scale((iw, ih), (ww, wh))
        return cls(iw, ih, ww, wh, s, (ww - iw * s) / 2.0, (wh - ih * s) / 2.0)

    # -- conversions --------------------------------------------------------------------
    @property
    def display_size(self) -> tuple[float, float]:
        """Size of the shown image in widget pixels."""
        return self.image_w * self.scale, self.image_h * self.scale

    def widget_to_image(self, x: float, y: float) -> tuple[float, float]:
        """Continuous image coordinates ``(u, v)`` (``v`` down) of widget point ``(x, y)``."""
        return (x - self.ox) / self.scale, self.image_h - (y - self.oy) / self.scale

    def image_to_widget(self, u: float, v: float) -> tuple[float, float]:
        """Widget point of image coordinates ``(u, v)``; inverse of :meth:`widget_to_image`."""
        return self.ox + u * self.scale, self.oy + (self.image_h - v) * self.scale

    def pixel_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The numpy index ``(row, col)`` of the image pixel under widget point ``(x, y)``.

        ``None`` when the point is outside the image.
        """
        u, v = self.widget_to_image(x, y)
        col, row = math.floor(u), math.floor(v)
        if 0 <= row < self.image_h and 0 <= col < self.image_w:
            return row, col
        return None

    def pixel_centre(self, row: int, col: int) -> tuple[float, float]:
        """Widget point at the centre of image pixel ``(row, col)``."""
        return self.image_to_widget(col + 0.5, row + 0.5)

    # -- zoom and pan -------------------------------------------------------------------
    def resized(self, widget_w: float, widget_h: float) -> View:
        """The same view in a widget of a new size, keeping the centre point fixed."""
        u, v = self.widget_to_image(self.widget_w / 2.0, self.widget_h / 2.0)
        moved = dataclasses.replace(self, widget_w=float(widget_w), widget_h=float(widget_h))
        x, y = moved.image_to_widget(u, v)
        return moved.panned(widget_w / 2.0 - x, widget_h / 2.0 - y)

    def zoomed(self, factor: float, x: float, y: float,
               min_scale: float = 0.0, max_scale: float = math.inf) -> View:
        """Zoom by ``factor`` about widget point ``(x, y)``, which stays over the same image point.

        The resulting scale is clamped to ``[min_scale, max_scale]``.
        """
        if not (factor > 0 and math.isfinite(factor)):
            raise ValueError(f"zoom factor must be a positive finite number, got {factor!r}")
        new = min(max(self.scale * factor, min_scale), max_scale)
        ratio = new / self.scale
        return dataclasses.replace(self, scale=new, ox=x - (x - self.ox) * ratio, oy=y - (y - self.oy) * ratio)

    def nearest_on_image(self, x: float, y: float) -> tuple[float, float]:
        """The widget point of the shown image nearest to widget point ``(x, y)``."""
        dw, dh = self.display_size
        return min(max(x, self.ox), self.ox + dw), min(max(y, self.oy), self.oy + dh)

    def anchored(self, u: float, v: float, x: float, y: float, scale: float) -> View:
        """The view at ``scale`` that puts image point ``(u, v)`` at widget point ``(x, y)``.

        A pinch uses it against the view at the pinch's start: the image point first under
        the fingers' centre follows that centre, with no drift however many events arrive.
        """
        return dataclasses.replace(self, scale=float(scale), ox=x - u * scale, oy=y - (self.image_h - v) * scale)

    def panned(self, dx: float, dy: float) -> View:
        """Move the image by ``(dx, dy)`` widget pixels (unclamped)."""
        return dataclasses.replace(self, ox=self.ox + dx, oy=self.oy + dy)

    def clamped(self) -> View:
        """Keep the image on screen: some of it always lies under the widget's centre.

        An image may be panned until an edge reaches the middle of the widget, no further.
        The rule holds whatever the zoom, so zooming in about a point of the image never has
        to move the image (the zoomed image contains the unzoomed one, centre included), and
        the point stays under the pointer even at an edge of the photo.
        """
        dw, dh = self.display_size

        def clamp(o: float, disp: float, size: float) -> float:
            return min(max(o, size / 2.0 - disp), size / 2.0)

        return dataclasses.replace(self, ox=clamp(self.ox, dw, self.widget_w), oy=clamp(self.oy, dh, self.widget_h))


def stamp_segment(mask: np.ndarray, p0: tuple[float, float], p1: tuple[float, float],
                  radius: float, value: bool = True) -> tuple[int, int, int, int] | None:
    """Paint a round brush of ``radius`` along the segment ``p0 -> p1`` into ``mask``.

    Every pixel whose centre lies within ``radius`` of the segment is set to ``value``,
    so consecutive touch positions give one continuous stroke however far apart they are
    (fast finger, high zoom).  ``p0 == p1`` paints a disc.

    Parameters
    ----------
    mask : (H, W) bool ndarray
        Modified in place.
    p0, p1 : (u, v)
        Image coordinates (see the module docstring), may lie outside the image.
    radius : float
        In image pixels; raised to :data:`MIN_RADIUS` so the touched pixel is always hit.
    value : bool
        ``True`` paints, ``False`` erases.

    Returns
    -------
    (row0, row1, col0, col1) or None
        The half-open box of pixels that were examined (a superset of those changed),
        ``None`` when the brush misses the image.
    """
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-D, got shape {mask.shape}")
    h, w = mask.shape
    r = max(float(radius), MIN_RADIUS)
    (u0, v0), (u1, v1) = (float(p0[0]), float(p0[1])), (float(p1[0]), float(p1[1]))
    # Pixel centres c + 0.5 within [min - r, max + r]  <=>  c in [ceil(min - r - 0.5), floor(max + r - 0.5)].
    c0 = max(math.ceil(min(u0, u1) - r - 0.5), 0)
    c1 = min(math.floor(max(u0, u1) + r - 0.5) + 1, w)
    r0 = max(math.ceil(min(v0, v1) - r - 0.5), 0)
    r1 = min(math.floor(max(v0, v1) + r - 0.5) + 1, h)
    if c0 >= c1 or r0 >= r1:
        return None
    cu = np.arange(c0, c1, dtype=np.float64)[None, :] + 0.5 - u0
    cv = np.arange(r0, r1, dtype=np.float64)[:, None] + 0.5 - v0
    du, dv = u1 - u0, v1 - v0
    length2 = du * du + dv * dv
    if length2 > 0.0:
        t = np.clip((cu * du + cv * dv) / length2, 0.0, 1.0)
        eu, ev = cu - t * du, cv - t * dv
    else:
        eu, ev = cu, cv
    hit = eu * eu + ev * ev <= r * r
    if value:
        mask[r0:r1, c0:c1] |= hit
    else:
        mask[r0:r1, c0:c1] &= ~hit
    return r0, r1, c0, c1


def rgba(image: np.ndarray) -> np.ndarray:
    """An opaque ``(H, W, 4)`` uint8 copy of an ``(H, W, 3)`` RGB image (for textures)."""
    h, w = image.shape[:2]
    out = np.empty((h, w, 4), dtype=np.uint8)
    out[..., :3] = image
    out[..., 3] = 255
    return out


def overlay(masks: list[tuple[np.ndarray, tuple[int, int, int, int]]], shape: tuple[int, int]) -> np.ndarray:
    """An ``(H, W, 4)`` uint8 RGBA overlay: each ``(mask, rgba colour)`` painted in order."""
    out = np.zeros(tuple(shape) + (4,), dtype=np.uint8)
    for m, colour in masks:
        if m is not None and m.any():
            out[m] = colour
    return out


#: A Select drag is a lasso when its end comes back within this share of its length to its
#: start, or when closing it encloses this share of its length squared (a circle: 1/4pi,
#: 0.08; a half circle 1/2pi, 0.16; a drag bent 45 degrees halfway 0.09); otherwise it is a box.
LASSO_CLOSE = 0.2
LASSO_AREA = 0.04


def gesture_kind(points: list[tuple[float, float]]) -> str:
    """``"lasso"`` or ``"box"``: what a Select drag through ``points`` (any one coordinate
    system, at least two points) draws.

    A stroke whose end comes back near its start (:data:`LASSO_CLOSE` of its length), or
    that encloses an area once closed (:data:`LASSO_AREA` of its length squared), is a lasso
    around the object; a straight-ish drag is a box, its start and end opposite corners.
    """
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    steps = np.hypot(*np.diff(pts, axis=0).T)
    length = float(steps.sum())
    if length <= 0:
        return "box"
    if math.hypot(*(pts[-1] - pts[0])) <= LASSO_CLOSE * length:
        return "lasso"
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))   # shoelace, closed
    return "lasso" if area >= LASSO_AREA * length ** 2 else "box"


def lasso_mask(points: list[tuple[float, float]], shape: tuple[int, int]) -> np.ndarray:
    """The region a lasso through ``points`` (image coordinates ``(u, v)``) encloses, closed
    from its end back to its start: ``(H, W)`` bool, a pixel inside when its centre is, or when
    the path's line crosses it.

    Everything the path goes around is inside, however often it goes around (a loop drawn twice
    round an object): a pixel's centre is inside where the path winds round it (non-zero winding),
    not only where it does so an odd number of times.
    """
    from PIL import Image, ImageDraw

    h, w = shape
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    x0, y0 = pts[:, 0], pts[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    # Each edge crosses the rows whose centre r + 1/2 lies in [its lower y, its upper y).
    r0 = np.clip(np.ceil(np.minimum(y0, y1) - 0.5), 0, h).astype(np.int64)
    r1 = np.clip(np.ceil(np.maximum(y0, y1) - 0.5), 0, h).astype(np.int64)
    counts = r1 - r0
    edge = np.repeat(np.arange(len(pts)), counts)
    rows = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + r0[edge]
    t = (rows + 0.5 - y0[edge]) / (y1[edge] - y0[edge])
    cross = x0[edge] + t * (x1[edge] - x0[edge])
    # The winding number at a pixel's centre: the edges crossing its row to its left, up +1, down -1
    # (summed over the rows the path spans only, in 16 bits: a photo's worth of them takes a while).
    inside = np.zeros((h, w), bool)
    if rows.size:
        top, bottom = int(rows.min()), int(rows.max()) + 1
        steps = np.zeros((bottom - top, w + 1), np.int16)
        np.add.at(steps, (rows - top, np.clip(np.ceil(cross - 0.5), 0, w).astype(np.int64)),
                  np.where(y1[edge] > y0[edge], 1, -1).astype(np.int16))
        inside[top:bottom] = np.cumsum(steps, axis=1, dtype=np.int16)[:, :w] != 0
    line = Image.new("1", (w, h), 0)
    # PIL puts pixel (col, row)'s centre at (col, row); image coordinates put it at +0.5.
    drawn = [(u - 0.5, v - 0.5) for u, v in pts]
    if len(drawn) > 1:
        ImageDraw.Draw(line).polygon(drawn, outline=1)
    elif drawn:
        ImageDraw.Draw(line).point(drawn, fill=1)
    return inside | np.array(line, bool)


def gesture_box(p0: tuple[float, float], p1: tuple[float, float],
                shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The box ``(x0, y0, x1, y1)`` (pixel corners, far ends exclusive) a drag from ``p0`` to
    ``p1`` (image coordinates) spans, clipped to an ``(H, W)`` image; None where it misses it."""
    h, w = shape
    (u0, u1), (v0, v1) = sorted((p0[0], p1[0])), sorted((p0[1], p1[1]))
    x0, x1 = max(int(math.floor(u0)), 0), min(int(math.ceil(u1)), w)
    y0, y1 = max(int(math.floor(v0)), 0), min(int(math.ceil(v1)), h)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

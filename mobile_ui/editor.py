"""The image editor widget: shows the photo and the mask, paints strokes, zooms and pans.

Touch handling (Kivy's grab protocol):

* one finger (or the left mouse button) paints with the brush or the eraser, or pans
  with the Move tool; strokes are interpolated between touch events by
  :func:`~mobile_ui.geometry.stamp_segment`;
* with the Select tool a tap (a touch that hardly moves) reports the pixel under it
  (``on_tap``), and a drag draws a gesture around the object (``on_gesture``): a loose lasso
  (a stroke that comes back near its start or encloses an area) or a box (a straight-ish
  drag, its start and end opposite corners), outlined while it is drawn
  (:func:`~mobile_ui.geometry.gesture_kind`);
* two fingers pinch-zoom and pan; a stroke that a second finger interrupts is undone;
* the mouse wheel zooms about the pointer; the right or middle button pans.

All coordinate maths is in :mod:`mobile_ui.geometry`.
"""

from __future__ import annotations

import math

import numpy as np
from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, OptionProperty
from kivy.uix.stencilview import StencilView

from inpaint.masks import grow

from .geometry import View, gesture_kind, overlay, rgba, stamp_segment

MASK_RGBA = (255, 40, 60, 140)     # object to remove: translucent red
GROW_RGBA = (255, 200, 40, 150)    # what Grow adds to it: translucent amber
KEEP_RGBA = (40, 220, 90, 120)     # protected (never carved, never copied into a fill): translucent green
OUTLINE_RGBA = (1, 1, 1, 0.95)      # a Select gesture's outline while it is drawn
TAP_SLOP = 12                      # dp a Select tap may move and still be a tap
WHEEL_STEP = 1.15
MAX_ZOOM = 32.0                   # widget pixels per image pixel


def _texture(h: int, w: int) -> Texture:
    tex = Texture.create(size=(w, h), colorfmt="rgba", bufferfmt="ubyte")
    tex.flip_vertical()               # numpy row 0 (top) -> top of the texture
    tex.mag_filter = "nearest"        # crisp pixels when zoomed in
    tex.min_filter = "linear"
    return tex


class ImageEditor(StencilView):
    """Shows ``image`` with ``mask`` (and ``keep``) overlaid; paints into the masks in place.

    A stencil view: a zoomed image is clipped to the editor, not drawn under the side panel.
    """

    tool = OptionProperty("brush", options=["brush", "eraser", "protect", "move", "select"])
    grow_px = NumericProperty(0)                # Grow preview: the mask dilated by this many image pixels
    brush_size = NumericProperty(dp(36))        # brush diameter in widget pixels
    painting_enabled = BooleanProperty(True)
    show_original = BooleanProperty(False)
    zoom = NumericProperty(1.0)                 # view scale relative to fit-to-screen
    view = ObjectProperty(None, allownone=True)

    __events__ = ("on_stroke_start", "on_stroke_end", "on_stroke_cancel", "on_view_changed", "on_tap",
                  "on_gesture")

    def __init__(self, **kwargs):
        self.image: np.ndarray | None = None
        self.original: np.ndarray | None = None
        self.mask: np.ndarray | None = None
        self.keep: np.ndarray | None = None
        self.displayed: np.ndarray | None = None   # what the image texture holds now
        self._tex: Texture | None = None
        self._overlay_tex: Texture | None = None
        self._touches: list = []
        self._stroke = None            # dict(touch, last, backup) while painting
        self._pinch = None             # (view, finger distance, image point) at the pinch's start
        self._pinch_touches: list = []
        self._gesture = None           # dict(touch, image, window) while a Select gesture is drawn
        self.outline_kind: str | None = None   # "lasso" or "box" while one is outlined
        self._cursor_pos = None
        self.grown: np.ndarray | None = None   # the mask as Remove will use it (grown), once drawn
        super().__init__(**kwargs)
        with self.canvas:
            Color(0.11, 0.11, 0.12, 1)
            self._bg = Rectangle(pos=self.pos, size=self.size)
            Color(1, 1, 1, 1)
            self._img_rect = Rectangle()
            self._overlay_color = Color(1, 1, 1, 1)
            self._overlay_rect = Rectangle()
        with self.canvas.after:
            self._cursor_color = Color(1, 1, 1, 0)
            self._cursor = Line(circle=(0, 0, 1), width=dp(1.2))
            Color(*OUTLINE_RGBA)
            self.outline = Line(points=[], width=dp(1.2))
        self._overlay_trigger = Clock.create_trigger(self._upload_overlay, -1)
        self.bind(pos=self._on_geometry, size=self._on_geometry,
                  show_original=lambda *a: self._refresh_all(), brush_size=lambda *a: self._update_cursor(),
                  grow_px=lambda *a: self.refresh_mask())

    # -- document -----------------------------------------------------------------------
    def set_document(self, image: np.ndarray, mask: np.ndarray, keep: np.ndarray | None = None,
                     original: np.ndarray | None = None, refit: bool = False) -> None:
        """Show a new working image and masks (masks are painted in place, not copied)."""
        size_changed = self.image is None or self.image.shape[:2] != image.shape[:2]
        self.image = image
        self.mask = mask
        self.keep = keep if keep is not None else np.zeros(mask.shape, dtype=bool)
        if original is not None:
            self.original = original
        if size_changed or refit or self.view is None:
            h, w = image.shape[:2]
            self._tex = _texture(h, w)
            self._overlay_tex = _texture(h, w)
            self.fit()
        self._refresh_all()

    def show_pixels(self, pixels: np.ndarray, rect: tuple[int, int, int, int] | None = None) -> None:
        """Display ``pixels`` (e.g. a partially filled image) without changing the document.

        ``rect`` ``(x0, y0, x1, y1)``, half-open: the only pixels that differ from those shown,
        and the only ones uploaded.  A live fill changes its hole alone, so a large photo's
        preview then costs what its hole costs, not what the photo does.
        """
        if self._tex is None or pixels.shape[:2] != self.image.shape[:2]:
            return
        self.displayed = pixels
        h, w = pixels.shape[:2]
        x0, y0, x1, y1 = rect if rect is not None else (0, 0, w, h)
        # numpy row r is the texture's row r (the texture is flipped when drawn, not its data).
        self._tex.blit_buffer(rgba(pixels[y0:y1, x0:x1]).tobytes(), size=(x1 - x0, y1 - y0), pos=(x0, y0),
                              colorfmt="rgba", bufferfmt="ubyte")
        self._img_rect.texture = self._tex
        self.canvas.ask_update()

    def refresh_mask(self) -> None:
        """Redraw the overlay on the next frame (after the masks were changed)."""
        self._overlay_trigger()

    def _refresh_all(self) -> None:
        if self.image is None:
            return
        if self.show_original and self.original is not None and self.original.shape == self.image.shape:
            self.show_pixels(self.original)
        else:
            self.show_pixels(self.image)
        self._upload_overlay()

    def _upload_overlay(self, *_args) -> None:
        if self._overlay_tex is None or self.mask is None:
            return
        if self.show_original:
            self._overlay_color.a = 0
        else:
            self._overlay_color.a = 1
            layers = [(self.keep, KEEP_RGBA)]
            radius = int(self.grow_px)
            if radius > 0 and self._stroke is None:   # (recomputed when the stroke ends)
                self.grown = grow(self.mask, radius)
                layers.append((self.grown, GROW_RGBA))
            else:
                self.grown = None if radius > 0 else self.mask
            layers.append((self.mask, MASK_RGBA))
            self._overlay_tex.blit_buffer(overlay(layers, self.mask.shape).tobytes(),
                                          colorfmt="rgba", bufferfmt="ubyte")
            self._overlay_rect.texture = self._overlay_tex
        self.canvas.ask_update()

    # -- view ---------------------------------------------------------------------------
    def fit(self) -> None:
        """Fit the image to the widget, centred."""
        if self.image is None:
            return
        h, w = self.image.shape[:2]
        self._set_view(View.fit((w, h), self.size))

    def _fit_scale(self) -> float:
        h, w = self.image.shape[:2]
        return View.fit_scale((w, h), self.size)

    def zoom_by(self, factor: float, x: float | None = None, y: float | None = None) -> None:
        """Zoom by ``factor`` about widget-local ``(x, y)`` (default: the centre).

        The image point under ``(x, y)`` stays there; a point beside the image (the margin
        of a fitted photo) zooms about the nearest point of the image.
        """
        if self.view is None:
            return
        x = self.width / 2 if x is None else x
        y = self.height / 2 if y is None else y
        x, y = self.view.nearest_on_image(x, y)
        self._set_view(self.view.zoomed(factor, x, y, *self._zoom_limits()))

    def actual_size(self) -> None:
        """Zoom to 1:1 (one image pixel on one screen pixel) about the widget's centre."""
        if self.view is None:
            return
        x, y = self.view.nearest_on_image(self.width / 2, self.height / 2)
        u, v = self.view.widget_to_image(x, y)
        self._set_view(self.view.anchored(u, v, x, y, 1.0))

    @property
    def scale(self) -> float:
        """Screen pixels per image pixel: 1.0 is 1:1 (what the zoom label shows)."""
        return self.view.scale if self.view is not None else 1.0

    def _zoom_limits(self) -> tuple[float, float]:
        fit = self._fit_scale()
        return min(fit * 0.5, 1.0), max(fit, 1.0) * MAX_ZOOM

    def pan_by(self, dx: float, dy: float) -> None:
        if self.view is not None:
            self._set_view(self.view.panned(dx, dy))

    def _set_view(self, view: View) -> None:
        self.view = view.clamped()
        ox, oy = self.view.ox, self.view.oy
        size = self.view.display_size
        pos = (self.x + ox, self.y + oy)
        self._img_rect.pos = self._overlay_rect.pos = pos
        self._img_rect.size = self._overlay_rect.size = size
        self.zoom = self.view.scale / self._fit_scale()
        self.dispatch("on_view_changed")

    def _on_geometry(self, *_args) -> None:
        self._bg.pos, self._bg.size = self.pos, self.size
        if self.view is None or self.image is None:
            return
        was_fit = abs(self.zoom - 1.0) < 1e-6
        if was_fit:
            self.fit()
        else:
            self._set_view(self.view.resized(self.width, self.height))

    def local(self, touch) -> tuple[float, float]:
        """Widget-local coordinates of a touch (``touch.pos`` is in the parent's space, like ``self.pos``)."""
        return touch.x - self.x, touch.y - self.y

    def image_point(self, touch) -> tuple[float, float]:
        return self.view.widget_to_image(*self.local(touch))

    # -- painting -----------------------------------------------------------------------
    def _brush_radius(self) -> float:
        return self.brush_size / 2.0 / self.view.scale

    def _paint(self, p0, p1) -> None:
        radius = self._brush_radius()
        if self.tool == "brush":
            stamp_segment(self.mask, p0, p1, radius, True)
        elif self.tool == "protect":
            stamp_segment(self.keep, p0, p1, radius, True)
        elif self.tool == "eraser":
            stamp_segment(self.mask, p0, p1, radius, False)
            stamp_segment(self.keep, p0, p1, radius, False)
        self._overlay_trigger()

    def _start_stroke(self, touch) -> None:
        self._stroke = {"touch": touch, "backup": (self.mask.copy(), self.keep.copy())}
        self.dispatch("on_stroke_start")
        p = self.image_point(touch)
        self._stroke["last"] = p
        self._paint(p, p)

    def _end_stroke(self) -> None:
        backup = self._stroke["backup"]
        self._stroke = None
        self._overlay_trigger()        # with the Grow preview again
        changed = not (np.array_equal(backup[0], self.mask) and np.array_equal(backup[1], self.keep))
        self.dispatch("on_stroke_end", changed)

    def _cancel_stroke(self) -> None:
        if self._stroke is None:
            return
        mask, keep = self._stroke["backup"]
        self.mask[...] = mask
        self.keep[...] = keep
        self._stroke = None
        self._overlay_trigger()
        self.dispatch("on_stroke_cancel")

    # -- touches ------------------------------------------------------------------------
    def on_touch_down(self, touch):
        if not self.collide_point(*touch.pos) or self.view is None:
            return super().on_touch_down(touch)
        button = getattr(touch, "button", None) if "button" in touch.profile else None
        if touch.is_mouse_scrolling:
            x, y = self.local(touch)
            if button in ("scrolldown", "scrollleft"):
                self.zoom_by(WHEEL_STEP, x, y)
            elif button in ("scrollup", "scrollright"):
                self.zoom_by(1.0 / WHEEL_STEP, x, y)
            return True
        touch.grab(self)
        self._touches.append(touch)
        if len(self._touches) == 2:
            self._cancel_stroke()
            self._end_gesture()
            for t in self._touches:
                t.ud["editor_tap"] = None
            self._pinch = self._pinch_state()
            self._pinch_touches = list(self._touches[:2])
        elif len(self._touches) == 1:
            wants_pan = (self.tool in ("move", "select") or button in ("right", "middle")
                         or not self.painting_enabled)
            if not wants_pan and not self.show_original:
                self._start_stroke(touch)
            if self.tool == "select" and button not in ("right", "middle"):
                touch.ud["editor_tap"] = touch.pos       # a tap unless it moves or a pinch starts
                if not self.show_original:
                    self._gesture = {"touch": touch, "image": [self.image_point(touch)], "window": [touch.pos]}
        touch.ud["editor_last"] = touch.pos
        self._cursor_pos = self.local(touch)
        self._update_cursor()
        return True

    def _pinch_state(self):
        """(view at the pinch's start, finger distance, image point under the fingers' centre)."""
        dist, (cx, cy) = self._fingers()
        return self.view, dist, self.view.widget_to_image(cx, cy)

    def _fingers(self):
        (x1, y1), (x2, y2) = (self.local(t) for t in self._touches[:2])
        return math.hypot(x2 - x1, y2 - y1), ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    def on_touch_move(self, touch):
        if touch.grab_current is not self:
            return super().on_touch_move(touch)
        if touch not in self._touches:
            return True
        tap_from = touch.ud.get("editor_tap")
        if tap_from is not None and math.hypot(touch.x - tap_from[0], touch.y - tap_from[1]) > dp(TAP_SLOP):
            touch.ud["editor_tap"] = None
        if len(self._touches) >= 2:
            if touch in self._touches[:2]:
                view0, dist0, (u, v) = self._pinch
                dist, (cx, cy) = self._fingers()
                factor = dist / dist0 if dist0 > 1 and dist > 1 else 1.0
                lo, hi = self._zoom_limits()
                scale = min(max(view0.scale * factor, lo), hi)
                self._set_view(view0.anchored(u, v, cx, cy, scale))
        elif self._stroke is not None and self._stroke["touch"] is touch:
            p = self.image_point(touch)
            self._paint(self._stroke["last"], p)
            self._stroke["last"] = p
        elif self._gesture is not None and self._gesture["touch"] is touch:
            self._gesture["image"].append(self.image_point(touch))
            self._gesture["window"].append(touch.pos)
            if touch.ud.get("editor_tap") is None:
                self._draw_outline()
        else:
            lx, ly = touch.ud.get("editor_last", touch.pos)
            self.pan_by(touch.x - lx, touch.y - ly)
        touch.ud["editor_last"] = touch.pos
        self._cursor_pos = self.local(touch)
        self._update_cursor()
        return True

    def on_touch_up(self, touch):
        if touch.grab_current is not self:
            return super().on_touch_up(touch)
        touch.ungrab(self)
        # A tap while a job runs is reported too: the app tells the user it was ignored.
        tapped = (touch.ud.get("editor_tap") is not None and self._pinch is None and len(self._touches) == 1
                  and not self.show_original)
        if touch in self._touches:
            self._touches.remove(touch)
        if self._stroke is not None and self._stroke["touch"] is touch:
            p = self.image_point(touch)
            self._paint(self._stroke["last"], p)
            self._end_stroke()
        gesture = self._gesture if self._gesture is not None and self._gesture["touch"] is touch else None
        if gesture is not None:
            gesture["image"].append(self.image_point(touch))
            self._end_gesture()
        if len(self._touches) < 2:
            self._pinch = None
        elif touch in self._pinch_touches:
            self._pinch = self._pinch_state()   # a third finger takes over: restart from here
        self._pinch_touches = list(self._touches[:2])
        self._cursor_pos = None
        self._update_cursor()
        if tapped and self.view is not None:
            pixel = self.view.pixel_at(*self.local(touch))
            if pixel is not None:
                self.dispatch("on_tap", *pixel)
        elif gesture is not None and not tapped and touch.ud.get("editor_tap") is None:
            points = gesture["image"]
            self.dispatch("on_gesture", gesture_kind(points), points)
        return True

    def _draw_outline(self) -> None:
        """Outline the gesture being drawn: the stroke itself, or the box its ends span."""
        pts = self._gesture["window"]
        self.outline_kind = gesture_kind(pts)
        if self.outline_kind == "box":
            (x0, y0), (x1, y1) = pts[0], pts[-1]
            self.outline.rectangle = (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        else:
            self.outline.points = [c for p in pts + pts[:1] for c in p]
        self.canvas.ask_update()

    def _end_gesture(self) -> None:
        self._gesture = None
        self.outline_kind = None
        self.outline.points = []
        self.canvas.ask_update()

    def hover(self, window_pos) -> None:
        """Show the brush outline under the mouse pointer (desktop)."""
        x, y = self.to_widget(*window_pos)
        inside = self.collide_point(x, y) and self.tool not in ("move", "select") and self.painting_enabled
        self._cursor_pos = (x - self.x, y - self.y) if inside else None
        self._update_cursor()

    def _update_cursor(self) -> None:
        if self._cursor_pos is None or self.tool in ("move", "select") or self._pinch is not None:
            self._cursor_color.a = 0
            return
        x, y = self._cursor_pos
        self._cursor_color.a = 0.9
        self._cursor.circle = (self.x + x, self.y + y, max(self.brush_size / 2.0, 1.0))

    # -- events -------------------------------------------------------------------------
    def on_stroke_start(self):
        pass

    def on_stroke_end(self, changed):
        pass

    def on_stroke_cancel(self):
        pass

    def on_view_changed(self):
        pass

    def on_tap(self, row, col):
        pass

    def on_gesture(self, kind, points):
        """A Select gesture ended: ``kind`` ``"lasso"`` or ``"box"``, ``points`` the stroke in
        image coordinates ``(u, v)`` (a box's corners are its first and last)."""

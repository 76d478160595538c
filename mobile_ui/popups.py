"""Popup classes; their layouts are rules in ``inpaint.kv``."""

from __future__ import annotations

from kivy.properties import NumericProperty, StringProperty
from kivy.uix.popup import Popup


class MessagePopup(Popup):
    """A message with an OK button (errors are shown here, never as a crash)."""

    text = StringProperty("")


class OpenPopup(Popup):
    """File chooser plus the bundled sample photos."""


class SavePopup(Popup):
    """Destination path and the 'replace existing file' switch."""


class SettingsPopup(Popup):
    """Search factor, patch size, backend, device, profile, and the device's limits."""


class ResizePopup(Popup):
    """Seam-carving target size."""

    orig_w = NumericProperty(1)
    orig_h = NumericProperty(1)

"""Kivy touch app for object removal: paint a mask, tap Remove, keep editing.

Start it with ``python -m mobile_ui`` (or ``inpaint app`` / ``inpaint-app``).  The
window-free parts (:mod:`~mobile_ui.geometry`, :mod:`~mobile_ui.history`,
:mod:`~mobile_ui.storage`, :mod:`~mobile_ui.worker`) import without Kivy.
"""

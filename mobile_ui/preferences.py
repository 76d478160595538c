"""The app's saved settings, the fill's parameters they give, and the device they run on.

What the settings are, their defaults and their file format are in :mod:`mobile_ui.settings`
(window-free); this module reads and writes the file for the app, and applies its choices.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from kivy.logger import Logger

from . import devices, settings


def run_params(state: Any) -> dict:
    """Keyword arguments for the pipeline from the settings ``state`` holds (the app, as its
    ``run_params`` method); each setting's text is parsed by the method's declaration."""
    from inpaint.methods import registry

    method = registry.get(state.method)
    params = {"method": state.method}
    params.update({o.name: o.parse(getattr(state, o.name), o.name) for o in settings.tune_options(method)})
    params["backend"] = state.backend
    if state.backend != "numpy":
        params["device"] = None if state.device in ("", devices.AUTO) else state.device.split()[0]
        params["profile"] = state.profile or None
        params["timings"] = False  # the app shows no stage times: skip the profiling queue
    return params


class SettingsController:
    """Loads and saves the app's settings (its properties named in :data:`mobile_ui.settings.KEYS`)
    and its other state (the last photo, the recent folders).

    Parameters
    ----------
    app : InpaintApp
        The app whose properties hold the settings.
    """

    def __init__(self, app: Any):
        self.app = app
        self.saved: dict = {}      # the settings file's changed settings
        self.state: dict = {}      # other saved state: last photo and folder, recent folders
        self.devices: list = []    # the OpenCL devices the Settings popup lists

    def path(self) -> Path:
        return self.app.state_dir / "settings.json"

    def load(self) -> None:
        """Read the settings file into the app's properties (a missing or broken file: the defaults)."""
        try:
            data = json.loads(self.path().read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # (a file nested past Python's limit)
            data = {}
        self.saved, self.state = settings.read(data)
        defaults = settings.defaults()
        for key in settings.KEYS:
            setattr(self.app, key, self.saved.get(key, defaults[key]))

    def settings_to_save(self) -> dict:
        """The settings the user changed from their defaults (see :mod:`mobile_ui.settings`)."""
        values = {k: getattr(self.app, k) for k in settings.KEYS}
        return settings.to_save(values, self.saved, self.app.overrides)

    def save(self) -> None:
        """Write the settings file atomically; a failure is logged, never in the user's way."""
        state = dict(self.state)
        photo = self.app.photo
        if photo is not None and photo.path is not None:
            state["last_image"] = str(photo.path)
            state["last_dir"] = str(photo.path.parent)
        path = self.path()
        tmp = path.with_suffix(".json.part")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(settings.document(self.settings_to_save(), state), indent=1), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            Logger.warning(f"Inpaint: settings not saved: {exc}")
            with contextlib.suppress(OSError):
                tmp.unlink()

    def recent_folders(self) -> list[str]:
        """The folders photos were last opened from or saved to, newest first, that still exist."""
        return [d for d in self.state.get(settings.RECENT, []) if Path(d).is_dir()]

    def remember_folder(self, folder: Path) -> None:
        name = str(Path(folder).resolve())
        older = [d for d in self.state.get(settings.RECENT, []) if d != name]
        self.state[settings.RECENT] = [name] + older[:settings.MAX_RECENT - 1]

    def set_quality(self, name: str) -> None:
        """Apply a Quality choice (:data:`mobile_ui.settings.QUALITY`) to the fill's settings."""
        from inpaint.methods import registry

        values = settings.QUALITY.get(name)
        if values is not None and settings.has_quality(registry.get(self.app.method)):
            for key, value in values.items():
                setattr(self.app, key, value)

    def update_device_info(self, popup=None) -> None:
        """Describe the chosen device in the Settings popup, and save the settings."""
        app = self.app
        popup = popup or app.dialogs.popup
        if popup is None or "device_info" not in popup.ids:
            return
        choices = self.devices
        dev, missing = None, None
        if app.backend != "numpy" and choices:
            spec = app.device.split()[0] if app.device not in ("", devices.AUTO) else None
            match = [c for c in choices if c.spec == spec]
            if match:
                dev = match[0].device
            else:
                try:
                    from inpaint.cl.runtime import select_device
                    dev = select_device(spec)
                except Exception:  # noqa: BLE001 - a device not on this machine: said, not another's described
                    missing = f"{app.device} is not on this machine: choose another device."
        popup.ids.device_info.text = missing or devices.describe(dev, app.profile)
        self.save()

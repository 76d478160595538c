"""The app's settings file, window-free: what is saved, and how older files are read.

``settings.json`` (in the app's data folder) is, since version 2::

    {"version": 2, "changed": {"patch": "9"}, "last_image": "...", "last_dir": "..."}

Only the settings the user changed from their defaults are kept, under ``"changed"``, so a
later change of a default (the fill's follow the default method's declared defaults,
:data:`inpaint.methods.registry.DEFAULTS`) reaches everyone who left it alone.  The settings
shown as text are the options the methods declare as settings.  Version 1 (no ``"version"``
key) stored every setting flat, and its alpha 0.05 and patch 9 were the Criminisi method's defaults, stored
whether or not the user chose them: reading a version-1 file drops those two values.
"""

from __future__ import annotations

from inpaint.methods.options import BACKEND, DEVICE, PROFILE
from inpaint.methods.registry import (
    DEFAULT_METHOD,
    DEFAULTS,
    METHOD_NAMES as METHODS,
    all_options,
)

from .masktools import DEFAULT_TOLERANCE, MAX_GROW, MAX_TOLERANCE

VERSION = 2
#: Settings shown as text (spinners), and as whole numbers with their ranges (sliders).
TEXT = ("method",) + tuple(o.name for o in all_options() if o.setting)  # as the methods declare them
NUMBERS = {"grow": (0, MAX_GROW), "tolerance": (0, MAX_TOLERANCE)}
KEYS = TEXT + tuple(NUMBERS)
#: Other state kept in the file.
STATE = ("last_image", "last_dir")
#: The folders photos were last opened from or saved to, newest first (the Open dialog's Recent).
RECENT = "recent_dirs"
MAX_RECENT = 8
#: What version 1 saved for alpha and patch when the user had not chosen them.
V1_DEFAULTS = {"alpha": "0.05", "patch": "9"}


def defaults() -> dict:
    """Every setting's default value; the backend, device and profile from their environment
    variables when set (``INPAINT_BACKEND``, ``INPAINT_DEVICE``, ``INPAINT_PROFILE``, as for the
    commands; a backend that names none is left out here, the app refuses it when it starts)."""
    fill = DEFAULTS[DEFAULT_METHOD]
    backend = BACKEND.from_environment(check=False)
    return {"method": DEFAULT_METHOD, "alpha": str(fill["alpha"]), "patch": str(fill["patch"]),
            "backend": backend if backend in BACKEND.choices else "auto",
            "device": DEVICE.from_environment() or "auto", "profile": PROFILE.from_environment() or "native",
            "grow": 0, "tolerance": DEFAULT_TOLERANCE}


#: The Settings screen's Quality choice and the fill options each sets (docs/APP.md gives what
#: they were measured to cost and give).  Balanced is the default method's defaults.
QUALITY = {
    "Best quality": {"alpha": "full", "patch": "7"},      # sources from the whole photo
    "Balanced": {"alpha": str(DEFAULTS[DEFAULT_METHOD]["alpha"]), "patch": str(DEFAULTS[DEFAULT_METHOD]["patch"])},
    "Fast": {"alpha": str(DEFAULTS[DEFAULT_METHOD]["alpha"]), "patch": "5"},   # smaller patches
}
#: What the Quality choice shows when the advanced settings match none of :data:`QUALITY`.
CUSTOM = "Custom (see Advanced)"


def _known_text(key: str, value: str) -> bool:
    """Whether ``value`` is one the setting ``key`` offers: a method the registry has, one of an
    option's choices (an option without choices, a device or a profile, is checked when used)."""
    if key == "method":
        return value in METHODS
    choices = {o.name: o.choices for o in all_options()}.get(key)
    return not choices or value in choices


def tune_options(method) -> list:
    """The fill options ``method`` (a :class:`~inpaint.methods.options.Method`) declares as app
    settings, in its order: the Settings screen's rows and the keywords a run passes."""
    return [o for o in method.options if o.group == "tune" and o.setting]


def has_quality(method) -> bool:
    """Whether ``method`` takes every option the Quality choice sets (else that row is hidden)."""
    names = {o.name for o in tune_options(method)}
    return all(set(values) <= names for values in QUALITY.values())


def quality_of(alpha: str, patch: str) -> str:
    """The name of the Quality choice that sets ``alpha`` and ``patch``, else :data:`CUSTOM`."""
    for name, values in QUALITY.items():
        if values == {"alpha": alpha, "patch": patch}:
            return name
    return CUSTOM


def read(data: object) -> tuple[dict, dict]:
    """``(changed settings, other state)`` from a decoded settings file of any version.

    Unknown keys, and values of the wrong type or out of range, are left out: their
    defaults stand.
    """
    if not isinstance(data, dict):
        return {}, {}
    version = data.get("version")
    if version == VERSION:
        raw = data.get("changed") if isinstance(data.get("changed"), dict) else {}
    elif version is None:          # version 1
        raw = {k: v for k, v in data.items() if k in KEYS and V1_DEFAULTS.get(k, object()) != v}
    else:                          # written by a newer app: keep its state, not its settings
        raw = {}
    changed: dict = {}
    for key, value in raw.items():
        if key in TEXT and isinstance(value, str):
            if _known_text(key, value):  # an unknown one (another version's method) is its default again
                changed[key] = value
        elif key in NUMBERS and isinstance(value, (int, float)) and not isinstance(value, bool):
            lo, hi = NUMBERS[key]
            if lo <= value <= hi and float(value).is_integer():
                changed[key] = int(value)
    state = {k: data[k] for k in STATE if isinstance(data.get(k), str)}
    if isinstance(data.get(RECENT), list):
        state[RECENT] = [d for d in data[RECENT] if isinstance(d, str)][:MAX_RECENT]
    return changed, state


def to_save(current: dict, saved: dict, session: dict) -> dict:
    """The settings to write: those of ``current`` that differ from their defaults.

    A setting given for this session only (``session``, e.g. ``--backend``) that still has that
    value is not the user's choice: its saved value (from ``saved``) stays as it was.
    """
    base = defaults()
    out = {}
    for key in KEYS:
        value = current[key]
        if key in NUMBERS:
            value = int(value)
        if key in session and value == session[key]:
            if key in saved:
                out[key] = saved[key]
            continue
        if value != base[key]:
            out[key] = value
    return out


def document(changed: dict, state: dict) -> dict:
    """The settings file's content."""
    doc = {"version": VERSION, "changed": dict(changed)}
    doc.update({k: v for k, v in state.items() if k in STATE})
    if state.get(RECENT):
        doc[RECENT] = list(state[RECENT])[:MAX_RECENT]
    return doc

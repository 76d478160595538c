"""The words the Settings screen shows for each option's values, window-free.

The settings file and the pipeline keep the option values (``alpha`` ``'1'``, ``backend``
``'numpy'``); the screen shows what each does, with the value in brackets where the command
line has an option of that name, so a user can find it in ``inpaint --help``.
"""

from __future__ import annotations

#: Each option's shown words for its values; values without an entry show as themselves.
LABELS: dict[str, dict[str, str]] = {
    "method": {"multiscale": "Coarse to fine (multiscale)",
               "criminisi": "Patch by patch, from the edge in (criminisi)"},
    "backend": {"auto": "Fastest that works (auto)",
                "opencl": "OpenCL device only (opencl)",
                "numpy": "Processor, no OpenCL (numpy)"},
    "profile": {"native": "This device's own limits (native)",
                "cpu_only": "A processor's limits (cpu_only)",
                "desktop_gpu": "A desktop graphics card's limits (desktop_gpu)",
                "adreno330": "An older phone's graphics (adreno330)"},
    "device": {"auto": "The best one (auto)"},
}


def _alpha(value: str) -> str:
    if value == "full":
        return "The whole photo (full)"
    return f"Around the object, {value}× its size ({value})"


def _patch(value: str) -> str:
    return f"{value}×{value} pixels ({value})"


_FORMATS = {"alpha": _alpha, "patch": _patch}
#: The Settings screen's name of each fill option; an option without one shows its own name.
TITLES = {"alpha": "Copy texture from", "patch": "Texture piece size"}


def label(key: str, value: str) -> str:
    """The words shown for ``value`` of the option ``key``.

    Examples
    --------
    >>> label("alpha", "full"), label("patch", "7")
    ('The whole photo (full)', '7×7 pixels (7)')
    """
    value = str(value)
    if key in _FORMATS:
        return _FORMATS[key](value)
    return LABELS.get(key, {}).get(value, value)


def value(key: str, shown: str, choices: tuple[str, ...] | list[str] | None = None) -> str:
    """The option value that ``shown`` stands for (:func:`label`'s inverse); a value itself is
    taken as it is.

    Parameters
    ----------
    key : str
        The option.
    shown : str
        A label, or a value.
    choices : sequence of str, optional
        The option's values (needed for options whose labels are made by a format).
    """
    for v in list(LABELS.get(key, {})) + list(choices or ()):
        if label(key, v) == shown:
            return v
    return shown

"""Every fill method by name: the one list the front ends read (see :mod:`inpaint.methods.options`).

The command, the app and :func:`inpaint.api.start` ask the method object of :data:`METHODS` for
its options, job, report rows and picture; none of them names a method.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..errors import InputError
from .defaults import DEFAULT_METHOD
from .options import RUN_OPTIONS, Method, Option

#: The methods, the default first: a family is a folder of this package whose ``method.py``
#: exports ``METHOD``, and one line here.
METHODS: dict[str, Method] = {m.name: m for m in (
    import_module("inpaint.methods.multiscale.method").METHOD,
    import_module("inpaint.methods.criminisi.method").METHOD,
)}

__all__ = ["DEFAULTS", "DEFAULT_METHOD", "METHODS", "METHOD_NAMES", "OPTIONS", "all_options", "defaults_of", "get"]


def get(name: Any) -> Method:
    """The method called ``name``.

    Raises
    ------
    InputError
        No such method (the message lists them).
    """
    if not isinstance(name, str) or name not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {name!r}")
    return METHODS[name]


def all_options() -> list[Option]:
    """Every method's options and the run context's (:data:`inpaint.methods.options.RUN_OPTIONS`),
    each once (a shared option as the first method declares it), in ``--help`` order."""
    seen: dict[str, Option] = {o.name: o for o in RUN_OPTIONS}
    for method in METHODS.values():
        for option in method.options:
            seen.setdefault(option.name, option)
    return sorted(seen.values(), key=lambda o: o.rank)


def defaults_of(name: str) -> str:
    """Every method's default of option ``name`` for a help text, e.g. ``'7 for multiscale, 9 for criminisi'``."""
    return ", ".join(f"{m.defaults[name]} for {m.name}" for m in METHODS.values() if name in m.defaults)


#: The methods' names, the default first.
METHOD_NAMES: tuple[str, ...] = tuple(METHODS)
#: The options of its own each method takes, by method (every method also takes the run
#: context's, :data:`inpaint.methods.options.RUN_OPTIONS`).
OPTIONS: dict[str, tuple[str, ...]] = {name: m.names for name, m in METHODS.items()}
#: The defaults that differ between methods (the app's settings and ``--help`` show them), by method.
DEFAULTS: dict[str, dict[str, Any]] = {name: m.defaults for name, m in METHODS.items()}

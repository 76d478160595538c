"""One resolver for the data files that ship with the package.

Installed (wheel or ``pip install .``), the top-level ``kernels/``, ``profiles/`` and
``datasets/`` folders of the source tree live inside the package as ``inpaint/kernels``
and so on (see ``[tool.setuptools.package-dir]`` in ``pyproject.toml``).  In a source
checkout they sit beside the package.  Everything that reads a ``.cl``, ``.toml`` or
dataset file goes through :func:`data_dir`, so both layouts behave the same.
"""

from __future__ import annotations

import re
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_KINDS = ("kernels", "profiles", "datasets")


def data_dir(kind: str) -> Path:
    """Return the folder holding the shipped ``kind`` files.

    Parameters
    ----------
    kind : {'kernels', 'profiles', 'datasets'}

    Returns
    -------
    pathlib.Path
        The installed folder when it exists, else the checkout's top-level folder.
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown data kind {kind!r}; expected one of {', '.join(_KINDS)}")
    installed = _PACKAGE_DIR / kind
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent / kind
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the package's {kind}/ folder is missing (looked in {installed} and {checkout}); "
        "reinstall the package"
    )


def kernel_source(name: str) -> str:
    """Return the OpenCL C source of ``kernels/<name>.cl``, its ``#include "x.h"`` lines
    replaced by the text of ``kernels/x.h``.

    Headers are inlined here rather than found by the OpenCL compiler (``-I``): the source
    that is built, and that pyopencl's cache keys on, is then exactly the text compiled, with
    no include path to quote.  Headers carry include guards, so a bundle of several files that
    include one header compiles it once.
    """
    folder = data_dir("kernels")
    path = folder / f"{name}.cl"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"OpenCL source {path} is missing; reinstall the package") from None
    return _INCLUDE.sub(lambda m: _header(folder / m.group(1)), text)


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([A-Za-z0-9_]+\.h)"[ \t]*$', re.MULTILINE)


def _header(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").rstrip("\n")
    except FileNotFoundError:
        raise FileNotFoundError(f"OpenCL header {path} is missing; reinstall the package") from None

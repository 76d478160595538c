"""One resolver for the data files that ship with the package.

Installed (wheel or ``pip install .``), the top-level ``kernels/``, ``profiles/`` and
``datasets/`` folders of the source tree live inside the package as ``inpaint/kernels``
and so on (see ``[tool.setuptools.package-dir]`` in ``pyproject.toml``).  In a source
checkout they sit beside the package.  Everything that reads a ``.cl``, ``.toml`` or
dataset file goes through :func:`data_dir`, so both layouts behave the same.
"""

from __future__ import annotations

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
    """Return the OpenCL C source of ``kernels/<name>.cl``."""
    path = data_dir("kernels") / f"{name}.cl"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"OpenCL source {path} is missing; reinstall the package") from None

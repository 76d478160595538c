"""Small helpers the command-line tests share."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

#: The checkout's tools/ folder (its scripts are not a package).
TOOLS = Path(__file__).resolve().parents[1] / "tools"


def tool_module(name: str, register: bool = False):
    """The script ``tools/<name>.py`` loaded as a module (in ``sys.modules`` with ``register``,
    for code that imports it by name)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def save_mask(path: Path, mask: np.ndarray) -> Path:
    """Write ``mask`` as an 8-bit mask file (255 on the object) and return its path."""
    Image.fromarray(np.where(mask, 255, 0).astype(np.uint8)).save(path)
    return path


def box_mask(h: int, w: int, rows: slice, cols: slice) -> np.ndarray:
    """An (h, w) mask that is True on ``rows`` x ``cols``."""
    m = np.zeros((h, w), bool)
    m[rows, cols] = True
    return m


def first_by_default(values) -> list:
    """Parameter values of which the first runs in the default selection and the rest in the slow
    one (``pytest -m slow``): the default keeps one case of each kind, CI runs them all."""
    values = list(values)
    return values[:1] + [pytest.param(v, marks=pytest.mark.slow) for v in values[1:]]


def these_by_default(values, default) -> list:
    """Parameter values of which those in ``default`` run in the default selection and the rest in
    the slow one: for grids where one case of each kind is several (each type, each kind once)."""
    values, default = list(values), list(default)
    assert all(v in values for v in default), "every default case is one of the values"
    return [v if v in default else pytest.param(v, marks=pytest.mark.slow) for v in values]


_FILLS: dict = {}


def library_fill(image: np.ndarray, mask: np.ndarray, **options):
    """``inpaint.api.inpaint(image, mask, **options)`` on the numpy backend, the oracle of tests that
    check a command or the app against the library: computed once per process for each input and
    option set (the numpy fill is deterministic), its arrays read-only so no test changes them."""
    from inpaint.api import inpaint

    assert options.get("backend") == "numpy", "only the numpy fill is shared between tests"
    image, mask = np.ascontiguousarray(image), np.ascontiguousarray(mask)
    key = (image.shape, image.dtype.str, image.tobytes(), mask.tobytes(), repr(sorted(options.items())))
    if key not in _FILLS:
        res = inpaint(image, mask, **options)
        for field in (res.image, res.source_map):
            field.flags.writeable = False
        _FILLS[key] = res
    return _FILLS[key]

"""Every example in the package's docstrings runs as written and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import inpaint

MODULES = sorted(m.name for m in pkgutil.walk_packages(inpaint.__path__, "inpaint.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (see above)"

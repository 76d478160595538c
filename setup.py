"""The wheel's packages: every package setuptools finds under ``inpaint/`` and ``mobile_ui/``, and the
data folders that ``[tool.setuptools.package-dir]`` in pyproject.toml maps into ``inpaint``.

A new package (a fill method's folder) ships without a line here or in pyproject.toml, which
holds the rest of the metadata and which files each data folder ships.
"""

import sys
from pathlib import Path

from setuptools import find_packages, setup

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the build requirements name tomli there
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
DATA = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]

setup(packages=find_packages(str(HERE), include=["inpaint", "inpaint.*", "mobile_ui", "mobile_ui.*"]) + list(DATA))

"""The public entry points: the method registry agrees with the methods' names, and the old
module paths still work for one release, with a DeprecationWarning."""

import importlib
import sys

import numpy as np
import pytest

from inpaint import api
from inpaint.methods import registry


def test_every_method_has_a_job_and_options():
    assert tuple(api.JOBS) == registry.METHOD_NAMES == tuple(registry.METHODS)
    assert set(registry.OPTIONS) == set(registry.METHODS) == set(registry.DEFAULTS)
    assert registry.DEFAULT_METHOD == registry.METHOD_NAMES[0]


def test_the_methods_never_import_each_other():
    from test_import_graph import import_graph

    graph = import_graph()
    for a, b in (("criminisi", "multiscale"), ("multiscale", "criminisi")):
        for module, targets in graph.items():
            if module.startswith(f"inpaint.methods.{a}."):
                assert not [t for t in targets if t.startswith(f"inpaint.methods.{b}")], module


@pytest.mark.parametrize("old, names", [
    ("inpaint.pipeline", ("inpaint", "start", "Inpainter", "InpaintResult", "InpaintStats", "DEFAULT_METHOD")),
    ("inpaint.multiscale", ("MultiscaleInpainter", "MultiscaleStats")),
    ("inpaint.runtime", ("Runtime", "get_runtime", "OpenCLUnavailable")),
    ("inpaint.imageio", ("read_image", "read_mask", "MASK_RULE", "apply_fill", "save_images")),
])
def test_old_module_paths_still_work_and_warn(monkeypatch, old, names):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=old):
        module = importlib.import_module(old)
    new = {"inpaint.runtime": importlib.import_module("inpaint.cl.runtime"),
           "inpaint.imageio": importlib.import_module("inpaint.io")}.get(old, api)
    for name in names:
        assert getattr(module, name) is getattr(new, name)
    monkeypatch.delitem(sys.modules, old)  # the next import warns again


def test_the_old_entry_point_still_fills(monkeypatch):
    monkeypatch.delitem(sys.modules, "inpaint.pipeline", raising=False)
    with pytest.warns(DeprecationWarning):
        from inpaint.pipeline import inpaint
    img = np.random.default_rng(0).integers(0, 255, (24, 24, 3), dtype=np.uint8)
    mask = np.zeros((24, 24), bool)
    mask[8:14, 9:15] = True
    res = inpaint(img, mask, method="criminisi", patch=5, alpha="full", backend="numpy")
    np.testing.assert_array_equal(res.image, api.inpaint(img, mask, method="criminisi", patch=5, alpha="full",
                                                         backend="numpy").image)
    monkeypatch.delitem(sys.modules, "inpaint.pipeline")

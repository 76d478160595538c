"""The public entry points: the method registry agrees with the methods' names, and the module
paths from before the method families are gone."""

import pkgutil

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


def test_the_old_module_paths_are_gone():
    """Their deprecated aliases were kept for one release (inpaint.api, inpaint.methods.multiscale.job,
    inpaint.cl.runtime and inpaint.io replace them)."""
    import inpaint

    modules = {m.name for m in pkgutil.iter_modules(inpaint.__path__)}
    assert {"api", "io", "cl", "methods"} <= modules
    assert not modules & {"pipeline", "multiscale", "runtime", "imageio"}


def test_bad_values_that_overflow_or_are_not_callable_are_input_errors():
    import numpy as np
    import pytest

    from inpaint.errors import InputError
    from inpaint.seam import resize

    img = np.random.default_rng(0).integers(0, 256, (24, 24, 3), dtype=np.uint8)
    mask = np.zeros((24, 24), bool)
    mask[8:14, 8:14] = True
    for kwargs, said in (({"patch": float("inf")}, "patch size"), ({"candidates": float("inf")}, "candidates"),
                         ({"alpha": 10**400}, "alpha must be a number"), ({"method": ["criminisi"]}, "method must be"),
                         ({"engine": "numpy"}, "engine must be"), ({"progress": 5}, "progress must be a function")):
        with pytest.raises(InputError, match=said):
            api.inpaint(img, mask, backend="numpy", **kwargs)
    for kwargs, said in (({"engine": "numpy"}, "engine must be"), ({"progress": 5}, "progress must be a function")):
        with pytest.raises(InputError, match=said):
            resize(img, 20, 24, backend="numpy", **kwargs)
    with pytest.raises(InputError, match="needs about .* of memory"):   # refused before any carving, not a hang
        resize(img, 10**12, 24, backend="numpy", allow_large=True)


def test_timings_are_off_unless_asked_as_the_option_declares():
    from inpaint.methods.options import TIMINGS

    assert TIMINGS.default is False


def test_a_fill_the_memory_cannot_hold_is_refused_before_any_work(monkeypatch):
    """The library checks what a fill needs (its pixels and its hole) before the work, as the
    command does: one InputError, not numpy's MemoryError after seconds of work."""
    import numpy as np
    import pytest

    from inpaint.errors import InputError
    from inpaint.io import memory

    image = np.zeros((1024, 1024, 3), np.uint8)
    mask = np.zeros((1024, 1024), bool)
    mask[100:900, 100:900] = True
    monkeypatch.setattr(memory, "available_memory", lambda: 64 << 20)
    with pytest.raises(InputError, match=r"filling 640000 pixels of a 1024x1024 image needs about .* of memory"):
        api.start(image, mask, backend="numpy")
    assert api.fill_memory(1024 * 1024, 640000, "numpy") > 64 << 20 > api.fill_memory(1024 * 1024, 100, "opencl")

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

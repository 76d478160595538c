"""The contract between the front ends and the fill methods: each option is declared once, and
the command, the app and ``api.start`` take it from there; the edge never names a method."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from inpaint import api
from inpaint.cli.remove import build_parser, main as remove_main
from inpaint.errors import InputError
from inpaint.methods import registry

ROOT = Path(__file__).resolve().parent.parent
EDGE = sorted((ROOT / "inpaint" / "cli").glob("*.py")) + [ROOT / "inpaint" / "report.py"]
FAMILIES = ("criminisi", "multiscale")


def _actions(parser):
    return {a.dest: a for a in parser._actions if a.option_strings and a.help != "==SUPPRESS=="}


@pytest.mark.parametrize("path", EDGE, ids=lambda p: p.name)
def test_the_edge_names_no_method(path):
    """No comparison with a method's name, and no import of a family's modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for const in [n for n in ast.walk(node) if isinstance(n, ast.Constant)]:
                assert const.value not in FAMILIES, f"{path.name}:{node.lineno} compares with {const.value!r}"
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module] + [f"{module}.{a.name}" for a in node.names]
            assert not [n for n in names if re.search(r"methods\.(criminisi|multiscale)", n)], \
                f"{path.name}:{node.lineno} imports a family's internals"
        if isinstance(node, ast.Import):
            assert not [a for a in node.names if re.search(r"methods\.(criminisi|multiscale)", a.name)]


def test_the_grep_of_the_done_criterion():
    """What a reader's grep finds: no ``== "criminisi"`` and no family import at the edge."""
    pattern = re.compile(r"""(==|!=)\s*["'](criminisi|multiscale)["']|["'](criminisi|multiscale)["']\s*(==|!=)"""
                         r"""|methods\.(criminisi|multiscale)|methods\s+import\s+(criminisi|multiscale)""")
    for path in EDGE:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not pattern.search(line), f"{path.name}:{n}: {line.strip()}"


def test_every_declared_option_is_a_flag_with_its_help_and_choices():
    actions = _actions(build_parser())
    flagged = [o for o in registry.all_options() if o.flag is not None]
    assert {o.name for o in flagged} >= {"alpha", "patch", "candidates", "source", "partition", "variant", "loop",
                                         "prune", "backend", "device", "profile"}
    for option in flagged:
        action = actions[option.name]
        assert option.flag in action.option_strings
        if option.short:
            assert option.short in action.option_strings
        assert action.help == option.help.replace("{defaults}", registry.defaults_of(option.name))
        assert (tuple(action.choices) if action.choices else None) == option.choices
        if option.old_flag:  # the earlier name: same destination and choices, hidden from --help
            old = next(a for a in build_parser()._actions if option.old_flag in a.option_strings)
            assert old.dest == option.name and old.help == "==SUPPRESS=="
            assert (tuple(old.choices) if old.choices else None) == option.choices


def test_a_changed_declaration_reaches_the_flag(monkeypatch):
    """The parser is built from the declaration, not from a copy of it."""
    import dataclasses

    from inpaint.cli import remove

    blend = remove._OPTIONS["candidates"]
    monkeypatch.setitem(remove._OPTIONS, "candidates", dataclasses.replace(blend, help="blend help, changed"))
    assert _actions(remove.build_parser())["candidates"].help == "blend help, changed"


def test_the_method_flag_lists_every_registered_method():
    action = _actions(build_parser())["method"]
    assert tuple(action.choices) == registry.METHOD_NAMES
    assert action.default == registry.DEFAULT_METHOD
    for method in registry.METHODS.values():
        assert f"'{method.name}'" in action.help and method.summary in action.help


def test_defaults_come_from_the_declarations():
    for name, method in registry.METHODS.items():
        job = method.job
        import inspect

        params = inspect.signature(job).parameters
        for option in method.options:
            assert option.name in params, (name, option.name)
            if params[option.name].default is not inspect.Parameter.empty and option.default is not None:
                assert params[option.name].default == option.default, (name, option.name)
        assert registry.DEFAULTS[name] == {o.name: o.default for o in method.options if o.group == "tune"}


@pytest.mark.parametrize("method, option, value, message", [
    ("multiscale", "candidates", 9, "candidates must be an integer from 1 to 8, got 9"),
    ("multiscale", "seed", -1, "seed must be an integer from 0 to 65535, got -1"),
    ("multiscale", "seed", True, "seed must be an integer from 0 to 65535, got True"),  # (a bool ran as 1)
    ("multiscale", "candidates", True, "candidates must be an integer from 1 to 8, got True"),
    ("multiscale", "alpha", True, "alpha must be a number >= 0 or 'full', got True"),
    ("multiscale", "backend", "cuda", "backend must be one of 'auto', 'opencl', 'numpy', got 'cuda'"),
    ("criminisi", "variant", "x", "variant must be one of 'auto', 'local', 'global', got 'x'"),
    ("criminisi", "loop", "gpu", "loop must be one of 'auto', 'device', 'host', got 'gpu'"),
    ("criminisi", "source", "anywhere", "source must be one of 'original', 'filled', got 'anywhere'"),
    ("criminisi", "timings", "yes", "timings must be True or False, got 'yes'"),
])
def test_api_start_rejects_a_bad_value_with_the_declared_message(method, option, value, message):
    from inpaint.methods.options import RUN_OPTIONS

    run = {o.name: o for o in RUN_OPTIONS}
    declared = run[option] if option in run else registry.get(method).option(option)
    with pytest.raises(InputError) as declared_error:
        declared.check(value)
    assert str(declared_error.value) == message
    img = np.zeros((16, 16, 3), np.uint8)
    mask = np.zeros((16, 16), bool)
    mask[6:9, 6:9] = True
    with pytest.raises(InputError) as started:
        api.start(img, mask, method=method, **{"backend": "numpy", option: value})
    assert str(started.value) == message


def test_api_start_names_the_declared_options_of_the_method():
    img = np.zeros((16, 16, 3), np.uint8)
    mask = np.zeros((16, 16), bool)
    with pytest.raises(InputError, match="the multiscale method does not take source; it takes "
                                         + ", ".join(registry.get("multiscale").names)):
        api.start(img, mask, method="multiscale", source="filled")
    with pytest.raises(InputError, match="method must be one of multiscale, criminisi"):
        api.start(img, mask, method="telea")


def test_the_command_parses_with_the_declared_parser(tmp_path, capsys):
    """``--blend 9`` fails with the declaration's message, naming the flag as typed."""
    from PIL import Image

    Image.fromarray(np.zeros((12, 12, 3), np.uint8)).save(tmp_path / "i.png")
    Image.fromarray(np.full((12, 12), 255, np.uint8)).save(tmp_path / "m.png")
    for flag in ("--blend", "--candidates"):
        with pytest.raises(InputError, match=f"^{flag} must be an integer from 1 to 8, got '9'$"):
            remove_main([str(tmp_path / "i.png"), "--mask", str(tmp_path / "m.png"), flag, "9"])
    with pytest.raises(InputError, match="^--source only applies to another --method"):
        remove_main([str(tmp_path / "i.png"), "--mask", str(tmp_path / "m.png"), "--source", "filled"])


def test_the_app_parses_its_settings_with_the_declarations(monkeypatch):
    from types import SimpleNamespace

    from mobile_ui import app, settings

    assert settings.METHODS == registry.METHOD_NAMES
    # the settings shown as text: the method, then the options declared as settings
    assert settings.TEXT == ("method", "alpha", "patch", "backend", "device", "profile")
    assert settings.TEXT[1:] == tuple(o.name for o in registry.all_options() if o.setting)
    assert settings.defaults()["patch"] == str(registry.get(registry.DEFAULT_METHOD).option("patch").default)
    state = SimpleNamespace(method="criminisi", alpha="full", patch="5", backend="numpy")
    assert app.InpaintApp.run_params(state) == {"method": "criminisi", "alpha": "full", "patch": 5,
                                                "backend": "numpy"}
    with pytest.raises(InputError, match="^patch size must be an odd integer >= 3, got 4$"):
        app.InpaintApp.run_params(SimpleNamespace(**{**vars(state), "patch": "4"}))
    # the declaration, not a copy of it, decides
    seen = []
    method = registry.get("criminisi")
    patch = method.option("patch")
    import dataclasses

    changed = dataclasses.replace(patch, parse=lambda text, flag: seen.append((text, flag)) or 11)
    monkeypatch.setitem(registry.METHODS, "criminisi", dataclasses.replace(
        method, options=tuple(changed if o is patch else o for o in method.options)))
    assert app.InpaintApp.run_params(state)["patch"] == 11 and seen == [("5", "patch")]


def test_each_method_reports_through_its_object():
    from inpaint.report import format_stats

    img = np.random.default_rng(3).integers(0, 255, (24, 24, 3), dtype=np.uint8)
    mask = np.zeros((24, 24), bool)
    mask[9:13, 9:14] = True
    for name, method in registry.METHODS.items():
        res = api.inpaint(img, mask, method=name, backend="numpy", patch=5)
        table = format_stats(res.stats)
        assert all(method.labels[s] in table for s in method.steps)
        assert table.splitlines()[:2] == method.headline(res.stats)
        picture = method.mapping(res, mask)
        assert picture.size == (24, 24)


def test_asking_a_method_for_an_option_it_lacks_is_a_clear_error():
    method = registry.get("criminisi")
    with pytest.raises(InputError, match="^the criminisi method has no option 'candidates'; it takes alpha, patch"):
        method.option("candidates")


def test_a_numpy_only_method_refuses_opencl_in_one_line(monkeypatch):
    import dataclasses

    method = dataclasses.replace(registry.get("criminisi"), backends=("numpy",))
    monkeypatch.setitem(registry.METHODS, "criminisi", method)
    img = np.zeros((16, 16, 3), np.uint8)
    mask = np.zeros((16, 16), bool)
    mask[6:9, 6:9] = True
    with pytest.raises(InputError) as refused:
        api.start(img, mask, method="criminisi", backend="opencl")
    assert str(refused.value) == ("the criminisi method runs on numpy only, not opencl; choose backend 'auto' or "
                                  "'numpy'")
    assert api.start(img, mask, method="criminisi", backend="auto", patch=3).stats.backend in ("numpy", "opencl")


def test_a_finished_fill_whose_source_map_misses_a_pixel_is_an_error():
    """The source map's rule holds where the result is made: every filled pixel has its source."""
    from inpaint.errors import InpaintError, SourceMapError
    from inpaint.methods.base import FillStats, InpaintResult

    mask = np.zeros((6, 7), bool)
    mask[2:4, 3:5] = True
    sources = np.full((6, 7, 2), -1, np.int32)
    sources[2:4, 3:5] = (0, 0)
    image = np.zeros((6, 7, 3), np.uint8)
    assert InpaintResult(image, lambda: sources.copy(), FillStats(method="toy"), mask=mask).source_map[2, 3, 0] == 0
    sources[3, 4] = -1
    broken = InpaintResult(image, lambda: sources.copy(), FillStats(method="toy"), mask=mask)
    with pytest.raises(SourceMapError, match="^the toy fill left 1 of its 4 filled pixels without a source"):
        _ = broken.source_map
    assert issubclass(SourceMapError, InpaintError)
    for name in registry.METHODS:  # the real methods' maps pass it
        rng = np.random.default_rng(5)
        img = rng.integers(0, 255, (24, 24, 3), dtype=np.uint8)
        hole = np.zeros((24, 24), bool)
        hole[9:13, 9:14] = True
        res = api.inpaint(img, hole, method=name, backend="numpy", patch=5)
        assert (res.source_map[hole] >= 0).all()


@pytest.fixture(scope="module")
def toy_tree(tmp_path_factory):
    """A copy of the package with the toy family added (``tests/toy_family/``): its folder, and one
    line in the registry."""
    import shutil

    tree = tmp_path_factory.mktemp("toy_tree")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("inpaint", "kernels", "profiles"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore)
    shutil.copytree(ROOT / "tests" / "toy_family", tree / "inpaint" / "methods" / "toy", ignore=ignore)
    path = tree / "inpaint" / "methods" / "registry.py"
    before = path.read_text(encoding="utf-8")
    last = '    import_module("inpaint.methods.criminisi.method").METHOD,\n'
    after = before.replace(last, last + '    import_module("inpaint.methods.toy.method").METHOD,\n')
    path.write_text(after, encoding="utf-8")
    assert len(after.splitlines()) == len(before.splitlines()) + 1
    return tree


def _command(tree, cwd, *argv):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([sys.executable, "-m", "inpaint", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_a_new_family_is_one_folder_and_one_registry_line(toy_tree, tmp_path):
    """The toy family (numpy only, with its own options) runs through the command: the fill, its
    picture of where the fill came from, its timing table, and a 16-bit write-back that copies."""
    from PIL import Image

    rng = np.random.default_rng(11)
    img = rng.integers(0, 256, (23, 31, 3), dtype=np.uint8)
    mask = np.zeros((23, 31), bool)
    mask[6:15, 9:20] = True
    Image.fromarray(img).save(tmp_path / "x.png")
    Image.fromarray(np.where(mask, 255, 0).astype(np.uint8)).save(tmp_path / "m.png")
    run = _command(toy_tree, tmp_path, "x.png", "--mask", "m.png", "--method", "toy", "-o", "out.png",
                   "--save-mapping", "map.png", "--stats", "--backend", "auto")
    assert run.returncode == 0, run.stderr
    out = np.asarray(Image.open(tmp_path / "out.png"))
    assert (out[~mask] == img[~mask]).all()
    assert (out[6, 9:20] == img[5, 9:20]).all() and (out[7:15, 9] == img[7:15, 8]).all()  # the first layer
    known = {tuple(p) for p in img[~mask]}
    assert all(tuple(p) in known for p in out[mask])
    with Image.open(tmp_path / "map.png") as picture:
        assert picture.size == (31, 23)
    assert "toy fill on host (numpy)" in run.stdout and "| peel the hole, each pixel copying a known neighbour |" \
        in run.stdout

    deep = rng.integers(256, 65536, (23, 31), dtype=np.uint16)
    Image.fromarray(deep).save(tmp_path / "deep.png")
    run = _command(toy_tree, tmp_path, "deep.png", "--mask", "m.png", "--method", "toy", "-o", "deep_out.png")
    assert run.returncode == 0, run.stderr
    with Image.open(tmp_path / "deep_out.png") as written:
        assert written.mode == "I;16"
        back = np.asarray(written)
    assert (back[~mask] == deep[~mask]).all()
    assert (back[6, 9:20] == deep[5, 9:20]).all()  # copied at full depth
    assert set(back[mask].tolist()) <= set(deep[~mask].tolist())

    refused = _command(toy_tree, tmp_path, "x.png", "--mask", "m.png", "--method", "toy", "-o", "gpu.png",
                       "--backend", "opencl")
    assert refused.returncode != 0 and not (tmp_path / "gpu.png").exists()
    assert "the toy method runs on numpy only, not opencl" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr


def _row_copy_job():
    """A family of the tests' own, on the base job: each step fills one row of the hole from the
    known pixel left of the hole's box, weighed by the row's hole pixels."""
    import dataclasses

    from inpaint.methods.base import FillStats, Job, options_type

    @dataclasses.dataclass
    class RowStats(FillStats):
        method: str = "rows"

    class RowJob(Job):
        Options = options_type("RowOptions", ())
        Stats = RowStats

        def prepare(self):
            self.rows = [r for r in range(self.mask.shape[0]) if self.mask[r].any()]
            self.left = int(np.nonzero(self.mask.any(axis=0))[0][0]) - 1
            if self.left < 0:
                raise self.no_sources(1)
            self.out, self.src = self.rgb.copy(), np.full(self.mask.shape + (2,), -1, np.int32)
            return [int(self.mask[r].sum()) for r in self.rows]

        def run_step(self, index):
            r = self.rows[index]
            self.out[r, self.mask[r]] = self.rgb[r, self.left]
            self.src[r, self.mask[r]] = (r, self.left)

        def current(self):
            return self.out.copy()

        def source_map(self):
            src = self.src.copy()
            return lambda: src

    return RowJob


def test_the_base_job_owns_the_mask_rules_progress_and_result():
    from inpaint.errors import SourceMapError

    job_class = _row_copy_job()
    img = np.random.default_rng(2).integers(0, 256, (9, 12, 3), dtype=np.uint8)
    mask = np.zeros((9, 12), bool)
    mask[2, 4:6] = True       # 2 pixels
    mask[3:5, 4:10] = True    # 6 + 6
    job = job_class(img, mask, backend="numpy")
    seen = []
    res = job.run(lambda j: seen.append(j.progress))
    assert seen[:3] == [2 / 14, 8 / 14, 1.0] and job.done and res.stats.iterations == 3
    assert (res.image[mask] == img[np.nonzero(mask)[0], 3]).all() and (res.image[~mask] == img[~mask]).all()
    assert (res.source_map[mask][:, 1] == 3).all() and (res.source_map[~mask] == -1).all()

    empty = job_class(img, np.zeros((9, 12), bool))
    assert empty.done and empty.stats.empty_mask and not empty.step()
    got = empty.result()
    assert (got.image == img).all() and (got.source_map == -1).all()
    with pytest.raises(InputError, match="^the mask covers the whole image: there is nothing to copy from$"):
        job_class(img, np.ones((9, 12), bool))
    edge = np.zeros((9, 12), bool)
    edge[:, 0] = True
    with pytest.raises(InputError, match="^no valid source patch: no 1x1 window of the image is free of the mask;"):
        job_class(img, edge)
    with pytest.raises(InputError, match="^backend must be one of"):
        job_class(img, mask, backend="cuda")

    class Leaky(job_class):  # a family whose map misses a pixel it filled
        def run_step(self, index):
            super().run_step(index)
            self.src[2, 4] = -1

    with pytest.raises(SourceMapError):
        _ = Leaky(img, mask).run().source_map


def test_a_sequence_runs_its_jobs_one_after_another_as_one():
    from inpaint.methods.base import Sequence

    job_class = _row_copy_job()
    img = np.random.default_rng(3).integers(0, 256, (10, 14, 3), dtype=np.uint8)
    first, second = np.zeros((10, 14), bool), np.zeros((10, 14), bool)
    first[1:3, 2:6] = True    # 8 pixels, 2 rows
    second[6:9, 8:12] = True  # 12 pixels, 3 rows
    engines = []

    def make(index, engine):
        engines.append(engine)
        return job_class(img, (first, second)[index], backend="numpy", **({"engine": engine} if engine else {}))

    seq = Sequence(img, [first, second], make)
    seen = []
    res = seq.run(lambda j: seen.append(round(j.progress, 6)))
    assert seen[:5] == [round(x, 6) for x in (4 / 20, 8 / 20, 12 / 20, 16 / 20, 1.0)]
    assert engines[0] is None and engines[1] is not None and engines[1].numpy
    alone = [job_class(img, m, backend="numpy").run() for m in (first, second)]
    whole = first | second
    assert (res.image[first] == alone[0].image[first]).all() and (res.image[second] == alone[1].image[second]).all()
    assert (res.image[~whole] == img[~whole]).all()
    assert (res.source_map[first] == alone[0].source_map[first]).all()
    assert (res.source_map[second] == alone[1].source_map[second]).all() and (res.source_map[~whole] == -1).all()
    assert res.stats.iterations == 5 == sum(a.stats.iterations for a in alone)


def test_every_registered_method_runs_on_the_base_job():
    from inpaint.methods.base import Job, Sequence

    for method in registry.METHODS.values():
        assert issubclass(method.job, (Job, Sequence)), method.name


def test_the_run_context_is_no_method_option():
    """Backend, device, profile, engine, timings and protect are the run's, one object every method
    takes; a family's options are its own parameters only."""
    import dataclasses

    from inpaint.cl.engine import Engine
    from inpaint.methods.context import NAMES, RunContext

    assert set(NAMES) == {"backend", "device", "profile", "engine", "timings", "protect"}
    for method in registry.METHODS.values():
        assert not set(method.names) & set(NAMES), method.name
    img = np.random.default_rng(4).integers(0, 255, (20, 22, 3), dtype=np.uint8)
    mask = np.zeros((20, 22), bool)
    mask[8:12, 9:13] = True
    protect = np.zeros((20, 22), bool)
    protect[:, :3] = True
    for name in registry.METHODS:
        by_keywords = api.start(img, mask, method=name, patch=3, backend="numpy", timings=False, protect=protect)
        context = RunContext(engine=Engine("numpy"), timings=False, protect=protect)
        by_context = api.start(img, mask, method=name, patch=3, context=context)
        job = by_context.first if hasattr(by_context, "first") else by_context
        assert {f.name for f in dataclasses.fields(job.options)} == set(registry.get(name).names)
        assert job.context.engine.numpy and job.context.timings is False and job.protect is not None
        a, b = by_keywords.run(), by_context.run()
        assert (a.image == b.image).all() and (a.source_map == b.source_map).all()
        with pytest.raises(InputError, match="^give either context or backend, device, profile, engine, timings and "
                                             "protect, not both$"):
            api.start(img, mask, method=name, context=context, backend="numpy")
        with pytest.raises(InputError, match="^context must be an inpaint.methods.context.RunContext"):
            api.start(img, mask, method=name, context={"backend": "numpy"})
        with pytest.raises(InputError, match="^backend must be one of"):
            RunContext(backend="cuda")


def test_the_command_hands_the_fill_one_run_context(tmp_path, monkeypatch):
    """The command resolves the engine once and passes it, the timings choice and the --protect
    mask as the run context; the method's options are its own."""
    from PIL import Image

    from inpaint.methods.context import RunContext

    rng = np.random.default_rng(6)
    Image.fromarray(rng.integers(0, 255, (21, 25, 3), dtype=np.uint8)).save(tmp_path / "i.png")
    hole, keep = np.zeros((21, 25), np.uint8), np.zeros((21, 25), np.uint8)
    hole[8:12, 10:14], keep[:, :4] = 255, 255
    Image.fromarray(hole).save(tmp_path / "m.png")
    Image.fromarray(keep).save(tmp_path / "k.png")
    seen, real = [], api.inpaint

    def spy(image, mask, **kw):
        seen.append(kw)
        return real(image, mask, **kw)

    monkeypatch.setattr(api, "inpaint", spy)
    assert remove_main([str(tmp_path / "i.png"), "--mask", str(tmp_path / "m.png"), "-o", str(tmp_path / "o.png"),
                        "--backend", "numpy", "--method", "criminisi", "-p", "3", "--protect", str(tmp_path / "k.png"),
                        "-q"]) == 0
    (kw,) = seen
    context = kw["context"]
    assert isinstance(context, RunContext) and context.engine.numpy and context.timings is False
    assert (context.protect == (keep > 0)).all()
    assert {k for k in kw if k not in ("method", "progress", "token", "context")} == {"patch"}

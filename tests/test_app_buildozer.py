"""The Android packaging spec ships everything the app needs (no Android SDK needed)."""

import configparser
import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "buildozer.spec"
#: python-for-android recipes the app may rely on (pure-Python packages need none).
P4A_RECIPES = {"python3", "kivy", "numpy", "pillow", "opencv"}


@pytest.fixture(scope="module")
def spec():
    cp = configparser.ConfigParser()
    cp.read(SPEC, encoding="utf-8")
    return cp["app"]


def _list(value):
    return [v.strip() for v in value.split(",") if v.strip()]


def _shipped(spec, rel: str) -> bool:
    """buildozer's own rule: allowed extension, not under an excluded folder, not hidden."""
    parts = rel.split("/")
    if any(p.startswith(".") for p in parts):
        return False
    folder = "/".join(parts[:-1]).lower() + "/" if len(parts) > 1 else ""
    for d in _list(spec.get("source.exclude_dirs", "")):
        if folder.startswith(d.lower().rstrip("/") + "/"):
            return False
    if any(fnmatch.fnmatch(rel.lower(), p) for p in _list(spec.get("source.exclude_patterns", ""))):
        return False
    ext = Path(rel).suffix[1:].lower()
    return not ext or ext in _list(spec["source.include_exts"])


def test_include_exts_cover_code_kernels_profiles_and_data(spec):
    exts = set(_list(spec["source.include_exts"]))
    assert {"py", "png", "jpg", "kv", "cl", "toml", "json", "md"} <= exts
    assert spec["source.dir"] == "."


@pytest.mark.parametrize("pattern", ["kernels/*/*.cl", "profiles/*.toml", "datasets/*/*.png", "datasets/*/*.json",
                                     "mobile_ui/*.kv", "mobile_ui/*.py", "inpaint/**/*.py"])
def test_every_needed_file_is_packaged(spec, pattern):
    files = sorted(f for f in ROOT.glob(pattern)  # (benchmark data left out)
                   if not f.relative_to(ROOT).as_posix().startswith(("datasets/quality/", "datasets/objects/")))
    if not files and pattern.startswith("datasets"):
        pytest.skip("the dataset is not in this checkout")
    assert files, f"nothing matches {pattern}"
    missing = [str(f.relative_to(ROOT)) for f in files if not _shipped(spec, str(f.relative_to(ROOT)))]
    assert not missing, f"buildozer would leave out {missing}"


def test_tests_docs_benchmarks_and_tools_stay_out(spec):
    assert not _shipped(spec, "tests/test_app_buildozer.py")
    assert not _shipped(spec, "docs/screenshots/phone-portrait.png")
    assert not _shipped(spec, "bench/inpaint_bench/pipeline.py")
    assert not _shipped(spec, "bench/inpaint_bench/data/coffee.jpg")
    assert not _shipped(spec, "datasets/quality/wire_bokeh/truth.png")
    assert not _shipped(spec, "datasets/objects/bottle_table/image.png")
    assert not _shipped(spec, "inpaint_cl.egg-info/PKG-INFO")
    assert not _shipped(spec, "tools/app_screenshots.py")
    assert _shipped(spec, "datasets/walkingman/truth.png")


def test_requirements_have_recipes_and_no_pyopencl(spec):
    reqs = {r.split("==")[0].split(">=")[0].lower() for r in _list(spec["requirements"])}
    assert reqs == P4A_RECIPES, "requirements must be python-for-android recipes: python3, kivy, numpy, pillow, opencv"
    assert "pyopencl" not in reqs


def test_portrait_and_storage_permissions(spec):
    assert spec["orientation"] == "portrait"
    perms = set(_list(spec["android.permissions"]))
    assert {"READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE"} <= perms


def test_entry_point_starts_the_app():
    main = ROOT / "main.py"
    if not main.exists():
        pytest.skip("the top-level main.py that python-for-android runs is not in the tree yet (see docs/APP.md)")
    text = main.read_text(encoding="utf-8")
    assert "mobile_ui" in text and "main(" in text


def _imports(path: Path):
    """(every module ``path`` imports, those imported unconditionally at module level)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])

    def names(node):
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            mod = ".".join(base + ([node.module] if node.module else []))
            return [mod] + [f"{mod}.{a.name}" for a in node.names]
        return [node.module] + [f"{node.module}.{a.name}" for a in node.names]

    everything = [n for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for n in names(node)]
    top = [n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)) for n in names(node)]
    return everything, top


def test_the_app_needs_no_module_without_a_recipe():
    """Walk what the app's modules import at their top, unconditionally (mobile_ui, then the
    inpaint modules that reaches): all of it must be the standard library's, ours, or one of the
    recipes; anything else (pyopencl, OpenCV for Refine) has to be imported where it is used,
    optionally.  (What the fill imports when it runs on a phone is checked by running it:
    tests/test_app_launch.py, the numpy path without pyopencl.)"""
    import sys

    allowed = {"numpy", "PIL", "kivy", "inpaint", "mobile_ui", "__future__"} | set(sys.stdlib_module_names)
    todo = sorted((ROOT / "mobile_ui").glob("*.py"))
    seen, problems = set(), []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        _, top = _imports(path)
        problems += [f"{path.relative_to(ROOT)} imports {n}" for n in top if n.split(".")[0] not in allowed]
        for name in top:
            parts = name.split(".")
            if parts[0] not in ("inpaint", "mobile_ui"):
                continue
            folder = {"inpaint": ROOT / "inpaint", "mobile_ui": ROOT / "mobile_ui"}[parts[0]]
            for cut in range(len(parts), 0, -1):
                cand = folder.joinpath(*parts[1:cut])
                for f in (cand.with_suffix(".py"), cand / "__init__.py"):
                    if f.is_file() and _shipped_default(f):
                        todo.append(f)
    assert ROOT / "mobile_ui" / "masktools.py" in seen and ROOT / "inpaint" / "masks.py" in seen
    assert ROOT / "inpaint" / "io" / "read.py" in seen
    assert not problems, problems


def _shipped_default(path: Path) -> bool:
    cp = configparser.ConfigParser()
    cp.read(SPEC, encoding="utf-8")
    return _shipped(cp["app"], path.relative_to(ROOT).as_posix())

"""The Android packaging spec ships everything the app needs (no Android SDK needed)."""

import configparser
import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "buildozer.spec"
#: python-for-android recipes the app may rely on (pure-Python packages need none).
P4A_RECIPES = {"python3", "kivy", "numpy", "pillow"}


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


@pytest.mark.parametrize("pattern", ["kernels/*.cl", "profiles/*.toml", "datasets/*/*.png", "datasets/*/*.json",
                                     "mobile_ui/*.kv", "mobile_ui/*.py", "inpaint/*.py"])
def test_every_needed_file_is_packaged(spec, pattern):
    files = sorted(f for f in ROOT.glob(pattern)
                   if not f.relative_to(ROOT).as_posix().startswith("datasets/quality/"))  # benchmark data
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
    assert not _shipped(spec, "tools/app_screenshots.py")
    assert _shipped(spec, "datasets/walkingman/truth.png")


def test_requirements_have_recipes_and_no_pyopencl(spec):
    reqs = {r.split("==")[0].split(">=")[0].lower() for r in _list(spec["requirements"])}
    assert reqs == P4A_RECIPES, "requirements must be python-for-android recipes: python3, kivy, numpy, pillow"
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

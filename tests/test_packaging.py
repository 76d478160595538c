"""The installed package (not the checkout) must carry its kernels, profiles and datasets."""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # A fresh build folder: setuptools never prunes the checkout's build/lib, so files deleted or moved
    # out of the package would otherwise still reach the wheel.
    cfg = out / "build.cfg"
    cfg.write_text(f"[build]\nbuild_base = {out / 'build'}\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, text=True,
                   env={**os.environ, "DIST_EXTRA_CONFIG": str(cfg)})
    (whl,) = out.glob("inpaint_cl-*.whl")
    return whl


def test_the_distribution_name_is_ours_and_every_install_hint_names_it(wheel):
    """``inpaint`` on PyPI is another project: the wheel, the benchmarks' dependency and every
    ``pip install`` hint in the code must name this one."""
    from inpaint import DISTRIBUTION, install_hint

    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    assert f"\nName: {DISTRIBUTION}\n" in zipfile.ZipFile(wheel).read(meta).decode()
    assert f'"{DISTRIBUTION}"' in (ROOT / "bench" / "pyproject.toml").read_text()
    assert install_hint("app") == "pip install 'inpaint-cl[app]'"
    stale = [str(p.relative_to(ROOT)) for folder in ("inpaint", "mobile_ui", "bench", "tools")
             for p in (ROOT / folder).rglob("*.py") if re.search(r"install '?inpaint\[", p.read_text())]
    docs = [p.name for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
            if re.search(r"install '?inpaint\[", p.read_text())]
    assert not stale and not docs


def test_every_extra_a_hint_names_exists_and_select_brings_opencv(wheel):
    """A hint that names an extra the wheel does not offer sends the user to a pip warning and no
    install; the note of a selection without OpenCV names ``select``, which must install it."""
    meta_name = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    meta = zipfile.ZipFile(wheel).read(meta_name).decode()
    offered = set(re.findall(r"^Provides-Extra: (\S+)$", meta, re.M))
    named = {m for folder in ("inpaint", "mobile_ui") for p in (ROOT / folder).rglob("*.py")
             for m in re.findall(r"install_hint\(['\"](\w+)['\"]\)", p.read_text())}
    assert "select" in named and named <= offered, named - offered
    assert re.search(r"^Requires-Dist: opencv-contrib-python-headless\S*; extra == \"select\"$", meta, re.M)


def test_wheel_has_every_kernel_profile_and_dataset(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = []
    for folder, pattern in (("kernels", "*/*.cl"), ("profiles", "*"), ("datasets", "*/*.png")):
        files = [p for p in (ROOT / folder).glob(pattern) if p.is_file() and not p.name.startswith(".")]
        if folder != "datasets":
            assert files, f"{folder}/ is empty"
        expected += [f"inpaint/{folder}/{p.relative_to(ROOT / folder).as_posix()}" for p in files
                     if not p.name.endswith(".py")]
    missing = sorted(set(expected) - names)
    assert not missing, f"missing from the wheel: {missing}"


def test_wheel_leaves_out_benchmarks_their_data_and_tools(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    # inpaint/cli/bench.py is the 'inpaint bench' launcher, which looks inpaint-bench up at run time
    assert not [n for n in names if ("bench" in n.split("/")[-1] and n != "inpaint/cli/bench.py")
                or n.startswith("inpaint_bench/")]
    assert not [n for n in names if n.endswith((".jpg", "screenshots.py")) or "/quality/" in n]
    assert "inpaint/report.py" in names and "inpaint/seam/api.py" in names and "mobile_ui/app.py" in names


def test_every_kernel_file_the_code_and_docs_name_exists():
    # Docstrings and pages that name a kernel file by its path must follow the files when they move.
    named = {}
    for folder in ("inpaint", "mobile_ui", "bench", "tests", "docs", "tools"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".cl"):
                for found in re.findall(r"\bkernels/[\w/]+\.cl\b", path.read_text(encoding="utf-8")):
                    named.setdefault(found, str(path.relative_to(ROOT)))
    named.pop("kernels/family/file.cl")  # the pattern in the test above
    assert len(named) > 10
    assert {path: where for path, where in named.items() if not (ROOT / path).is_file()} == {}


def test_every_multiscale_kernel_exists_in_its_bundle():
    from inpaint.methods.multiscale.opencl import BUNDLE

    text = (ROOT / "inpaint" / "methods" / "multiscale" / "opencl.py").read_text()
    names = set(re.findall(r'self\._kernel\("(\w+)"', text))
    assert len(names) > 10
    source = "".join((ROOT / "kernels" / f"{stem}.cl").read_text() for stem in BUNDLE)
    for name in names:
        assert re.search(rf"void\s+{name}\s*\(", source), name


def test_installed_wheel_runs_outside_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    code = ("import inpaint.resources as r, inpaint.cl.profiles as p; "
            f"k = r.data_dir('kernels'); assert str(k).startswith({str(target)!r}), k; "
            "print(sorted(x.name for x in k.rglob('*.cl'))); print(p.available_profiles())")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert "ssd.cl" in out.stdout and "native" in out.stdout


def test_installed_wheel_imports_every_method_and_runs_the_command(wheel, tmp_path):
    """Every registered method's job imports from the installed wheel, and ``python -m inpaint --help``
    runs there, outside the checkout."""
    from inpaint.methods.registry import METHODS

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    code = ("import inpaint; from inpaint.methods.registry import METHODS; "
            f"assert inpaint.__file__.startswith({str(target)!r}), inpaint.__file__; "
            "print(sorted(name for name, m in METHODS.items() if m.job.__module__.startswith('inpaint.methods.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == repr(sorted(METHODS))
    helped = subprocess.run([sys.executable, "-m", "inpaint", "--help"], cwd=tmp_path, capture_output=True,
                            text=True, env=env)
    assert helped.returncode == 0, helped.stderr
    assert "--method" in helped.stdout and all(name in helped.stdout for name in METHODS)


def test_a_new_package_reaches_the_wheel_without_a_line_of_packaging(tmp_path):
    """A new method family is one folder: the wheel built from a copy of the checkout with a new
    package under ``inpaint/methods/`` holds it, with nothing added to the packaging."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "quality", "objects")
    for name in ("inpaint", "mobile_ui", "kernels", "profiles", "datasets"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, tree / name)
    family = tree / "inpaint" / "methods" / "newfamily"
    family.mkdir()
    (family / "__init__.py").write_text('"""A new method family."""\n', encoding="utf-8")
    (family / "job.py").write_text("VALUE = 1\n", encoding="utf-8")
    out = tmp_path / "out"
    cfg = tmp_path / "build.cfg"
    cfg.write_text(f"[build]\nbuild_base = {tmp_path / 'build'}\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(tree)], check=True, capture_output=True, text=True,
                   env={**os.environ, "DIST_EXTRA_CONFIG": str(cfg)})
    (whl,) = out.glob("inpaint_cl-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    assert {"inpaint/methods/newfamily/__init__.py", "inpaint/methods/newfamily/job.py"} <= names
    assert "inpaint/kernels/multiscale/vote.cl" in names


def test_wheel_states_the_code_and_photo_licences(wheel):
    zf = zipfile.ZipFile(wheel)
    meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    text = zf.read(meta).decode()
    expression = re.search(r"^License-Expression: (.+)$", text, re.M).group(1)
    assert "MIT" in expression and "CC-BY-SA-4.0" in expression and "CC-BY-4.0" in expression
    licences = [n for n in zf.namelist() if "/licenses/" in n]
    assert any(n.endswith("licenses/LICENSE") for n in licences)
    assert any(n.endswith("licenses/datasets/SOURCES.md") for n in licences)


def test_the_sdist_carries_what_its_tests_need(tmp_path):
    """The tests run from an unpacked sdist: every Python file of tests/ is in it (the shared
    fixtures and the toy family, not only the test modules)."""
    import tarfile

    import setuptools.build_meta as backend

    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".hypothesis", ".pytest_cache",
                                                             "screenshots", "results", ".whl", ".gpu_tree"))
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        name = backend.build_sdist(str(tmp_path))
    finally:
        os.chdir(cwd)
    with tarfile.open(tmp_path / name) as tar:
        packed = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    wanted = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py") if "__pycache__" not in p.parts}
    assert not wanted - packed
    # and the files the README links to (its description on the package index, and in the sdist)
    linked = {m.split("#")[0] for m in re.findall(r"\]\(([^)#:]+[^)]*)\)", (ROOT / "README.md").read_text())}
    assert linked and not linked - packed

"""``inpaint bench`` (the inpaint-bench distribution in ``bench/``) on tiny cases: output structure, not speed."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np
import pytest
from PIL import Image

from inpaint.cli import main
from inpaint.errors import InputError
from inpaint_bench import pipeline as bench


@pytest.fixture(scope="module")
def tiny_case(tmp_path_factory):
    """A 56x40 textured scene with a 12x12 red square on it (truth known)."""
    folder = tmp_path_factory.mktemp("cases") / "tinycase"
    folder.mkdir()
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:40, 0:56]
    truth = np.stack([(xx * 4) % 256, (yy * 6) % 256, ((xx + yy) * 3) % 256], -1).astype(np.uint8)
    truth = (truth // 2 + rng.integers(0, 60, truth.shape)).astype(np.uint8)
    mask = np.zeros((40, 56), np.uint8)
    mask[14:26, 20:32] = 255
    image = truth.copy()
    image[mask > 0] = (255, 0, 0)
    Image.fromarray(image).save(folder / "image.png")
    Image.fromarray(mask).save(folder / "mask.png")
    Image.fromarray(truth).save(folder / "truth.png")
    return folder


def _rows(text: str, first_cell: str) -> list[list[str]]:
    out = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] == first_cell or first_cell == "*":
                out.append(cells)
    return out


@pytest.mark.slow  # a whole benchmark run: CI's second step
def test_default_benchmark_markdown_json_csv(tiny_case, tmp_path, capsys):
    js, cs = tmp_path / "b.json", tmp_path / "b.csv"
    rc = main(["bench", "--case", str(tiny_case), "--repeat", "1", "--device", "cpu",
               "--json", str(js), "--csv", str(cs)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "## Default benchmark: numpy vs OpenCL" in out
    rows = _rows(out, "tinycase")
    # the default fill, (0.05, 17) and (full, 9), each numpy + one OpenCL device
    assert len(rows) == 6
    assert {r[1] for r in rows} == {"default", "0.05", "full"} and {r[2] for r in rows} == {"—", "17", "9"}
    assert {r[4] for r in rows if r[1] == "default"} == {"multiscale"}
    assert any(r[3].startswith("numpy") for r in rows) and any("numpy" not in r[3] for r in rows)
    assert all(r[8].endswith("×") for r in rows if "numpy" not in r[3])  # speed-up vs numpy
    data = json.loads(js.read_text())
    assert {"machine", "rows", "targets", "notes", "command"} <= set(data)
    assert len(data["rows"]) == 6 and all(r["runs"] == 1 and r["median_s"] > 0 for r in data["rows"])
    with open(cs, newline="") as fh:
        table = list(csv.DictReader(fh))
    assert list(table[0]) == list(bench.CSV_FIELDS) and len(table) == 6


@pytest.mark.opencl
def test_quick_grid_structure_and_quality(tiny_case, tmp_path, capsys):
    js = tmp_path / "g.json"
    rc = main(["bench", "--grid", "--quick", "--case", str(tiny_case), "--repeat", "1", "--device", "cpu",
               "--json", str(js)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "## Grid (Tables 5-8)" in out and "### tinycase (56x40, object 12x12)" in out
    header = next(r for r in _rows(out, "*") if r[0] == "α")
    assert header[1] == "search area (ours)"
    assert any("local" in h for h in header) and any("global" in h for h in header)
    assert header[-2].startswith("PSNR") and header[-1].startswith("SSIM")
    body = [r for r in _rows(out, "*") if r[0] in ("full", "0.05")]
    assert [r[0] for r in body] == ["full", "0.05"]
    assert body[0][1] == "56x40"  # full search = the whole image
    for r in body:
        for q in r[-2].split(" / ") + r[-1].split(" / "):
            assert q != "—" and float(q) == pytest.approx(float(q))
    data = json.loads(js.read_text())
    grid = [r for r in data["rows"] if r["kind"] == "grid"]
    # 2 alphas x 2 patches x 2 variants on one device + numpy at alpha 0.05 for both patches
    assert len(grid) == 2 * 2 * 2 + 2
    assert {r["alpha"] for r in grid} == {"full", "0.05"} and {r["patch"] for r in grid} == {9, 17}
    assert all(0 <= r["ssim"] <= 1 for r in grid)


def test_missing_matplotlib_gives_note_and_still_prints_tables(tiny_case, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    rc = main(["bench", "--grid", "--quick", "--alphas", "0.05", "--patches", "9", "--case", str(tiny_case),
               "--repeat", "1", "--no-numpy", "--device", "cpu", "--plots", str(tmp_path / "plots")])
    out = capsys.readouterr().out
    assert rc == 0
    assert bench.PLOT_HINT in out and "inpaint-bench[plot]" in out
    assert "## Grid (Tables 5-8)" in out and _rows(out, "0.05")
    assert not (tmp_path / "plots").exists()


@pytest.mark.opencl
def test_table4_and_contact_sheet(tiny_case, tmp_path, capsys):
    sheet = tmp_path / "sheet.png"
    rc = main(["bench", "--table4", "--case", str(tiny_case), "--device", "cpu", "--contact-sheet", str(sheet)])
    out = capsys.readouterr().out
    assert rc == 0
    rows = [r for r in _rows(out, "*") if r[1] in ("9x9", "13x13", "17x17")]
    # the local memory the built kernels report on this device equals the paper's Table 4
    assert [r[3] for r in rows] == ["1672", "2952", "4616"] and [r[5] for r in rows] == [r[3] for r in rows]
    with Image.open(sheet) as img:
        assert img.size[1] == 160 and img.size[0] > 4 * 160  # one row: four tiles


def test_unknown_case_lists_names(capsys):
    rc = main(["bench", "--case", "nosuchcase"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "nosuchcase" in err and "walkingman" in err and "hill" in err


def test_psnr_ssim():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    box = (5, 10, 35, 13)  # 3 rows: thinner than the 11x11 window, like Hill's strip
    assert bench.psnr(a, a, box) == float("inf")
    assert bench.ssim(a, a, box) == pytest.approx(1.0)
    b = a.copy()
    b[10:13, 5:35] = 255 - b[10:13, 5:35]
    assert bench.ssim(b, a, box) < 0.5
    assert 0 < bench.psnr(b, a, box) < 20


def test_default_benchmark_judges_targets_from_the_table():
    # The targets are data (targets.toml); a verdict row appears for every one that applies.
    targets = bench.load_targets()
    assert {t["device"] for t in targets} == {"pocl", "h200"}
    assert all(("limit_s" in t) != ("paper_s" in t) for t in targets)
    assert {(t["alpha"], t["patch"]) for t in targets} == {("0.05", 17), ("full", 9), (bench.DEFAULT_FILL, 0)}
    jobs = [bench.Job("default", bench.Case("walkingman", np.zeros((8, 8, 3), np.uint8), np.ones((8, 8), bool),
                                            None), None, "0.05", 17)]
    assert bench.targets_section(jobs, {"targets": []}) == "No target applies to the measured cells."

    class PoclDev:
        is_pocl, is_h200, name, short = True, False, "pthread", "PoCL CPU"

    case = jobs[0].case
    cells = []
    for alpha, patch, secs in (("0.05", 17, 0.2), ("full", 9, 2.5), (bench.DEFAULT_FILL, 0, 0.3)):
        j = bench.Job("default", case, None, alpha, patch)
        j.dev, j.times = PoclDev(), [secs]
        cells.append(j)
    out = {"targets": []}
    text = bench.targets_section(cells, out)
    assert "issue" not in text.lower()
    assert {t["target"]: t["met"] for t in out["targets"]} == {
        "walkingman α=0.05 P=17 on PoCL < 0.250 s": True,
        "walkingman full P=9 on PoCL < 3.000 s": True,
        "walkingman α=0.05 P=17 on PoCL: 5× the paper's Adreno 330": True,  # 1.25 s / 5 = 0.25 s > 0.2 s
        "walkingman full P=9 on PoCL: 10× the paper's GPU full search": False,  # 20.37 s / 10 < 2.5 s
        "walkingman default fill on PoCL < 0.250 s": False,
    }
    by_name = {t["target"]: t for t in out["targets"]}
    assert by_name["walkingman α=0.05 P=17 on PoCL: 5× the paper's Adreno 330"]["limit_s"] == pytest.approx(0.25)


def test_bench_without_inpaint_bench_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "inpaint_bench.cli", None)  # import inpaint_bench.cli -> ModuleNotFoundError
    assert main(["bench", "--grid"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install ./bench" in err


def test_product_never_imports_the_benchmarks():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    offenders = []
    for py in [*(root / "inpaint").rglob("*.py"), *(root / "mobile_ui").rglob("*.py")]:
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "inpaint_bench" for n in names):
                offenders.append(str(py.relative_to(root)))
    assert not offenders
    assert not (root / "inpaint" / "bench.py").exists() and not (root / "mobile_ui" / "screenshots.py").exists()


@pytest.mark.slow  # a whole benchmark run: CI's second step
def test_integral_benchmark_runs(runtime, tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "integral", "--device", runtime.name.split(" (")[0], "--sizes", "13x11,9x4",
                 "--kinds", "count", "--repeats", "2", "--warmup", "0", "--json", str(path)]) == 0
    table = capsys.readouterr().out
    assert "| 13×11 | count |" in table and "naive/block" in table
    data = json.loads(path.read_text())
    assert len(data["results"]) == 2 and data["meta"]["device"] == runtime.name
    assert data["meta"]["command"].startswith("inpaint bench integral")
    assert set(data["results"][0]["wall_ms"]) == {"block", "naive", "numpy"}


def test_the_benchmarks_help_shows_no_docstring_marks(capsys):
    from inpaint_bench.cli import TOOLS

    for name in TOOLS:
        with pytest.raises(SystemExit) as done:
            main(["bench", name, "--help"])
        text = capsys.readouterr().out
        assert done.value.code == 0 and "usage: inpaint bench" in text
        assert "``" not in text and ":mod:" not in text, (name, text)


def test_seam_benchmark_refuses_a_photo_that_does_not_exist(tmp_path):
    from inpaint_bench import seam

    with pytest.raises(InputError, match="does not exist"):  # not noise in its place
        seam._photo(str(tmp_path / "nope.jpg"), 24, 32)


@pytest.mark.opencl  # (without a driver the device's error is another)
def test_a_device_or_profile_named_to_a_benchmark_is_its_error_not_skipped(capsys, monkeypatch):
    # bench seam timed numpy alone with a note; bench scaling and startup said "internal error"
    assert main(["bench", "seam", "--device", "nosuchdev", "--sizes", "20x30:2", "--repeats", "1",
                 "--ours-only"]) == 3
    assert main(["bench", "seam", "--profile", "nosuch", "--sizes", "20x30:2", "--repeats", "1", "--ours-only"]) == 2
    monkeypatch.setenv("INPAINT_DEVICE", "nosuchdev")  # the timed commands' own error
    assert main(["bench", "startup", "--repeat", "1"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(ln.startswith("inpaint bench: error: ") for ln in err), err
    assert "matches no OpenCL device" in err[0] and "unknown profile 'nosuch'" in err[1]
    assert err[2].startswith("inpaint bench: error: INPAINT_DEVICE=nosuchdev (from the environment): ")


def test_a_timed_commands_failure_keeps_its_kind():
    from inpaint.errors import DeviceError
    from inpaint_bench.common import child_failed

    exc = child_failed(["inpaint", "x.png"], 3, "inpaint: note: a\ninpaint: error: no such device: 9:9\n")
    assert isinstance(exc, DeviceError) and str(exc) == "no such device: 9:9"
    assert isinstance(child_failed(["inpaint"], 2, "inpaint: error: bad\n"), InputError)
    assert str(child_failed(["inpaint", "x"], -9, "")) == "inpaint x failed (-9): no message"


@pytest.mark.slow  # a whole benchmark run: CI's second step
def test_seam_benchmark_runs_on_its_photo(runtime, tmp_path, capsys):
    from inpaint_bench import seam

    img, source = seam._photo(None, 24, 32)
    assert source == "coffee.jpg" and img.shape == (24, 32, 3)
    path = tmp_path / "seam.json"
    assert main(["bench", "seam", "--ours-only", "--sizes", "24x32:3", "--repeats", "1",
                 "--device", runtime.name.split(" (")[0], "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "### 24x32 (HxW) minus 3 vertical seams (coffee.jpg)" in out
    cols = json.loads(path.read_text())["results"][0]["columns"]
    assert {"opencl_exact_auto", "opencl_batch", "numpy"} <= set(cols)


@pytest.mark.opencl
def test_the_seam_benchmark_takes_its_device_and_profile_from_the_environment_as_the_command_does(
        capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("INPAINT_DEVICE", "nosuchdev")   # its in-process columns ran on the first device
    assert main(["bench", "seam", "--sizes", "8x12:2", "--repeats", "1", "--ours-only"]) == 3
    assert "matches no OpenCL device" in capsys.readouterr().err
    monkeypatch.delenv("INPAINT_DEVICE")
    (tmp_path / "small.toml").write_text('name = "small"\nmax_mem_alloc_size = 1\n')
    monkeypatch.setenv("INPAINT_PROFILE", str(tmp_path / "small.toml"))  # the command's child refused it
    code = main(["bench", "seam", "--sizes", "8x12:2", "--repeats", "1", "--ours-only"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("inpaint bench: error: ") and "internal" not in err[0]


@pytest.mark.parametrize("argv,said", [
    (["--grid", "--alphas", "0.05", "--patches", "-3"], "patch size must be an odd integer >= 3, got -3"),
    (["--table2", "--alpha", "-1"], "alpha must be a number >= 0 or 'full'"),
    (["--grid", "--alphas", ","], "--alphas names no value"),
    (["seam", "--repeats", "0"], "--repeats and --slow-repeats must be at least 1"),
    (["integral", "--seed", "-1"], "--seed must be >= 0"),
    (["integral", "--kinds", ","], "--sizes and --kinds must each name at least one"),
    (["--table4", "--contact-sheet", "sheet.txt"], "must end in .png or .jpg or .jpeg"),
    (["integral", "--json", "no/such/folder/x.json"], "folder no/such/folder does not exist"),
    (["startup", "--json", "."], ". is a folder; give a file name"),
])
def test_a_benchmark_refuses_values_it_cannot_run_before_any_run(capsys, monkeypatch, tmp_path, argv, said):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        code = main(["bench", *argv])
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and said in err, err
    assert not list(tmp_path.iterdir())


def test_two_devices_of_one_kind_get_columns_of_their_own():
    from inpaint_bench.devices import Dev

    class Fake:
        def __init__(self, name):
            self.name, self.type, self.version, self.driver_version = name, 2, "OpenCL 3.0", "1"
            self.max_compute_units, self.local_mem_size = 2, 1 << 15
            self.platform = type("P", (), {"name": "Portable Computing Language"})()

    a, b = Dev("0:0", Fake("pthread-a")), Dev("1:0", Fake("pthread-b"))
    assert a.short == b.short == "PoCL CPU"
    a.shared_kind = b.shared_kind = True
    assert (a.short, b.short) == ("PoCL CPU (0:0)", "PoCL CPU (1:0)")


def test_inpaint_bench_is_inpaint_bench_under_another_name(tmp_path):
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # the benchmarks as found here
    done = subprocess.run([sys.executable, "-c", "from inpaint.cli import bench_main; bench_main()",
                           "integral", "--json", str(tmp_path / "no" / "x.json")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("inpaint bench integral: error: argument --json")

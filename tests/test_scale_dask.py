"""docs/SCALE.md: a batch over a local Dask cluster of two worker processes, through the code the
page shows (``tools/scale_dask.py``), writes exactly the files the ``inpaint`` command writes."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import tool_module
from PIL import Image

distributed = pytest.importorskip("dask.distributed", reason="needs dask[distributed] (pip install 'inpaint-cl[test]')")

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "scale_dask.py"
#: Crops (128x128, around the mask) of three truth-set photos; one is written as a JPEG, whose
#: result is then edited block by block.
CASES = (("fur_stroke", ".png"), ("wire_bokeh", ".jpg"), ("wire_tower", ".png"))
#: The same options for the command and the tasks: the paper's method on numpy (fast on 128x128).
OPTIONS = {"method": "criminisi", "backend": "numpy"}


def _load_tool():
    return tool_module("scale_dask", register=True)  # the workers import it by this name (client.upload_file)


def _photos(folder: Path) -> None:
    folder.mkdir()
    for name, ext in CASES:
        case = REPO / "datasets" / "quality" / name
        image = np.asarray(Image.open(case / "truth.png").convert("RGB"))
        mask = np.asarray(Image.open(case / "mask.png").convert("L")) > 127
        ys, xs = np.nonzero(mask)
        y0 = min(max(int(ys.mean()) - 64, 0), image.shape[0] - 128)
        x0 = min(max(int(xs.mean()) - 64, 0), image.shape[1] - 128)
        crop = (slice(y0, y0 + 128), slice(x0, x0 + 128))
        assert mask[crop].sum() > 300
        Image.fromarray(image[crop]).save(folder / f"{name}{ext}", **({"quality": 90} if ext == ".jpg" else {}))
        Image.fromarray(mask[crop].astype(np.uint8) * 255).save(folder / f"{name}_mask.png")


def test_the_page_shows_the_tool_as_it_is():
    page = (REPO / "docs" / "SCALE.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", page, re.S | re.M)
    assert TOOL.read_text(encoding="utf-8") in blocks


def test_a_dask_batch_writes_what_the_command_writes(tmp_path, monkeypatch):
    _photos(tmp_path / "photos")
    # the command, on the same photos with the same options
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    cmd = subprocess.run([sys.executable, "-m", "inpaint", str(tmp_path / "photos"), "-o", f"{tmp_path / 'command'}/",
                          "--method", OPTIONS["method"], "--backend", OPTIONS["backend"], "-q"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert cmd.returncode == 0, cmd.stderr
    expected = {p.name: p.read_bytes() for p in (tmp_path / "command").iterdir()}
    assert sorted(expected) == sorted(name + ext for name, ext in CASES)

    tool = _load_tool()
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])  # the worker processes import this checkout
    done = tmp_path / "dask"
    done.mkdir()
    jobs = list(tool.pairs(str(tmp_path / "photos"), str(done)))
    assert [Path(image).name for image, _, _ in jobs] == sorted(name + ext for name, ext in CASES)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        first = tool.run(client, jobs, **OPTIONS)
        assert len(client.scheduler_info()["workers"]) == 2
        again = tool.run(client, jobs, **OPTIONS)  # a run started again: every result exists
    assert first == {str(done / name): "written" for name in expected}
    assert again == {str(done / name): "skipped" for name in expected}
    got = {p.name: p.read_bytes() for p in done.iterdir()}
    assert sorted(got) == sorted(expected)  # and no other file (no temporary one)
    assert [name for name in expected if got[name] != expected[name]] == []  # byte for byte


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow  # a scheduler and a worker of their own: the quick batch test above covers the tool
def test_the_pages_recipe_runs_as_written_with_workers_elsewhere(tmp_path):
    """The set-up block's three lines, run as the page writes them: the scheduler and the worker
    in a folder of their own, the batch with relative paths from another one."""
    page = (REPO / "docs" / "SCALE.md").read_text(encoding="utf-8")
    block = re.search(r"start a scheduler.*?```sh\n(.*?)```", page, re.S | re.I).group(1)
    lines = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert [line.split()[0] for line in lines] == [".venv/bin/dask", ".venv/bin/dask", ".venv/bin/python"]
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "dask").exists():
        pytest.skip("the dask command is not installed beside this Python")
    port = _free_port()
    address = f"127.0.0.1:{port}"

    def argv(line: str) -> list[str]:
        words = line.replace("HOST:8786", address).split()
        words[0] = str(bin_dir / Path(words[0]).name)
        return [str(TOOL) if word == "tools/scale_dask.py" else word for word in words]

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    elsewhere, batch = tmp_path / "workers", tmp_path / "batch"
    elsewhere.mkdir()
    batch.mkdir()
    _photos(batch / "photos")
    scheduler = argv(lines[0]) + ["--port", str(port), "--dashboard-address", ":0"]
    started = [subprocess.Popen(cmd, cwd=elsewhere, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for cmd in (scheduler, argv(lines[1]) + ["--dashboard-address", ":0"])]
    try:
        proc = subprocess.run(argv(lines[2]) + ["--method", "criminisi", "--backend", "numpy"], cwd=batch, env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        for child in started:
            child.terminate()
        for child in started:
            child.wait(timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in (batch / "done").iterdir()) == sorted(name + ext for name, ext in CASES)


def test_a_photo_without_its_mask_is_reported_failed_not_left_out(tmp_path):
    tool = _load_tool()
    _photos(tmp_path / "photos")
    (tmp_path / "photos" / f"{CASES[0][0]}_mask.png").unlink()
    jobs = list(tool.pairs(str(tmp_path / "photos"), str(tmp_path / "done")))
    assert len(jobs) == len(CASES)
    image, mask, out = jobs[[Path(j[0]).stem for j in jobs].index(CASES[0][0])]
    (tmp_path / "done").mkdir()
    said = tool.remove_one(image, mask, out, **OPTIONS)
    assert said.startswith("failed: ") and "does not exist" in said and not Path(out).exists()


def test_results_that_would_replace_the_photos_or_a_missing_folder_are_refused_before_any_work(tmp_path, capsys):
    tool = _load_tool()
    _photos(tmp_path / "photos")
    for argv, said in [([str(tmp_path / "photos"), str(tmp_path / "photos" / ".")], "would replace the photos"),
                       ([str(tmp_path / "nope"), str(tmp_path / "out")], "is not a folder of photos")]:
        with pytest.raises(SystemExit) as stop:
            tool.main(["tcp://127.0.0.1:1", *argv])
        assert stop.value.code == 2 and said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

"""A one-job batch reads the next image and writes the last result while it fills, and still
reports every image in its place: its warnings, its error, its summary line."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint import io as imageio
from inpaint.cli import main


@pytest.fixture
def batch(tmp_path):
    """a.png; b.tif of two frames (its reading warns); c.png whose mask has another size; d.png."""
    rng = np.random.default_rng(21)
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a", "c", "d"):
        Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)).save(folder / f"{name}.png")
    frames = [Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)) for _ in range(2)]
    frames[0].save(folder / "b.tif", save_all=True, append_images=frames[1:])
    for name in ("a", "b", "d"):
        save_mask(folder / f"{name}_mask.png", box_mask(20, 24, slice(7, 12), slice(9, 14)))
    save_mask(folder / "c_mask.png", box_mask(21, 24, slice(7, 12), slice(9, 14)))
    return folder


def test_a_one_job_batch_reads_ahead_and_writes_behind_in_order(batch, tmp_path, monkeypatch, capsys):
    read_on, written_on = {}, {}
    real_read, real_save = imageio.read_image, imageio.save_images

    def read(path, *args, **kwargs):
        read_on[path.name] = threading.current_thread().name
        return real_read(path, *args, **kwargs)

    def save(items, *args, **kwargs):
        written_on[items[0][1].name] = threading.current_thread().name
        return real_save(items, *args, **kwargs)

    monkeypatch.setattr(imageio, "read_image", read)
    monkeypatch.setattr(imageio, "save_images", save)
    out = tmp_path / "out"
    code = main([str(batch), "-o", f"{out}/", "--backend", "numpy", "--method", "criminisi", "-p", "3"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.tif", "d.png"]
    # every image was read on the reading thread (the first while the device starts), every result
    # written behind
    assert all(read_on[n].startswith("inpaint-read") for n in ("a.png", "b.tif", "c.png", "d.png")), read_on
    assert all(name.startswith("inpaint-write") for name in written_on.values()) and len(written_on) == 3

    def at(*words):
        return next(i for i, line in enumerate(err) if all(w in line for w in words))

    removed_a, warned_b, removed_b = at("[1/4] a.png", "removed"), at("warning", "b.tif"), at("[2/4] b.tif", "removed")
    error_c, removed_d, summary = at("error: [3/4] c.png"), at("[4/4] d.png", "removed"), at("4 images")
    assert removed_a < warned_b < removed_b < error_c < removed_d < summary, err
    assert len([line for line in err if "b.tif" in line and "warning" in line]) == 1
    assert "3 removed, 1 failed (c.png)" in err[summary]


def test_a_warning_of_the_photo_read_ahead_is_told_while_the_next_output_is_checked(batch, tmp_path, monkeypatch,
                                                                                   capsys):
    """b.tif warns on the reading thread while the main thread tries the output's writer on a
    tiny picture (a check before the work): the warning is told all the same, once, in b's place."""
    probing, read_b = threading.Event(), threading.Event()
    real_read, real_save = imageio.read_image, Image.Image.save

    def read(path, *args, **kwargs):
        if path.name == "b.tif":
            probing.wait(60)  # (safety only: the main thread's check sets it)
        try:
            return real_read(path, *args, **kwargs)
        finally:
            if path.name == "b.tif":
                read_b.set()

    def save(self, fp, *args, **kwargs):
        if isinstance(fp, io.BytesIO) and threading.current_thread() is threading.main_thread():
            probing.set()  # the writer's try-out of a.png's output: b.tif is read meanwhile
            read_b.wait(60)
        return real_save(self, fp, *args, **kwargs)

    monkeypatch.setattr(imageio, "read_image", read)
    monkeypatch.setattr(Image.Image, "save", save)
    out = tmp_path / "out"
    code = main([str(batch), "-o", f"{out}/", "--backend", "numpy", "--method", "criminisi", "-p", "3"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and read_b.is_set()
    warned = [i for i, line in enumerate(err) if line.startswith("inpaint: warning:") and "b.tif" in line]
    assert len(warned) == 1, err
    removed_a = next(i for i, line in enumerate(err) if "[1/4] a.png" in line and "removed" in line)
    removed_b = next(i for i, line in enumerate(err) if "[2/4] b.tif" in line and "removed" in line)
    assert removed_a < warned[0] < removed_b, err


def test_a_result_that_cannot_be_written_behind_is_that_images_error_only(batch, tmp_path, monkeypatch, capsys):
    real_save = imageio.save_images

    def save(items, *args, **kwargs):
        if items[0][1].name == "a.png":
            raise OSError(28, "No space left on device")
        return real_save(items, *args, **kwargs)

    monkeypatch.setattr(imageio, "save_images", save)
    (batch / "c_mask.png").unlink()
    save_mask(batch / "c_mask.png", box_mask(20, 24, slice(7, 12), slice(9, 14)))
    out = tmp_path / "out"
    code = main([str(batch), "-o", f"{out}/", "--backend", "numpy", "--method", "criminisi", "-p", "3"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert sorted(p.name for p in out.iterdir()) == ["b.tif", "c.png", "d.png"]
    failed = [i for i, line in enumerate(err) if "error: [1/4] a.png: cannot write " in line]
    removed_b = next(i for i, line in enumerate(err) if "[2/4] b.tif" in line and "removed" in line)
    assert len(failed) == 1 and failed[0] < removed_b, err
    assert "3 removed, 1 failed (a.png)" in err[-1]


def test_ctrl_c_in_a_one_job_batch_keeps_each_result_reported(tmp_path):
    """A stop while the next photo fills: the results reported are whole files, the last line says
    the run was interrupted, and no temporary file stays."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    rng = np.random.default_rng(8)
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(6):
        Image.fromarray(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)).save(folder / f"p{i}.png")
        save_mask(folder / f"p{i}_mask.png", box_mask(60, 80, slice(20, 38), slice(30, 50)))
    repo = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])))
    out = tmp_path / "out"
    with subprocess.Popen([sys.executable, "-m", "inpaint", str(folder), "-o", f"{out}/", "--backend", "numpy",
                           "--method", "criminisi", "--progress", "none"], cwd=tmp_path, env=env,
                          stderr=subprocess.PIPE, text=True) as p:
        lines = [p.stderr.readline()]
        while "removed" not in lines[-1] and lines[-1]:
            lines.append(p.stderr.readline())
        p.send_signal(signal.SIGINT)
        lines += p.stderr.read().splitlines()
        code = p.wait(timeout=120)
    assert code == 130, lines
    assert lines[-1].strip() == "inpaint: interrupted", lines
    reported = [line.rsplit("/", 1)[-1].strip() for line in lines if "removed" in line]
    assert reported and reported[0] == "p0.png"
    for name in reported:
        with Image.open(out / name) as written:
            assert written.size == (80, 60)
    assert all(p.suffix == ".png" for p in out.iterdir()), sorted(out.iterdir())  # no temporary file


def test_one_image_is_read_on_a_thread_while_opencl_starts(tmp_path, monkeypatch, capsys):
    """The photo and its mask are read on the reading thread; the device's runtime is opened on
    the command's own thread meanwhile; the result is that of a plain run."""
    from inpaint.cl import engine as engine_mod

    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 256, (30, 34, 3), dtype=np.uint8)).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", box_mask(30, 34, slice(10, 16), slice(12, 19)))
    read_on, ready_on = {}, []
    real_read, real_mask, real_ready = imageio.read_image, imageio.read_mask, engine_mod.Engine.ready

    def read(path, *args, **kwargs):
        read_on["image"] = threading.current_thread().name
        return real_read(path, *args, **kwargs)

    def mask(path, *args, **kwargs):
        read_on["mask"] = threading.current_thread().name
        return real_mask(path, *args, **kwargs)

    def ready(self, *args, **kwargs):
        ready_on.append(threading.current_thread().name)
        return real_ready(self, *args, **kwargs)

    monkeypatch.setattr(imageio, "read_image", read)
    monkeypatch.setattr(imageio, "read_mask", mask)
    monkeypatch.setattr(engine_mod.Engine, "ready", ready)
    assert main([str(tmp_path / "a.png"), "--mask", str(tmp_path / "m.png"), "-o", str(tmp_path / "o.png"),
                 "--backend", "numpy", "--method", "criminisi", "-p", "3", "-q"]) == 0
    assert read_on["image"].startswith("inpaint-read") and read_on["mask"].startswith("inpaint-read"), read_on
    assert ready_on and ready_on[0] == threading.current_thread().name
    monkeypatch.setattr(imageio, "read_image", real_read)
    monkeypatch.setattr(imageio, "read_mask", real_mask)
    assert main([str(tmp_path / "a.png"), "--mask", str(tmp_path / "m.png"), "-o", str(tmp_path / "p.png"),
                 "--backend", "numpy", "--method", "criminisi", "-p", "3", "-q"]) == 0
    assert np.array_equal(np.asarray(Image.open(tmp_path / "o.png")), np.asarray(Image.open(tmp_path / "p.png")))


def test_the_photos_own_error_comes_before_its_masks_when_both_are_read_ahead(tmp_path, capsys):
    """A photo too small to fill, with a mask of another size: the photo's error is the one line."""
    Image.fromarray(np.zeros((2, 9, 3), np.uint8)).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", box_mask(5, 5, slice(1, 3), slice(1, 3)))
    code = main([str(tmp_path / "a.png"), "--mask", str(tmp_path / "m.png"), "-o", str(tmp_path / "o.png"),
                 "--backend", "numpy", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "too small to fill" in err[0] and "same size" not in err[0], err
    assert not (tmp_path / "o.png").exists()


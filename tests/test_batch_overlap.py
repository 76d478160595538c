"""A one-job batch reads the next image and writes the last result while it fills, and still
reports every image in its place: its warnings, its error, its summary line."""

from __future__ import annotations

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
    # the images after the first were read on the reading thread, every result written behind
    assert read_on["a.png"] == threading.current_thread().name
    assert all(read_on[n].startswith("inpaint-read") for n in ("b.tif", "c.png", "d.png")), read_on
    assert all(name.startswith("inpaint-write") for name in written_on.values()) and len(written_on) == 3

    def at(*words):
        return next(i for i, line in enumerate(err) if all(w in line for w in words))

    removed_a, warned_b, removed_b = at("[1/4] a.png", "removed"), at("warning", "b.tif"), at("[2/4] b.tif", "removed")
    error_c, removed_d, summary = at("error: [3/4] c.png"), at("[4/4] d.png", "removed"), at("4 images")
    assert removed_a < warned_b < removed_b < error_c < removed_d < summary, err
    assert len([line for line in err if "b.tif" in line and "warning" in line]) == 1
    assert "3 removed, 1 failed (c.png)" in err[summary]

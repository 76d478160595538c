"""The command decodes a PNG photo while it loads its modules: only for the plain form, and the
reading still checks the file it is given as if it opened it itself."""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint.cli import early, main


@pytest.fixture(autouse=True)
def _nothing_left():
    yield
    early.take("")  # a decoding a test started and did not take
    early._early.clear()


@pytest.mark.parametrize(("argv", "image"), [
    (["p.png", "--mask", "m.png", "-o", "o.png", "-q", "--device", "0:0"], "p.png"),
    (["--mask=m.png", "p.png", "--output=o.png", "--stats", "--overwrite"], "p.png"),
    (["p.png", "-m", "m.png", "--force", "--quiet"], "p.png"),
    (["a.png", "b.png", "-o", "out/"], None),  # a batch
    (["p.png", "--mask", "m.png", "-o", "o.png", "-q", "-y", "--seed", "3", "-p", "9"], "p.png"),
    (["--grow", "3", "p.png", "--mask", "m.png"], "p.png"),
    (["p.png", "--mask", "m.png", "--protect", "x.png"], None),  # an option not on the list
    (["p.png", "--mask", "m.png", "--max-pixels", "100"], None),  # nor one that limits the reading
    (["-", "--mask", "m.png"], None),  # standard input
    (["resize", "p.png", "-W", "10"], None),
    (["p.png", "--mask"], None),
])
def test_only_a_plain_one_image_command_is_guessed(argv, image):
    assert early._image_argument(argv) == image


def test_the_options_guessed_are_the_commands_own():
    """Each valued option takes one value and each flag none, as the command's parser has them."""
    from inpaint.cli.remove import build_parser

    actions = {s: a for a in build_parser()._actions for s in a.option_strings}
    for option in early._VALUED:
        assert actions[option].nargs is None and actions[option].const is None, option
    for option in early._FLAGS:
        assert actions[option].nargs == 0, option


def _photo(path, h=31, w=37, seed=3):
    Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)
    return path


def test_only_a_plain_png_file_is_decoded(tmp_path):
    assert early._plain_png(str(_photo(tmp_path / "p.png"))) == (37, 31)
    frames = [Image.new("RGB", (8, 6), c) for c in ("red", "blue")]
    frames[0].save(tmp_path / "anim.png", save_all=True, append_images=frames[1:])
    assert early._plain_png(str(tmp_path / "anim.png")) is None
    Image.new("RGB", (8, 6)).save(tmp_path / "p.jpg")
    assert early._plain_png(str(tmp_path / "p.jpg")) is None
    assert early._plain_png(str(tmp_path)) is None
    assert early._plain_png(str(tmp_path / "missing.png")) is None
    if hasattr(os, "mkfifo"):  # a named pipe is not opened: that would wait for a writer
        os.mkfifo(tmp_path / "pipe.png")
        assert early._plain_png(str(tmp_path / "pipe.png")) is None
    early.start([str(tmp_path / "p.jpg"), "--mask", "m.png"])
    assert early.take(tmp_path / "p.jpg") is None


def _argv(tmp_path, photo, out, *more):
    return [str(photo), "--mask", str(tmp_path / "m.png"), "-o", str(out), "-q", *more]


@pytest.fixture
def pair(tmp_path):
    photo = _photo(tmp_path / "p.png")
    save_mask(tmp_path / "m.png", box_mask(31, 37, slice(11, 18), slice(12, 20)))
    return photo


def test_the_photo_decoded_early_is_read_without_opening_it_again(tmp_path, pair, monkeypatch):
    plain = tmp_path / "plain.png"
    assert main(_argv(tmp_path, pair, plain, "--backend", "numpy", "--method", "criminisi", "-p", "3")) == 0
    early.start(_argv(tmp_path, pair, tmp_path / "x.png"))
    assert early._early["done"].wait(30)
    opened = []
    real = Image.open

    def watched(fp, *args, **kwargs):
        opened.append(os.fspath(fp) if isinstance(fp, (str, os.PathLike)) else fp)
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(Image, "open", watched)
    out = tmp_path / "early.png"
    assert main(_argv(tmp_path, pair, out, "--backend", "numpy", "--method", "criminisi", "-p", "3")) == 0
    assert str(pair) not in opened and str(tmp_path / "m.png") in opened
    assert "done" not in early._early
    monkeypatch.setattr(Image, "open", real)
    assert np.array_equal(np.asarray(Image.open(out)), np.asarray(Image.open(plain)))


@pytest.mark.parametrize("form", [["--mask", "{}"], ["-m", "{}"], ["--mask={}"]])
def test_a_photo_whose_mask_does_not_exist_is_not_decoded(tmp_path, pair, form):
    argv = [str(pair), *(t.format(tmp_path / "nope.png") for t in form), "-o", str(tmp_path / "x.png")]
    early.start(argv)
    assert "done" not in early._early  # the missing mask's error comes at once
    early.start([str(pair), *(t.format(tmp_path / "m.png") for t in form), "-o", str(tmp_path / "x.png")])
    assert early._early["done"].wait(30) and early.take(pair) is not None


def test_a_photo_changed_after_its_early_decoding_is_read_again(tmp_path, pair):
    early.start(_argv(tmp_path, pair, tmp_path / "x.png"))
    assert early._early["done"].wait(30)
    _photo(tmp_path / "new.png", seed=9)
    os.replace(tmp_path / "new.png", pair)
    out, plain = tmp_path / "early.png", tmp_path / "plain.png"
    assert main(_argv(tmp_path, pair, out, "--backend", "numpy", "--method", "criminisi", "-p", "3")) == 0
    assert main(_argv(tmp_path, pair, plain, "--backend", "numpy", "--method", "criminisi", "-p", "3")) == 0
    assert np.array_equal(np.asarray(Image.open(out)), np.asarray(Image.open(plain)))


def test_a_photo_decoded_early_past_the_pixel_limit_in_force_is_refused_as_always(tmp_path, pair, run):
    early.start(_argv(tmp_path, pair, tmp_path / "x.png"))
    code, _, err = run(*_argv(tmp_path, pair, tmp_path / "o.png", "--backend", "numpy", "--max-pixels", "500"))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "500" in err and not (tmp_path / "o.png").exists()

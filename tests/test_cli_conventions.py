"""The command's conventions and wording: ImageMagick-style sizes for ``inpaint resize``, grouped
help with the options' earlier names still accepted, percentages that never round up to 100 %,
and messages that say what went wrong (EXIF rotation, protected seams)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from inpaint import cli
from inpaint.errors import InputError
from inpaint.report import format_percent


@pytest.mark.parametrize("fraction, text", [(0.998, "99.8%"), (0.8, "80%"), (1.0, "100%"), (0.0, "0%"),
                                            (0.9996, "99.96%"), (0.004, "0.4%"), (0.5, "50%"), (2.5, "250%")])
def test_percentages_never_read_as_all_or_nothing(fraction, text):
    assert format_percent(fraction) == text


@pytest.mark.parametrize("geometry, size", [
    ("75%", (750, 375)), ("50%x100%", (500, 500)), ("640x480!", (640, 480)), ("640x480", (640, 320)),
    ("640", (640, 320)), ("x480", (960, 480)), ("200%", (2000, 1000))])
def test_size_takes_imagemagick_geometry(geometry, size):
    from inpaint.cli.options import parse_geometry

    assert parse_geometry(geometry)(1000, 500) == size


@pytest.mark.parametrize("geometry", ["x", "abc", "0x5!", "-5%", "5x5x5", "", "50%%"])
def test_bad_geometry_is_refused(geometry):
    from inpaint.cli.options import parse_geometry

    with pytest.raises(InputError, match="--size must look like"):
        parse_geometry(geometry)


def _image(path, w=30, h=20, **save):
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(path, **save)
    return path


@pytest.mark.parametrize("argv, size", [(["--width", "50%"], (15, 20)), (["--height", "50%"], (30, 10)),
                                        (["--size", "20x15!"], (20, 15)), (["--size", "50%"], (15, 10)),
                                        (["--width", "50%", "--height", "15"], (15, 15))])
def test_resize_takes_percentages_and_geometry(tmp_path, argv, size):
    src = _image(tmp_path / "in.png")
    out = tmp_path / "out.png"
    assert cli.main(["resize", str(src), *argv, "-o", str(out), "--backend", "numpy", "-q"]) == 0
    with Image.open(out) as result:
        assert result.size == size


def test_resize_size_and_width_together_is_refused(tmp_path, capsys):
    src = _image(tmp_path / "in.png")
    assert cli.main(["resize", str(src), "--size", "50%", "--width", "10", "--backend", "numpy"]) == 2
    assert "either --size or --width/--height" in capsys.readouterr().err


def test_help_groups_everyday_and_advanced_options_and_old_names_still_work(tmp_path, capsys):
    from inpaint.cli.remove import build_parser

    text = build_parser().format_help()
    everyday = text[text.index("everyday options:"):text.index("tuning the fill:")]
    tuning = text[text.index("tuning the fill:"):text.index("advanced:")]
    advanced = text[text.index("advanced:"):]
    for option in ("--mask", "--output", "--grow", "--method", "--backend", "--jobs", "--quiet"):
        assert option in everyday
    for option in ("--search-area", "--patch", "--blend"):
        assert option in tuning
    for option in ("--device-stages", "--search-memory", "--fill-loop", "--early-exit", "--stats", "--profile"):
        assert option in advanced and option not in everyday
    for old in ("--alpha", "--candidates", "--partition", "--variant", "--loop", "--prune"):
        assert old not in text.replace("--alpha)", ""), f"{old} is a hidden alias"
    old = build_parser().parse_args(["a.png", "--alpha", "0.3", "--candidates", "2", "--partition", "all",
                                     "--variant", "local", "--loop", "host", "--prune", "on"])
    new = build_parser().parse_args(["a.png", "--search-area", "0.3", "--blend", "2", "--device-stages", "all",
                                     "--search-memory", "local", "--fill-loop", "host", "--early-exit", "on"])
    assert vars(old) == vars(new)


def test_mask_drawn_before_the_photo_s_exif_rotation_is_explained(tmp_path, capsys):
    photo = tmp_path / "photo.jpg"
    rng = np.random.default_rng(1)
    exif = Image.Exif()
    exif[0x0112] = 6                                           # stored 40x30, shown upright 30x40
    Image.fromarray(rng.integers(0, 255, (30, 40, 3), dtype=np.uint8)).save(photo, exif=exif.tobytes())
    mask = np.zeros((30, 40), np.uint8)                        # drawn on the stored frame
    mask[10:20, 10:20] = 255
    Image.fromarray(mask).save(tmp_path / "mask.png")
    code = cli.main([str(photo), "--mask", str(tmp_path / "mask.png"), "-o", str(tmp_path / "o.png"),
                     "--backend", "numpy"])
    err = capsys.readouterr().err
    assert code == 2 and "EXIF rotation" in err and "40x30" in err and "30x40" in err


def test_protected_seams_message_does_not_contradict_itself():
    from inpaint.seam import resize

    img = np.random.default_rng(2).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    keep = np.ones((20, 30), bool)
    keep[0::2, 0] = False                                      # each row leaves one pixel free, at
    keep[1::2, 29] = False                                     # alternate ends: no seam gets through
    with pytest.raises(ValueError) as info:
        resize(img, 29, 20, keep_mask=keep, backend="numpy")
    assert str(info.value) == "keep_mask makes the target width impossible: every remaining seam crosses a " \
                              "protected pixel"

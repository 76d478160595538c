"""Which files a run takes, by the names a user gives: links and names given twice, quoted
patterns, a photo's mask beside it, ``-o FOLDER`` for one photo, a batch run again, and the
summary of a batch that did nothing.

Every run is a real ``python -m inpaint`` process on real files; results are compared with the
bytes of the plain run (``IMAGE --mask MASK -o OUT``) on the same photo.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
H, W = 26, 30
# Names, links and batches are the command's edge, the same for every method: the Criminisi
# method's numpy fill takes a hundredth of a second here.
QUICK = ["--method", "criminisi", "--backend", "numpy", "-p", "5"]


def run(args: list, cwd: Path) -> subprocess.CompletedProcess:
    """``inpaint ARGS`` in a fresh process, as a user runs it (no shell: patterns stay quoted)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "inpaint", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: its bytes (a symbolic link: the name it points to)."""
    return {str(p.relative_to(folder)): (os.readlink(p).encode() if p.is_symlink() else p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


def photo(path: Path, seed: int) -> Path:
    y, x = np.mgrid[:H, :W]
    rgb = np.stack([(x * 7) % 256, (y * 9) % 256, ((x + y) * 4) % 256], -1)
    rgb = rgb + np.random.default_rng(seed).integers(0, 30, (H, W, 3))
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path)
    return path


MASK = box_mask(H, W, slice(9, 15), slice(11, 18))


@pytest.fixture
def work(tmp_path) -> Path:
    """``photo.png`` with ``photo_mask.png`` beside it, and ``ref.png``: the plain run's result."""
    photo(tmp_path / "photo.png", 1)
    save_mask(tmp_path / "photo_mask.png", MASK)
    p = run(["photo.png", "--mask", "photo_mask.png", "-o", "ref.png", *QUICK], tmp_path)
    assert p.returncode == 0, p.stderr
    ref = np.asarray(Image.open(tmp_path / "ref.png"))
    assert not np.array_equal(ref[MASK], np.asarray(Image.open(tmp_path / "photo.png"))[MASK])  # it fills
    return tmp_path


def _note_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": note: " in line]


# -- links and names given twice -------------------------------------------------------------------

def test_a_photo_named_through_a_symbolic_link_is_filled_with_the_mask_of_the_file_it_names(work):
    (work / "alias.png").symlink_to("photo.png")
    before = files(work)
    p = run(["alias.png", *QUICK], work)
    assert p.returncode == 0, p.stderr
    assert "note: the mask is photo_mask.png (for photo.png, which alias.png names)" in p.stderr
    assert (work / "alias_removed.png").read_bytes() == (work / "ref.png").read_bytes()  # named as given
    assert files(work) == dict(before, **{"alias_removed.png": (work / "alias_removed.png").read_bytes()})


def test_a_link_with_a_mask_of_its_own_uses_that_one(work):
    """The mask beside the name given comes first: a link may name a photo to fill another way."""
    other = box_mask(H, W, slice(3, 8), slice(2, 9))
    (work / "alias.png").symlink_to("photo.png")
    save_mask(work / "alias_mask.png", other)
    p = run(["alias.png", *QUICK], work)
    assert p.returncode == 0, p.stderr
    assert "note: the mask is alias_mask.png\n" in p.stderr
    q = run(["photo.png", "--mask", "alias_mask.png", "-o", "ref2.png", *QUICK], work)
    assert q.returncode == 0, q.stderr
    assert (work / "alias_removed.png").read_bytes() == (work / "ref2.png").read_bytes()


@pytest.mark.parametrize("given", [["d"], ["d/*"], ["d/photo.png", "d/hard.png", "d/photo.png", "d/sym.png"]],
                         ids=["folder", "pattern", "files"])
def test_one_photo_under_several_names_in_a_batch_is_filled_once_under_the_name_its_mask_goes_with(work, given):
    d = work / "d"
    d.mkdir()
    for name in ("photo.png", "photo_mask.png"):
        os.replace(work / name, d / name)
    os.link(d / "photo.png", d / "hard.png")     # sorts before photo.png
    (d / "sym.png").symlink_to("photo.png")
    before = files(d)
    p = run([*given, *QUICK], work)
    assert p.returncode == 0, p.stderr
    assert "d/hard.png is d/photo.png, given twice: it is done once" in p.stderr
    assert "d/sym.png is d/photo.png, given twice: it is done once" in p.stderr
    assert "1 image: 1 removed, 0 failed" in p.stderr
    after = files(d)
    assert sorted(set(after) - set(before)) == ["photo_removed.png"]
    assert after["photo_removed.png"] == (work / "ref.png").read_bytes()
    assert {k: after[k] for k in before} == before


# -- patterns, a mask beside the photo, -o FOLDER for one photo ------------------------------------

def test_a_quoted_pattern_is_a_batch_even_when_it_matches_one_photo(work):
    before = files(work)
    p = run(["photo*.png", *QUICK], work)   # matches photo.png and photo_mask.png
    assert p.returncode == 0, p.stderr
    assert "note: skipped 1 mask of other inputs" in p.stderr
    assert "1 image: 1 removed, 0 failed" in p.stderr
    assert sorted(set(files(work)) - set(before)) == ["photo_removed.png"]
    assert (work / "photo_removed.png").read_bytes() == (work / "ref.png").read_bytes()


#: (the command's first words, its options) for ``inpaint`` and ``inpaint resize``
COMMANDS = [([], QUICK), (["resize"], ["--width", "20", "--backend", "numpy"])]


@pytest.mark.parametrize("lead, options", COMMANDS, ids=["inpaint", "resize"])
def test_a_quoted_pattern_that_matches_no_photo_is_one_line_naming_it(work, lead, options):
    before = files(work)
    p = run([*lead, "nothing/*.jpg", *options], work)
    assert p.returncode == 2
    assert p.stderr.splitlines() == [f"inpaint{' resize' if lead else ''}: error: no image file matches "
                                     "nothing/*.jpg (looked for .png, .jpg, .jpeg, .tif, .tiff, .bmp, .webp, .gif); "
                                     "nothing was done"]
    assert files(work) == before


def test_one_photo_without_mask_uses_the_mask_beside_it_with_a_note(work):
    p = run(["photo.png", *QUICK], work)
    assert p.returncode == 0, p.stderr
    assert _note_lines(p.stderr) == ["inpaint: note: the mask is photo_mask.png"]
    assert (work / "photo_removed.png").read_bytes() == (work / "ref.png").read_bytes()
    (work / "photo_mask.png").unlink()
    p = run(["photo.png", "-o", "other.png", *QUICK], work)
    assert p.returncode == 2
    assert p.stderr.splitlines() == ["inpaint: error: --mask is required (the object to remove): there is no "
                                     "photo_mask.png beside photo.png; or select the object with --box "
                                     "X0,Y0,X1,Y1 or --around ROUGH_MASK"]
    assert not (work / "other.png").exists()


@pytest.mark.parametrize("lead, options", COMMANDS, ids=["inpaint", "resize"])
@pytest.mark.parametrize("out", ["done/", "done"], ids=["new-folder", "existing-folder"])
def test_o_folder_for_one_photo_writes_where_a_batch_would(work, lead, options, out):
    if not out.endswith("/"):
        (work / out).mkdir()
    one = run([*lead, "photo.png", *options, "-o", out], work)
    assert one.returncode == 0, one.stderr
    assert sorted(os.listdir(work / "done")) == ["photo.png"]
    mine = (work / "done" / "photo.png").read_bytes()
    os.replace(work / "done", work / "single")
    photo(work / "second.png", 2)
    save_mask(work / "second_mask.png", MASK)
    batch = run([*lead, "photo.png", "second.png", *options, "-o", "done/"], work)
    assert batch.returncode == 0, batch.stderr
    assert (work / "done" / "photo.png").read_bytes() == mine


# -- a batch run again, and one that did nothing ---------------------------------------------------

def test_a_pattern_run_again_leaves_its_results_out_and_has_nothing_to_do(work):
    for i in (2, 3):
        photo(work / f"p{i}.png", i)
        save_mask(work / f"p{i}_mask.png", MASK)
    first = run(["*.png", *QUICK], work)   # ref.png has no mask: it fails, the rest are done
    assert first.returncode == 2, first.stderr
    assert "4 images: 3 removed, 1 failed (ref.png)" in first.stderr
    (work / "ref_removed.png").write_bytes((work / "ref.png").read_bytes())  # as if done by hand
    before = files(work)
    again = run(["*.png", *QUICK], work)
    assert again.returncode == 0, again.stderr
    assert "note: skipped 4 earlier results of other inputs" in again.stderr
    assert "note: 4 already done (p2.png, p3.png, photo.png, ...): their results exist; --overwrite does them " \
           "again" in again.stderr
    assert again.stderr.splitlines()[-1] == "inpaint: nothing to do: no image of the batch needs work"
    assert "images/s" not in again.stderr and "error" not in again.stderr
    assert files(work) == before


def test_a_batch_where_every_photo_fails_reports_no_rate(work):
    photo(work / "b.png", 2)   # no mask
    before = files(work)
    p = run(["b.png", "ref.png", *QUICK], work)
    assert p.returncode == 2
    summary = p.stderr.splitlines()[-1]
    assert summary.startswith("inpaint: 2 images: 0 removed, 2 failed (b.png, ref.png); ")
    assert summary.endswith(" s") and "images/s" not in summary
    assert files(work) == before


def _pair(folder: Path, name: str, seed: int, mask=MASK) -> Path:
    """A photo ``name`` with its own mask ``<stem>_mask.png`` beside it."""
    path = photo(folder / name, seed)
    save_mask(folder / f"{Path(name).stem}_mask.png", mask)
    return path


def test_a_photo_named_like_a_result_with_a_mask_of_its_own_is_an_input_never_replaced(tmp_path):
    # a_removed.png with a_removed_mask.png is a photo: it was taken for a.png's earlier result,
    # left out, and replaced by a.png's result with --overwrite.
    _pair(tmp_path, "a.png", 1)
    _pair(tmp_path, "a_removed.png", 2)
    before = files(tmp_path)
    p = run(["a.png", "a_removed.png", "--overwrite", *QUICK], tmp_path)
    assert p.returncode == 2 and p.stderr == (
        "inpaint: error: the result of a.png would be written to a_removed.png, which is the input image "
        "a_removed.png of this batch; nothing was written (use -o FOLDER)\n"), p.stderr
    assert files(tmp_path) == before
    p = run(["a.png", "a_removed.png", "-o", "done/", *QUICK], tmp_path)
    assert p.returncode == 0 and sorted(os.listdir(tmp_path / "done")) == ["a.png", "a_removed.png"], p.stderr


def test_a_folder_takes_a_photo_named_like_a_mask_or_a_result_when_it_has_a_mask_of_its_own(tmp_path):
    for i, name in enumerate(["a.png", "a_resized.png", "gas_mask.png"]):
        _pair(tmp_path, name, i)
    photo(tmp_path / "b_removed.png", 7)  # an earlier result: no mask of its own
    p = run([".", *QUICK], tmp_path)
    assert p.returncode == 0 and "3 images: 3 removed, 0 failed" in p.stderr, p.stderr
    assert {"a_removed.png", "a_resized_removed.png", "gas_mask_removed.png"} <= set(os.listdir(tmp_path))
    assert "b_removed_removed.png" not in os.listdir(tmp_path)


def test_a_pattern_leaves_out_the_mask_of_an_image_it_did_not_match(tmp_path):
    _pair(tmp_path, "a.png", 1)
    photo(tmp_path / "b.jpg", 2)
    save_mask(tmp_path / "b_mask.png", MASK)
    p = run(["*.png", *QUICK], tmp_path)
    assert p.returncode == 0 and "1 image: 1 removed, 0 failed" in p.stderr, p.stderr


def test_a_result_name_taken_by_a_folder_fails_that_photo(tmp_path):
    _pair(tmp_path, "a.png", 1)
    _pair(tmp_path, "b.png", 2)
    (tmp_path / "b_removed.png").mkdir()
    p = run(["a.png", "b.png", *QUICK], tmp_path)
    assert p.returncode == 2 and "error: [2/2] b.png: output b_removed.png is a folder" in p.stderr, p.stderr
    assert "already done" not in p.stderr and "1 removed, 1 failed (b.png)" in p.stderr


@pytest.mark.parametrize("option, what", [("--mask", "mask"), ("--protect", "--protect mask")])
def test_a_file_every_photo_shares_is_checked_once_before_any_folder_is_made(tmp_path, option, what):
    _pair(tmp_path, "a.png", 1)
    _pair(tmp_path, "b.png", 2)
    p = run(["a.png", "b.png", option, "nosuch.png", "-o", "out/", *QUICK], tmp_path)
    assert p.returncode == 2 and p.stderr == f"inpaint: error: {what} nosuch.png does not exist\n", p.stderr
    assert not (tmp_path / "out").exists()


def test_a_batchs_warning_names_its_photo(tmp_path):
    _pair(tmp_path, "a.png", 1)
    _pair(tmp_path, "b.png", 2, mask=box_mask(H, W, slice(0, H), slice(0, 20)))
    p = run([".", "-j", "2", "-q", *QUICK], tmp_path)
    assert p.returncode == 0 and "warning: [2/2] b.png: the mask covers 67%" in p.stderr, p.stderr


def test_a_file_that_is_no_image_in_a_batch_says_so_not_that_its_result_cannot_be_named(tmp_path):
    _pair(tmp_path, "a.png", 1)
    (tmp_path / "notes.txt").write_text("shopping list")
    p = run(["notes.txt", "a.png", *QUICK], tmp_path)
    assert p.returncode == 2 and "error: [1/2] notes.txt: image notes.txt is not an image this tool can read\n" \
        in p.stderr, p.stderr
    assert "1 removed, 1 failed (notes.txt)" in p.stderr


def test_a_mask_whose_extension_is_in_mixed_case_pairs_with_its_photo(tmp_path):
    photo(tmp_path / "c.png", 3)
    save_mask(tmp_path / "c_mask.Png", MASK)
    p = run(["c.png", *QUICK], tmp_path)
    assert p.returncode == 0 and "the mask is c_mask.Png" in p.stderr, p.stderr
    (tmp_path / "c_removed.png").unlink()
    p = run([".", *QUICK], tmp_path)
    assert p.returncode == 0 and "1 image: 1 removed, 0 failed" in p.stderr, p.stderr

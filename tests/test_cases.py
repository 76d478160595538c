"""The paper's test set (Table 3) and its loader, inpaint.io.cases."""

import hashlib
import json
import shutil

import numpy as np
import pytest

from inpaint.io import cases
from inpaint.io.cases import Case, CaseDataError, case_names, load_case

# Table 3: image size (W, H) and object size (w, h)
TABLE3 = {
    "walkingman": ((512, 384), (78, 126)),
    "river": ((480, 639), (59, 93)),
    "divingman": ((576, 384), (155, 186)),
    "hill": ((1024, 550), (1024, 10)),
}
NAMES = list(TABLE3)


@pytest.fixture(scope="module")
def loaded():
    return {name: load_case(name) for name in NAMES}


def _bbox(mask):
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def _components(mask):
    """Number of 8-connected components of ``mask`` (small masks only)."""
    remaining = mask.copy()
    count = 0
    while remaining.any():
        count += 1
        region = np.zeros_like(remaining)
        y, x = np.argwhere(remaining)[0]
        region[y, x] = True
        while True:
            grown = region.copy()
            grown[1:, :] |= region[:-1, :]
            grown[:-1, :] |= region[1:, :]
            grown[:, 1:] |= grown[:, :-1].copy()
            grown[:, :-1] |= grown[:, 1:].copy()
            grown &= remaining
            if (grown == region).all():
                break
            region = grown
        remaining &= ~region
    return count


def test_case_names_in_paper_order():
    assert case_names() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_table3(loaded, name):
    case = loaded[name]
    (W, H), (w, h) = TABLE3[name]
    assert isinstance(case, Case)
    assert case.name == name
    assert case.image.shape == (H, W, 3) and case.image.dtype == np.uint8
    assert case.truth.shape == (H, W, 3) and case.truth.dtype == np.uint8
    assert case.mask.shape == (H, W) and case.mask.dtype == bool
    assert case.size == (W, H)
    assert _bbox(case.mask) == case.bbox
    assert case.bbox[2:] == (w, h)
    assert case.manifest["width"] == W and case.manifest["height"] == H
    assert case.manifest["mask_pixels"] == int(case.mask.sum())


@pytest.mark.parametrize("name", NAMES)
def test_checksums_match_manifest(loaded, name):
    case = loaded[name]
    for fname, digest in case.manifest["sha256"].items():
        path = case.paths[fname.split(".")[0]]
        assert path.name == fname
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("name", NAMES)
def test_image_equals_truth_outside_mask(loaded, name):
    case = loaded[name]
    assert np.array_equal(case.image[~case.mask], case.truth[~case.mask])


@pytest.mark.parametrize("name", NAMES)
def test_object_changes_the_image_inside_mask(loaded, name):
    case = loaded[name]
    inside = np.any(case.image != case.truth, axis=-1) & case.mask
    # the object covers a good part of its mask, not a few stray pixels
    assert inside.sum() > 0.5 * case.mask.sum()


@pytest.mark.parametrize("name", ["walkingman", "river", "divingman"])
def test_blob_masks_are_one_compact_region(loaded, name):
    case = loaded[name]
    x, y, w, h = case.bbox
    crop = case.mask[y:y + h, x:x + w]
    assert _components(crop) == 1
    assert _components(~np.pad(crop, 1)) == 1  # no holes
    assert crop.sum() > 0.4 * w * h


def test_hill_mask_is_one_long_strip(loaded):
    case = loaded["hill"]
    x, y, w, h = case.bbox
    crop = case.mask[y:y + h, x:x + w]
    assert _components(crop) == 1
    assert crop.any(axis=0).all()  # spans every column of the image
    assert crop.sum(axis=0).max() <= h


def test_name_is_case_insensitive():
    case = load_case("WalkingMan")
    assert case.name == "walkingman"
    assert load_case("  HILL ").name == "hill"


def test_unknown_name_lists_the_valid_names():
    with pytest.raises(ValueError) as info:
        load_case("lena")
    message = str(info.value)
    assert "lena" in message
    for name in NAMES:
        assert name in message


def test_arrays_are_read_only(loaded):
    with pytest.raises(ValueError):
        loaded["river"].image[0, 0, 0] = 1


@pytest.fixture
def datasets_copy(tmp_path, monkeypatch):
    root = cases._root()
    copy = tmp_path / "datasets"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setattr(cases, "_root", lambda: copy)
    return copy


def test_corrupt_file_is_reported(datasets_copy):
    path = datasets_copy / "river" / "truth.png"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CaseDataError, match=r"truth\.png is corrupt"):
        load_case("river")


def test_missing_file_is_reported(datasets_copy):
    (datasets_copy / "hill" / "mask.png").unlink()
    with pytest.raises(CaseDataError, match="missing"):
        load_case("hill")


def test_manifest_mismatch_is_reported(datasets_copy):
    path = datasets_copy / "divingman" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["mask_pixels"] += 1
    path.write_text(json.dumps(manifest))
    with pytest.raises(CaseDataError, match="mask pixels"):
        load_case("divingman")

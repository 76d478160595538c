"""One root for the library's errors, and seam carving's errors in the command's words."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from PIL import Image

import inpaint
from inpaint.cli.guard import EXIT_BAD_INPUT, EXIT_NO_DEVICE, exit_code
from inpaint.errors import (
    BuildFailure,
    CaseDataError,
    DeviceError,
    InpaintError,
    InputError,
    OpenCLUnavailable,
    ProfileError,
    SeamError,
)
from inpaint.seam import resize


def _modules() -> list:
    """Every module of the package (the command's too), imported."""
    names = ["inpaint"] + [m.name for m in pkgutil.walk_packages(inpaint.__path__, "inpaint.")]
    return [importlib.import_module(name) for name in names if not name.endswith("__main__")]


def test_every_exception_the_package_defines_derives_from_inpaint_error():
    defined = {}
    for module in _modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, BaseException):
                defined[f"{cls.__module__}.{cls.__qualname__}"] = cls
    # Warnings are issued, not raised; BaseExceptions that are not Exceptions (Ctrl-C's kin) stop a
    # run rather than report an error.
    errors = {name: cls for name, cls in defined.items()
              if issubclass(cls, Exception) and not issubclass(cls, Warning)}
    assert {"inpaint.errors.OpenCLUnavailable", "inpaint.errors.ProfileError", "inpaint.errors.CaseDataError",
            "inpaint.errors.SeamError"} <= set(errors)
    assert [name for name, cls in errors.items() if not issubclass(cls, InpaintError)] == []
    stops = sorted(name for name, cls in defined.items() if not issubclass(cls, Exception))
    assert stops == ["inpaint.cancel.Cancelled", "inpaint.cli.guard.Terminated"]


@pytest.mark.parametrize("cls, builtin", [(OpenCLUnavailable, RuntimeError), (BuildFailure, RuntimeError),
                                          (CaseDataError, RuntimeError), (ProfileError, ValueError),
                                          (InputError, ValueError), (SeamError, ValueError)])
def test_the_errors_keep_the_builtin_class_callers_catch(cls, builtin):
    assert issubclass(cls, builtin) and issubclass(cls, InpaintError)


@pytest.mark.parametrize("error, status", [
    (InputError("x"), EXIT_BAD_INPUT), (SeamError("x"), EXIT_BAD_INPUT), (ProfileError("x"), EXIT_BAD_INPUT),
    (CaseDataError("x"), EXIT_BAD_INPUT), (DeviceError("x"), EXIT_NO_DEVICE), (OpenCLUnavailable("x"), EXIT_NO_DEVICE),
    (BuildFailure("x"), EXIT_NO_DEVICE), (InpaintError("x"), 1), (ValueError("x"), 1)])
def test_exit_status_of_each_error(error, status):
    """The README's table: 2 bad input or environment, 3 no usable device, 1 a bug."""
    assert exit_code(error) == status


def _blocked_rows(h: int, w: int) -> np.ndarray:
    keep = np.ones((h, w), bool)   # each row leaves one pixel free, at alternate ends: no seam gets through
    keep[0::2, 0] = False
    keep[1::2, w - 1] = False
    return keep


def _split_object(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    drop = np.zeros((h, w), bool)
    drop[5:15, 8:20] = True
    keep = np.zeros((h, w), bool)  # a protected ring around the object: no seam reaches it
    keep[3:17, 6:22] = True
    keep[4:16, 7:21] = False
    return keep, drop


def _cross(h, w):
    """A mask through which every seam, either way, has to cross a whole row or column of it."""
    drop = np.zeros((h, w), bool)
    drop[:, w // 2:w // 2 + 2] = True
    drop[h // 2:h // 2 + 2, :] = True
    return drop


CASES = {
    "target width": (dict(width=29), lambda: (_blocked_rows(20, 30), None),
                     "keep_mask makes the target width impossible: every remaining seam crosses a protected pixel",
                     "the --protect mask makes the target width impossible: every remaining seam crosses a protected "
                     "pixel"),
    "object removal": (dict(), lambda: _split_object(20, 30),
                       "drop_mask: the marked object cannot be removed completely (keep_mask blocks every seam "
                       "through it, or the image became too small)",
                       "the marked object cannot be removed completely (the --protect mask blocks every seam "
                       "through it, or the image became too small)"),
    "removal without a protect mask": (dict(), lambda: (None, _cross(20, 30)),
                                       "drop_mask: the marked object cannot be removed completely: the image "
                                       "became too small",
                                       "the marked object cannot be removed completely: the image became too small"),
    "removal all protected": (dict(), lambda: (_split_object(20, 30)[1],) * 2,
                              "every pixel of drop_mask is also in keep_mask: nothing could be removed (protected "
                              "pixels are never carved)",
                              "every pixel of the --remove mask is also in the --protect mask: nothing could be "
                              "removed (protected pixels are never carved)"),
}


@pytest.mark.parametrize("case", CASES)
def test_seam_errors_say_the_apis_words_and_the_commands(case, tmp_path, run):
    size, masks, api_message, command_message = CASES[case]
    keep, drop = masks()
    img = np.random.default_rng(2).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    with pytest.raises(InpaintError) as info:
        resize(img, keep_mask=keep, drop_mask=drop, backend="numpy", **size)
    assert isinstance(info.value, SeamError) and str(info.value) == api_message

    Image.fromarray(img).save(tmp_path / "a.png")
    argv = ["resize", tmp_path / "a.png", "--backend", "numpy", "-o", tmp_path / "o.png"]
    for option, mask in (("--protect", keep), ("--remove", drop)):
        if mask is not None:
            Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / f"{option[2:]}.png")
            argv += [option, tmp_path / f"{option[2:]}.png"]
    if "width" in size:
        argv += ["--width", size["width"]]
    code, out, err = run(*argv)
    assert (code, out, err) == (EXIT_BAD_INPUT, "", f"inpaint resize: error: {command_message}\n")
    assert not (tmp_path / "o.png").exists()


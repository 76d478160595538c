"""How the app starts: one set of options for its three launchers, a clear exit without a
display, quiet Kivy start-up, and the numpy path of a phone without OpenCL (no window needed)."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mobile_ui import __main__ as app_main

ROOT = Path(__file__).resolve().parents[1]
APP_OPTIONS = {"--mask", "--case", "--backend", "--size", "--state-dir"}


def _signature(parser):
    return sorted((tuple(a.option_strings), a.dest, a.nargs, tuple(a.choices or ())) for a in parser._actions)


def test_inpaint_app_takes_exactly_the_options_of_inpaint_app():
    import argparse

    from inpaint.cli import app as app_command

    ours = app_main.build_parser()
    assert _signature(app_command.build_parser()) == _signature(ours)
    filled = argparse.ArgumentParser(prog="inpaint app")
    app_command.add_arguments(filled)                     # for a dispatcher that builds the parser
    assert _signature(filled) == _signature(ours)
    argv = ["photo.jpg", "--mask", "m.png", "--backend", "numpy", "--size", "720x1280", "--state-dir", "s"]
    assert vars(app_command.build_parser().parse_args(argv)) == vars(ours.parse_args(argv))
    assert vars(ours.parse_args(["--case", "river"]))["case"] == "river"


def test_inpaint_app_help_lists_the_options_and_the_mask_rule(capsys):
    from inpaint.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["app", "--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: inpaint app")
    assert all(opt in text for opt in APP_OPTIONS)
    assert "pixels brighter than mid-grey (> 127) mark the object" in text
    assert "transparency, its opaque pixels" in text
    assert "non-zero" not in text


@pytest.mark.parametrize("argv, message", [(["--size", "3x"], "--size"), (["--bogus"], "unrecognized"),
                                           (["--backend", "cuda"], "--backend")])
def test_bad_app_options_exit_2_before_any_window(argv, message, capsys):
    from inpaint.cli import main

    for launcher in (app_main.main, lambda a: main(["app", *a])):
        with pytest.raises(SystemExit) as stop:
            launcher(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert message in err and len(err.splitlines()) == 1 and "--help' lists the options" in err  # one line


def test_without_kivy_one_line_and_status_2(monkeypatch, capsys):
    from inpaint.cli import main

    monkeypatch.setattr(app_main, "kivy_installed", lambda: False)
    assert app_main.main(["--case", "river"]) == 2
    assert capsys.readouterr().err.strip() == "inpaint-app: error: the app needs Kivy: pip install 'inpaint-cl[app]'"
    real = __import__("importlib.util").util.find_spec
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "kivy" else real(name, *a))
    assert main(["app", "--case", "river"]) == 2
    assert capsys.readouterr().err.strip() == "inpaint app: error: the app needs Kivy: pip install 'inpaint-cl[app]'"


def _no_display_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is for X11/Wayland desktops")
@pytest.mark.parametrize("launcher, prog", [(["-m", "mobile_ui"], "inpaint-app"),
                                            (["-m", "inpaint.cli", "app"], "inpaint app")])
@pytest.mark.parametrize("display", [None, ":4242"])
def test_without_a_display_the_app_exits_at_once_with_one_line(tmp_path, launcher, prog, display):
    pytest.importorskip("kivy")
    if display and app_main.x11_reachable(display) is not False:
        pytest.skip("Xlib is not installed, so an unanswered DISPLAY cannot be told")
    env = _no_display_env(tmp_path, **({"DISPLAY": display} if display else {}))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, *launcher, "--case", "river"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    took = time.monotonic() - start
    assert proc.returncode == app_main.EXIT_NO_WINDOW, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), proc.stderr
    assert ("no display" if display is None else display) in lines[0] and "xvfb-run" in lines[0]
    assert took < 10, f"took {took:.1f} s"
    assert not (tmp_path / ".kivy").exists(), "Kivy must not even start"


def test_display_problem_rules():
    probe_no, probe_yes, probe_unknown = (lambda d: False), (lambda d: True), (lambda d: None)
    assert app_main.display_problem({}, "darwin") is None
    assert app_main.display_problem({}, "win32") is None
    assert "DISPLAY and WAYLAND_DISPLAY are unset" in app_main.display_problem({}, "linux")
    assert app_main.display_problem({"ANDROID_ARGUMENT": "x"}, "linux") is None
    assert app_main.display_problem({"SDL_VIDEODRIVER": "kmsdrm"}, "linux") is None
    assert app_main.display_problem({"DISPLAY": ":0"}, "linux", x11_probe=probe_yes) is None
    assert app_main.display_problem({"DISPLAY": ":0"}, "linux", x11_probe=probe_unknown) is None
    assert ":0" in app_main.display_problem({"DISPLAY": ":0"}, "linux", x11_probe=probe_no)
    assert "Wayland" in app_main.display_problem({"WAYLAND_DISPLAY": "/nonexistent/wl-9"}, "linux")
    assert "inpaint app" in app_main.display_problem({}, "linux", prog="inpaint app")


def test_kivy_starts_quietly_without_libmtdev_and_on_a_fresh_home(tmp_path):
    """No ERROR traceback for a missing libmtdev.so.1, no 'Older configuration version' on a fresh
    home, no ~/.kivy/config.ini written."""
    pytest.importorskip("kivy")
    script = textwrap.dedent("""
        import ctypes, logging
        real = ctypes.cdll.LoadLibrary
        def load(name, *a, **k):
            if "mtdev" in str(name):
                raise OSError("libmtdev.so.1: cannot open shared object file")
            return real(name, *a, **k)
        ctypes.cdll.LoadLibrary = load
        from mobile_ui.__main__ import configure_kivy
        configure_kivy()
        from kivy.logger import Logger, LoggerHistory
        import kivy.input.providers
        records = [(r.levelname, r.getMessage()) for r in LoggerHistory.history]
        for level, message in records:
            print(level, message.splitlines()[0] if message else "")
    """)
    env = _no_display_env(tmp_path)
    env.pop("KIVY_HOME", None)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "libmtdev is not installed" in out
    assert not [line for line in out.splitlines() if line.startswith(("ERROR", "CRITICAL"))], out
    assert "Older configuration" not in out and "Traceback" not in proc.stderr
    assert not (tmp_path / ".kivy" / "config.ini").exists()
    assert proc.stderr.strip() == "", "Kivy must not talk on the console"


def test_the_app_worker_runs_the_numpy_path_without_pyopencl(tmp_path):
    """On a phone there is no pyopencl nor OpenCV (python-for-android has no recipe): the app's
    worker fills with numpy, through the same call the app makes, the settings screen says why,
    and a tap selects without OpenCV."""
    script = textwrap.dedent("""
        import importlib.abc, sys, warnings
        class NoOpenCL(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pyopencl", "cv2"):       # neither has a recipe
                    raise ImportError(f"No module named {name!r}")
        sys.meta_path.insert(0, NoOpenCL())
        import numpy as np
        from mobile_ui import devices, samples, settings
        from mobile_ui.worker import Worker, run_inpaint
        from inpaint.api import inpaint
        from inpaint.cl.runtime import opencl_available
        assert not opencl_available()
        choices, why = devices.list_devices()
        assert choices == [] and "pyopencl" in why, why
        img, mask = samples.demo_scene(72, 56)
        defaults = settings.defaults()
        from inpaint.methods.checks import parse_alpha
        params = {"alpha": parse_alpha(defaults["alpha"]), "patch": int(defaults["patch"]),
                  "backend": defaults["backend"], "device": None, "profile": None}
        worker, got = Worker(), []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            job = worker.submit(lambda j: run_inpaint(j, img, mask, params), on_done=got.append,
                                on_error=got.append)
            assert job.wait(300)
        result, seconds = got[0]
        assert result.stats.backend == "numpy", result.stats.backend
        want = inpaint(img, mask, alpha=params["alpha"], patch=params["patch"], backend="numpy")
        assert np.array_equal(result.image, want.image)
        assert "pyopencl" not in sys.modules
        from mobile_ui import masktools, storage, history, geometry
        masktools.tap_select(img, (34, 41), masktools.DEFAULT_TOLERANCE)
        recipes = {"numpy", "PIL", "kivy", "inpaint", "mobile_ui", "__future__", "__main__"}
        foreign = sorted({m.split(".")[0] for m in list(sys.modules)} - set(sys.stdlib_module_names) - recipes
                         - {"_distutils_hack", "_virtualenv", "sitecustomize", "usercustomize"})
        foreign = [m for m in foreign if not m.startswith("__editable__")]   # pip's editable-install hooks
        assert not foreign, f"no python-for-android recipe for {foreign}"
        print("ok", result.stats.backend, len(caught))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=_no_display_env(tmp_path), capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ok numpy")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Kivy's X11 window is for X11 desktops")
@pytest.mark.parametrize("launcher, prog", [(["-m", "mobile_ui"], "inpaint-app"),
                                            (["-m", "inpaint.cli", "app"], "inpaint app")])
def test_sdl_without_a_display_is_reported_not_ended_by_kivys_x11_window(tmp_path, launcher, prog):
    # SDL_VIDEODRIVER is trusted, but SDL's dummy driver opens no window here; Kivy then tried its
    # X11 window, which ended the process with status 102 and Xlib's own line.
    pytest.importorskip("kivy")
    env = _no_display_env(tmp_path, SDL_VIDEODRIVER="dummy")
    env.pop("KIVY_WINDOW", None)
    try:
        proc = subprocess.run([sys.executable, *launcher, "--case", "river"], env=env, capture_output=True,
                              text=True, timeout=60, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.skip("SDL's dummy driver opened a window here: the app ran")
    assert proc.returncode == app_main.EXIT_NO_WINDOW, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: could not open a window"), proc.stderr


def test_when_kivy_cannot_make_a_window_the_app_says_so(tmp_path):
    pytest.importorskip("kivy")
    env = _no_display_env(tmp_path, SDL_VIDEODRIVER="dummy", KIVY_WINDOW="egl_rpi")   # no such provider here
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "mobile_ui", "--case", "river"], env=env, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == app_main.EXIT_NO_WINDOW, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("inpaint-app: error: could not open a window"), proc.stderr
    assert time.monotonic() - start < 30

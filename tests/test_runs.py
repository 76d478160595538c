"""Runs that stop, refuse and recover as promised: batch planning, signals, bounded reads,
exit statuses of environment failures, stale temporary files, and the library's contracts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, first_by_default, save_mask
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

from inpaint import cancel
from inpaint.api import inpaint
from inpaint.cl.profiles import ProfileError, load_profile
from inpaint.cli import guard, main
from inpaint.cli.batch import plan_batch
from inpaint.errors import InputError
from inpaint.io import atomic, encode
from inpaint.masks import grow, mask_from_array

REPO = Path(__file__).resolve().parent.parent
# Batches, names, threads and streams behave alike for every method: runs that only need some fill
# take the Criminisi method's (a hundredth of a second here; the default's numpy fill takes more).
QUICK = ("--method", "criminisi")
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def snapshot(folder: Path) -> dict[str, bytes]:
    """The bytes of every file under ``folder`` (hidden ones included; links as their target's name)."""
    return {str(p.relative_to(folder)): (os.readlink(p).encode() if p.is_symlink() else p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def _spawn(argv: list[str], cwd: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "inpaint", *argv], cwd=cwd, env=_env(), text=True,
                            stdout=kwargs.pop("stdout", subprocess.PIPE), stderr=subprocess.PIPE, **kwargs)


def _run_script(script: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -c script`` in ``cwd`` with this checkout importable; its output as text."""
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


def _photo(path: Path, seed: int, size: tuple[int, int] = (24, 20)) -> np.ndarray:
    rgb = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    Image.fromarray(rgb).save(path)
    return rgb


@pytest.fixture
def run(capsys):
    def go(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return go


@pytest.fixture
def photos(tmp_path, monkeypatch):
    """x.png and y.png with their masks beside them."""
    monkeypatch.chdir(tmp_path)
    for i, name in enumerate(("x", "y")):
        _photo(tmp_path / f"{name}.png", i)
        save_mask(tmp_path / f"{name}_mask.png", box_mask(20, 24, slice(6, 12), slice(8, 15)))
    return tmp_path


# --- batch planning ------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["x.png", "y.png", "--mask", "x_removed.png", "--overwrite"],   # a result onto the shared mask
    ["x.png", "y.png", "--protect", "y_removed.png"],               # a result onto the shared --protect mask
], ids=["onto-mask", "onto-protect"])
def test_a_batch_never_replaces_one_of_its_inputs(photos, run, argv):
    _photo(photos / "m.png", 5)
    os.symlink("m.png", photos / argv[argv.index("--mask" if "--mask" in argv else "--protect") + 1])
    before = snapshot(photos)
    code, _, err = run(*argv, "--backend", "numpy")
    assert code == 2, err
    assert re.search(r"error: the result of \S+ would be written to \S+, which is the mask ", err), err
    assert "nothing was written" in err and len(err.strip().splitlines()) == 1
    assert snapshot(photos) == before


@pytest.mark.parametrize("argv", [
    ["x.png", "x_removed.png", "y.png"],                       # what the shell makes of *.png after a run
    ["x_removed.png", "x.png", "y.png", "--jobs", "2"],
    ["*.png"],                                                 # the same pattern, quoted
    ["."],                                                     # the folder
    ["resize", "x.png", "x_resized.png", "y.png", "--width", "20"],
    ["resize", "*.png", "--width", "20"],
], ids=["removed", "removed-first-jobs", "pattern", "folder", "resize", "resize-pattern"])
def test_a_batch_run_again_leaves_out_its_earlier_results_and_does_only_the_rest(photos, run, argv):
    _photo(photos / "x_removed.png", 5)   # earlier results (with masks of their own they would be photos:
    _photo(photos / "x_resized.png", 7)   # test_batch_names.py)
    before = snapshot(photos)
    code, _, err = run(*argv, "--backend", "numpy", *(QUICK if argv[0] != "resize" else ()))
    assert code == 0, err
    assert "note: 1 already done (x.png): its result exists; --overwrite does it again" in err
    if argv != ["."]:  # a folder leaves results out by their names
        assert re.search(r"note: skipped [12] earlier results? of other inputs", err), err
    assert "1 image: 1 " in err and "0 failed" in err
    result = "y_resized.png" if argv[0] == "resize" else "y_removed.png"
    after = snapshot(photos)
    assert sorted(set(after) - set(before)) == [result]  # nothing else written...
    assert {k: after[k] for k in before} == before       # ...nothing replaced
    code, _, err = run(*argv, "--backend", "numpy", *(QUICK if argv[0] != "resize" else ()))
    assert code == 0, err
    assert "note: 2 already done (x.png, y.png): their results exist" in err
    assert "nothing to do: no image of the batch needs work" in err and "images/s" not in err
    assert snapshot(photos) == after


def test_one_file_named_twice_is_done_once(photos, run):
    (photos / "sub").mkdir()
    code, _, err = run("x.png", "sub/../x.png", "./x.png", "--backend", "numpy", "-p", "5", *QUICK)
    assert code == 0, err
    assert err.count("given twice: it is done once") == 2
    assert "1 image: 1 removed" in err
    assert (photos / "x_removed.png").exists()


def test_two_results_into_one_file_refuse_the_batch_before_any_work(photos, run):
    for sub in ("a", "b"):
        (photos / sub).mkdir()
        for name in ("x.png", "x_mask.png"):
            (photos / sub / name).write_bytes((photos / name).read_bytes())
    before = snapshot(photos)
    code, _, err = run("a/x.png", "b/x.png", "-o", "done/", "--backend", "numpy")
    assert code == 2 and "would both be written to done/x.png" in err, err
    assert snapshot(photos) == before and not (photos / "done").exists()


def test_existing_results_are_kept_unless_overwrite(photos, run):
    old = _photo(photos / "y_removed.png", 9)
    code, _, err = run("x.png", "y.png", "--backend", "numpy", "-p", "5", *QUICK)
    assert code == 0, err
    assert "note: 1 already done (y.png): its result exists; --overwrite does it again" in err
    assert "1 image: 1 removed, 0 failed" in err
    assert np.array_equal(np.asarray(Image.open(photos / "y_removed.png")), old)
    assert (photos / "x_removed.png").exists()   # the other image was done
    code, _, err = run("y.png", "--mask", "y_mask.png", "--backend", "numpy", "-p", "5", "--overwrite", "-q", *QUICK)
    assert code == 0, err
    assert not np.array_equal(np.asarray(Image.open(photos / "y_removed.png")), old)


def test_an_image_without_its_mask_is_skipped_and_the_rest_done(photos, run):
    (photos / "y_mask.png").unlink()
    code, _, err = run("x.png", "y.png", "--backend", "numpy", "-p", "5", *QUICK)
    assert code == 2
    assert re.search(r"error: \[2/2\] y\.png: mask y_mask\.png does not exist", err), err
    assert "2 images: 1 removed, 1 failed (y.png)" in err
    assert (photos / "x_removed.png").exists() and not (photos / "y_removed.png").exists()


def test_a_thread_that_cannot_start_skips_that_file_only(photos, run, monkeypatch):
    from inpaint.cli import remove

    real = remove._remove_one

    def flaky(args, options, radius, image, mask, out, **kw):
        if image.name == "x.png":
            raise RuntimeError("can't start new thread")
        return real(args, options, radius, image, mask, out, **kw)

    monkeypatch.setattr(remove, "_remove_one", flaky)
    code, _, err = run("x.png", "y.png", "--backend", "numpy", "-p", "5", *QUICK)
    assert code == 2 and "x.png: cannot start a thread" in err and "internal error" not in err, err
    assert (photos / "y_removed.png").exists()


@pytest.mark.parametrize("threads_that_start", [0, 1, 2])
def test_a_jobs_batch_whose_threads_cannot_all_start_runs_every_image_once(monkeypatch, capsys, threads_that_start):
    from inpaint.cli.batch import run_batch

    real_start, started = threading.Thread.start, []

    def limited(self):  # the error CPython raises when a thread's stack cannot be had
        if self.name.startswith("ThreadPoolExecutor"):
            if len(started) >= threads_that_start:
                raise RuntimeError("can't start new thread")
            started.append(self)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", limited)
    ran, gate = [], threading.Event()

    def one(i, label, device):
        if i == 0:
            gate.wait(5)  # the first pool thread is still busy when the next start fails
        ran.append(i)

    images = [Path(f"p{i}.png") for i in range(6)]
    threading.Timer(0.2, gate.set).start()
    assert run_batch("inpaint", images, one, jobs=3) == 0
    assert sorted(ran) == list(range(6)) and len(started) == threads_that_start
    assert "not all 3 job threads could start" in capsys.readouterr().err


_NAMES = ["a.png", "b.png", "a_removed.png", "sub/../a.png", "link.png", "hard.png", "sub/a.png", "m.png"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(_NAMES), st.sampled_from(_NAMES)),
                min_size=1, max_size=5))
def test_batch_plans_never_write_onto_an_input_or_another_result_nor_take_a_result_in(tmp_path_factory, jobs):
    root = tmp_path_factory.mktemp("plan")
    (root / "sub").mkdir()
    for name in ("a.png", "b.png", "a_removed.png", "sub/a.png", "m.png"):
        (root / name).write_bytes(name.encode())
    os.symlink("a.png", root / "link.png")
    os.link(root / "b.png", root / "hard.png")
    work = [(root / img, [root / mask], root / out) for img, mask, out in jobs]

    def same(p: Path, q: Path) -> bool:  # independent oracle: the OS's own notion of one file
        if p.exists() and q.exists():
            return os.path.samefile(p, q)
        return os.path.normpath(os.path.realpath(p)) == os.path.normpath(os.path.realpath(q))

    def other_mask(i: int) -> bool:  # another file's mask, that file not being a mask of this one
        img, masks, _ = work[i]
        return any(not same(w[0], img) and any(same(img, m) for m in w[1]) and not any(same(w[0], m) for m in masks)
                   for w in work)

    def other_result(i: int) -> bool:  # another image's output, or its x_removed / x_resized beside it
        img = work[i][0]
        return any(not other_mask(j) and not same(w[0], img)
                   and any(same(img, r) for r in (w[2], *(w[0].with_name(f"{w[0].stem}{s}{w[0].suffix}")
                                                          for s in ("_removed", "_resized"))))
                   for j, w in enumerate(work))

    images_given = [i for i in range(len(work)) if not other_mask(i) and not other_result(i)]
    inputs = [p for i, (img, masks, _) in enumerate(work) for p in ([img] if i in images_given else []) + masks]
    try:
        keep = plan_batch("t", work, quiet=True, overwrite=True)
    except InputError:
        kept = [work[i] for n, i in enumerate(images_given)
                if not any(same(work[i][0], work[j][0]) for j in images_given[:n])]
        assert (any(same(out, p) for _, _, out in kept for p in inputs)
                or any(same(a[2], b[2]) for i, a in enumerate(kept) for b in kept[i + 1:]))
        return
    images = [work[i][0] for i in keep]
    assert all(not same(p, q) for i, p in enumerate(images) for q in images[i + 1:])
    assert not any(other_mask(i) or other_result(i) for i in keep)  # masks and results of others left out...
    assert all(any(same(work[i][0], k) for k in images) for i in images_given)  # ...and only they
    outs = [work[i][2] for i in keep]
    assert not any(same(o, p) for o in outs for p in inputs)
    assert all(not same(o, q) for i, o in enumerate(outs) for q in outs[i + 1:])
    # without --overwrite, the images whose result exists are already done, and only they
    assert plan_batch("t", work, quiet=True) == [i for i in keep if not os.path.lexists(work[i][2])]


# --- signals and cancellation -------------------------------------------------------------------

def test_sigterm_stops_a_jobs_batch_within_a_second(tmp_path):
    n = 16
    for i in range(n):
        _photo(tmp_path / f"p{i:02}.png", i, (64, 56))
        # The first photo's small hole gives a first result soon; the signal then finds the next
        # photos' large holes (several seconds of fill each) in the middle of their work.
        rows, cols = (slice(22, 28), slice(26, 34)) if i == 0 else (slice(10, 40), slice(12, 46))
        save_mask(tmp_path / f"p{i:02}_mask.png", box_mask(56, 64, rows, cols))
    proc = _spawn([".", "--jobs", "2", "--backend", "numpy", "--progress", "none"], tmp_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line or "->" in line:   # the first result is written
            break
    assert proc.poll() is None, "the batch ended before the signal"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=60)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 128 + signal.SIGTERM, rest
    assert rest.rstrip().endswith("inpaint: stopped by SIGTERM") and "Traceback" not in rest
    # The photos left hold some fifteen large holes of seconds each: a run that did not stop at its next
    # step would take far longer than this bound, which leaves room for a machine busy with other tests
    # (the promised second is a quiet machine's).
    assert elapsed < 10.0, f"took {elapsed:.2f} s to stop"
    results = sorted(tmp_path.glob("*_removed.png"))
    assert 1 <= len(results) < n
    for res in results:   # every result written is whole
        with Image.open(res) as img:
            img.load()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


@pytest.mark.opencl
@pytest.mark.parametrize("backend, rounds", [("opencl", 1), pytest.param("opencl", 3, marks=pytest.mark.slow),
                                             pytest.param("numpy", 3, marks=pytest.mark.slow)])
def test_ctrl_c_twice_in_a_jobs_batch_stops_it_cleanly(tmp_path, backend, rounds):
    # The second Ctrl-C once interrupted the wait for the batch's threads: the process left while
    # they were inside OpenCL, and aborted ("terminate called without an active exception").
    n = 12
    for i in range(n):
        _photo(tmp_path / f"p{i:02}.png", i, (160, 120))
        save_mask(tmp_path / f"p{i:02}_mask.png", box_mask(120, 160, slice(30, 90), slice(40, 120)))
    for _ in range(rounds):  # a race: one round by default, three in the slow selection
        for old in tmp_path.glob("*_removed.png"):
            old.unlink()
        proc = _spawn([".", "--jobs", "2", "--backend", backend, "--progress", "none"], tmp_path)
        seen = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            seen.append(line)
            if not line or "->" in line:
                break
        assert proc.poll() is None, "".join(seen)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=60)
        assert proc.returncode == 130, rest
        assert "terminate called" not in rest and "Traceback" not in rest, rest
        lines = rest.strip().splitlines()
        assert lines[-1] == "inpaint: interrupted", rest  # nothing after it
        assert all(ln.startswith("inpaint: ") and ln.count("inpaint: ") == 1 for ln in lines), rest
        for res in tmp_path.glob("*_removed.png"):  # every result written is whole
            with Image.open(res) as img:
                img.load()
        assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


# The command run as ``python -m inpaint`` does, except that the real signal (os.kill) is sent at
# the N-th call that an extension module of TARGET makes into Python while it initialises (numpy's
# C core importing modules, pyopencl's nanobind module building its enums): the moments where an
# exception from the handler once became an ImportError or aborted the process.
_SIGNAL_IN_EXTENSION_START = r"""
import os, runpy, sys

target, signum, nth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
calls = 0


def from_extension_start(frame):
    caller = frame.f_back
    if caller is None or caller.f_code.co_name != "_call_with_frames_removed" or caller.f_back is None:
        return False
    loader = caller.f_back.f_locals.get("self")
    return type(loader).__name__ == "ExtensionFileLoader" and loader.name.split(".")[0] == target


def profile(frame, event, arg):
    global calls
    if event == "call" and from_extension_start(frame):
        calls += 1
        if calls == nth:
            sys.setprofile(None)
            print("SENT", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signum)


sys.setprofile(profile)
sys.argv = ["inpaint", *sys.argv[4:]]
runpy.run_module("inpaint", run_name="__main__", alter_sys=True)
"""


def _stopped_cleanly(proc: subprocess.CompletedProcess, sig: int, folder: Path) -> None:
    """The run ended with the signal's status and its one line, and left no temporary file."""
    code = guard.EXIT_INTERRUPTED if sig == signal.SIGINT else 128 + sig
    line = "inpaint: interrupted" if sig == signal.SIGINT else f"inpaint: stopped by {signal.Signals(sig).name}"
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.strip().splitlines()[-1:] == [line], proc.stderr
    assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]



@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("target, nth", [("numpy", 1), ("pyopencl", 2)])
def test_a_signal_while_an_extension_module_starts_ends_the_run_cleanly(tmp_path, target, nth, sig):
    # Raised there, the handler's exception became numpy's ImportError ("internal error", exit 1),
    # or aborted inside pyopencl's module ("Critical nanobind error", SIGABRT), or was lost (exit 0).
    pytest.importorskip(target)
    _photo(tmp_path / "a.png", 1, (40, 30))
    save_mask(tmp_path / "m.png", box_mask(30, 40, slice(10, 20), slice(10, 25)))
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_IN_EXTENSION_START, target, str(int(sig)), str(nth),
                           "a.png", "--mask", "m.png", "-o", "out.png"], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.stderr.startswith("SENT\n"), proc.stderr  # the signal came while the module started
    assert "Traceback" not in proc.stderr and "nanobind" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 2, proc.stderr  # SENT and the one line
    _stopped_cleanly(proc, sig, tmp_path)
    assert not (tmp_path / "out.png").exists()


# The command as ``python -m inpaint`` runs it, except that a SIGTERM comes from another process
# DELAY seconds after a kernel build starts (PoCL then compiles with LLVM in this process).
_SIGNAL_DURING_A_BUILD = r"""
import os, runpy, subprocess, sys

delay = sys.argv[1]
sent = []


def profile(frame, event, arg):
    code = frame.f_code
    if event == "call" and code.co_name == "build" and code.co_filename.endswith(os.path.join("cl", "build.py")):
        sys.setprofile(None)
        sent.append(subprocess.Popen(["sh", "-c", f"sleep {delay}; kill -TERM {os.getpid()}"]))


sys.setprofile(profile)
sys.argv = ["inpaint", *sys.argv[2:]]
try:
    runpy.run_module("inpaint", run_name="__main__", alter_sys=True)
finally:
    for p in sent:
        p.wait()
"""


@pytest.mark.opencl
@pytest.mark.parametrize("delays", first_by_default([("0.002", "0.012"), ("0.006", "0.02")]))
def test_a_signal_during_a_kernel_build_gives_only_our_line(tmp_path, delays):
    # LLVM's handlers took the signal while it compiled and deleted its output: the build failed
    # and the compiler's own "1 error generated." came before our line.
    _photo(tmp_path / "a.png", 3, (40, 30))
    save_mask(tmp_path / "m.png", box_mask(30, 40, slice(10, 20), slice(10, 25)))
    for delay in delays:
        proc = subprocess.run([sys.executable, "-c", _SIGNAL_DURING_A_BUILD, delay, "a.png", "--mask", "m.png",
                               "-o", "out.png", "-y", "--backend", "opencl"], cwd=tmp_path, env=_env(),
                              capture_output=True, text=True, timeout=120)
        assert "error generated" not in proc.stderr, (delay, proc.stderr)
        if proc.returncode != 0:  # (0: the run was over first)
            _stopped_cleanly(proc, signal.SIGTERM, tmp_path)
            assert proc.stderr == "inpaint: stopped by SIGTERM\n", (delay, proc.stderr)


_STOPPED_WHILE_ANOTHER_THREAD_COMPILES = r"""
import os, signal, sys, threading
from inpaint.cl import build
from inpaint.cli import guard

inside = threading.Event()


def compiling():  # another thread's compile, its filter on standard error for good
    with build._compiler_summary_dropped():
        inside.set()
        threading.Event().wait()


threading.Thread(target=compiling, daemon=True).start()
inside.wait(10)


def run():
    os.kill(os.getpid(), signal.SIGTERM)
    threading.Event().wait(10)
    return 0


sys.exit(guard.guarded("inpaint", run, program=True))
"""


def test_the_stop_line_is_not_lost_in_another_threads_compile_filter(tmp_path):
    """A run stopped while another of its threads compiles (its filter of standard error in place,
    whose thread the process's end does not wait for) still ends with its one line."""
    proc = subprocess.run([sys.executable, "-c", _STOPPED_WHILE_ANOTHER_THREAD_COMPILES], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (128 + signal.SIGTERM, "inpaint: stopped by SIGTERM\n")


def test_a_stop_ending_the_process_on_another_thread_is_the_only_report(tmp_path):
    """When the stop deadline's thread ends the process for a SIGTERM, the jobs it stopped end in
    the main thread too: that thread waits for the end instead of saying "interrupted" and
    exiting with 130 first."""
    script = (
        "import threading, time\n"
        "from inpaint import cancel\n"
        "from inpaint.cli import guard\n"
        "def run():\n"
        "    def ender():\n"
        "        with guard._Process.lock:\n"
        "            guard._Process.ending = True\n"
        "        cancel.request()\n"
        "        time.sleep(0.5)\n"
        "        guard._end_now('inpaint', 15)\n"
        "    threading.Thread(target=ender).start()\n"
        "    time.sleep(0.1)\n"
        "    cancel.check()\n"
        "guard.end_process(guard.guarded('inpaint', run, program=True))\n")
    proc = _run_script(script, tmp_path)
    assert (proc.returncode, proc.stderr) == (128 + signal.SIGTERM, "inpaint: stopped by SIGTERM\n")


@pytest.mark.parametrize("broken", ["temp files", "the line"])
def test_a_stop_ending_the_process_ends_it_whatever_its_clean_up_meets(tmp_path, broken):
    """The thread that ends the process for a stop still ends it when a clean-up step raises (a
    module the signal found half imported): the main thread, which waits for that end, is not
    left waiting.  Where only the temporary files failed, the line still comes."""
    script = (
        "import threading, time\n"
        "from inpaint.cli import guard\n"
        "def broken():\n"
        "    raise NameError('half imported')\n"
        f"guard.{'_remove_temp_files' if broken == 'temp files' else '_say_last'} = lambda *a: broken()\n"
        "with guard._Process.lock:\n"
        "    guard._Process.ending = True\n"
        "threading.Thread(target=guard._end_now, args=('inpaint', 15)).start()\n"
        "guard._wait_if_ending()\n"
        "print('still here')\n")
    t0 = time.monotonic()
    proc = _run_script(script, tmp_path, timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM and time.monotonic() - t0 < 30, proc
    assert "still here" not in proc.stdout and "Traceback" not in proc.stderr, proc
    assert proc.stderr == ("inpaint: stopped by SIGTERM\n" if broken == "temp files" else "")


@pytest.mark.parametrize("moments", first_by_default([8, 16]))
def test_sigterm_at_any_moment_of_start_up_ends_the_run_cleanly(tmp_path, moments):
    """SIGTERM at a spread of moments from the process's start to the end of a whole (small) run
    (a finer spread in the slow selection)."""
    _photo(tmp_path / "a.png", 2, (40, 30))
    save_mask(tmp_path / "m.png", box_mask(30, 40, slice(10, 20), slice(10, 25)))
    argv = ["a.png", "--mask", "m.png", "-o", "out.png", "-y"]
    took = np.inf
    for _ in range(2):  # the second one finds the kernels cached, as the runs below do
        t0 = time.monotonic()
        whole = subprocess.run([sys.executable, "-m", "inpaint", *argv], cwd=tmp_path, env=_env(),
                               capture_output=True, text=True, timeout=120)
        took = min(took, time.monotonic() - t0)
        assert whole.returncode == 0, whole.stderr
    (tmp_path / "out.png").unlink()
    # Where no OpenCL device can run the fill, each run says so first (the fallback to numpy): the
    # same warning, whenever the signal comes after it.
    warned = "".join(ln for ln in whole.stderr.splitlines(keepends=True) if ln.startswith("inpaint: warning: "))
    # A loaded machine can put most of an even spread before the handler or after the report: more
    # moments, inside the span, until most of the asked-for number have stopped a run.
    extra = np.random.default_rng(0).uniform(0.0, took, 4 * moments)
    stopped, outcomes = 0, []
    for i, delay in enumerate(np.concatenate([np.linspace(0.0, took, moments), extra])):
        if i >= moments and stopped >= moments * 3 // 8:
            break
        proc = _spawn(argv, tmp_path, stdout=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        if warned and err.startswith(warned):
            err = err[len(warned):]
        assert "Traceback" not in err and len(err.splitlines()) <= 1, (delay, err)
        if proc.returncode == -signal.SIGTERM:
            # The system's default for SIGTERM, with the same status (143) to a shell: before the
            # interpreter runs the command's first line (nothing printed), or once the run is over
            # (its result written and reported) and the interpreter, exiting, has put it back.
            assert err == "" or err.startswith("inpaint: removed "), (delay, err)
        elif proc.returncode == 0:  # the run was over before the signal
            assert err.startswith("inpaint: removed "), (delay, err)
        else:
            stopped += 1
            assert proc.returncode == 128 + signal.SIGTERM, (delay, err)
            assert err == "inpaint: stopped by SIGTERM\n", (delay, err)
        outcomes.append((round(delay, 3), proc.returncode))
        assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
        if (tmp_path / "out.png").exists():  # a result is whole
            with Image.open(tmp_path / "out.png") as img:
                img.load()
            (tmp_path / "out.png").unlink()
    assert stopped >= moments * 3 // 8, (took, outcomes)  # most moments are inside the run


def test_a_cancel_request_stops_fills_and_carving_between_steps():
    from inpaint.seam.api import resize

    img = np.random.default_rng(0).integers(0, 256, (30, 30, 3), dtype=np.uint8)
    mask = box_mask(30, 30, slice(10, 20), slice(10, 20))
    calls = []

    def stop_at_the_second_step(*_args):  # a request while the job runs (as a signal's)
        calls.append(1)
        if len(calls) == 2:
            cancel.request()

    cancel.clear()
    try:
        with pytest.raises(cancel.Cancelled):
            inpaint(img, mask, backend="numpy", patch=5, progress=stop_at_the_second_step)
        for width in (20, 50):  # a reduction, an enlargement
            calls.clear()
            with pytest.raises(cancel.Cancelled):
                resize(img, width=width, backend="numpy", batch=1, progress=stop_at_the_second_step)
    finally:
        cancel.clear()
    assert inpaint(img, mask, backend="numpy", patch=5).image.shape == img.shape


# --- bounded reads ---------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
@pytest.mark.parametrize("argv", [
    ["pipe", "--mask", "x_mask.png", "-o", "o.png"],
    ["x.png", "--mask", "pipe", "-o", "o.png"],
    ["x.png", "--mask", "x_mask.png", "--profile", "pipe", "-o", "o.png"],
    ["x.png", "--mask", "x_mask.png", "--profile", "/dev/zero", "-o", "o.png"],
    ["resize", "pipe", "--width", "10", "-o", "o.png"],
], ids=["image", "mask", "profile", "dev-zero-profile", "resize"])
def test_a_named_pipe_or_device_is_refused_at_once(photos, argv):
    os.mkfifo(photos / "pipe")
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "inpaint", *argv, "--backend", "numpy"], cwd=photos, env=_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"(named pipe|not a regular file)", proc.stderr) and len(proc.stderr.splitlines()) == 1
    assert time.monotonic() - t0 < 30


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_in_a_batch_is_skipped(photos, run):
    os.mkfifo(photos / "pipe.png")
    code, _, err = run("x.png", "pipe.png", "--backend", "numpy", "-p", "5", *QUICK)
    assert code == 2 and "pipe.png is a named pipe" in err, err
    assert (photos / "x_removed.png").exists()


def test_a_huge_profile_file_is_refused_unread(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('name = "big"\n' + "#" * (1 << 20))
    with pytest.raises(ProfileError, match="a profile is a short .toml file"):
        load_profile(str(path))


def test_a_mask_file_far_larger_than_its_image_could_need_is_refused(photos, run):
    with open(photos / "x_mask.png", "ab") as fh:
        fh.write(b"\0" * (24 * 20 * 16 + (1 << 20)))
    code, _, err = run("x.png", "--mask", "x_mask.png", "-o", "o.png", "--backend", "numpy")
    assert code == 2 and "bytes, more than the" in err, err


def test_dash_where_no_stream_can_go_is_refused_clearly(photos, run):
    # '-' is standard input or output for one image (tests/test_cli_first_hour.py); elsewhere it is refused
    code, _, err = run("x.png", "--mask", "x_mask.png", "-o", "out.png", "--save-mapping", "-")
    assert code == 2 and "--save-mapping cannot be standard output ('-')" in err
    code, _, err = run("-", "y.png", "--mask", "x_mask.png")
    assert code == 2 and "'-' (standard input) takes one image, not a batch" in err
    code, _, err = run("x.png", "y.png", "-o", "-")
    assert code == 2 and "-o - (standard output) takes one image, not a batch" in err
    assert not list(photos.glob("*_removed.png")) and not (photos / "out.png").exists()


def _grow_oracle(mask: np.ndarray, r: int) -> np.ndarray:
    """The disc definition, pixel by pixel."""
    ys, xs = np.nonzero(mask)
    out = np.zeros_like(mask)
    for y in range(mask.shape[0]):
        for x in range(mask.shape[1]):
            out[y, x] = bool(((ys - y) ** 2 + (xs - x) ** 2 <= r * r).any())
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 18), st.integers(1, 18), st.integers(0, 30), st.integers(0, 2 ** 32 - 1), st.floats(0, 0.3))
def test_grow_is_the_disc_dilation(h, w, r, seed, density):
    mask = np.random.default_rng(seed).random((h, w)) < density
    assert np.array_equal(grow(mask, r), _grow_oracle(mask, r))


def test_grow_is_fast_for_any_radius_and_a_whole_image_grow_is_refused_first(tmp_path, run, monkeypatch):
    mask = np.zeros((1500, 2000), bool)
    mask[700:760, 900:1000] = True
    for r in (50, 700, 1500):
        t0 = time.perf_counter()
        grown = grow(mask, r)
        assert time.perf_counter() - t0 < 10
        assert grown[730, 950 + r] and not grown[730 - r - 60 - 1, 950] if 730 - r - 61 >= 0 else True
    monkeypatch.chdir(tmp_path)
    Image.new("RGB", (2000, 1500), (40, 50, 60)).save("big.png")
    save_mask(tmp_path / "big_mask.png", mask)
    t0 = time.perf_counter()
    code, _, err = run("big.png", "--mask", "big_mask.png", "--grow", "10000", "--backend", "numpy")
    assert code == 2 and "--grow 10000 would cover the whole 2000x1500 image" in err, err
    assert time.perf_counter() - t0 < 20


# --- failures mapped to exit statuses --------------------------------------------------------------

def test_a_name_too_long_is_bad_input(photos, run):
    code, _, err = run("a" * 300 + ".png", "--mask", "x_mask.png")
    assert code == 2 and "internal error" not in err and len(err.splitlines()) == 1, err
    code, _, err = run("a" * 300 + ".png", "x.png")
    assert code == 2 and "internal error" not in err, err


def test_a_closed_or_full_stdout_is_one_line_and_exit_2(photos):
    proc = _spawn(["x.png", "--mask", "x_mask.png", "--backend", "numpy", "-p", "5", "--stats", "-q", *QUICK], photos,
                  stdout=open(os.devnull, "w") if not os.path.exists("/dev/full") else open("/dev/full", "w"))
    _, err = proc.communicate(timeout=120)
    if os.path.exists("/dev/full"):
        assert proc.returncode == 2, err
        assert err == ("inpaint: error: the result is written, but standard output failed (No space left on "
                       "device): its report is not\n"), err
    assert (photos / "x_removed.png").exists()
    r, w = os.pipe()
    os.close(r)
    proc = _spawn(["devices", "--no-check"], photos, stdout=w)  # (its listing, without building on each device)
    os.close(w)
    _, err = proc.communicate(timeout=120)
    if proc.returncode != 3:  # (3: no OpenCL here, nothing printed)
        assert proc.returncode == 2, err
        assert err == "inpaint devices: error: standard output was closed before everything was written\n", err


@pytest.mark.parametrize("exc, code, pattern", [
    (OSError(36, "File name too long", "x" * 300), 2, r"^File name too long: x{28}\.\.\.x{28}$"),
    (RuntimeError("can't start new thread"), 2, r"^cannot start a thread"),
    (type("MemoryError", (Exception,), {"__module__": "pyopencl._cl"})("create_buffer failed: OUT_OF_HOST_MEMORY"),
     2, r"^the OpenCL device ran out of memory"),
    (type("LogicError", (Exception,), {"__module__": "pyopencl._cl"})("clBuildProgram failed"), 3,
     r"^the OpenCL device failed: clBuildProgram failed"),
    (RuntimeError("kernel exploded"), 1, r"kernel exploded"),
], ids=["name-too-long", "thread", "opencl-memory", "opencl-build", "bug"])
def test_environment_failures_map_to_documented_statuses(exc, code, pattern):
    assert guard.exit_code(exc) == code
    assert re.search(pattern, guard.error_message(exc))


def _cl_error(kind: str, status: str):
    """pyopencl's own exception for a call that returned ``status`` (as its bindings raise it)."""
    cl = pytest.importorskip("pyopencl")
    code = getattr(cl.status_code, status)
    return getattr(cl, kind)(cl._cl._ErrorRecord(f"clEnqueueNDRangeKernel failed: {status}", code,
                                                  "clEnqueueNDRangeKernel"))


@pytest.mark.parametrize("kind, status, code", [
    ("RuntimeError", "OUT_OF_HOST_MEMORY", 2), ("MemoryError", "MEM_OBJECT_ALLOCATION_FAILURE", 2),
    ("RuntimeError", "OUT_OF_RESOURCES", 3), ("RuntimeError", "BUILD_PROGRAM_FAILURE", 3),
    ("LogicError", "INVALID_KERNEL_ARGS", 3)])
def test_opencl_out_of_memory_is_bad_input_and_device_failures_stay_3(kind, status, code):
    # pyopencl raises its MemoryError only for MEM_OBJECT_ALLOCATION_FAILURE: the host's memory
    # running out inside the driver comes as a RuntimeError, which was reported as a device failure.
    exc = _cl_error(kind, status)
    assert guard.exit_code(exc) == code
    message = guard.error_message(exc)
    if code == 2:
        assert message.startswith("the OpenCL device ran out of memory for this job; use a smaller image, or "
                                  "--backend numpy") and status in message, message
    else:
        assert message.startswith("the OpenCL device failed: ") and status in message, message


@pytest.mark.opencl
@pytest.mark.slow  # the quick selection keeps the small-limit fallback (test_kernel_cache.py)
def test_opencl_buffers_beyond_the_address_space_limit_are_refused_not_aborted(tmp_path):
    # PoCL does not return an error when it cannot allocate a buffer's memory: it aborted
    # (Debian's build: a failed assertion, SIGABRT) or crashed (pip's: SIGSEGV).
    import resource

    from inpaint.cl.kcache import MIN_ADDRESS_SPACE
    from inpaint.cl.runtime import preference

    cl = pytest.importorskip("pyopencl")
    if not preference()[0][2].type & cl.device_type.CPU:
        pytest.skip("the first device is not a CPU: its buffers are not in this process's address space")
    h, w = 3000, 4000  # 12 MP, a hole along the edges (one part): the fill works on the whole image
    y, x = np.mgrid[:h, :w]  # (a smooth picture: quick to write and read; its pixels do not matter here)
    Image.fromarray(np.stack([x % 256, y % 256, (x + y) % 256], -1).astype(np.uint8)).save(tmp_path / "big.png",
                                                                                        compress_level=1)
    mask = np.zeros((h, w), bool)
    mask[10:h - 10, 10:w - 10] = True
    mask[30:h - 30, 30:w - 30] = False
    save_mask(tmp_path / "big_mask.png", mask)
    limit = MIN_ADDRESS_SPACE + (128 << 20)  # PoCL starts (it is refused below MIN_ADDRESS_SPACE)

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "inpaint", "big.png", "--mask", "big_mask.png", "--backend", "opencl",
                           "--progress", "none"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert proc.returncode == 2, proc.stderr
    # (a first run on an empty kernel cache says first that it compiles the kernels). The memory
    # check before the fill refuses it, or a buffer is refused before the driver allocates it, or
    # the host's own memory runs out first (the compiler, on a first run, maps much of the
    # limit): each line names the limit.
    assert re.fullmatch(r"(inpaint: compiling the OpenCL kernels this run needs \(once for each kind of fill; later "
                        r"runs reuse them\)\.\.\.\n)?"
                        r"inpaint: error: (the address-space limit \(ulimit -v: \d+ MB\) leaves no room for this "
                        r"job's OpenCL buffers; raise it, use a smaller image, or --backend numpy"
                        r"|not enough memory for this job under the address-space limit \(ulimit -v: \d+ MB\); "
                        r"raise it, or use a smaller image"
                        r"|filling \d+ pixels of big\.png \(4000x3000\) needs about [\d.]+ MiB of memory but only "
                        r"[\d.]+ MiB is available under the address-space limit \(ulimit -v: \d+ MB\); use a "
                        r"smaller image, or raise the limit)\n", proc.stderr), proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["big.png", "big_mask.png"]  # no result, no temporary file


# A script that queues a kernel (compiled by PoCL on its own thread at its first launch, from an
# empty cache) and ends at once; its own exit hook, run after the runtime's, says whether the
# kernel had finished by then.
QUEUED_AT_EXIT = """
import atexit, sys
import numpy as np
from inpaint.cl import runtime

seen = {}
atexit.register(lambda: print(seen["event"].command_execution_status == runtime.cl.command_execution_status.COMPLETE))
rt = runtime.get_runtime()
prg = runtime.cl.Program(rt.context, \"\"\"
__kernel void spin(__global uint *out, const uint n) {
    uint acc = get_global_id(0);
    for (uint i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
    out[get_global_id(0)] = acc;
}\"\"\").build()
out = runtime.cl.Buffer(rt.context, runtime.cl.mem_flags.WRITE_ONLY, 4 * 4096)
seen["event"] = prg.spin(rt.queue, (4096,), None, out, np.uint32(20000))
sys.exit(2)
"""


@pytest.mark.opencl
def test_a_process_ends_after_its_queued_kernels(tmp_path):
    # A process that ended while PoCL still compiled a queued kernel crashed in its exit handlers
    # (SIGSEGV after a run's error line).
    env = dict(_env(), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("POCL_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", QUEUED_AT_EXIT], env=env, capture_output=True, text=True,
                          timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "True\n"), proc.stderr


@pytest.mark.parametrize("status, finished", [(0, True), (2, False)])
def test_a_command_waits_for_its_queued_device_work_only_when_it_succeeded(tmp_path, status, finished):
    """A command that ends in an error does not finish its queues' work on the way out (PoCL links a
    queued kernel when it runs it, and aborts when the memory for that is gone); one that succeeded
    does, as any exit."""
    marker = tmp_path / "finished"
    script = (
        "import pathlib, sys\n"
        "from inpaint.cl import runtime\n"
        "from inpaint.cli import guard\n"
        "class Queue:\n"
        f"    def finish(self): pathlib.Path({str(marker)!r}).write_text('yes')\n"
        "class Runtime:\n"
        "    queue = Queue()\n"
        "rt = Runtime()\n"
        "runtime._finish_at_exit(rt)\n"
        f"guard.end_process({status})\n")
    proc = _run_script(script, tmp_path)
    assert proc.returncode == status, proc.stderr
    assert marker.exists() == finished


def test_the_command_ends_after_its_exit_hooks_threads_and_streams(tmp_path):
    # The command ends its process at once when its run is over (no teardown of the modules and
    # the driver), but what a normal exit does for the user still happens.
    script = ("import atexit, sys, threading, time, runpy\n"
              "atexit.register(lambda: print('hook ran', end=''))\n"
              "threading.Thread(target=lambda: (time.sleep(0.5), sys.stderr.write('thread done\\n'))).start()\n"
              "sys.stdout.write('unflushed ')\n"
              "sys.argv = ['inpaint', '--version']\n"
              "runpy.run_module('inpaint', run_name='__main__')\n")
    proc = _run_script(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("unflushed inpaint ") and proc.stdout.endswith("hook ran"), proc.stdout
    assert proc.stderr == "thread done\n"
    bad = subprocess.run([sys.executable, "-c", script.replace("'--version'", "'--case', 'nosuch'")], cwd=tmp_path,
                         env=_env(), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout.endswith("hook ran"), (bad.stdout, bad.stderr)


def test_png_writer_falls_back_to_one_thread(monkeypatch):
    import io

    arr = np.random.default_rng(0).integers(0, 256, (900, 1200, 3), dtype=np.uint8)
    monkeypatch.setattr(encode, "PNG_BAND", 1 << 16)
    want = io.BytesIO()
    encode.write_png(want, arr)

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    got = io.BytesIO()
    encode.write_png(got, arr)
    assert got.getvalue() == want.getvalue()


# --- stale temporary files ---------------------------------------------------------------------

def test_stale_temporary_files_of_dead_runs_are_removed_and_live_ones_kept(photos, run, monkeypatch):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        host = atomic._host_tag()
        stale = photos / f".x_removed.png~inpaint.{host}.{dead.pid}.abc123.tmp"
        live = photos / f".x_removed.png~inpaint.{host}.{sleeper.pid}.def456.tmp"
        fresh = photos / f".y_removed.png~inpaint.{host}.{dead.pid}.ghi789.tmp"
        other_host = photos / f".x_removed.png~inpaint.00000000.{dead.pid}.jkl012.tmp"
        foreign = photos / ".x_removed.png.notours.tmp"
        for p in (stale, live, fresh, other_host, foreign):
            p.write_bytes(b"half")
        old = time.time() - 3600
        for p in (stale, live, other_host, foreign):
            os.utime(p, (old, old))
        monkeypatch.setattr(atomic, "_CLEANED", set())
        code, _, err = run("x.png", "--mask", "x_mask.png", "--backend", "numpy", "-p", "5", "-q", *QUICK)
        assert code == 0, err
        assert not stale.exists()
        assert live.exists() and fresh.exists() and other_host.exists() and foreign.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


# --- contracts ----------------------------------------------------------------------------------

def test_the_fill_api_refuses_rgba_and_nan_masks():
    img = np.zeros((20, 20, 4), np.uint8)
    mask = box_mask(20, 20, slice(5, 9), slice(5, 9))
    with pytest.raises(InputError, match="4 channels"):
        inpaint(img, mask, backend="numpy")
    bad = mask.astype(np.float32)
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        inpaint(img[..., :3], bad, backend="numpy")


def test_float_masks_follow_one_rule():
    soft = np.array([[0.0, 0.3, 0.6, 1.0, 2.0]] * 3)
    assert mask_from_array(soft).tolist()[0] == [False, False, True, True, True]   # a stray 2 moves nothing
    wide = np.array([[0.0, 0.6, 100.0, 200.0, 255.0]] * 3)
    assert mask_from_array(wide).tolist()[0] == [False, False, False, True, True]
    with pytest.raises(InputError, match="NaN"):
        mask_from_array(np.array([[np.nan, 1.0]]))


def test_a_float_mask_file_with_nan_is_refused(photos, run):
    arr = np.zeros((20, 24), np.float32)
    arr[5:9, 5:9] = 1.0
    arr[0, 0] = np.nan
    Image.fromarray(arr, "F").save(photos / "f.tif")
    code, _, err = run("x.png", "--mask", "f.tif", "-o", "o.png", "--backend", "numpy")
    assert code == 2 and "NaN" in err, err


def test_sigterm_stops_an_enlargement_within_a_second(tmp_path):
    _photo(tmp_path / "s.png", 3, (1600, 1200))
    proc = _spawn(["resize", "s.png", "--width", "4000", "--allow-large", "--progress", "plain", "-o", "e.png"],
                  tmp_path)
    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen.append(line)
        if not line or re.search(r"carving +\d+%", line):
            break
    assert proc.poll() is None, "".join(seen)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 128 + signal.SIGTERM
    # The enlargement would take far longer than this bound (see the batch test above for the margin).
    assert elapsed < 10.0, f"took {elapsed:.2f} s to stop"
    assert os.listdir(tmp_path) == ["s.png"]


# --- the app's launchers -------------------------------------------------------------------------

def _app_env(tmp_path, display: bool) -> dict:
    env = {k: v for k, v in _env().items() if display or k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update(HOME=str(tmp_path), KIVY_HOME=str(tmp_path / "kivy"))
    return env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is for X11/Wayland desktops")
def test_the_app_checks_its_photo_before_the_display(tmp_path):
    pytest.importorskip("kivy")
    (tmp_path / "junk.png").write_bytes(b"not a picture")
    for argv, code, pattern in ((["junk.png"], 2, r"^inpaint app: error: image junk\.png is not an image"),
                                (["missing.png"], 2, r"^inpaint app: error: image missing\.png does not exist"),
                                (["--case", "walkingman"], 3, r"^inpaint app: error: no display")):
        proc = subprocess.run([sys.executable, "-m", "inpaint", "app", *argv, "--state-dir", str(tmp_path / "s")],
                              cwd=tmp_path, env=_app_env(tmp_path, False), capture_output=True, text=True, timeout=120)
        assert proc.returncode == code, proc.stderr
        assert re.search(pattern, proc.stderr) and len(proc.stderr.splitlines()) == 1, proc.stderr


_STARTED = """
import sys
from mobile_ui.app import InpaintApp
real = InpaintApp.on_start
def on_start(self):
    if real is not None:
        real(self)
    print("STARTED", flush=True)
InpaintApp.on_start = on_start
if sys.argv[1] == "inpaint app":
    from inpaint.cli import main
    raise SystemExit(main(["app", *sys.argv[2:]]))
from mobile_ui.__main__ import main
raise SystemExit(main(sys.argv[2:]))
"""


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs a display (run under xvfb-run)")
@pytest.mark.parametrize("launcher", ["inpaint app", "inpaint-app"])
def test_the_app_quits_cleanly_on_sigterm(tmp_path, launcher):
    pytest.importorskip("kivy")
    proc = subprocess.Popen([sys.executable, "-c", _STARTED, launcher, "--case", "walkingman", "--state-dir",
                             str(tmp_path / "s"), "--size", "640x480"], cwd=tmp_path, env=_app_env(tmp_path, True),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "STARTED", proc.stderr.read() if proc.poll() is not None else line
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.strip().endswith("stopped by SIGTERM") and "Traceback" not in err, err
    assert time.monotonic() - t0 < 10


def test_a_broken_kernel_cache_is_rebuilt_once_into_a_fresh_folder(monkeypatch):
    cl = pytest.importorskip("pyopencl")
    from inpaint.cl import build

    calls = []

    class Program:
        def __init__(self, context, text):
            pass

        def build(self, options, cache_dir=None):
            calls.append(cache_dir)
            if cache_dir is None:
                raise cl.RuntimeError("clBuildProgram failed: BUILD_PROGRAM_FAILURE")
            assert os.path.isdir(cache_dir) and not os.listdir(cache_dir)
            return "program"

    distrusted = []
    monkeypatch.setattr(cl, "Program", Program)
    monkeypatch.setattr(build, "distrust", lambda: distrusted.append(True))
    with pytest.warns(RuntimeWarning, match="kernel cache"):
        prg, _ = build.build(None, ["common/hash"])
    assert prg == "program" and calls[0] is None and calls[1] and not os.path.exists(calls[1])
    assert distrusted == [True]  # the next process starts from an empty PoCL cache

    def always(self, options, cache_dir=None):
        raise cl.RuntimeError("clBuildProgram failed: a real error")

    monkeypatch.setattr(Program, "build", always)
    with pytest.raises(cl.RuntimeError, match="a real error"):
        build.build(None, ["common/hash"])

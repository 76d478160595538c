"""A device that cannot compile is never chosen: the fallback chain, its messages, and batches.

The failure class (a driver that rejects every build, as PoCL from pip does on CPUs newer than its
LLVM) is reproduced on any machine with a real driver error: the chosen devices get a build option
their driver rejects (``-cl-std=CL9.9``), in-process through the build the runtime calls, and in
a whole command through PoCL's own ``POCL_EXTRA_BUILD_FLAGS``.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint.api import inpaint
from inpaint.cl import diagnose, runtime as rtmod
from inpaint.errors import BuildFailure, FallbackWarning, OutOfMemory

OPENCL = pytest.mark.opencl  # the tests that run kernels; the reasons' tests run anywhere

REPO = Path(__file__).resolve().parent.parent
REJECTED = "-cl-std=CL9.9"  # an option every driver rejects: a real build failure


@pytest.fixture
def fresh(monkeypatch):
    """No device marked, no runtime cached and no warning given by earlier tests."""
    monkeypatch.setattr(rtmod, "_CANNOT_BUILD", {})
    monkeypatch.setattr(rtmod, "_RUNTIMES", {})
    monkeypatch.setattr(rtmod, "_WARNED", set())


@pytest.fixture
def failing(fresh, monkeypatch):
    """``failing(pred)``: every build on a device for which ``pred(device)`` holds fails in its driver.
    Returns the list of devices a build was tried on, in order."""
    real = rtmod.build
    tried: list = []

    def install(pred):
        def build(context, sources, defines=None, failed=None):
            device = context.devices[0]
            tried.append(device)
            if pred(device):
                defines = {**(defines or {}), "INPAINT_REJECTED": f"1 {REJECTED}"}
            return real(context, sources, defines, failed)
        monkeypatch.setattr(rtmod, "build", build)
        return tried
    return install


# The device chain is the engine's, whatever the method: the fills take the Criminisi method's (a
# hundredth of a second here, where the default's numpy fallback takes more than one).
QUICK = {"method": "criminisi", "patch": 5, "alpha": "full"}
QUICK_FLAGS = ["--method", "criminisi", "-p", "5", "--alpha", "full"]


def _scene(seed=3):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 255, (40, 48, 3), dtype=np.uint8)
    return img, box_mask(40, 48, slice(14, 22), slice(18, 27))


def _devices():
    return [d for _, _, d in rtmod.preference()]


# -- the reasons ------------------------------------------------------------------------------

ZEN5 = "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 68\n"
PIP_POCL = "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6, SLEEF, DISTRO, POCL_DEBUG"


def test_cpu_family_from_cpuinfo():
    assert diagnose.cpu_family(ZEN5) == "AMD family 26"
    assert diagnose.cpu_family("vendor_id : GenuineIntel\ncpu family : 19\n") == "Intel family 19"
    assert diagnose.cpu_family("processor : 0\n") == ""


def test_pip_pocl_on_a_newer_cpu_names_the_cause_and_the_fix():
    # What PoCL 3.0 from pip reports on AMD Zen 5: its LLVM 14 calls the CPU 'generic'.
    cause, fix = diagnose.explain("Portable Computing Language", PIP_POCL, "pthread-AMD Ryzen 9 9950X",
                                  "OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-generic",
                                  "error: unknown target CPU 'generic'", cpu="AMD family 26", pip_pocl="3.0")
    assert cause == "PoCL 3.0 from pip cannot compile for this CPU (AMD family 26, newer than its LLVM 14)"
    assert "pocl" in fix.lower() and "install" in fix
    assert len(f"inpaint: error: {cause}; {fix}") < 200
    # The log alone tells it too (an older device version string without the CPU name).
    cause2, _ = diagnose.explain("Portable Computing Language", PIP_POCL, "pthread-x", "OpenCL 3.0 PoCL",
                                 "error: <invalid loc>: unknown target CPU 'generic'", cpu="", pip_pocl="3.0")
    assert cause2 == "PoCL 3.0 from pip cannot compile for this CPU (newer than its LLVM 14)"


def test_other_failures_quote_the_driver_and_stay_short():
    log = "error: " + "x" * 500
    cause, fix = diagnose.explain("NVIDIA CUDA", "OpenCL 3.0 CUDA 12.4", "NVIDIA H100", "OpenCL 3.0 CUDA", log)
    assert cause.startswith("NVIDIA H100 (NVIDIA CUDA) cannot compile the kernels: error: xxx")
    assert cause.endswith("...") and "inpaint devices" in fix
    line = diagnose.reason(cause, fix, " (3 other devices cannot either)")
    assert len(line) <= diagnose.MAX_REASON and line.endswith(f"; {fix} (3 other devices cannot either)")
    # A distribution's PoCL is not told to install the distribution's PoCL.
    cause, fix = diagnose.explain("Portable Computing Language", "OpenCL 3.0 PoCL 3.1+debian LLVM 15.0.6",
                                  "pthread-cpu", "OpenCL 3.0 PoCL HSTR: pthread-x86_64-znver4",
                                  "error: something else", cpu="AMD family 25", pip_pocl="3.0")
    assert cause == "PoCL 3.1 cannot compile the kernels: error: something else"
    assert "apt install" not in fix


def test_build_log_is_taken_from_a_pyopencl_error():
    text = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE - clBuildProgram failed\n\nBuild on <pyopencl.Device "
            "'pthread' on 'Portable Computing Language' at 0x1>:\n\nerror: unknown target CPU 'generic'\n\n"
            "(options: -I /x -DHALF=3)")
    assert diagnose.build_log(RuntimeError(text)) == "error: unknown target CPU 'generic'"


# -- the same CPU through two drivers -----------------------------------------------------------

_PTRS = itertools.count(1)


def _fake(platform, kind, name="cpu", mem=1 << 30):
    return SimpleNamespace(int_ptr=next(_PTRS), platform=SimpleNamespace(int_ptr=platform), type=kind, name=name,
                           global_mem_size=mem)


def test_same_hardware():
    cpu, gpu = 2, 4
    assert rtmod.same_hardware(_fake(1, cpu, "pthread-AMD EPYC"), _fake(2, cpu, "pthread-znver4-AMD EPYC"))
    assert not rtmod.same_hardware(_fake(1, cpu), _fake(1, cpu))  # two devices one platform lists
    assert rtmod.same_hardware(_fake(1, gpu, "H100"), _fake(2, gpu, "H100"))
    assert not rtmod.same_hardware(_fake(1, gpu, "H100"), _fake(2, gpu, "A100"))
    assert not rtmod.same_hardware(_fake(1, gpu, "H100"), _fake(1, gpu, "H100"))  # two cards


@OPENCL
def test_jobs_take_turns_on_each_piece_of_hardware_once(fresh):
    from inpaint.cli.batch import best_devices

    turns = best_devices("auto", None, 2)
    devices = {f"{pi}:{di}": d for pi, di, d in rtmod.preference()}
    chosen = [devices[t] for t in turns]
    for i, a in enumerate(chosen):
        assert not any(rtmod.same_hardware(a, b) for b in chosen[i + 1:])
    if sum(1 for d in devices.values() if not d.type & 4) > 1:  # two drivers of this CPU (CI has both PoCLs)
        assert sum(1 for d in chosen if not d.type & 4) <= 1


# -- the chain ----------------------------------------------------------------------------------

@OPENCL
def test_auto_falls_back_to_numpy_with_one_warning(failing):
    failing(lambda d: True)
    img, mask = _scene()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = inpaint(img, mask, backend="auto", **QUICK)
        again = inpaint(img, mask, backend="auto", **QUICK)  # a batch's second image: no second warning
    ref = inpaint(img, mask, backend="numpy", **QUICK)
    assert res.stats.backend == "numpy" and again.stats.backend == "numpy"
    assert np.array_equal(res.image, ref.image) and np.array_equal(again.image, ref.image)
    texts = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(texts) == 1 and "\n" not in texts[0]
    assert "cannot compile the kernels" in texts[0] and "using numpy" in texts[0] and REJECTED in texts[0]


@OPENCL
def test_each_device_is_tried_once_per_process(failing):
    tried = failing(lambda d: True)
    img, mask = _scene()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inpaint(img, mask, backend="auto", **QUICK)
        n = len(tried)
        inpaint(img, mask, backend="auto", **QUICK)
    assert n == len(_devices()) and len(tried) == n  # remembered: nothing compiled again


@OPENCL
def test_opencl_backend_raises_one_short_line(failing):
    failing(lambda d: True)
    img, mask = _scene()
    with pytest.raises(BuildFailure) as info:
        inpaint(img, mask, backend="opencl")
    text = str(info.value)
    assert "\n" not in text and len(text) < 200 and "cannot compile" in text
    assert REJECTED in info.value.details  # the driver's log, for whoever asks


@OPENCL
def test_a_named_device_is_never_replaced(failing):
    first = _devices()[0]
    failing(lambda d: d == first)
    img, mask = _scene()
    with pytest.raises(BuildFailure):
        inpaint(img, mask, backend="auto", device="0:0" if rtmod.preference()[0][:2] == (0, 0) else first)


@OPENCL
def test_the_next_device_that_builds_runs_the_fill(failing):
    devices = _devices()
    if len(devices) < 2:
        pytest.skip("one OpenCL device here; the next-device case needs two (CI has two PoCL builds)")
    failing(lambda d: d == devices[0])
    img, mask = _scene()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = inpaint(img, mask, backend="auto", **QUICK)
    ref = inpaint(img, mask, backend="numpy", **QUICK)
    assert res.stats.backend == "opencl" and devices[1].name.strip() in res.stats.device
    assert np.array_equal(res.image, ref.image)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and "instead" in texts[0]


@OPENCL
def test_resize_falls_back_too(failing):
    from inpaint.seam.api import resize

    failing(lambda d: True)
    img, _ = _scene()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = resize(img, 40, 40, backend="auto")
    assert np.array_equal(out, resize(img, 40, 40, backend="numpy"))
    assert len(caught) == 1 and "using numpy" in str(caught[0].message)
    with pytest.raises(BuildFailure):
        resize(img, 40, 40, backend="opencl")


# -- the command --------------------------------------------------------------------------------

@pytest.fixture
def photos(tmp_path):
    img, mask = _scene()
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(3):
        Image.fromarray(np.roll(img, 7 * i, axis=1)).save(folder / f"p{i}.png")
        save_mask(folder / f"p{i}_mask.png", mask)
    return folder


@OPENCL
def test_batch_reports_a_device_failure_per_image_and_ends_with_its_summary(failing, run, photos, tmp_path):
    failing(lambda d: True)
    code, out, err = run(photos, "-o", f"{tmp_path / 'done'}/", "--jobs", "2", "--backend", "opencl")
    lines = err.strip().splitlines()
    assert code == 3
    assert sum("cannot compile" in ln for ln in lines) == 3  # one line per image
    assert lines[-1].startswith("inpaint: 3 images: 0 removed, 3 failed")
    assert not any((tmp_path / "done").glob("p*"))


@OPENCL
def test_batch_with_jobs_finishes_every_image(failing, run, photos, tmp_path):
    devices = _devices()
    failing(lambda d: d == devices[0])  # the preferred device cannot build; any other can
    code, out, err = run(photos, "-o", f"{tmp_path / 'done'}/", "--jobs", "2", *QUICK_FLAGS)
    assert code == 0, err
    for i in range(3):
        got = np.asarray(Image.open(tmp_path / "done" / f"p{i}.png"))
        src = np.asarray(Image.open(photos / f"p{i}.png"))
        ref = inpaint(src, np.asarray(Image.open(photos / f"p{i}_mask.png")) > 127, backend="numpy", **QUICK).image
        assert np.array_equal(got, ref)
    assert "3 removed, 0 failed" in err


@OPENCL
def test_devices_marks_a_device_that_cannot_build(failing, run):
    devices = _devices()
    failing(lambda d: d == devices[0])
    with pytest.warns(FallbackWarning):  # the first device fails to build here, and is remembered
        inpaint(*_scene(), backend="auto", **QUICK)
    code, out, err = run("devices", "--profile", "native")
    assert out.count("**unusable**: ") == 1 and REJECTED in out
    if len(devices) > 1:
        assert code == 0 and "A run without --device takes" in out
    else:
        assert code == 3 and "no OpenCL device can run the fill" in err


@OPENCL
def test_devices_names_the_device_the_environment_makes_a_run_take(run, monkeypatch, tmp_path):
    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    last = _devices()[-1]
    last_spec = rtmod.device_spec(last)
    for variable, value, want in [
        (None, None, None), ("INPAINT_DEVICE", last_spec, last_spec), ("PYOPENCL_CTX", last_spec, last_spec),
        ("INPAINT_BACKEND", "numpy", "numpy"), ("PYOPENCL_CTX", "9", "refused"),
    ]:
        for name in ("INPAINT_DEVICE", "PYOPENCL_CTX", "INPAINT_BACKEND", "INPAINT_PROFILE"):
            monkeypatch.delenv(name, raising=False)
        if variable:
            monkeypatch.setenv(variable, value)
        code, out, err = run("devices", "--profile", "native")
        said = out.strip().splitlines()[-1]
        filled = run(tmp_path / "a.png", "--mask", tmp_path / "m.png", "-o", tmp_path / "o.png", "-y", *QUICK_FLAGS)
        if want == "refused":
            assert said == "A run without --device is refused: PYOPENCL_CTX=9 matches no device.", said
            assert filled[0] == 3
            continue
        assert filled[0] == 0, filled[2]
        if want == "numpy":
            assert said == "A run without --backend runs in numpy, on no device (INPAINT_BACKEND=numpy)."
            assert "(numpy" in filled[2] and "(the one a run takes)" not in out
            continue
        spec = want or rtmod.device_spec(rtmod.select_device())
        name = next(d for pi, di, d in rtmod.all_devices() if f"{pi}:{di}" == spec).name.strip()
        assert said.startswith(f"A run without --device takes {spec} {name}"), said
        assert out.count("(the one a run takes)") == 1
        assert f"opencl on {name}" in filled[2], filled[2]


# -- a whole command in a fresh process, the driver itself rejecting every build ----------------

def _pocl_only():
    return all("Portable Computing Language" in d.platform.name for d in _devices())


@OPENCL
@pytest.mark.skipif(sys.platform != "linux", reason="PoCL's build flags variable")
def test_whole_command_with_no_device_that_builds(tmp_path):
    if not _pocl_only():
        pytest.skip("a non-PoCL device here: POCL_EXTRA_BUILD_FLAGS reaches PoCL only")
    env = dict(os.environ, POCL_EXTRA_BUILD_FLAGS=REJECTED, POCL_CACHE_DIR=str(tmp_path / "pocl"))
    env.pop("PYOPENCL_CTX", None)
    cmd = [sys.executable, "-m", "inpaint.cli"]

    def inpaint_cmd(*args):
        return subprocess.run(cmd + [str(a) for a in args], env=env, capture_output=True, text=True, timeout=300)

    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    auto = inpaint_cmd(tmp_path / "a.png", "--mask", tmp_path / "m.png", "-o", tmp_path / "auto.png", *QUICK_FLAGS)
    assert auto.returncode == 0, auto.stderr
    warning, done = auto.stderr.splitlines()  # no note of a compile: none happened
    assert "using numpy" in warning and done.startswith("inpaint: removed ") and "compiling" not in done, auto.stderr
    assert np.array_equal(np.asarray(Image.open(tmp_path / "auto.png")),
                          inpaint(img, mask, backend="numpy", **QUICK).image)

    strict = inpaint_cmd(tmp_path / "a.png", "--mask", tmp_path / "m.png", "-o", tmp_path / "cl.png",
                         "--backend", "opencl", *QUICK_FLAGS)
    assert strict.returncode == 3
    assert len(strict.stderr.strip().splitlines()) == 1 and len(strict.stderr.strip()) < 200
    assert not (tmp_path / "cl.png").exists()

    # the default method, on numpy for a second or more: long enough for a note that is due
    # (5-pixel patches: about 1.5 s on a 2-core machine, 0.5 s is due); no progress lines, which a
    # loaded machine's longer run would add
    big = np.random.default_rng(5).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    Image.fromarray(big).save(tmp_path / "big.png")
    save_mask(tmp_path / "big_mask.png", box_mask(120, 160, slice(40, 80), slice(60, 110)))
    slow = inpaint_cmd(tmp_path / "big.png", "--mask", tmp_path / "big_mask.png", "-o", tmp_path / "big_out.png",
                       "-p", "5", "--progress", "none")
    assert slow.returncode == 0, slow.stderr
    warning, done = slow.stderr.splitlines()
    assert "using numpy" in warning and done.startswith("inpaint: removed ") and "compiling" not in done, slow.stderr

    listing = inpaint_cmd("devices", "--profile", "native")
    assert listing.returncode == 3
    assert listing.stdout.count("**unusable**") == len(_devices())


# -- a job larger than the device's largest buffer ----------------------------------------------

def _small_buffers(tmp_path, nbytes, name="small_buffers"):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nmax_mem_alloc_size = {nbytes}\n', encoding="utf-8")
    return path


@OPENCL
@pytest.mark.parametrize("method", ["criminisi", "multiscale"])
def test_a_job_past_the_largest_buffer_falls_back_or_is_refused_before_any_work(fresh, tmp_path, method):
    img, mask = _scene()  # 40 x 48: its 32-bit picture takes 7680 bytes
    profile = _small_buffers(tmp_path, 4096)
    opts = {"method": method, "patch": 5}  # (the multiscale numpy fills in half the default patch's time)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = inpaint(img, mask, backend="auto", profile=profile, **opts)
    assert res.stats.backend == "numpy"
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and said[0].startswith("this job needs an OpenCL buffer of 7680 bytes, and ")
    assert said[0].endswith("takes at most 4096 bytes (profile small_buffers); using numpy, "
                            f"{rtmod.NUMPY_SLOWDOWN}"), said
    assert np.array_equal(res.image, inpaint(img, mask, backend="numpy", **opts).image)
    with pytest.raises(OutOfMemory, match=r"^this job needs an OpenCL buffer of 7680 bytes, .* takes at most 4096 "
                                          r"bytes \(profile small_buffers\); use a smaller image, or --backend numpy$"):
        inpaint(img, mask, backend="opencl", profile=profile, **opts)
    # a profile whose buffers are large enough changes nothing
    assert inpaint(img, mask, backend="opencl", profile=_small_buffers(tmp_path, 1 << 20, "roomy"),
                   **opts).stats.backend == "opencl"


@OPENCL
def test_a_buffer_past_the_largest_is_refused_as_out_of_memory_not_a_driver_error(fresh, tmp_path):
    rt = rtmod.get_runtime(profile=_small_buffers(tmp_path, 4096))
    flags = rtmod.cl.mem_flags.READ_WRITE
    assert rtmod.new_buffer(rt.context, flags, 4096).size == 4096
    with pytest.raises(OutOfMemory, match="needs an OpenCL buffer of 4100 bytes, and .* takes at most 4096 bytes"):
        rtmod.new_buffer(rt.context, flags, 4100)


@OPENCL
def test_the_commands_fall_back_or_refuse_in_one_line(tmp_path):
    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    profile = _small_buffers(tmp_path, 4096)
    env = dict(os.environ)
    env.pop("PYOPENCL_CTX", None)

    def command(*args):
        return subprocess.run([sys.executable, "-m", "inpaint", *map(str, args), "--profile", profile,
                               "--progress", "none"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    for argv in (["a.png", "--mask", "m.png", *QUICK_FLAGS], ["resize", "a.png", "--width", "44"]):
        auto = command(*argv, "-o", "auto.png", "-y")
        assert auto.returncode == 0, auto.stderr
        notes = [ln for ln in auto.stderr.splitlines() if "OpenCL buffer" in ln]
        assert len(notes) == 1 and "using numpy" in notes[0], auto.stderr
        strict = command(*argv, "-o", "cl.png", "--backend", "opencl")
        assert strict.returncode == 2, strict.stderr
        assert strict.stderr.count("\n") == 1 and "takes at most 4096 bytes (profile small_buffers)" in strict.stderr
        assert not (tmp_path / "cl.png").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="PoCL's own variables")
def test_the_compilers_own_summary_line_never_reaches_standard_error(tmp_path):
    # PoCL told to look for its headers where they are not: every compile fails, and clang writes
    # "1 error generated." to file descriptor 2 itself.
    if not rtmod.opencl_available() or not _pocl_only():
        pytest.skip("needs PoCL as the only OpenCL driver")
    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    env = {k: v for k, v in os.environ.items() if k != "PYOPENCL_CTX"}
    env.update(POCL_BUILDING="1", POCL_CACHE_DIR=str(tmp_path / "pocl"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    for backend, status in (("auto", 0), ("opencl", 3)):
        proc = subprocess.run([sys.executable, "-m", "inpaint", "a.png", "--mask", "m.png", "-o", f"{backend}.png",
                               "--backend", backend, *QUICK_FLAGS], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == status, proc.stderr
        assert "generated" not in proc.stderr, proc.stderr
        lines = proc.stderr.splitlines()
        if backend == "auto":
            assert len(lines) == 2 and "using numpy" in lines[0] and lines[1].startswith("inpaint: removed "), lines
        else:
            assert len(lines) == 1 and lines[0].startswith("inpaint: error: "), lines


# -- a driver that ends the process ----------------------------------------------------------------

@pytest.mark.skipif(sys.platform != "linux", reason="an OpenCL driver registered through an ICD folder")
def test_devices_survives_a_driver_that_aborts_and_says_why(tmp_path):
    # PoCL from pip with its kernel library gone: it aborts the process that compiles on it.
    import importlib.util

    libs = Path(importlib.util.find_spec("pyopencl").origin).parent / ".libs"
    pocl = sorted(libs.glob("libpocl*.so*"))
    share = importlib.util.find_spec("pocl_binary_distribution")
    if not pocl or share is None:
        pytest.skip("needs PoCL from pip (pocl-binary-distribution) beside pyopencl")
    data = Path(share.origin).parent / ".libs"
    damaged = tmp_path / "site"  # the same layout, without the kernel library
    (damaged / "pyopencl" / ".libs").mkdir(parents=True)
    (damaged / "pocl_binary_distribution" / ".libs" / "share" / "pocl").mkdir(parents=True)
    for lib in [*libs.glob("*.so*"), *data.glob("*.so*")]:
        (damaged / lib.parent.parent.name / ".libs" / lib.name).symlink_to(lib)
    (damaged / "pocl_binary_distribution" / ".libs" / "share" / "pocl" / "include").symlink_to(
        data / "share" / "pocl" / "include")
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "damaged.icd").write_text(f"{damaged / 'pyopencl' / '.libs' / pocl[0].name}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYOPENCL_CTX", "POCL_EXTRA_BUILD_FLAGS")}
    env.update(OCL_ICD_VENDORS=str(tmp_path / "vendors"), POCL_CACHE_DIR=str(tmp_path / "pocl"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "inpaint", "devices", "--profile", "native"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 3), proc.stderr  # not killed by the driver's abort
    unusable = [ln for ln in proc.stdout.splitlines() if ln.startswith("**unusable**: ")]
    assert unusable and all(
        re.fullmatch(r"\*\*unusable\*\*: its driver ended the process \(SIGABRT\): Kernel library file "
                     r"\.\.\./kernel-\S+\.bc doesn't exist; reinstall or update the driver", ln) for ln in unusable), \
        proc.stdout
    usable = proc.stdout.count("usable: compiles and runs the fill")
    assert proc.returncode == (0 if usable else 3)
    assert proc.stderr == ("" if usable else "inpaint devices: error: no OpenCL device can run the fill (each says "
                           "why above); --backend auto runs it in numpy, much slower\n")


# -- a named device is never replaced ----------------------------------------------------------------

def _listed():
    if not rtmod.opencl_available():
        pytest.skip("no OpenCL device here to name one beside")


@pytest.mark.parametrize("spec", ["9:9", "no such device anywhere"])
def test_pyopencl_ctx_matching_no_device_is_an_error_not_numpy(tmp_path, spec):
    _listed()
    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    env = dict(os.environ, PYOPENCL_CTX=spec, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                                     os.environ.get("PYTHONPATH")])))
    for argv, prog in ((["a.png", "--mask", "m.png", *QUICK_FLAGS], "inpaint"),
                       (["resize", "a.png", "--width", "44"], "inpaint resize")):
        proc = subprocess.run([sys.executable, "-m", "inpaint", *argv, "-o", "out.png"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 3, proc.stderr
        assert proc.stderr.startswith(f"{prog}: error: no such device: PYOPENCL_CTX {spec!r} matches no OpenCL "
                                      "device; available: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert not (tmp_path / "out.png").exists()
    # numpy asks for no device: the variable does not matter there
    ok = subprocess.run([sys.executable, "-m", "inpaint", "a.png", "--mask", "m.png", *QUICK_FLAGS, "-o", "out.png",
                         "--backend", "numpy"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0 and ok.stderr.startswith("inpaint: removed "), ok.stderr


def test_the_api_refuses_a_device_or_token_that_names_nothing(fresh, monkeypatch):
    from inpaint.errors import InputError, OpenCLUnavailable

    _listed()
    img, mask = _scene()
    with pytest.raises(OpenCLUnavailable, match=r"^device '99:99' matches no OpenCL device; available: "):
        inpaint(img, mask, device="99:99", **QUICK)
    for bad in (object(), 3, "", "  "):
        with pytest.raises(InputError, match=r"^device must be 'PLATFORM:DEVICE', 'gpu', 'cpu', part of a device "
                                             r"name or a pyopencl\.Device, got "):
            inpaint(img, mask, device=bad, **QUICK)
    with pytest.raises(InputError, match=r"^token must be an inpaint\.cancel\.Token or None, got 1$"):
        inpaint(img, mask, token=1, backend="numpy", **QUICK)
    for bad in ("numpy", 5):  # (was an AttributeError deep inside)
        with pytest.raises(InputError, match=r"^engine must be an inpaint\.cl\.engine\.Engine "):
            inpaint(img, mask, engine=bad, **QUICK)
    monkeypatch.setenv("PYOPENCL_CTX", "99:99")
    with pytest.raises(OpenCLUnavailable, match=r"^PYOPENCL_CTX '99:99' matches no OpenCL device"):
        inpaint(img, mask, **QUICK)


@pytest.mark.skipif(os.name != "posix", reason="file descriptor 2 is filtered on POSIX")
def test_only_the_compilers_summary_is_dropped_from_file_descriptor_2(capfd):
    from inpaint.cl.build import _compiler_summary_dropped

    with _compiler_summary_dropped():
        for text in (b"inpaint: a note\n", b"1 error generated.\n", b"\rinpaint: filling  40%", b"12 warnings ",
                     b"generated.\n", b"3 errors generated. and more\n", b"7"):
            os.write(2, text)
    os.write(2, b"|after\n")
    assert capfd.readouterr().err == "inpaint: a note\n\rinpaint: filling  40%3 errors generated. and more\n7|after\n"


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_devices_prints_what_its_standard_output_cannot_hold_as_escapes(tmp_path, encoding):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPAINT_")}
    env.update(PYTHONIOENCODING=encoding, INPAINT_PROFILE="pr\u00f3file\u2013x",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "inpaint", "devices", "--no-check"], env=env, capture_output=True,
                          timeout=300)
    assert proc.returncode in (0, 3), proc.stderr  # 3: no OpenCL device here
    assert b"internal error" not in proc.stderr
    first = proc.stdout.decode(encoding).splitlines()[0]
    shown = "pr\\xf3file\\u2013x" if encoding == "ascii" else "pr\u00f3file\\u2013x"
    assert first.startswith(f"INPAINT_PROFILE={shown} (from the environment): unusable, a run refuses it "
                            f"(unknown profile '{shown}'"), first


@pytest.mark.skipif(os.name != "posix", reason="file descriptor 2 is filtered on POSIX")
def test_builds_in_several_threads_share_one_filter_and_put_standard_error_back(capfd):
    import threading

    from inpaint.cl.build import _compiler_summary_dropped

    before = os.fstat(2)
    inside = threading.Barrier(2)

    def build(name):
        with _compiler_summary_dropped():
            inside.wait(timeout=30)  # both inside at once, as a batch's two workers compile
            os.write(2, f"{name}\n1 error generated.\n".encode())
            inside.wait(timeout=30)

    threads = [threading.Thread(target=build, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert sorted(capfd.readouterr().err.splitlines()) == ["a", "b"]
    assert (os.fstat(2).st_ino, os.fstat(2).st_dev) == (before.st_ino, before.st_dev)


@OPENCL
def test_devices_says_a_run_refuses_every_device_under_the_environments_profile(run, monkeypatch, tmp_path):
    (tmp_path / "small.toml").write_text('name = "small"\nmax_work_group_size = 32\n')
    for name in ("INPAINT_DEVICE", "PYOPENCL_CTX", "INPAINT_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("INPAINT_PROFILE", str(tmp_path / "small.toml"))
    code, out, err = run("devices")
    assert code == 0, err
    assert "(the one a run takes)" not in out
    assert out.count("usable, but a run without --profile refuses it: INPAINT_PROFILE=") == len(_devices())
    assert out.strip().splitlines()[-1] == (f"A run without --device or --profile is refused: INPAINT_PROFILE="
                                            f"{tmp_path / 'small.toml'} (from the environment) fits no device.")
    img, mask = _scene()
    Image.fromarray(img).save(tmp_path / "a.png")
    save_mask(tmp_path / "m.png", mask)
    assert run(tmp_path / "a.png", "--mask", tmp_path / "m.png", "-o", tmp_path / "o.png", *QUICK_FLAGS)[0] == 2

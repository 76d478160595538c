"""``inpaint devices``: OpenCL platforms and devices, whether each can compile and run the fill,
which one a run takes, their real limits, and each profile's effective limits on them
(min(profile, device))."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from collections.abc import Sequence
from typing import Any

from ..cl.diagnose import reason
from ..cl.profiles import available_profiles, load_profile
from ..cl.runtime import cannot_build, device_spec, preference
from ..errors import DeviceError, InputError, OpenCLUnavailable, ProfileError
from ..methods.options import env_setting
from .parser import CommandParser
from .shared import COMMANDS, environment_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``inpaint devices``."""
    parser.add_argument("--profile", action="append",
                        help="profile name or .toml path to show (repeatable; default: every shipped profile)")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="list the devices without compiling the fill's kernels on each (the check takes "
                             "a second or two a device on the first run, less once the kernels are cached)")


#: How long a device's check may take before it counts as hung (a cold compile takes seconds).
CHECK_SECONDS = 300


def _fill_on(where: str) -> str | None:
    """Compile and run the default fill on the device ``'P:D'`` in this process: None when it runs,
    else why not, in one line."""
    import warnings

    import numpy as np

    from ..api import inpaint

    image = np.zeros((24, 24, 3), np.uint8)
    image[::2] = 200
    mask = np.zeros((24, 24), bool)
    mask[10:14, 10:14] = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inpaint(image, mask, backend="opencl", device=where, timings=False)
    except OpenCLUnavailable as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - a driver that fails in any other way is as unusable
        from .guard import error_message

        return error_message(exc)
    return None


def _child_main(where: str) -> None:
    """The check of one device in a process of its own: one line on standard output, ``ok`` or the
    reason (as :func:`json.dumps` text, so that any name survives any stream encoding)."""
    import json

    from ..cl.build import keep_compiler_output

    keep_compiler_output()  # a driver's last words before it aborts are the reason this one gives
    problem = _fill_on(where)
    sys.stdout.write(("ok" if problem is None else json.dumps(problem)) + "\n")
    sys.stdout.flush()


def _ended(returncode: int, stderr: str) -> str:
    """Why a device's check process ended without answering, in one line, from its exit and the
    driver's last words."""
    try:
        how = f"ended the process ({signal.Signals(-returncode).name})" if returncode < 0 else \
            f"ended the process (exit status {returncode})"
    except ValueError:
        how = f"ended the process (signal {-returncode})"
    # (a file the driver names by its whole path is named by its own name: the line stays short)
    said = [re.sub(r"(?:/[^/\s]+)+/([^/\s]+)", r".../\1", " ".join(ln.split())).rstrip(".")
            for ln in stderr.splitlines() if ln.strip()]
    cause = f"its driver {how}" + (f": {said[-1]}" if said else " compiling the fill")
    return reason(cause, "reinstall or update the driver")


def check_device(device: Any) -> str | None:
    """None when ``device`` compiles and runs the default fill (a tiny one, whose program a real
    run then loads from the cache), else why not, in one line.

    The check runs in a process of its own: a damaged driver (a PoCL without its kernel library)
    aborts the process that compiles on it, and the listing must survive to say so.
    """
    import json
    import subprocess

    failed = cannot_build(device)
    if failed is not None:  # this process has seen it fail already
        return reason(*failed)
    where = device_spec(device)
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])),
               PYTHONIOENCODING="utf-8")
    code = f"from inpaint.cli.devices import _child_main; _child_main({where!r})"
    try:
        child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            out, err = child.communicate(timeout=CHECK_SECONDS)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    except subprocess.TimeoutExpired:
        return (f"its driver did not compile and run the fill in {CHECK_SECONDS} s; update the driver, or use "
                "another --device")
    except OSError as exc:
        return f"cannot start a process to check it ({exc.strerror or exc})"
    answer = out.decode("utf-8", "replace").strip().splitlines()
    if child.returncode == 0 and answer:
        return None if answer[-1] == "ok" else str(json.loads(answer[-1]))
    return _ended(child.returncode, err.decode("utf-8", "replace"))


def _named_by_environment() -> tuple[str, str] | None:
    """``(variable, text)`` of the device the environment names for a run without ``--device``
    (``INPAINT_DEVICE``, then ``PYOPENCL_CTX``), or None."""
    found = environment_settings(check=False).get("device")
    if found is not None:
        return found
    ctx = os.environ.get("PYOPENCL_CTX", "").strip()
    return ("PYOPENCL_CTX", ctx) if ctx else None


def describe(profiles: list[str] | None = None, check: bool = True) -> tuple[str, str | None]:
    """The device listing as Markdown text, in the order a run tries them, and the device a run
    takes (None when unchecked or none can).  With ``check``, each device compiles and runs a tiny
    fill, and one that cannot is marked unusable with the reason.

    The run meant is one without ``--backend``, ``--device`` or ``--profile``: it takes the
    environment's ``INPAINT_BACKEND``, ``INPAINT_DEVICE`` (or ``PYOPENCL_CTX``) and
    ``INPAINT_PROFILE`` as a run does."""
    from ..cl.runtime import select_device

    names = profiles or available_profiles()
    loaded = [load_profile(n) for n in names]
    settings = environment_settings(check=False)
    numpy_run = settings.get("backend", ("", "auto"))[1] == "numpy"
    try:
        run_profile = load_profile(settings["profile"][1]) if "profile" in settings else None
    except ProfileError:
        run_profile = None  # the environment's lines say a run refuses it
    named = None if numpy_run else _named_by_environment()
    wanted = None
    if named is not None:
        try:
            wanted = device_spec(select_device(named[1]))
        except OpenCLUnavailable:
            wanted = ""  # matches none: the environment's lines say so
    lines = []
    chosen = usable = None
    for pi, di, dev in preference(run_profile):
        kind = "GPU" if dev.type & 4 else ("CPU" if dev.type & 2 else "other")
        lines.append(f"## {pi}:{di} {dev.name.strip()} ({dev.platform.name.strip()}, {kind}, {dev.version.strip()})")
        lines.append(f"platform {dev.platform.version.strip()}")
        if check:
            problem = check_device(dev)
            refused = None
            if problem is None and run_profile is not None:
                try:  # the environment's profile may ask for less than the kernels need
                    run_profile.effective_limits(dev)
                except ProfileError as exc:
                    refused = f"{env_setting(*settings['profile'])}: {exc}"
            here = f"{pi}:{di} {dev.name.strip()}"
            takes = (not numpy_run and chosen is None and problem is None and refused is None
                     and wanted in (None, f"{pi}:{di}"))
            if takes:
                chosen = here
            if problem is None and usable is None:
                usable = here
            lines.append(f"**unusable**: {problem}" if problem else
                         f"usable, but a run without --profile refuses it: {refused}" if refused else
                         "usable: compiles and runs the fill" + (" (the one a run takes)" if takes else ""))
        lines.append(f"compute units {dev.max_compute_units}, clock {dev.max_clock_frequency} MHz, "
                     f"global memory {dev.global_mem_size // 2**20} MiB, local memory {dev.local_mem_size} B, "
                     f"max work-group {dev.max_work_group_size}, work-item sizes {list(dev.max_work_item_sizes)}, "
                     f"images {'yes' if dev.image_support else 'no'}, "
                     f"doubles {'yes' if dev.double_fp_config else 'no'}")
        lines.append("")
        lines.append("| profile | local memory (B) | max work-group | work-item sizes | compute units "
                     "| global memory (MiB) |")
        lines.append("|---|---:|---:|---|---:|---:|")
        for prof in loaded:
            try:
                lim = prof.effective_limits(dev)
                lines.append(f"| {prof.name} | {lim.local_mem_size} | {lim.max_work_group_size} | "
                             f"{list(lim.max_work_item_sizes)} | {lim.compute_units} | "
                             f"{lim.global_mem_size // 2**20} |")
            except ProfileError as exc:
                lines.append(f"| {prof.name} | unusable: {exc} | | | | |")
        lines.append("")
    if check and numpy_run:
        lines.append(f"A run without --backend runs in numpy, on no device ({settings['backend'][0]}=numpy).")
    elif check and chosen:
        because = f" ({named[0]}={named[1]})" if named is not None else ""
        lines.append(f"A run without --device takes {chosen}{because}.")
    elif check and named is not None:
        what = "matches no device" if wanted == "" else "names a device that cannot run the fill"
        lines.append(f"A run without --device is refused: {named[0]}={named[1]} {what}.")
    elif check and run_profile is not None:
        lines.append(f"A run without --device or --profile is refused: {env_setting(*settings['profile'])} "
                     "fits no device.")
    return "\n".join(lines), usable if check else None


def environment() -> str:
    """The device settings the environment gives every command and the app, one a line, with the
    device an ``INPAINT_DEVICE`` names; empty when none is set."""
    from .options import check_device

    lines = []
    for name, (variable, text) in environment_settings(check=False).items():
        line = env_setting(variable, text)
        try:
            if name == "backend":
                check_device(text, None)
            elif name == "device":
                found = check_device("opencl", text).device
                line += f": {found.name.strip()} ({found.platform.name.strip()})"
            else:
                line += f": {load_profile(text).name}"
        except (InputError, DeviceError, ProfileError) as exc:
            line += f": unusable, a run refuses it ({exc})"
        lines.append(line)
    if lines:
        lines.append("(a --backend, --device or --profile flag wins over its variable)")
    return "\n".join(lines)


def _print(text: str) -> None:
    """Print ``text`` in whatever encoding standard output has: a character it cannot hold (in a
    device's name, a setting's value) is written as its escape, ``\\xf3``."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    print(text.encode(encoding, "backslashreplace").decode(encoding, "replace"))


def main(argv: Sequence[str], prog: str = "inpaint devices") -> int:
    """Print the listing; errors are raised for :func:`inpaint.cli.guard.guarded` (bad profile:
    exit 2, no OpenCL device, or none that can run the fill: exit 3)."""
    parser = CommandParser(prog=prog, description=COMMANDS["devices"])
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    settings = environment()
    if settings:
        _print(settings + "\n")
    try:
        text, chosen = describe(args.profile, args.check)
    except OpenCLUnavailable as exc:
        raise DeviceError(f"no OpenCL device: {exc}") from None
    _print(text)
    if args.check and chosen is None:
        raise DeviceError("no OpenCL device can run the fill (each says why above); --backend auto runs it in "
                          "numpy, much slower")
    return 0

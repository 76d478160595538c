"""``inpaint devices``: OpenCL platforms and devices, their real limits, and each profile's
effective limits on them (min(profile, device))."""

from __future__ import annotations

import argparse

from typing import Sequence

from ..cl.profiles import available_profiles, load_profile
from ..cl.runtime import all_devices
from ..errors import DeviceError, OpenCLUnavailable, ProfileError
from .shared import COMMANDS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``inpaint devices``."""
    parser.add_argument("--profile", action="append",
                        help="profile name or .toml path to show (repeatable; default: every shipped profile)")


def describe(profiles: list[str] | None = None) -> str:
    """The device listing as Markdown text."""
    names = profiles or available_profiles()
    loaded = [load_profile(n) for n in names]
    lines = []
    for pi, di, dev in all_devices():
        kind = "GPU" if dev.type & 4 else ("CPU" if dev.type & 2 else "other")
        lines.append(f"## {pi}:{di} {dev.name.strip()} ({dev.platform.name.strip()}, {kind}, {dev.version.strip()})")
        lines.append(f"compute units {dev.max_compute_units}, clock {dev.max_clock_frequency} MHz, "
                     f"global memory {dev.global_mem_size // 2**20} MiB, local memory {dev.local_mem_size} B, "
                     f"max work-group {dev.max_work_group_size}, work-item sizes {list(dev.max_work_item_sizes)}, "
                     f"images {'yes' if dev.image_support else 'no'}, "
                     f"doubles {'yes' if dev.double_fp_config else 'no'}")
        lines.append("")
        lines.append("| profile | local memory (B) | max work-group | work-item sizes | compute units | global memory (MiB) |")
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
    return "\n".join(lines)


def main(argv: Sequence[str], prog: str = "inpaint devices") -> int:
    """Print the listing; errors are raised for :func:`inpaint.cli.guard.guarded` (bad profile:
    exit 2, no OpenCL device: exit 3)."""
    parser = argparse.ArgumentParser(prog=prog, description=COMMANDS["devices"])
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    try:
        text = describe(args.profile)
    except OpenCLUnavailable as exc:
        raise DeviceError(f"no OpenCL device: {exc}") from None
    print(text)
    return 0

"""Whether a job fits in the memory available, checked before an image is decoded."""

from __future__ import annotations

import os

from ..errors import InputError
from ..limits import address_space_limit, address_space_used


def _physical_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _limited() -> tuple[int | None, str]:
    """The bytes a new job may take, and what bounds them (words for a message, or '')."""
    avail = _physical_available()
    limit = address_space_limit()
    if limit is None:
        return avail, ""
    room = max(limit - (address_space_used() or 0), 0)
    if avail is not None and avail <= room:
        return avail, ""
    return room, f" under the address-space limit (ulimit -v: {limit >> 20} MB)"


def available_memory() -> int | None:
    """Bytes of memory available to a new job (Linux ``MemAvailable``; less where the process's
    address-space limit, ``ulimit -v``, leaves less room), or None if unknown."""
    return _limited()[0]


def format_bytes(n: float) -> str:
    """``1536`` -> ``'1.5 KiB'``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def check_memory(need: int, what: str) -> str | None:
    """Refuse a job that cannot fit in the available memory; a warning text when it takes most of it.

    Raises
    ------
    InputError
        ``need`` bytes is more than the memory available.
    """
    avail = available_memory()
    if avail is None or need <= 0:
        return None
    if need > avail:
        bound = _limited()[1] if address_space_limit() is not None else ""  # (the limit binds: say so)
        raise InputError(f"{what} needs about {format_bytes(need)} of memory but only {format_bytes(avail)} "
                         f"is available{bound}; use a smaller image" + (", or raise the limit" if bound else ""))
    if need > avail // 2:
        return f"{what} needs about {format_bytes(need)} of the {format_bytes(avail)} of memory available"
    return None

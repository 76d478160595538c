"""The process's own limits on memory, read without loading anything (the command's start-up, the
OpenCL driver's loading and the memory checks before a job all ask)."""

from __future__ import annotations

import os


def address_space_limit() -> int | None:
    """The process's address-space limit (``ulimit -v``) in bytes, or None without one."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError, AttributeError):  # not on this system
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def address_space_used() -> int | None:
    """The bytes of address space the process maps now (Linux), or None if unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None

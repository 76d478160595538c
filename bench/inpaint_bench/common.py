"""Helpers shared by the benchmarks: the paper's cases, the CPU's name and Markdown tables."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

#: The paper's cases, in its order.
PAPER_CASES = ("walkingman", "river", "divingman", "hill")


def result_file(*extensions: str) -> Callable[[str], str]:
    """An argparse ``type`` for a file a benchmark writes when it ends: refused at once where its
    folder is missing or is not writable, where it names a folder, or where its extension is not
    one of ``extensions`` (any, when none are given), so that no run is lost for a bad name."""
    import argparse
    import os
    from pathlib import Path

    def check(text: str) -> str:
        path = Path(text).expanduser()
        folder = path.parent
        if extensions and path.suffix.lower() not in extensions:
            raise argparse.ArgumentTypeError(f"{text}: the file's name must end in {' or '.join(extensions)}")
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
        if not folder.is_dir():
            raise argparse.ArgumentTypeError(f"{text}: folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise argparse.ArgumentTypeError(f"{text}: folder {folder} is not writable")
        return text

    return check


def described(doc: str | None, first_line: bool = False) -> str:
    """A module docstring's first paragraph (or line) as a command's ``--help`` text: without the
    reStructuredText marks (``x``, :mod:`x`) that ``--help`` would show as they are."""
    text = (doc or "").strip()  # (None under python -OO, which drops docstrings)
    text = (text.splitlines() or [""])[0] if first_line else text.split("\n\n")[0]
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    return " ".join(text.split())


def child_failed(argv: Sequence[str], returncode: int, stderr: str) -> Exception:
    """The error of a timed command that failed: its own last line, with its kind, so that the
    benchmark exits as the command did (2 bad input, 3 no device); anything else names the run."""
    from inpaint.errors import DeviceError, InputError

    last = next((ln for ln in reversed(stderr.strip().splitlines()) if ln.strip()), "")
    said = last.split(": error: ", 1)[1] if ": error: " in last else None
    if said is not None and returncode in (2, 3):
        return (InputError if returncode == 2 else DeviceError)(said)
    return RuntimeError(f"{' '.join(argv)} failed ({returncode}): {last or 'no message'}")


def cpu_name() -> str | None:
    """The CPU's model name from ``/proc/cpuinfo`` (Linux), or None where it is not available."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None) -> str:
    """A Markdown table; ``align`` has one letter per column, ``l`` or ``r`` (default: first left)."""
    header = list(header)
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)

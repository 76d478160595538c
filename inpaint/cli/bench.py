"""``inpaint bench``: launches the benchmarks of the separate inpaint-bench distribution."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from ..errors import InputError

BENCH_HINT = ("'inpaint bench' needs the benchmark package inpaint-bench, which is not installed: "
              "pip install ./bench (from a checkout of inpaint)")


def main(argv: Sequence[str], prog: str = "inpaint bench") -> int:
    """Run ``inpaint_bench.cli.main`` when it is installed; a clear error when it is not."""
    try:  # looked up at run time: the benchmarks are another distribution
        module = importlib.import_module("inpaint_bench.cli")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "inpaint_bench":
            raise InputError(f"'inpaint bench' is unavailable: {exc}") from None
        raise InputError(BENCH_HINT) from None
    return int(module.main(list(argv), prog=prog) or 0)

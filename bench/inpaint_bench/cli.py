"""Command line of the benchmarks: ``inpaint bench [seam|integral|startup|scaling] ...`` (also
``inpaint-bench``).

``inpaint bench [OPTIONS]`` runs the pipeline benchmark (``--quality``: the fill-quality
benchmark); ``inpaint bench NAME ...`` runs one of :data:`TOOLS`, each with its own options
(``--help``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: first word -> (module with main(argv, prog), what it measures)
TOOLS = {
    "seam": ("inpaint_bench.seam", "seam carving: ours against liblqr and seam-carving"),
    "integral": ("inpaint_bench.integral", "integral images: block vs naive device algorithm vs numpy"),
    "startup": ("inpaint_bench.startup", "whole commands as fresh processes, beside the start-up floor"),
    "scaling": ("inpaint_bench.scaling", "time and peak memory of the default fill against megapixels"),
}


def build_parser(prog: str = "inpaint bench") -> argparse.ArgumentParser:
    """The parser of the pipeline and quality benchmarks."""
    from . import pipeline

    parser = argparse.ArgumentParser(
        prog=prog, epilog="Other benchmarks: " + "; ".join(f"'{prog} {name} --help' ({desc})"
                                                          for name, (_, desc) in TOOLS.items()) + ".")
    pipeline.add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "inpaint bench") -> int:
    """Run one benchmark; returns the exit status."""
    from inpaint.cl import kcache

    kcache.prepare()  # before anything loads OpenCL: PoCL reads its cache folder when it starts
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in TOOLS:
        module = importlib.import_module(TOOLS[argv[0]][0])
        return int(module.main(argv[1:], prog=f"{prog} {argv[0]}") or 0)
    from . import pipeline

    args = build_parser(prog).parse_args(argv)
    return int(pipeline.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

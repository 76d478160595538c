"""Time the phases of a 12 MP Remove as the app runs it, up to the fill's first progress report
the first above 0 % and the first at 1 % (a tool of the checkout, for bench/results/app/timings.md).

The nuthatch photo of ``datasets/objects`` and its mask, enlarged to 4000x3000, go through
:func:`mobile_ui.worker.run_inpaint` (the app's worker function, default method); each phase
it reports and the first progress reports are printed with the seconds since the start.

``python tools/remove_phases.py {numpy,opencl,auto}``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent


class _Enough(Exception):
    """Raised at the first progress of 1 % or more: the rest of the fill is not timed."""


def main(argv=None) -> int:
    from mobile_ui.worker import Job, run_inpaint

    backend = (argv if argv is not None else sys.argv[1:] or ["auto"])[0]
    case = ROOT / "datasets" / "objects" / "nuthatch_bark"
    with Image.open(case / "image.png") as im:
        image = np.asarray(im.convert("RGB").resize((4000, 3000), Image.BICUBIC))
    with Image.open(case / "mask.png") as im:
        mask = np.asarray(im.convert("L").resize((4000, 3000))) > 127
    start, log = time.perf_counter(), []

    def phase(name: str) -> None:
        log.append(f"{time.perf_counter() - start:.2f} s {name}")

    def progress(_image, fraction: float, _iterations: int) -> None:
        if not any("report" in line for line in log):
            log.append(f"{time.perf_counter() - start:.2f} s first progress report ({fraction:.1%})")
        if fraction > 0 and not any("above 0" in line for line in log):
            log.append(f"{time.perf_counter() - start:.2f} s first report above 0 ({fraction:.3%})")
        if fraction >= 0.01:
            log.append(f"{time.perf_counter() - start:.2f} s first report at 1 % or more ({fraction:.1%})")
            raise _Enough

    params = {"backend": backend} if backend == "numpy" else {"backend": backend, "timings": False}
    try:
        run_inpaint(Job(lambda _job: None, None, None, None), image, mask, params, on_progress=progress,
                    on_phase=phase)
    except _Enough:
        pass
    print(f"{backend}, 4000x3000, mask {mask.mean():.1%}: " + "; ".join(log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

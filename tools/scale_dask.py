"""Object removal over a Dask cluster: one task per photo, through the library's API.

    python tools/scale_dask.py tcp://SCHEDULER:8786 photos/ done/ --method criminisi

Photos are paired with their masks as ``inpaint photos/ -o done/`` pairs them (``x.jpg`` with
``x_mask.png`` beside it), and each result is written as that command writes it, byte for byte,
atomically.  A result that exists already is skipped, so a stopped run is simply started again.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from dask.distributed import Client, as_completed
from PIL import Image

from inpaint import io as imageio
from inpaint.api import inpaint
from inpaint.errors import InputError
from inpaint.io.naming import paired_file

#: Memory a fill needs per pixel beyond the decoded image (the command's own budget): a photo
#: that cannot fit in the worker's free memory is refused before it is decoded.
FILL_BYTES_PER_PIXEL = 200


def remove_one(image: str, mask: str, out: str, **options: Any) -> str:
    """Fill one photo and write its result; ``options`` are :func:`inpaint.api.inpaint`'s.

    Returns ``'written'``, ``'skipped'`` (the result exists) or ``'failed: REASON'`` (bad input,
    which a retry would not mend; any other exception is raised, and Dask retries the task).
    """
    target = Path(out)
    if target.exists():
        return "skipped"
    try:
        pic = imageio.read_image(image, work_bytes_per_pixel=FILL_BYTES_PER_PIXEL)
        hole = imageio.read_mask(mask, pic.size)
        plan = imageio.plan_output(pic, target)  # what the output keeps, decided before the work
        if hole.any():
            res = inpaint(pic.rgb, hole, **options)
            result, _ = imageio.apply_fill(pic, res.image, lambda: res.source_map, hole)
        else:
            result = imageio.unchanged(pic)
        # "new": put in place only if no file of that name appeared meanwhile
        imageio.save_images([(result, target, {"plan": plan, "mask": hole, "new": True})])
    except InputError as exc:
        return "skipped" if target.exists() else f"failed: {exc}"  # exists: another attempt wrote it
    return "written"


def pairs(photos: str, done: str) -> Iterator[tuple[str, str, str]]:
    """``(image, mask, output)`` for every photo of folder ``photos``, its mask found by the
    command's rule (:func:`inpaint.io.naming.paired_file`); a photo without one has the mask's
    name it lacks, so that its task fails saying so.

    The paths are absolute (made so from this process's working folder): a worker runs in a
    folder of its own, where a relative path would name another file or none.
    """
    suffixes = set(Image.registered_extensions())
    done = Path(done).absolute()
    for path in sorted(Path(photos).absolute().iterdir()):
        if path.suffix.lower() not in suffixes or path.stem.endswith(("_mask", "_removed", "_resized")):
            continue
        yield str(path), str(paired_file(path, None)), str(done / path.name)


def run(client: Client, jobs: Iterable[tuple[str, str, str]], retries: int = 2, **options: Any) -> dict[str, str]:
    """One task per ``(image, mask, output)``; waits for all of them: ``{output: status}``."""
    client.upload_file(__file__)  # the workers import this module by name
    futures = {client.submit(remove_one, image, mask, out, retries=retries, pure=False, **options): out
               for image, mask, out in jobs}
    status = {}
    for future in as_completed(futures):
        try:
            status[futures[future]] = future.result()
        except Exception as exc:  # noqa: BLE001 - still failing after its retries: reported, the rest go on
            status[futures[future]] = f"failed: {exc!r}"
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scheduler", help="the Dask scheduler's address, e.g. tcp://HOST:8786")
    parser.add_argument("photos", help="folder of photos, each x.jpg with its x_mask.png")
    parser.add_argument("done", help="folder for the results (made if missing)")
    parser.add_argument("--method", default="multiscale", choices=("multiscale", "criminisi"))
    parser.add_argument("--backend", default="auto", choices=("auto", "opencl", "numpy"))
    parser.add_argument("--retries", type=int, default=2, help="attempts after a worker fails (default 2)")
    args = parser.parse_args(argv)
    if not Path(args.photos).is_dir():
        parser.error(f"{args.photos} is not a folder of photos")
    if Path(args.done).resolve() == Path(args.photos).resolve():
        parser.error("the results would replace the photos: give them another folder")
    Path(args.done).mkdir(parents=True, exist_ok=True)
    with Client(args.scheduler) as client:
        status = run(client, pairs(args.photos, args.done), retries=args.retries,
                     method=args.method, backend=args.backend)
    for out, what in sorted(status.items()):
        print(f"{out}: {what}")
    return 2 if any(what.startswith("failed") for what in status.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

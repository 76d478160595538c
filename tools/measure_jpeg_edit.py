"""Measure JPEG written back block by block on real photos: size, pixels kept, time.

For each JPEG given: a rectangular hole (4 % of the picture, a third of the way in) is "filled"
with a flat colour (the fill method does not matter here: only which pixels changed), the result
is written as the commands write it (:func:`inpaint.io.plan.plan_output`, then
:func:`inpaint.io.save_images`), and compared with the input decoded by OpenCV:

* the file size against the input's;
* the share of pixels outside the touched MCUs that are identical (and outside the touched MCUs
  grown by the one pixel of chroma interpolation);
* the time of the write, against Pillow's plain quality-95 encode of the same pixels.

Usage: python tools/measure_jpeg_edit.py PHOTO.jpg...
"""

import io
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from inpaint import io as imageio
from inpaint.io import jpeg_edit


def main(paths):
    print("| photo | size | subsampling | progressive | quality (mean luma table) | bytes in | bytes out | change "
          "| identical outside touched MCUs | identical outside them + 1 px | write s | Pillow q95 s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in map(Path, paths):
        pic = imageio.read_image(p)
        h, w = pic.rgb.shape[:2]
        mask = np.zeros((h, w), bool)
        mask[h // 3:h // 3 + h // 5, w // 3:w // 3 + w // 5] = True
        rgb = pic.rgb.copy()
        rgb[mask] = (40, 120, 60)
        work = tempfile.TemporaryDirectory(prefix="measure-jpeg-")
        out = Path(work.name) / "out.jpg"
        t = time.perf_counter()
        plan = imageio.plan_output(pic, out)
        imageio.save_images([(Image.fromarray(rgb), out, {"plan": plan, "mask": mask})])
        t_edit = time.perf_counter() - t
        t = time.perf_counter()
        Image.fromarray(rgb).save(io.BytesIO(), "JPEG", quality=95)
        t_q95 = time.perf_counter() - t
        src = pic.source
        flags = cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION
        a, b = cv2.imread(str(p), flags), cv2.imread(str(out), flags)
        stored = jpeg_edit.STORED[src.orientation](mask)
        mcu = {0: (8, 8), 1: (8, 16), 2: (16, 16)}.get(src.subsampling, (8, 8))
        near = np.kron(jpeg_edit.touched_mcus(stored, mcu), np.ones(mcu, bool))[:a.shape[0], :a.shape[1]]
        ring = cv2.dilate(near.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        same = (a == b).all(axis=2) if a.ndim == 3 else a == b
        q = np.mean(src.qtables[0]) if src.qtables else float("nan")
        n_in, n_out = p.stat().st_size, out.stat().st_size
        path = "block by block" if plan.jpeg_edit else "re-encoded: " + "; ".join(plan.notes)
        sub = ['4:4:4', '4:2:2', '4:2:0'][src.subsampling] if src.subsampling in (0, 1, 2) else src.subsampling
        print(f"| {p.name} | {w}x{h} | {sub} "
              f"| {'yes' if src.progressive else 'no'} | {q:.1f} | {n_in} | {n_out} "
              f"| {100 * (n_out / n_in - 1):+.2f} % "
              f"| {100 * same[~near].mean():.3f} % | {100 * same[~ring].mean():.3f} % | {t_edit:.2f} | {t_q95:.2f} |"
              + ("" if plan.jpeg_edit else f" ({path})"))
        work.cleanup()


if __name__ == "__main__":
    main(sys.argv[1:])

"""The edge layer: reading images and masks, checking outputs, writing results safely.

Every front end (the ``inpaint`` command, ``inpaint resize``, the benchmark and the app) reads
and writes through this package, so one file means the same pixels everywhere.

* **Reading** (:mod:`~inpaint.io.read`): images are turned upright by their EXIF orientation;
  multi-frame files use their first frame, with a warning; the memory a job needs is checked
  before the image is decoded (:mod:`~inpaint.io.memory`).
* **One mask rule** (:mod:`~inpaint.io.mask_rule`: :data:`MASK_RULE`, :func:`read_mask`).
* **Full depth** (:mod:`~inpaint.io.writeback`): the fill and the seam carver work on an 8-bit
  RGB view, but results are written back into the *original* pixel array (grey, 16-bit grey and
  colour, float, palette, alpha...) through the source map.  16-bit colour PNGs, which Pillow
  reads with 8 bits per channel, are read and written at 16 bits here.
* **Outputs are checked before any work** (:mod:`~inpaint.io.outputs`): format known and
  writable in the image's mode, folder writable, no collision with an input or another output.
* **Outputs keep what the input had, or say what they could not** (:mod:`~inpaint.io.plan`,
  before the work): one table says what each format can hold (:mod:`~inpaint.io.formats`); a
  JPEG written back as JPEG keeps its DCT blocks outside the fill (:mod:`~inpaint.io.jpeg_edit`).
* **Writes are atomic** (:mod:`~inpaint.io.atomic`): a temporary file in the destination folder,
  then ``os.replace``; the encoders (:mod:`~inpaint.io.encode`) write the file's bytes.
* **Bundled cases** (:mod:`~inpaint.io.cases`): the paper's test images, read from the package.

The names below are the package's public API.
"""

from .atomic import cleanup_temp_files, save_image, save_images
from .encode import PNG_BAND, convert_for, output_format, write_png
from .formats import FORMATS, Holds
from .mask_rule import MASK_RULE, mask_from_image, read_mask
from .memory import available_memory, check_memory, format_bytes
from .outputs import OUTPUT_FORMATS, check_output, same_file
from .pictures import DeepImage, Picture, Source
from .plan import OutputPlan, plan_output
from .read import read_image
from .writeback import apply_fill, apply_moves, unchanged

__all__ = ["FORMATS", "MASK_RULE", "OUTPUT_FORMATS", "PNG_BAND", "DeepImage", "Holds", "OutputPlan", "Picture",
           "Source", "apply_fill", "apply_moves", "plan_output",
           "available_memory", "check_memory", "check_output", "cleanup_temp_files", "convert_for", "format_bytes",
           "mask_from_image", "output_format", "read_image", "read_mask", "same_file", "save_image", "save_images",
           "unchanged", "write_png"]

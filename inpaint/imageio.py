"""Deprecated: the edge layer moved to the :mod:`inpaint.io` package.  This alias re-exports its
public names for one release."""

import warnings

from .io import (MASK_RULE, OUTPUT_FORMATS, PNG_BAND, DeepImage, Picture, apply_fill, apply_moves,  # noqa: F401
                 available_memory, check_memory, check_output, cleanup_temp_files, convert_for, format_bytes,
                 mask_from_image, output_format, read_image, read_mask, same_file, save_image, save_images,
                 unchanged, write_png)

__all__ = ["MASK_RULE", "OUTPUT_FORMATS", "PNG_BAND", "DeepImage", "Picture", "apply_fill", "apply_moves",
           "available_memory", "check_memory", "check_output", "cleanup_temp_files", "convert_for", "format_bytes",
           "mask_from_image", "output_format", "read_image", "read_mask", "same_file", "save_image", "save_images",
           "unchanged", "write_png"]

warnings.warn("inpaint.imageio is deprecated; import from inpaint.io", DeprecationWarning, stacklevel=2)

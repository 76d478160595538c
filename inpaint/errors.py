"""The errors every front end shares, and the exit status each one maps to.

=====  ==================================================================================
exit   meaning
=====  ==================================================================================
0      done (also for an empty mask, which writes an unchanged copy)
1      an internal error (a bug: the message says what failed; no traceback is shown)
2      bad input: options, images, masks, profiles, outputs that cannot be written, an
       image too large for the memory
3      no usable device: OpenCL missing, or ``--device`` matches no device
130    interrupted by Ctrl-C (SIGINT); SIGTERM and SIGHUP give 143 and 129
=====  ==================================================================================
"""

from __future__ import annotations

EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_NO_DEVICE = 3
EXIT_INTERRUPTED = 130


class InpaintError(Exception):
    """Base of the errors a front end reports as one line; ``exit_code`` is its exit status."""

    exit_code = EXIT_INTERNAL


class InputError(InpaintError, ValueError):
    """Bad user input (parameters, images, masks, outputs); the message says what to change."""

    exit_code = EXIT_BAD_INPUT


class DeviceError(InpaintError):
    """No usable device: the requested OpenCL device does not exist or OpenCL is missing."""

    exit_code = EXIT_NO_DEVICE


class OpenCLUnavailable(RuntimeError):
    """No usable OpenCL installation or device was found (raised by :mod:`inpaint.cl.runtime`)."""


class ProfileError(ValueError):
    """A profile file is unknown, malformed, or cannot be met by the device (:mod:`inpaint.cl.profiles`)."""


class CaseDataError(RuntimeError):
    """A bundled example's file is missing, corrupt or inconsistent with its manifest (:mod:`inpaint.io.cases`)."""


#: The exit status of the errors that keep a standard base class (callers catch them by it).
_EXIT_CODES = ((MemoryError, EXIT_BAD_INPUT), (ProfileError, EXIT_BAD_INPUT), (OpenCLUnavailable, EXIT_NO_DEVICE),
               (CaseDataError, EXIT_BAD_INPUT))


class InputWarning(UserWarning):
    """Something about an input the user should know (e.g. only the first frame of an animated
    GIF is used); the front ends print it as ``warning: ...``."""


def exit_code(exc: BaseException) -> int:
    """The exit status a front end gives for ``exc`` (see the table above)."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, InpaintError):
        return exc.exit_code
    for cls, code in _EXIT_CODES:
        if isinstance(exc, cls):
            return code
    return EXIT_INTERNAL


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__

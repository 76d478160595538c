"""The errors the library raises for its callers to act on, stated once.

Every one derives from :class:`InpaintError`, so that ``except InpaintError`` catches whatever
the library raises on purpose; each also keeps the builtin class it has always derived from
(``ValueError``, ``RuntimeError``), for callers that catch those.  Each front end reports them
as one line with an exit status (:mod:`inpaint.cli.guard` maps the classes to the statuses; the
app shows the message).
"""

from __future__ import annotations


class InpaintError(Exception):
    """Base of the errors a front end reports as one line."""


class InputError(InpaintError, ValueError):
    """Bad user input (parameters, images, masks, outputs); the message says what to change."""


class ImageTooLarge(InputError):
    """An image of more pixels than the reader's limit (a guard against decompression bombs;
    :data:`PIL.Image.MAX_IMAGE_PIXELS`, which the command's ``--max-pixels`` sets)."""


class DeviceError(InpaintError):
    """No usable device: the requested OpenCL device does not exist or OpenCL is missing."""


class OutOfMemory(InpaintError, MemoryError):
    """A job does not fit in the memory the process may use; the message says what to try."""


class OpenCLUnavailable(InpaintError, RuntimeError):
    """No usable OpenCL installation or device was found (raised by :mod:`inpaint.cl.runtime`)."""


class BuildFailure(OpenCLUnavailable):
    """An OpenCL device whose driver cannot compile the kernels (raised by :mod:`inpaint.cl.runtime`).

    The message is one short line naming the cause and the fix; ``details`` holds the driver's
    own build log, for a front end to show on request.

    Parameters
    ----------
    message : str
        What went wrong and what to do, in one line.
    details : str, optional
        The driver's build log and the devices tried.
    """

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


class ProfileError(InpaintError, ValueError):
    """A profile file is unknown, malformed, or cannot be met by the device (:mod:`inpaint.cl.profiles`)."""


class SourceMapError(InpaintError, RuntimeError):
    """A finished fill's source map leaves a filled pixel without its source: a fill method broke
    its contract (:class:`inpaint.methods.base.InpaintResult`)."""


class CaseDataError(InpaintError, RuntimeError):
    """A bundled example's file is missing, corrupt or inconsistent with its manifest (:mod:`inpaint.io.cases`)."""


class ReportLost(InpaintError, OSError):
    """The result is written, but its report could not be: standard output is closed or full.

    Attributes
    ----------
    cause : OSError
        The error of the write to standard output.
    """

    def __init__(self, cause: OSError):
        super().__init__(cause.errno, cause.strerror)
        self.cause = cause


class SeamError(InputError):
    """Arguments :func:`inpaint.seam.resize` cannot carry out: an option, a size or a mask, or a
    target size or removal that the protected pixels make impossible.

    The message names the arguments involved as the API spells them (``keep_mask``...);
    :meth:`worded` gives the same message with a front end's own names for them, such as the
    command's options.

    Parameters
    ----------
    template : str
        The message, with ``{keep_mask}``, ``{drop_mask}``, ``{allow_large}`` and
        ``{drop_mask_subject}`` (a lead naming the drop mask) where it names those arguments, and
        ``{name}`` fields for the other values.
    **values
        The values of the other fields.
    """

    #: How the message names the arguments by default: as the API spells them.
    API_WORDS = {"keep_mask": "keep_mask", "drop_mask": "drop_mask", "drop_mask_subject": "drop_mask: ",
                 "allow_large": "allow_large=True (--allow-large)"}

    def __init__(self, template: str, **values: object):
        self.template = template
        self.values = values
        super().__init__(self.worded(self.API_WORDS))

    def worded(self, words: dict[str, str]) -> str:
        """The message with ``words`` naming the arguments (a key missing there: the API's name)."""
        return self.template.format(**{**self.API_WORDS, **words, **self.values})


class FallbackWarning(RuntimeWarning):
    """A job runs elsewhere than it would have: on numpy, or on the next device, because OpenCL
    is missing or a driver cannot compile the kernels; the message names the cause and the fix
    (:func:`inpaint.cl.runtime.open_runtime`)."""


class InputWarning(UserWarning):
    """Something about an input the user should know (e.g. only the first frame of an animated
    GIF is used); the front ends print it as ``warning: ...``."""

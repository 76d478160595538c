"""The contract between the front ends and a fill method: its options and the method object.

Each option is declared once (:class:`Option`): its keyword, default, check of a library value,
parser of command-line text, flag and earlier flag, help and choices.  Each method family
exports one :class:`Method` (``<family>/method.py``) holding its options, its job class, its
report rows and its source-map picture; :mod:`inpaint.methods.registry` maps names to them.
The command's flags (:mod:`inpaint.cli.remove`), the app's settings and :func:`inpaint.api.start`
are generated from these declarations, so none of them names a method.

The options every method shares (alpha, patch) and the run context's (:data:`RUN_OPTIONS`:
backend, device, profile, engine, timings, protect; :class:`inpaint.methods.context.RunContext`)
are declared here; each family adds its own.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cl import BACKENDS
from ..errors import InputError
from .checks import check_choice, check_flag, parse_alpha, parse_patch


def _text(text: Any, flag: str) -> Any:
    return text


def env_setting(variable: str, text: str) -> str:
    """How a message names a setting taken from the environment: ``INPAINT_BACKEND=numpy (from the
    environment)``."""
    return f"{variable}={text} (from the environment)"


@dataclasses.dataclass(frozen=True)
class Option:
    """One option of a fill method, declared once.

    Attributes
    ----------
    name : str
        The keyword the library takes (``api.start(..., name=value)``).
    default : object
        The value a run takes when the option is left out.
    check : callable
        ``check(value)``: the library value checked (raises :class:`~inpaint.errors.InputError`
        naming ``name``), returned as the job uses it.
    parse : callable
        ``parse(text, flag)``: command-line or settings text turned into the library value,
        checked (messages name ``flag``, the option as the user typed it).
    flag, old_flag : str or None
        The command-line option, and its earlier name (still accepted, left out of ``--help``);
        None: no command-line option.
    help : str
        The ``--help`` text; ``{defaults}`` is replaced by every method's default.
    choices : tuple, optional
        The command line's choices (argparse checks them).
    metavar, short : str, optional
        ``--help``'s name of the value; the one-letter flag.
    group : {'tune', 'advanced', 'device'}
        The ``--help`` section; ``'device'`` options are declared by the command's shared device
        options (:func:`inpaint.cli.shared.add_device_options`), ``'tune'`` ones are the app's
        settings too.
    rank : int
        Position in ``--help`` and in the command's messages.
    early : bool
        The command parses it before checking that the method takes it (its own message says
        more than "another method").
    setting : bool
        One of the app's settings (shown as text; the app's screen lists them).
    env : str or None
        The environment variable that gives the commands' and the app's default for it (a
        flag or a saved setting wins over it); None: none.
    cost : callable or None
        ``cost(value)``: how many times the default's time a fill takes with ``value``, for the
        command's estimate of a long fill; None: the same for every value.
    """

    name: str
    default: Any = None
    check: Callable[[Any], Any] = lambda value: value
    parse: Callable[[Any, str], Any] = _text
    flag: str | None = None
    old_flag: str | None = None
    help: str = ""
    choices: tuple | None = None
    metavar: str | None = None
    short: str | None = None
    group: str = "advanced"
    rank: int = 0
    early: bool = False
    setting: bool = False
    env: str | None = None
    cost: Callable[[Any], float] | None = None

    def from_environment(self, check: bool = True) -> str | None:
        """The text of :attr:`env` in the environment, or None when unset or blank.

        Raises
        ------
        InputError
            With ``check``: the text is not one of :attr:`choices` (the message names the variable).
        """
        text = os.environ.get(self.env, "").strip() if self.env else ""
        if check and text and self.choices and text not in self.choices:
            raise InputError(f"{env_setting(self.env, text)} is not a {self.flag} value; choose "
                             f"{', '.join(self.choices[:-1])} or {self.choices[-1]} (or unset {self.env})")
        return text or None

    def with_default(self, default: Any) -> Option:
        """The same option with another default (a method's own)."""
        return dataclasses.replace(self, default=default)


def checked(options: Sequence[Option], **values: Any) -> dict[str, Any]:
    """``values`` checked by their declarations, in the order given."""
    by_name = {o.name: o for o in options}
    return {name: by_name[name].check(value) for name, value in values.items()}


# The options every method takes.
ALPHA = Option(
    "alpha", check=parse_alpha, parse=parse_alpha, flag="--search-area", old_flag="--alpha", metavar="A",
    group="tune", rank=10, setting=True,
    help="where source patches come from: the object's box grown by A times its size on each side (the paper's "
         "alpha, Eq. 6); 'full' searches the whole image (default: {defaults}; criminisi's as in the paper)")
def _parse_patch(text: Any, flag: str) -> int:
    """``--patch``'s text; messages name the flag (the app's setting: "patch size")."""
    return parse_patch(text, name=flag if flag.startswith("-") else "patch size")


PATCH = Option(
    "patch", check=parse_patch, parse=_parse_patch, flag="--patch", short="-p",
    metavar="P", group="tune", rank=20, setting=True,
    help="patch side P, odd and >= 3 (at most 31 for multiscale, 127 for criminisi): larger copies larger "
         "structures (default: {defaults})")
PROTECT = Option("protect", rank=30)
BACKEND = Option(
    "backend", default="auto", check=lambda v: check_choice("backend", v, BACKENDS), flag="--backend",
    choices=BACKENDS, group="device", rank=40, setting=True, env="INPAINT_BACKEND",
    help="'auto' uses OpenCL when a device exists and falls back to numpy with a warning (default: "
         "INPAINT_BACKEND, else auto)")
DEVICE = Option(
    "device", setting=True, flag="--device", group="device", rank=41, env="INPAINT_DEVICE",
    help="OpenCL device: 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of its name (default: INPAINT_DEVICE, then "
         "PYOPENCL_CTX, then the profile, then the best device); one that matches no device is an error (exit 3)")
PROFILE = Option(
    "profile", setting=True, flag="--profile", group="device", rank=42, env="INPAINT_PROFILE",
    help="device profile name or .toml path (e.g. adreno330; default: INPAINT_PROFILE, else native, the "
         "device's own limits); see 'inpaint devices'")
def _check_engine(value: Any) -> Any:
    from ..cl.engine import check_engine

    return check_engine(value)


ENGINE = Option("engine", group="device", rank=43, check=_check_engine)
TIMINGS = Option("timings", default=False, check=lambda v: check_flag("timings", v), rank=100)
#: The run context's options (:class:`inpaint.methods.context.RunContext`): where and how a fill
#: runs, the same for every method, apart from the method's own options.
RUN_OPTIONS = (PROTECT, BACKEND, DEVICE, PROFILE, ENGINE, TIMINGS)


def build_note(stats: Any) -> str:
    """The build time, for a timing table's headline."""
    build = getattr(stats, "build_seconds", 0.0)
    return f" (of which {build:.3f} s building or loading the OpenCL program)" if build else ""


@dataclasses.dataclass(frozen=True)
class Method:
    """A fill method as the front ends see it.

    Attributes
    ----------
    name : str
    summary : str
        One line for ``--method``'s help.
    options : tuple of Option
        Its own options (what its fill does), in the order messages list them; the run
        context's (:data:`RUN_OPTIONS`) are every method's.
    load_job : callable
        Returns the step-wise job class (imported on first use: the command builds its parser
        without it).
    steps : tuple of str
        The rows of its timing table, in order.
    labels : mapping
        Each step's words in the table.
    unit : str
        What its ``stats.iterations`` count, in the command's summary (``'rounds'``).
    cost : float
        Its time per masked pixel relative to the default method's, for the command's estimate.
    headline : callable
        ``headline(stats)``: the lines above its timing table.
    where : callable
        ``where(stats, step)``: ``'device'`` or ``'host'``.
    mapping : callable
        ``mapping(result, mask)``: the picture of where the fill came from (``--save-mapping``).
    backends : tuple of str
        The backends it runs on (of :data:`inpaint.cl.BACKENDS` less ``'auto'``): ``('numpy',)`` for
        a family without kernels, which ``'auto'`` then runs on numpy without asking for a device.
    """

    name: str
    summary: str
    options: tuple
    load_job: Callable[[], type]
    steps: tuple
    labels: Mapping[str, str]
    unit: str
    cost: float
    headline: Callable[[Any], list]
    where: Callable[[Any, str], str]
    mapping: Callable[[Any, Any], Any]
    backends: tuple = ("numpy", "opencl")

    @property
    def job(self) -> type:
        """The step-wise job class (:class:`inpaint.methods.base.StepwiseJob`)."""
        return self.load_job()

    @property
    def names(self) -> tuple[str, ...]:
        """Its own options' keywords."""
        return tuple(o.name for o in self.options)

    @property
    def defaults(self) -> dict[str, Any]:
        """The defaults of the options the app shows and ``--help`` lists per method."""
        return {o.name: o.default for o in self.options if o.group == "tune"}

    def option(self, name: str) -> Option:
        """The declaration of option ``name``.

        Raises
        ------
        InputError
            The method takes no option ``name`` (the message lists those it takes).
        """
        for option in self.options:
            if option.name == name:
                return option
        raise InputError(f"the {self.name} method has no option {name!r}; it takes {', '.join(self.names)}")

    def check_backend(self, backend: str) -> None:
        """Raise :class:`~inpaint.errors.InputError` when ``backend`` (``'auto'``, or one of
        :attr:`backends`) names a backend this method does not run on; other values are left to the
        backend option's own check."""
        if backend in BACKENDS and backend != "auto" and backend not in self.backends:
            raise InputError(f"the {self.name} method runs on {' and '.join(self.backends)} only, not {backend}; "
                             f"choose backend {' or '.join(repr(b) for b in ('auto', *self.backends))}")

    def check_names(self, options: Mapping[str, Any]) -> None:
        """Raise :class:`~inpaint.errors.InputError` for an option this method does not take."""
        bad = sorted(k for k in options if k not in self.names)
        if bad:
            raise InputError(f"the {self.name} method does not take {', '.join(bad)}; it takes "
                             f"{', '.join(self.names) or 'no options of its own'}")

"""The Criminisi method's options, each declared once (see :mod:`inpaint.methods.options`)."""

from __future__ import annotations

from ..base import options_type
from ..checks import check_choice
from ..defaults import LOOPS, PRUNE, SOURCES, VARIANTS
from ..options import ALPHA, PATCH, Option
from .stages import NAMES, PARTITIONS, parse_partition

#: ``--early-exit``'s words and the library's values of ``prune``.
_PRUNE_WORDS = {"auto": "auto", "on": True, "off": False}

SOURCE = Option(
    "source", default="original", check=lambda v: check_choice("source", v, SOURCES), flag="--source",
    choices=SOURCES, rank=50,
    help="criminisi: take sources only from the original picture ('original', default, as in the paper) or also "
         "from pixels filled earlier ('filled')")
def _check_partition(value):
    """``value`` when it names stages (a numpy run does not use it, but a wrong one is still wrong)."""
    if value is not None:
        parse_partition(value)
    return value


PARTITION = Option(
    "partition", check=_check_partition, parse=lambda text, flag: list(parse_partition(text)), flag="--device-stages",
    old_flag="--partition", metavar="STAGES", rank=51, early=True,
    help="criminisi: the stages to run on the device (the others run in numpy): "
         + ", ".join(f"'{p}'" for p in PARTITIONS) + " (the paper's split: findBestPatch and its reduction), or "
         "comma-separated stages of " + ",".join(NAMES) + " (default all)")
VARIANT = Option(
    "variant", default="auto", check=lambda v: check_choice("variant", v, VARIANTS), flag="--search-memory",
    old_flag="--variant", choices=VARIANTS, rank=52,
    help="criminisi: where the patch search (findBestPatch) keeps the image: local-memory tiles (the paper's "
         "Alg. 2) or global memory; 'auto' (default) takes the tiles where they fit the device, else global memory")
LOOP = Option(
    "loop", default="auto", check=lambda v: check_choice("loop", v, LOOPS), flag="--fill-loop", old_flag="--loop",
    choices=LOOPS, rank=53,
    help="criminisi: 'device' keeps the fill loop on the OpenCL device (it picks each next patch itself; the host "
         "reads a log every few iterations), 'host' drives it patch by patch, 'auto' (default) takes 'device' "
         "whenever every stage runs there with the original sources; the result is the same")
PRUNE_OPTION = Option(
    "prune", default="auto", check=lambda v: check_choice("prune", v, PRUNE),
    parse=lambda text, flag: _PRUNE_WORDS[text], flag="--early-exit", old_flag="--prune",
    choices=tuple(_PRUNE_WORDS), rank=54, early=True,
    help="criminisi: the patch search stops scoring a candidate once its partial SSD passes a sampled bound (same "
         "result; auto: on CPU devices, where it is faster)")

#: The method's own options, in the order messages list them (alpha and patch: the paper's); the run
#: context's are every method's (:data:`inpaint.methods.options.RUN_OPTIONS`).
OPTIONS = (ALPHA.with_default(0.05), PATCH.with_default(9), PARTITION, VARIANT, PRUNE_OPTION, SOURCE, LOOP)
#: Each option by name.
BY_NAME = {o.name: o for o in OPTIONS}
#: The typed options the job reads.
Options = options_type("CriminisiOptions", OPTIONS)

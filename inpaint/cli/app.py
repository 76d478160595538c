"""``inpaint app``: start the Kivy touch app (``mobile_ui``) with exactly the options of ``inpaint-app``.

The options come from the app's own parser (:func:`mobile_ui.__main__.build_parser`), so
``inpaint app --help`` lists them and a bad option is refused (exit 2) before any window opens.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence

from mobile_ui import __main__ as app_main

from ..errors import InputError

PROG = "inpaint app"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The app's own argument parser, named ``prog``."""
    return app_main.build_parser(prog)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The app's options on ``parser`` (the same as ``inpaint-app``'s), for a parser built elsewhere."""
    template = app_main.build_parser(parser.prog)
    parser.description, parser.epilog = template.description, template.epilog
    app_main.add_arguments(parser)


def main(argv: Sequence[str], prog: str = PROG) -> int:
    """Check the options with the app's parser (``--help`` exits 0 here, a bad option 2), then
    start the app; a clear error when Kivy is missing."""
    args = build_parser(prog).parse_args(list(argv))
    # Kivy is looked up, not imported: importing it before the app sets its environment up would
    # let it parse our arguments and take over the console.
    if importlib.util.find_spec("kivy") is None:
        raise InputError(app_main.KIVY_HINT)
    return int(app_main.run(args, prog) or 0)

"""``inpaint app``: start the Kivy touch app (``mobile_ui``) with exactly the options of ``inpaint-app``.

The options come from the app's own parser (:func:`mobile_ui.__main__.build_parser`), so
``inpaint app --help`` lists them and a bad option is refused (exit 2) before any window opens.
The dispatcher of ``inpaint`` calls :func:`main`; :func:`add_arguments` and :func:`run` serve a
dispatcher that builds the parser itself.
"""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any, Sequence

from .errors import InputError

PROG = "inpaint app"
KIVY_HINT = "the app needs Kivy: pip install 'inpaint[app]'"


def _app_module() -> Any:
    try:
        from mobile_ui import __main__ as app_main
    except ImportError:  # pragma: no cover - mobile_ui is part of the package
        return None
    return app_main


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The app's own argument parser, named ``prog``."""
    app_main = _app_module()
    if app_main is None:  # pragma: no cover
        parser = argparse.ArgumentParser(prog=prog, description="Start the touch app (needs the app extra: Kivy).")
        parser.add_argument("app_args", nargs=argparse.REMAINDER, help="arguments for the app")
        return parser
    return app_main.build_parser(prog)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The app's options on ``parser`` (the same as ``inpaint-app``'s)."""
    app_main = _app_module()
    if app_main is None:  # pragma: no cover
        parser.add_argument("app_args", nargs=argparse.REMAINDER, help="arguments for the app")
        return
    template = app_main.build_parser(parser.prog)
    parser.description, parser.epilog = template.description, template.epilog
    app_main.add_arguments(parser)


def _app() -> Any:
    # Kivy is looked up, not imported: importing it before the app sets its environment up would
    # let it parse our arguments and take over the console.
    if importlib.util.find_spec("kivy") is None:
        raise InputError(KIVY_HINT)
    app_main = _app_module()
    if app_main is None:  # pragma: no cover
        raise InputError("the app (mobile_ui) is not installed")
    return app_main


def main(argv: Sequence[str], prog: str = PROG) -> int:
    """Check the options with the app's parser (``--help`` exits 0 here, a bad option 2), then
    start the app; a clear error when Kivy is missing."""
    args = build_parser(prog).parse_args(list(argv))
    return int(_app().run(args, prog) or 0)


def run(args: argparse.Namespace) -> int:
    """Start the app from options parsed by a parser that :func:`add_arguments` filled."""
    return int(_app().run(args, PROG) or 0)

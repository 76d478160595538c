"""``inpaint app``: start the Kivy touch app (``mobile_ui``)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``inpaint app`` (passed on to the app)."""
    parser.add_argument("app_args", nargs=argparse.REMAINDER, help="arguments for the app (see python -m mobile_ui --help)")


def run(args: argparse.Namespace) -> int:
    """Start the app; a clear message when Kivy is missing."""
    try:
        import kivy  # noqa: F401
    except ImportError:
        print("inpaint: error: the app needs Kivy: pip install 'inpaint[app]'", file=sys.stderr)
        return 2
    from mobile_ui.__main__ import main

    return int(main(list(args.app_args)) or 0)

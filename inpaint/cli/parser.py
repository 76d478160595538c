"""The commands' argument parser (light: the app's own parser is one too, before Kivy loads)."""

from __future__ import annotations

import argparse


class CommandParser(argparse.ArgumentParser):
    """argparse's parser with its errors in one line, as the commands' other errors are: the
    command, what is wrong, and where the options are listed (argparse prints its usage block
    first)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} ('{self.prog} --help' lists the options)\n")

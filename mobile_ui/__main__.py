"""Start the touch app: ``python -m mobile_ui [IMAGE] [--mask MASK] [--case NAME]``."""

from __future__ import annotations

import argparse
import os
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="inpaint-app",
        description="Paint over an object with a finger or the mouse, tap Remove, keep editing.")
    p.add_argument("image", nargs="?", help="photo to open (default: the last one, or a bundled sample)")
    p.add_argument("--mask", help="mask image to start from (non-zero pixels = remove)")
    p.add_argument("--case", help="open a bundled dataset case, e.g. walkingman")
    p.add_argument("--backend", choices=("auto", "opencl", "numpy"), help="pipeline backend for this session")
    p.add_argument("--size", metavar="WxH", help="desktop window size, e.g. 1280x800 or 720x1280")
    p.add_argument("--state-dir", help="where settings are kept (default: the platform's app data folder)")
    return p


def main(argv: "list[str] | None" = None) -> int:
    """Run the app; returns the process exit status."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    # Kivy reads these when imported: it must not parse our arguments, nor spam the console.
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    from kivy.config import Config

    Config.set("kivy", "exit_on_escape", "0")           # Esc/back closes popups, not the app
    Config.set("input", "mouse", "mouse,disable_multitouch")   # right click pans, no red dots
    if args.size:
        try:
            w, h = (int(v) for v in args.size.lower().split("x"))
        except ValueError:
            print(f"inpaint-app: --size must look like 1280x800, got {args.size!r}", file=sys.stderr)
            return 2
        Config.set("graphics", "width", str(w))
        Config.set("graphics", "height", str(h))

    from .app import InpaintApp

    overrides = {"backend": args.backend} if args.backend else {}
    app = InpaintApp(image_path=args.image, mask_path=args.mask, case=args.case,
                     state_dir=args.state_dir, overrides=overrides)
    app.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

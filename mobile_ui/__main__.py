"""Start the touch app: ``inpaint-app``, ``inpaint app`` or ``python -m mobile_ui``.

The three launchers share one parser (:func:`build_parser`), so they take the same options.
Nothing here imports Kivy until the app really starts: ``--help``, a bad option and a missing
display are answered at once, with one line and an exit status.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from inpaint import install_hint

PROG = "inpaint-app"
#: Exit status when no window can be opened (no display, or Kivy has no working window provider):
#: the command's "no usable device" (:data:`inpaint.cli.guard.EXIT_NO_DEVICE`).
EXIT_NO_WINDOW = 3
#: Exit status when Kivy is not installed (as for bad options: the installation must change).
EXIT_NO_KIVY = 2
#: Exit status for a photo, mask or case that cannot be opened (bad input, as for the command).
EXIT_BAD_INPUT = 2
#: Signals that quit the app cleanly (exit status 128 + the signal's number, as for the command).
QUIT_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")
KIVY_HINT = f"the app needs Kivy: {install_hint('app')}"

def mask_rule() -> str:
    """The mask rule, as the command states it (:data:`inpaint.io.mask_rule.MASK_RULE`)."""
    from inpaint.io.mask_rule import MASK_RULE

    return MASK_RULE


def _window_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must look like 1280x800, got {text!r}") from None
    if w < 64 or h < 64 or w > 16384 or h > 16384:
        raise argparse.ArgumentTypeError(f"each side must be from 64 to 16384 pixels, got {text!r}")
    return w, h


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The app's options, stated once: ``inpaint-app`` and ``inpaint app`` both take these."""
    parser.add_argument("image", nargs="?",
                        help="photo to open (default: the last one opened, else the bundled walkingman case)")
    parser.add_argument("--mask", metavar="MASK",
                        help="mask image of the photo's size to start from. " + mask_rule())
    parser.add_argument("--case", metavar="NAME", help="open a bundled dataset case, e.g. walkingman or river")
    from inpaint.cl import BACKENDS

    parser.add_argument("--backend", choices=BACKENDS,
                        help="fill backend for this session (not saved; the Settings screen changes it for good)")
    parser.add_argument("--size", metavar="WxH", type=_window_size,
                        help="desktop window size, e.g. 1280x800, or 720x1280 to look like a phone (default: "
                             "most of the screen, up to 1600x1000)")
    parser.add_argument("--state-dir", metavar="DIR",
                        help="folder for the app's settings, created if missing (default: the platform's "
                             "per-user app folder, e.g. ~/.config/inpaint)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The app's argument parser (``prog`` names it in messages: ``inpaint-app`` or ``inpaint app``)."""
    from inpaint.cli.parser import CommandParser

    parser = CommandParser(
        prog=prog,
        description="The touch app: paint over an object (or tap it with Select), tap Remove, keep editing. "
                    f"Needs a display and Kivy ({install_hint('app')}).",
        epilog=mask_rule() + " The same app starts as 'inpaint-app', 'inpaint app' and 'python -m mobile_ui'.")
    add_arguments(parser)
    return parser


def _xlib() -> object:
    """Xlib through ctypes, with the prototypes used here; ``None`` when it is not installed."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("X11")
    if not name:
        return None
    try:
        xlib = ctypes.CDLL(name)
    except OSError:
        return None
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    xlib.XDefaultScreen.argtypes = [ctypes.c_void_p]
    xlib.XDisplayWidth.argtypes = xlib.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return xlib


def x11_reachable(display: str) -> bool | None:
    """Whether an X server answers on ``display`` (Xlib's ``XOpenDisplay``); ``None`` when Xlib
    is not installed, so nothing can be said."""
    xlib = _xlib()
    if xlib is None:
        return None
    handle = xlib.XOpenDisplay(display.encode())
    if not handle:
        return False
    xlib.XCloseDisplay(handle)
    return True


def screen_size(display: str | None = None) -> tuple[int, int] | None:
    """The size in pixels of the X11 screen (Xlib), or of the Windows desktop; ``None`` where it
    cannot be asked before a window opens (no Xlib, Wayland only, macOS)."""
    if sys.platform == "win32":  # pragma: no cover - Windows
        import ctypes

        try:
            metrics = ctypes.windll.user32.GetSystemMetrics
            return int(metrics(0)), int(metrics(1))
        except (AttributeError, OSError):
            return None
    display = display if display is not None else os.environ.get("DISPLAY")
    xlib = _xlib() if display else None
    if xlib is None:
        return None
    handle = xlib.XOpenDisplay(display.encode())
    if not handle:
        return None
    try:
        screen = xlib.XDefaultScreen(handle)
        return int(xlib.XDisplayWidth(handle, screen)), int(xlib.XDisplayHeight(handle, screen))
    finally:
        xlib.XCloseDisplay(handle)


#: The default window: this share of the screen (room for the title bar and a task bar), at most
#: MAX_WINDOW, and FALLBACK_WINDOW when the screen's size is unknown.
SCREEN_SHARE = (0.9, 0.85)
MAX_WINDOW = (1600, 1000)
FALLBACK_WINDOW = (1280, 800)


def default_window_size(screen: tuple[int, int] | None) -> tuple[int, int]:
    """The window size when ``--size`` is not given: most of ``screen``, landscape on a desktop."""
    if screen is None:
        return FALLBACK_WINDOW
    w = min(int(screen[0] * SCREEN_SHARE[0]), MAX_WINDOW[0])
    h = min(int(screen[1] * SCREEN_SHARE[1]), MAX_WINDOW[1])
    return max(w, 64), max(h, 64)


def _wayland_socket(env: dict[str, str]) -> bool:
    name = env.get("WAYLAND_DISPLAY", "")
    path = name if os.path.isabs(name) else os.path.join(env.get("XDG_RUNTIME_DIR", ""), name)
    return bool(name) and os.path.exists(path)


def display_problem(environ: dict[str, str] | None = None, platform: str | None = None,
                    prog: str = PROG, x11_probe=x11_reachable) -> str | None:
    """Why no window can open here, or ``None``.

    On Linux and BSD desktops a window needs an X11 (``DISPLAY``) or Wayland
    (``WAYLAND_DISPLAY``) display that answers; without one SDL quietly falls back to an
    off-screen window, and the app would run unseen.  ``SDL_VIDEODRIVER`` set on purpose (e.g.
    ``kmsdrm``) is trusted.  Android, macOS and Windows always have a display.
    """
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if not (plat.startswith("linux") or "bsd" in plat):
        return None
    if "ANDROID_ARGUMENT" in env or "ANDROID_PRIVATE" in env or env.get("SDL_VIDEODRIVER"):
        return None
    if env.get("WAYLAND_DISPLAY") and _wayland_socket(env):
        return None
    display = env.get("DISPLAY")
    if display:
        if x11_probe(display) is not False:
            return None
        return (f"cannot open the app's window: no X server answers on DISPLAY={display}; start one, or "
                f"run under a virtual display: xvfb-run -a {prog}")
    if env.get("WAYLAND_DISPLAY"):
        return (f"cannot open the app's window: no Wayland compositor at WAYLAND_DISPLAY="
                f"{env['WAYLAND_DISPLAY']}; run it in a desktop session, or: xvfb-run -a {prog}")
    return ("no display to open the app's window on (DISPLAY and WAYLAND_DISPLAY are unset); run it in a "
            f"desktop session, or under a virtual display: xvfb-run -a {prog}")


class _QuietMissingMtdev(logging.Filter):
    """Kivy logs an ERROR with a traceback at start on Linux machines without ``libmtdev.so.1``
    (the mtdev multitouch library), though nothing is wrong: the mouse, and touch screens through
    SDL, still work.  This filter turns that record into one INFO line."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = str(record.msg)
        if record.levelno >= logging.ERROR and msg.startswith("Input: MTDev is not supported"):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = ("Input: libmtdev is not installed, so Linux multitouch devices are not read "
                          "through mtdev (mouse and SDL touch input work)")
            record.args, record.exc_info, record.exc_text = (), None, None
        return True


def configure_kivy(size: tuple[int, int] | None = None) -> None:
    """Set Kivy up for the app; call before anything imports ``kivy.core`` or ``kivy.app``.

    Kivy must not parse our arguments (``KIVY_NO_ARGS``) nor talk on the console
    (``KIVY_NO_CONSOLELOG``; its log is in ``~/.kivy/logs``), nor take over ``sys.stderr``
    (``KIVY_LOG_MODE=MIXED``).  ``KIVY_NO_CONFIG`` keeps it from reading and writing
    ``~/.kivy/config.ini``: the app's settings are its own, and a fresh home no longer logs
    "Older configuration version detected".  ``KIVY_WINDOW=sdl2``: the window is SDL's, on the
    desktop as on Android; where SDL cannot open one, Kivy would fall back to its X11 window,
    which ends the process (status 102) when no X server answers, instead of reporting.  Each
    can be overridden from the environment.
    """
    for key, value in (("KIVY_NO_ARGS", "1"), ("KIVY_NO_CONSOLELOG", "1"), ("KIVY_LOG_MODE", "MIXED"),
                       ("KIVY_NO_CONFIG", "1"), ("KIVY_WINDOW", "sdl2")):
        os.environ.setdefault(key, value)
    from kivy.config import Config
    from kivy.logger import Logger

    if not any(isinstance(f, _QuietMissingMtdev) for f in Logger.filters):
        Logger.addFilter(_QuietMissingMtdev())
    Config.set("kivy", "exit_on_escape", "0")                   # Esc/back closes popups, not the app
    Config.set("input", "mouse", "mouse,disable_multitouch")    # right click pans, no red dots
    if size is not None:
        Config.set("graphics", "width", str(size[0]))
        Config.set("graphics", "height", str(size[1]))


def _on_phone() -> bool:
    return "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ


def kivy_installed() -> bool:
    """Whether Kivy can be imported (looked up without importing it)."""
    import importlib.util

    return importlib.util.find_spec("kivy") is not None


def _fail(prog: str, message: str, status: int = EXIT_NO_WINDOW, stream=None) -> int:
    print(f"{prog}: error: {message}", file=stream or sys.stderr)
    return status


def input_problem(args: argparse.Namespace) -> str | None:
    """Why the photo, mask or case given cannot be opened, or ``INPAINT_BACKEND`` names no backend,
    or ``None``: checked before the display and before Kivy starts, so a bad argument is one line
    and exit status 2 everywhere."""
    from inpaint.errors import InputError
    from inpaint.io.read import check_name, check_regular

    if args.case is not None and (args.image is not None or args.mask is not None):
        return "give either --case or an image (and --mask), not both"
    state = getattr(args, "state_dir", None)
    if state is not None and os.path.exists(state) and not os.path.isdir(state):
        return f"--state-dir {state} is a file, not a folder"
    try:
        if args.backend is None:
            from inpaint.methods.options import BACKEND

            BACKEND.from_environment()  # the commands' default too: one that names no backend is refused
        if args.case is not None:
            from inpaint.io.cases import load_case

            try:
                load_case(args.case)
            except ValueError as exc:
                return str(exc)
        for what, path in (("image", args.image), ("mask", args.mask)):
            if path is not None:
                check_name(path, what)
                check_regular(path, what)
                from PIL import Image, UnidentifiedImageError

                try:
                    with Image.open(path):
                        pass
                except (UnidentifiedImageError, OSError):
                    return f"{what} {path} is not an image Pillow can read"
    except InputError as exc:
        return str(exc)
    return None


def _on_quit_signals(app: object) -> tuple[dict[int, object], list[int]]:
    """Make SIGTERM, SIGHUP and SIGINT quit the app cleanly: the handler only records the signal
    and asks Kivy's loop to stop at its next frame (raising inside Kivy would show as an error in
    the app and keep it running).  Returns the previous handlers and the list the signal goes to."""
    import signal

    received: list[int] = []
    previous: dict[int, object] = {}

    def on_signal(signum: int, frame: object) -> None:
        received.append(signum)
        from kivy.clock import Clock

        Clock.schedule_once(lambda dt: app.stop(), 0)

    for name in QUIT_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            if signal.getsignal(sig) is signal.SIG_IGN:  # e.g. SIGHUP under nohup
                continue
            previous[sig] = signal.signal(sig, on_signal)
        except (ValueError, OSError):  # not the main thread
            pass
    return previous, received


def _command_line(prog: str, args: argparse.Namespace) -> str:
    """The command again with the photo, mask and case it was given (for a hint to run it so)."""
    import shlex

    words = prog.split()
    if getattr(args, "image", None):
        words.append(args.image)
    for option in ("mask", "case"):
        if getattr(args, option, None):
            words += [f"--{option}", getattr(args, option)]
    return shlex.join(words)


def run(args: argparse.Namespace, prog: str = PROG) -> int:
    """Start the app with options parsed by :func:`build_parser`; returns the exit status."""
    if not kivy_installed():
        return _fail(prog, KIVY_HINT, EXIT_NO_KIVY)
    bad = input_problem(args)
    if bad:
        return _fail(prog, bad, EXIT_BAD_INPUT)
    problem = display_problem(prog=_command_line(prog, args))
    if problem:
        return _fail(prog, problem)
    configure_kivy(args.size or (default_window_size(screen_size()) if not _on_phone() else None))
    from kivy.core.window import Window

    if Window is None:
        from kivy import kivy_home_dir
        return _fail(prog, "could not open a window: Kivy found no working window provider "
                           f"(its log is in {os.path.join(kivy_home_dir, 'logs')})",
                     stream=sys.__stderr__)   # (in case Kivy took sys.stderr over)
    from inpaint.cl import kcache

    kcache.prepare()  # before anything loads OpenCL: PoCL reads its cache folder when it starts
    from .app import InpaintApp

    overrides = {"backend": args.backend} if args.backend else {}
    app = InpaintApp(image_path=args.image, mask_path=args.mask, case=args.case,
                     state_dir=args.state_dir, overrides=overrides)
    import signal

    previous, received = _on_quit_signals(app)
    try:
        app.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        print(f"{prog}: stopped by {signal.Signals(received[0]).name}", file=sys.__stderr__)
        return 128 + received[0]
    return 0


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the app; returns the process exit status (0; 2 for bad options, a photo that cannot be
    opened, or without Kivy; 3 without a window; 128 + N when stopped by signal N)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    return run(args, prog)


if __name__ == "__main__":
    raise SystemExit(main())

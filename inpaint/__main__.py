"""``python -m inpaint``: the command."""

import signal

# The stop signals wait while the command's modules load; the command's first step installs
# its handlers and lets them through, so that a signal at any moment ends it with its status.
if hasattr(signal, "pthread_sigmask"):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})

from .cli import main

raise SystemExit(main())

"""``python -m inpaint_bench ...`` is ``inpaint bench ...``."""

from .cli import main

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(prog="python -m inpaint_bench"))

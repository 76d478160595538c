"""Mobile-style object removal (Criminisi exemplar inpainting) and seam carving on OpenCL."""

__version__ = "0.1.0"

#: The distribution's name, for ``pip install``: the name ``inpaint`` belongs to another project.
DISTRIBUTION = "inpaint-cl"


def install_hint(extra: str) -> str:
    """The command that adds an optional part, e.g. ``pip install 'inpaint-cl[app]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"

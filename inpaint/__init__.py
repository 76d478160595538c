"""Mobile-style object removal (Criminisi exemplar inpainting) and seam carving on OpenCL."""

__version__ = "0.1.0"

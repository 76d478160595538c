"""Exceptions raised for bad input."""


class InputError(ValueError):
    """Bad user input (parameters, images, masks); the message says what to change."""

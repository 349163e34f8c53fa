"""The emulator's one exception tree."""


class EmulatorError(Exception):
    """Anything the emulator refuses: bad configuration, bad admin input."""

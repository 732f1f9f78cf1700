"""The error `corral emulate` raises for anything it cannot do on this machine or scenario."""


class EmulateError(RuntimeError):
    """The message says what is missing or which scenario key cannot be emulated."""

"""hloc.HlocError: one class for every error hloc reports (both extensions
raise it with the compiler's or the runtime's message)."""


class HlocError(RuntimeError):
    """A compilation or run failed; the message says why."""

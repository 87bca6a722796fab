"""The one error type for bad user input (configs, overrides, traces, grids).

The CLI turns it into exactly one line on stderr and exit status 2, so every message must name
the offending field (dotted path, or file:line), the value, and what would have been allowed.
"""


class ConfigError(Exception):
    """A user-facing input error: ``<where> = <value>: <what is allowed>``."""

    def __init__(self, where: str, value: object, allowed: str):
        self.where, self.value, self.allowed = where, value, allowed
        super().__init__(f"{where} = {value!r}: {allowed}")

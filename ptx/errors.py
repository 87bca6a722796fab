"""Errors of the PTX front end. Each is one line naming where (``file.ptx:line``, or the kernel,
PC, thread and address) and what; ``exit_code`` is what the command line exits with."""

from __future__ import annotations


class PTXError(Exception):
    """Bad or unsupported input: a malformed or unsupported PTX file, a bad launch (exit 2)."""
    exit_code = 2


class UnsupportedError(PTXError):
    """An instruction, type or directive outside the supported subset (docs/ptx.md)."""

    def __init__(self, where: str, text: str, why: str = "not supported"):
        super().__init__(f"{where}: '{text}': {why} (supported: see docs/ptx.md)")


class LaunchError(PTXError):
    """A launch the kernel cannot take: argument count or types, geometry, shared memory."""


class MemoryFault(PTXError):
    """An access outside every allocation, misaligned, or beyond a CTA's shared memory."""


class ExecutionLimit(PTXError):
    """A kernel that ran past the instruction budget (a livelock, e.g. a spin on a flag)."""


class PTXDeadlock(Exception):
    """A barrier some threads of a CTA never reach (exit 3, naming the CTA)."""
    exit_code = 3

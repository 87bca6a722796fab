"""PTX front end: parse the PTX that nvcc emits, execute kernels functionally (SIMT, lanes as
numpy vectors) and record each warp's dynamic instruction stream for the timing model.

Imports nothing of the timing model (``sim``); see docs/ptx.md.
"""

from .errors import (ExecutionLimit, LaunchError, MemoryFault, PTXDeadlock, PTXError,
                     UnsupportedError)

__all__ = ["PTXError", "UnsupportedError", "LaunchError", "MemoryFault", "ExecutionLimit",
           "PTXDeadlock"]

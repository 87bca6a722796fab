"""Behavioral twins: same ports and cycle behaviour as the Amaranth blocks in ``hdl``."""

from sim.compiled import use_compiled

use_compiled(__name__, __path__)    # the arbiter twin (sim.accel.CORE) may run compiled

"""Behavioral, cycle-level GPU model and the twins of the RTL blocks (``sim.blocks``)."""

from sim.compiled import use_compiled

use_compiled(__name__, __path__)    # the SM core (sim.accel.CORE) may run compiled

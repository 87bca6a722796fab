"""Memory system behind the SMs: the interface (``interface.py``) and its implementations.

The modules of this package may run compiled (see ``sim.accel``): same sources, faster."""

from sim.compiled import use_compiled

use_compiled(__name__, __path__)

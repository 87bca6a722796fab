"""gpusched: GPU scheduler hardware research — RTL, behavioral twins, a cycle-level GPU model."""

__version__ = "0.1.0"

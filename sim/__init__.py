"""Behavioral, cycle-level GPU model and the twins of the RTL blocks (``sim.blocks``)."""

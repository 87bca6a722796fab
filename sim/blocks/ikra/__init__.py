"""Helpers around the ``cta_sched`` twin: the per-cycle property checker ([IKRA §8])."""

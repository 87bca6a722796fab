"""Helpers around the ``cta_sched`` twin: the per-cycle property checker (ikra.md §8)."""

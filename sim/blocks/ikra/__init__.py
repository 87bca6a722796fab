"""Helpers around the ``cta_sched`` twin: the per-cycle property checker (our test plan for
[IKRA])."""

"""Sub-blocks of the IKRA CTA scheduler (spec/ikra.md): parameters, divider, G unit, chunk units,
steal fabric. The top is ``hdl.cta_sched.CtaSched``."""

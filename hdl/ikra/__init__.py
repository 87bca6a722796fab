"""Sub-blocks of the IKRA CTA scheduler ([IKRA]): parameters, divider, G unit, chunk units,
steal fabric. The top is ``hdl.cta_sched.CtaSched``."""

"""Random stimulus generators for block lockstep runs, one module per block, seeded, closed-loop.

A generator's ``next(prev_out)`` returns the input dict for the coming cycle, given the twin's
outputs of the previous cycle (None at cycle 0), so stimulus can react to grants as a core would.
"""

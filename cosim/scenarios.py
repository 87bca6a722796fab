"""Scenarios for ``run_in_loop``: Python drivers that step twin-shaped blocks.

``random_stimulus`` drives every instance with the block's own lockstep stimulus; the GPU-model
scenarios (RTL blocks inside a full GPU run) live next to the model integration.
"""

from __future__ import annotations

from gpusched.blocks import get_block


def random_stimulus(blocks, block: str, params_list: list[dict], cycles: int, seed: int) -> dict:
    """Step each instance ``cycles`` times with its seeded stimulus; count grants-like outputs."""
    spec = get_block(block)
    stims = [spec.make_stimulus(p, seed + k) for k, p in enumerate(params_list)]
    prev = [None] * len(blocks)
    totals = [0] * len(blocks)
    for _ in range(cycles):
        for k, (blk, stim) in enumerate(zip(blocks, stims)):
            out = blk.step(**stim.next(prev[k]))
            prev[k] = out
            totals[k] += sum(v for v in out.values() if isinstance(v, int)) & 1
    return {"cycles": cycles, "odd_outputs": totals}

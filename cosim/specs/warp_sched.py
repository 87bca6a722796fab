"""Block entry: baseline LRR / GTO warp arbiter (hdl/warp_sched.py, sim/blocks/warp_sched.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.warp_sched import WarpSchedStimulus
    from hdl.warp_sched import POLICIES, WarpSched
    from sim.blocks.warp_sched import WarpSchedTwin
    return BlockSpec(
        name="warp_sched",
        doc="baseline LRR / GTO warp arbiter of one sub-core (baselines.md §1.2)",
        params={
            "W": Param(int, 32, "an integer in 2..64", lambda v: 2 <= v <= 64),
            "policy": Param(str, "gto", "one of " + ", ".join(POLICIES), lambda v: v in POLICIES),
        },
        make_rtl=lambda p: WarpSched(p["W"], p["policy"]),
        make_twin=lambda p: WarpSchedTwin(p["W"], p["policy"]),
        make_stimulus=lambda p, seed: WarpSchedStimulus(p["W"], seed),
        inputs=("ready", "launch"),
        outputs=("grant", "grant_valid", "grant_idx"),
        paper="no area figure in the specs (baseline)",
    )

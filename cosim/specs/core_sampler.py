"""Block entry: per-SM sampling window + pause quiesce (hdl/core_sampler.py,
sim/blocks/core_sampler.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.core_sampler import CoreSamplerStimulus
    from hdl.core_sampler import CoreSampler
    from sim.blocks.core_sampler import CoreSamplerTwin

    def args(p):
        return p["K"], p["count_bits"], p["limit_bits"]
    return BlockSpec(
        name="core_sampler",
        doc="per-SM IPC sample over K × limit CTA completions, quiesce and pause ack "
            "(thesis.md §3.3, §9.3, §10.4 item 6)",
        params={
            "K": Param(int, 4, "an integer in 1..16 (CTA waves per sample)", lambda v: 1 <= v <= 16),
            "count_bits": Param(int, 24, "an integer in 4..32 (cycle counter)",
                                lambda v: 4 <= v <= 32),
            "limit_bits": Param(int, 5, "an integer in 2..8 (CTA-limit width)",
                                lambda v: 2 <= v <= 8),
        },
        make_rtl=lambda p: CoreSampler(*args(p)),
        make_twin=lambda p: CoreSamplerTwin(*args(p)),
        make_stimulus=lambda p, seed: CoreSamplerStimulus(*args(p), seed),
        inputs=("pause_req", "sample_req", "instr", "in_flight", "cta_done", "cta_limit"),
        outputs=("issue_hold", "pause_ack", "sample_done", "sample_instr", "sample_cycles",
                 "state"),
        paper="no area figure in the thesis (per-SM instruction and cycle counters)",
    )

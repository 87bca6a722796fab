"""Block entry: per-SM sampling window + pause quiesce (hdl/core_sampler.py,
sim/blocks/core_sampler.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.core_sampler import PARAMS, ports


def spec() -> BlockSpec:
    from cosim.stimuli.core_sampler import CoreSamplerStimulus
    from hdl.core_sampler import CoreSampler
    from sim.blocks.core_sampler import CoreSamplerTwin

    def args(p):
        return p["K"], p["count_bits"], p["limit_bits"]
    return BlockSpec(
        name="core_sampler",
        doc="per-SM IPC sample over K × limit CTA completions, quiesce and pause ack "
            "([THESIS §4.4.2.3], with our choices where it is silent)",
        params=PARAMS,
        make_rtl=lambda p: CoreSampler(*args(p)),
        make_twin=lambda p: CoreSamplerTwin(*args(p)),
        make_stimulus=lambda p, seed: CoreSamplerStimulus(*args(p), seed),
        inputs=inputs_of(ports(4, 2)),
        outputs=outputs_of(ports(4, 2)),
        paper="no area figure in the thesis (per-SM instruction and cycle counters)",
    )

"""Block entry: Perf-Sat per-SM CTA-limit controller (hdl/perf_sat.py, sim/blocks/perf_sat.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.perf_sat import PARAMS, ports


def spec() -> BlockSpec:
    from cosim.stimuli.perf_sat import PerfSatStimulus
    from hdl.perf_sat import PerfSatCtrl
    from sim.blocks.perf_sat import PerfSatTwin

    def args(p):
        return p["n_bits"], p["tb_bits"], p["period_bits"], p["stall_bits"]
    return BlockSpec(
        name="perf_sat",
        doc="Perf-Sat per-SM CTA-limit controller: stalled-cycle FSM INIT/WI/SI/WD/SD/DONE "
            "([THESIS §4.3.2.2], with our choices where it is silent)",
        params=PARAMS,
        make_rtl=lambda p: PerfSatCtrl(*args(p)),
        make_twin=lambda p: PerfSatTwin(*args(p)),
        make_stimulus=lambda p, seed: PerfSatStimulus(p["n_bits"], seed),
        inputs=inputs_of(ports(1)),
        outputs=outputs_of(ports(1)),
        paper="no area figure in the thesis; our first cut ≈ 32 + 24 + 28 + 5 + 6 b state, one "
              "32-b comparator, shift-add multiply",
    )

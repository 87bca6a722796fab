"""Block entry: Perf-Sat per-SM CTA-limit controller (hdl/perf_sat.py, sim/blocks/perf_sat.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.perf_sat import PerfSatStimulus
    from hdl.perf_sat import PerfSatCtrl
    from sim.blocks.perf_sat import PerfSatTwin

    def args(p):
        return p["n_bits"], p["tb_bits"], p["period_bits"], p["stall_bits"]
    return BlockSpec(
        name="perf_sat",
        doc="Perf-Sat per-SM CTA-limit controller: stalled-cycle FSM INIT/WI/SI/WD/SD/DONE "
            "(thesis.md §2.5-2.6, §9.2)",
        params={
            "n_bits": Param(int, 5, "an integer in 2..8 (CTA-limit width)", lambda v: 2 <= v <= 8),
            "tb_bits": Param(int, 24, "an integer in 4..40 (One_TB counter)", lambda v: 4 <= v <= 40),
            "period_bits": Param(int, 28, "an integer in 4..40 (sample period)",
                                 lambda v: 4 <= v <= 40),
            "stall_bits": Param(int, 32, "an integer in 6..42 (stall accumulator / prev)",
                                lambda v: 6 <= v <= 42),
        },
        make_rtl=lambda p: PerfSatCtrl(*args(p)),
        make_twin=lambda p: PerfSatTwin(*args(p)),
        make_stimulus=lambda p, seed: PerfSatStimulus(p["n_bits"], seed),
        inputs=("kernel_start", "n_max", "cta_done", "stalls"),
        outputs=("cta_limit", "done", "state"),
        paper="no area figure in the thesis; §6 first cut ≈ 32 + 24 + 28 + 5 + 6 b state, one "
              "32-b comparator, shift-add multiply",
    )

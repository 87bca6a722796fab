"""Block entry: ONAC active-core detector in the SWM (hdl/onac.py, sim/blocks/onac.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param

SWM_INPUTS = ("start", "pause_ack", "sample_done", "sample_instr", "sample_cycles", "sm_idle")
SWM_OUTPUTS = ("pause_req", "sample_req", "active", "power_gate", "sm_ipc", "n_est", "n_opt",
               "done", "state")


def swm_params() -> dict[str, Param]:
    """Parameters shared by ONAC and Seq-Det (widths: thesis.md §3.3 [S])."""
    return {
        "M": Param(int, 32, "an integer in 2..64 (number of SMs)", lambda v: 2 <= v <= 64),
        "count_bits": Param(int, 24, "an integer in 4..32 (sample cycle counter)",
                            lambda v: 4 <= v <= 32),
        "ipc_bits": Param(int, 16, "an integer in 4..24 (IPC field, U6.10 by default)",
                          lambda v: 4 <= v <= 24),
        "ipc_frac": Param(int, 10, "an integer in 0..ipc_bits-1 (IPC fraction bits)",
                          lambda v: 0 <= v <= 23),
    }


def swm_args(p: dict) -> tuple:
    return p["M"], p["count_bits"], p["ipc_bits"], p["ipc_frac"]


def spec() -> BlockSpec:
    from cosim.stimuli.onac import SwmStimulus
    from hdl.onac import OnacCtrl
    from sim.blocks.onac import OnacTwin
    return BlockSpec(
        name="onac",
        doc="ONAC optimal-active-core detector: secant estimates, pause/sample handshakes "
            "(thesis.md §3.2-3.3, §9.3)",
        params=swm_params(),
        make_rtl=lambda p: OnacCtrl(*swm_args(p)),
        make_twin=lambda p: OnacTwin(*swm_args(p)),
        make_stimulus=lambda p, seed: SwmStimulus(*swm_args(p)[:1], seed, *swm_args(p)[1:]),
        inputs=SWM_INPUTS,
        outputs=SWM_OUTPUTS,
        paper="no area figure in the thesis; §6 first cut: one ~24-b sequential divider + "
              "multiplier, 32 × (2 + 16) CST bits, 3 × (6 + 16) ER bits",
    )

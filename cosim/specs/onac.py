"""Block entry: ONAC active-core detector in the SWM (hdl/onac.py, sim/blocks/onac.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param
from hdl.params import inputs_of, outputs_of
from hdl.params.swm import PARAMS, SwmWidths, ports

SWM_INPUTS = inputs_of(ports(SwmWidths(2)))
SWM_OUTPUTS = outputs_of(ports(SwmWidths(2)))


def swm_params() -> dict[str, Param]:
    """Parameters shared by ONAC and Seq-Det (widths: ours, [THESIS §4.4.2.3] gives none)."""
    return dict(PARAMS)


def swm_args(p: dict) -> tuple:
    return p["M"], p["count_bits"], p["ipc_bits"], p["ipc_frac"]


def spec() -> BlockSpec:
    from cosim.stimuli.onac import SwmStimulus
    from hdl.onac import OnacCtrl
    from sim.blocks.onac import OnacTwin
    return BlockSpec(
        name="onac",
        doc="ONAC optimal-active-core detector: secant estimates, pause/sample handshakes "
            "([THESIS §4.4.2], with our choices where it is silent)",
        params=swm_params(),
        make_rtl=lambda p: OnacCtrl(*swm_args(p)),
        make_twin=lambda p: OnacTwin(*swm_args(p)),
        make_stimulus=lambda p, seed: SwmStimulus(*swm_args(p)[:1], seed, *swm_args(p)[1:]),
        inputs=SWM_INPUTS,
        outputs=SWM_OUTPUTS,
        paper="no area figure in the thesis; our first cut: one ~24-b sequential divider + "
              "multiplier, 32 × (2 + 16) CST bits, 3 × (6 + 16) ER bits",
    )

"""Block entry: Seq-Det baseline active-core detector (hdl/seq_det.py, sim/blocks/seq_det.py)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec

from .onac import SWM_INPUTS, SWM_OUTPUTS, swm_args, swm_params


def spec() -> BlockSpec:
    from cosim.stimuli.onac import SwmStimulus
    from hdl.seq_det import SeqDetCtrl
    from sim.blocks.seq_det import SeqDetTwin
    return BlockSpec(
        name="seq_det",
        doc="Seq-Det baseline detector: one SM fewer per sample ([THESIS §4.4], with our "
            "choices where it is silent)",
        params=swm_params(),
        make_rtl=lambda p: SeqDetCtrl(*swm_args(p)),
        make_twin=lambda p: SeqDetTwin(*swm_args(p)),
        make_stimulus=lambda p, seed: SwmStimulus(*swm_args(p)[:1], seed, *swm_args(p)[1:]),
        inputs=SWM_INPUTS,
        outputs=SWM_OUTPUTS,
        paper="no area figure in the thesis (baseline for the ONAC area comparison)",
    )

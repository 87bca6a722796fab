"""Block entry: Simple Slicing runtime predictor of one SM (hdl/srtf_pred.py,
sim/blocks/srtf_pred.py; [SRTF Simple Slicing] (cycle contract ours))."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.srtf_pred import PARAMS, PredShape


def _shape(p: dict) -> PredShape:
    return PredShape(p["K"], p["SLOTS"], p["CW"], p["BW"], p["RW"])


def spec() -> BlockSpec:
    from cosim.stimuli.srtf_pred import SrtfPredStimulus
    from hdl.srtf_pred import SrtfPred
    from sim.blocks.srtf_pred import SrtfPredTwin

    ports = PredShape().ports()
    est = PredShape()
    return BlockSpec(
        name="srtf_pred",
        doc="Simple Slicing runtime predictor of one SM: per-kernel Active/Done/Total/Resident/t/"
            "Pred, Eq. 2 by a sequential multiply/divide ([SRTF Simple Slicing]; the cycle "
            "contract is ours)",
        params=PARAMS,
        make_rtl=lambda p: SrtfPred(p["K"], p["SLOTS"], p["CW"], p["BW"], p["RW"]),
        make_twin=lambda p: SrtfPredTwin(p["K"], p["SLOTS"], p["CW"], p["BW"], p["RW"]),
        make_stimulus=lambda p, seed: SrtfPredStimulus(_shape(p), seed),
        inputs=inputs_of(ports),
        outputs=outputs_of(ports),
        paper=f"no area figure in the paper; our estimate {est.spec_estimate_bits()} state "
              f"bits per SM at the defaults (ours {sum(est.storage_bits().values())}: + Rmax per "
              f"entry, + end_k per slot), one 16×32 multiplier and one 48/5 divider, sequential",
        check=lambda p: _shape(p),
    )

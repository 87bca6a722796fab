"""Block entry: Kernel Status Block + Core Status Block + concurrent-kernel dispatcher
(hdl/ck_dispatch.py; twin sim/blocks/ck_dispatch.py; [THESIS §5.4])."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.ck_dispatch import PARAMS, ports


def _args(p: dict) -> tuple:
    return p["K"], p["NC"], p["BW"], p["MW"]


def spec() -> BlockSpec:
    from cosim.stimuli.ck_dispatch import CkDispatchStimulus
    from hdl.ck_dispatch import CkDispatch
    from sim.blocks.ck_dispatch import CkDispatchTwin
    table = ports()
    return BlockSpec(
        name="ck_dispatch",
        doc="KSB + CSB + concurrent-kernel dispatcher: baseline (spatial), sequential (left-over) "
            "or interleaved (per-(core, kernel) max blocks) allow rows, launch failure when the "
            "KSB is full, kernel completion ([THESIS §5.4])",
        params=PARAMS,
        make_rtl=lambda p: CkDispatch(*_args(p), policy=p["policy"]),
        make_twin=lambda p: CkDispatchTwin(*_args(p), policy=p["policy"]),
        make_stimulus=lambda p, seed: CkDispatchStimulus(*_args(p), seed),
        inputs=inputs_of(table),
        outputs=outputs_of(table),
        paper="no area figure in the thesis (the thesis lists: KSB one row per concurrent kernel, CSB one row "
              "per core, an assigned-kernel queue per core for the interleaved scheduler)",
    )

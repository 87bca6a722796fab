"""Block entry: kernel-scheduler controller, policies fifo, srtf, mpmax, srtf_zero and adaptive
(hdl/kernel_sched.py; twin: sim/blocks/kernel_sched.py ``KernelSchedPorts``; [SRTF FIFO, MPMax,
SRTF/Adaptive, SJF])."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.kernel_sched import PARAMS, ports


DEEP_ARITHMETIC = ("mpmax", "srtf_zero", "adaptive")


def _args(p: dict) -> tuple:
    return p["K"], p["NSM"], p["CW"], p["BW"], p["RW"]


def _kw(p: dict) -> dict:
    return {"policy": p["policy"], "FW": p["FW"], "LIMITS": p["LIMITS"]}


def spec() -> BlockSpec:
    from cosim.stimuli.kernel_sched import KernelSchedStimulus
    from hdl.kernel_sched import KernelSched
    from sim.blocks.kernel_sched import KernelSchedPorts
    table = ports()
    return BlockSpec(
        name="kernel_sched",
        doc="kernel-scheduler controller: FIFO, SRTF, MPMax, zero-sampling SRTF or SRTF/Adaptive "
            "allow/cap rows for the block dispatcher, sampling on SM 0, switches on predictor "
            "records, MPMax caps from the footprints, zero-sampling remaining times from T^SP "
            "and block ends, Adaptive's sharing mode ([SRTF FIFO, MPMax, SRTF/Adaptive, SJF])",
        params=PARAMS,
        make_rtl=lambda p: KernelSched(*_args(p), **_kw(p)),
        make_twin=lambda p: KernelSchedPorts(*_args(p), **_kw(p)),
        make_stimulus=lambda p, seed: KernelSchedStimulus(*_args(p), seed, p["FW"], p["LIMITS"]),
        inputs=inputs_of(table),
        outputs=outputs_of(table),
        paper="no area figure in the paper; our estimate ≈ 1,400 bits (8 snapshots of "
              "valid, rem, pred, t, res, exclusive pred + order, state, counters) for all policies",
        # `gpusched area --abc auto` maps the policies with deep arithmetic (srtf_zero's
        # 32-stage divider, adaptive's 160-bit multipliers, MPMax's search) with the fast ABC
        # script at every size: the default script's &dch/&fraig ran for tens of minutes on
        # them (docs/area.md). fifo and srtf keep the size rule (the fast script's area is
        # +11 % on fifo at K=8: 8,772 vs 7,919 µm²).
        extra={"abc": lambda p: "fast" if p["policy"] in DEEP_ARITHMETIC else "auto"},
    )

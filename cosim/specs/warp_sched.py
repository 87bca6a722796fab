"""Block entry: warp scheduler of one sub-core — LRR / GTO / oldest arbiter (hdl/warp_sched.py),
the two-level active scheduler (hdl/two_level.py), OWL's group schedulers (hdl/owl.py), the
phase-aware select and the two-level ready/active/pending queues (hdl/phase_select.py,
hdl/phase_queues.py); twins in sim/blocks/."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.owl import G_DEFAULT, G_SIZE_DEFAULT, OWL_POLICIES
from hdl.params.warp_sched import PARAMS, TWO_LEVEL_QUEUES, check_params, ports


def _check(p: dict) -> None:
    check_params(p["W"], p["policy"], p["N"], p.get("g_size", G_SIZE_DEFAULT),
                 p.get("G", G_DEFAULT))


def make_rtl(p: dict):
    _check(p)
    if p["policy"] in OWL_POLICIES:
        from hdl.owl import OwlSched
        return OwlSched(p["W"], p["policy"], p["g_size"], p["G"])
    if p["policy"] == "phase":
        from hdl.phase_select import PhaseAwareSelect
        return PhaseAwareSelect(p["W"])
    if p["policy"] in TWO_LEVEL_QUEUES:
        from hdl.phase_queues import TwoLevelQueues
        return TwoLevelQueues(p["W"], p["N"], p["policy"])
    if p["policy"] == "two_level":
        from hdl.two_level import TwoLevelActive
        return TwoLevelActive(p["W"], p["N"])
    from hdl.warp_sched import WarpSched
    return WarpSched(p["W"], p["policy"])


def make_twin(p: dict):
    _check(p)
    if p["policy"] in OWL_POLICIES:
        from sim.blocks.owl import OwlSchedTwin
        return OwlSchedTwin(p["W"], p["policy"], p["g_size"], p["G"])
    if p["policy"] == "phase":
        from sim.blocks.phase_select import PhaseAwareSelectTwin
        return PhaseAwareSelectTwin(p["W"])
    if p["policy"] in TWO_LEVEL_QUEUES:
        from sim.blocks.phase_queues import TwoLevelQueuesTwin
        return TwoLevelQueuesTwin(p["W"], p["N"], p["policy"])
    if p["policy"] == "two_level":
        from sim.blocks.two_level import TwoLevelActiveTwin
        return TwoLevelActiveTwin(p["W"], p["N"])
    from sim.blocks.warp_sched import WarpSchedTwin
    return WarpSchedTwin(p["W"], p["policy"])


def spec() -> BlockSpec:
    from cosim.stimuli.owl import OwlStimulus
    from cosim.stimuli.warp_sched import WarpSchedStimulus
    return BlockSpec(
        name="warp_sched",
        doc="warp scheduler of one sub-core: LRR, GTO, oldest, two-level active "
            "([GPGPU-Sim shader.cc]); OWL CTA-aware, Locality, BLP and two-level [44] "
            "([OWL §3, §4.1–§4.3]); phase-aware, TLRR, TLGTO, two-level phase-aware "
            "([THESIS §3.4.2.2])",
        params=PARAMS,
        make_rtl=make_rtl,
        make_twin=make_twin,
        make_stimulus=lambda p, seed: (OwlStimulus(p["W"], seed) if p["policy"] in OWL_POLICIES
                                       else WarpSchedStimulus(p["W"], seed)),
        inputs=inputs_of(ports(2)),
        outputs=outputs_of(ports(2)),
        paper="baselines: no area figure in the specs; OWL schemes 1-3 ([OWL §4.5]): 0.18 mm² for "
              "28 cores at TSMC 65 nm, about 0.0064 mm² per core",
        check=_check,
    )

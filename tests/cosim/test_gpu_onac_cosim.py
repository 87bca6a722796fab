"""The ONAC / Seq-Det detector RTL (hdl/onac.py, hdl/seq_det.py) inside the active-SM
controller of a GPU-model run on the ``thesis`` preset.

The controller (sim/policies/onac_ctrl.py) drives an injected detector through ``step`` and
``peek`` only (``DetectorPorts``; the per-SM samplers stay twins). Without a simulator that port
path reproduces the stock twin path exactly; with cocotb + Verilator the RTL alone in the loop
gives the twin-only stats, lockstep (step and peek compared) reports no mismatch, and a twin
whose first estimate is one SM off is caught. The default suite uses the 8-SM thesis variant of
tests/sim/test_onac_policy.py; the 32-SM preset itself runs with ``--runslow``.
"""

from __future__ import annotations

import json

import pytest

from cosim.gpu_scenarios import canonical, gpu_swm, run, swm_params
from cosim.lockstep import LockstepMismatch
from cosim.runner import run_in_loop
from cosim.simulators import available
from gpusched.blocks import get_block
from sim.blocks.onac import OnacTwin
from sim.blocks.seq_det import SeqDetTwin

cosim = pytest.mark.cosim
needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")

# 8 SMs, half the DRAM clock: the transpose-like kernel saturates at 4 SMs; 1-wave samples,
# detection after one ramp-up wave (our choice, as tests/sim/test_onac_policy.py).
SCALED = {"preset": "thesis", "workload": "onac_tp_like", "scale": 0.5,
          "overrides": ["sm.count=8", "dram.clock_mhz=924"], "waves": 1, "skip_waves": 1}
THESIS = {"preset": "thesis", "workload": "onac_tp_like", "scale": 1.0, "waves": 1,
          "skip_waves": 0}
TWINS = {"onac": OnacTwin, "seq_det": SeqDetTwin}


def kwargs_for(block: str, scenario: dict = SCALED, **extra) -> dict:
    params = [swm_params(block, scenario["preset"], scenario.get("overrides", ()))]
    return {"params_list": params, "mode": block, **scenario, **extra}


class OnacFirstEstimatePlusOne(OnacTwin):
    """Mutant: after the all-SM sample ONAC tries 2 SMs instead of 1 (our choice)."""

    def _count_after_init(self) -> int:
        return 2


def onac_mutant(p: dict) -> OnacTwin:
    return OnacFirstEstimatePlusOne(p["M"], p["count_bits"], p["ipc_bits"], p["ipc_frac"])


def ports_only(block: str, p: dict):
    """The stock twin under another class: the controller must take its port path."""
    cls = type(f"PortsOnly{TWINS[block].__name__}", (TWINS[block],), {})
    return cls(p["M"], p["count_bits"], p["ipc_bits"], p["ipc_frac"])


def trace(result: dict) -> dict:
    return result["runs"][0]["stats"]["policy_reports"]["sm_controller"]["trace"][0]


@pytest.fixture(scope="module")
def twin_runs() -> dict[str, dict]:
    return {b: canonical(gpu_swm(None, **kwargs_for(b))) for b in TWINS}


# -- port path == stock twin path (no simulator) ------------------------------------------------

@pytest.mark.parametrize("block", list(TWINS))
def test_port_path_reproduces_the_twin_path(block, twin_runs):
    kw = kwargs_for(block)
    det = ports_only(block, kw["params_list"][0])
    ports = canonical(gpu_swm([det], **kw))
    assert json.dumps(ports, sort_keys=True) == json.dumps(twin_runs[block], sort_keys=True)
    rec = trace(ports)
    # a complete detection: samples, estimates and a decision, all rebuilt from the ports
    assert not rec["abandoned"] and rec["n_opt"] == 4 and rec["done"] is not None
    assert rec["samples"][0]["n"] == 8 and rec["estimates"]
    if block == "onac":
        assert rec["estimates"][0] == 1            # ONAC samples one SM after all of them
    else:
        assert rec["estimates"] == list(range(7, 2, -1))   # one SM fewer each time, to 3


# -- RTL in the GPU run (cocotb + Verilator) ----------------------------------------------------

@cosim
@needs_verilator
# lockstep compares the RTL with the twin every cycle, so the RTL-only run is the slow suite's
@pytest.mark.parametrize("mode", [pytest.param("rtl", marks=pytest.mark.slow), "lockstep"])
@pytest.mark.parametrize("block", list(TWINS))
def test_rtl_detector_gives_the_twin_only_stats(block, mode, twin_runs):
    got = run(block, kwargs_for(block), mode)
    assert got["mismatch"] is None
    assert got["result"] == twin_runs[block]       # cycles, counters, detection trace, CTA rows
    r = got["result"]["runs"][0]
    assert got["steps"] == [r["block_steps"]] and r["block_steps"] > 10_000
    print(f"{block} {mode}: {r['cycles']} cycles, {r['block_steps']} steps, {got['seconds']:.1f} s")


@cosim
@needs_verilator
def test_lockstep_catches_a_first_estimate_off_by_one(twin_runs):
    """The mutant's registers differ right after the first DECIDE edge (the all-SM sample):
    the controller's ``peek`` of the next cycle's outputs sees pause_req and n_est differ."""
    kw = kwargs_for("onac", twin=f"{__name__}:onac_mutant")
    with pytest.raises(LockstepMismatch) as err:
        run_in_loop(get_block("onac"), kw["params_list"], "cosim.gpu_scenarios:gpu_swm", kw,
                    lockstep=True)
    rec = trace(twin_runs["onac"])
    # ``start`` is the cycle of the start pulse. At a kernel's first CTA placement (skip_waves
    # = 0) that comes after the cycle's controller step, so block cycle 0 is start + 1; at the
    # last CTA completion of the ramp-up wave it comes before it, so block cycle 0 is start. The
    # detector is then stepped every cycle: the DECIDE step is block cycle sample - (block cycle
    # 0's GPU cycle) and the peek after it shows the next block cycle.
    first = rec["start"] + (1 if SCALED["skip_waves"] == 0 else 0)
    decide_step = rec["samples"][0]["cycle"] - first
    msg = str(err.value)
    assert msg.startswith("onac[u0] (peek)"), msg
    assert f"mismatch at cycle {decide_step + 1} on pause_req, n_est" in msg, msg


@cosim
@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("block", list(TWINS))
def test_full_thesis_preset(block):
    """The 32-SM thesis preset: ONAC detects N_opt = 8 (42 k detector steps); Seq-Det runs out
    of CTAs after two samples and gives every SM back (abandoned)."""
    kw = kwargs_for(block, THESIS)
    want = canonical(gpu_swm(None, **kw))
    rec = trace(want)
    assert rec["n_opt"] == 8 if block == "onac" else rec["abandoned"]
    for mode in ("rtl", "lockstep"):
        got = run(block, kw, mode)
        assert got["mismatch"] is None and got["result"] == want, mode
        r = got["result"]["runs"][0]
        print(f"thesis {block} {mode}: {r['cycles']} cycles, {r['block_steps']} steps, "
              f"{got['seconds']:.1f} s")

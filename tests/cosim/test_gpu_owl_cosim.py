"""One SM's OWL warp schedulers inside a GPU-model run (cosim/gpu_owl.py): the port path over the
twins equals the stock run; with cocotb + Verilator the RTL of SM 1's two sub-cores gives the
twin-only statistics, lockstep reports no mismatch, and a BLP twin without the core offset is
caught inside the GPU run.

gtx480 with owl_t_stream_shared: 24 warp slots per scheduler, 4 groups of CTAs on SM 1, whose
BLP top group is 1 mod 4 = 1 (SM 0 would hide the mutant: 0 mod g_core = 0)."""

from __future__ import annotations

import pytest

from cosim.gpu_owl import gpu_warp_sched, run, warp_sched_params
from cosim.simulators import available
from hdl.params.owl import OWL_POLICIES
from sim.blocks.owl import OwlSchedTwin

needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")
SCENARIO = {"preset": "gtx480", "workload": "owl_t_stream_shared", "scale": 0.2, "sm": 1}


def kwargs(policy: str, **extra) -> dict:
    return {"params_list": warp_sched_params("gtx480", policy), "policy": policy, **SCENARIO,
            **extra}


class BlpNoOffset(OwlSchedTwin):
    """Mutant: BLP's top group without the core offset (every SM prioritises group 0)."""

    def top_at_launch(self, sm_id: int, g_core: int) -> int:
        return 0


def blp_no_offset(p: dict) -> BlpNoOffset:
    return BlpNoOffset(p["W"], p["policy"], p["g_size"], p["G"])


@pytest.mark.parametrize("policy", OWL_POLICIES)
def test_port_path_equals_the_stock_run(policy):
    kw = kwargs(policy)
    stock = gpu_warp_sched(None, **kw)["runs"][0]
    twins = [OwlSchedTwin(p["W"], p["policy"], p["g_size"], p["G"]) for p in kw["params_list"]]
    port = gpu_warp_sched(twins, **kw)["runs"][0]
    assert port["stats"] == stock["stats"]
    assert min(port["block_steps"]) > 300                      # both sub-cores of SM 1 busy
    if policy not in ("tl_narasiman", "owl_locality_rot", "owl_blp_rot"):    # rot: head moves
        assert [(t.g_core, t.top) for t in twins][0] == (4, 1 if policy == "owl_blp" else 0)


def test_blp_mutant_changes_the_run_on_sm_1_only():
    """The mutant is not a no-op here: with it on SM 1 the GPU statistics differ."""
    kw = kwargs("owl_blp")
    stock = gpu_warp_sched(None, **kw)["runs"][0]
    mutant = gpu_warp_sched([blp_no_offset(p) for p in kw["params_list"]], **kw)["runs"][0]
    assert mutant["stats"] != stock["stats"]


@pytest.mark.cosim
@needs_verilator
def test_rtl_in_the_loop_gives_the_twin_statistics():
    kw = kwargs("owl_blp")
    twins = [OwlSchedTwin(p["W"], p["policy"], p["g_size"], p["G"]) for p in kw["params_list"]]
    ref = gpu_warp_sched(twins, **kw)["runs"][0]
    out = run(kw, "rtl")
    assert out["mismatch"] is None
    got = out["result"]["runs"][0]
    assert got["stats"] == ref["stats"]
    assert got["block_steps"] == out["steps"] == ref["block_steps"]     # every port call


@pytest.mark.cosim
@needs_verilator
@pytest.mark.parametrize("policy", ["owl_blp", "owl_cta"])
def test_lockstep_in_the_gpu_run(policy):
    out = run(kwargs(policy), "lockstep")
    assert out["mismatch"] is None and min(out["steps"]) > 300


@pytest.mark.cosim
@needs_verilator
def test_lockstep_catches_blp_without_the_core_offset_in_the_gpu_run():
    out = run(kwargs("owl_blp", twin=f"{__name__}:blp_no_offset"), "lockstep")
    assert out["result"] is None and "mismatch at cycle" in out["mismatch"]

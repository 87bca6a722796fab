"""One memory controller's owl_prefetch inside a GPU-model run (cosim/gpu_prefetch.py): the port
path through a step-only engine equals the stock twins; with cocotb + Verilator the RTL in the
loop gives the twin-only stats, lockstep reports no mismatch, and a twin that ignores pending
demands is caught."""

from __future__ import annotations

import pytest

from cosim.gpu_prefetch import gpu_owl_prefetch, owl_prefetch_params, run
from cosim.simulators import available
from sim.blocks.owl_prefetch import OwlPrefetchTwin

needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")
SCENARIO = {"preset": "gtx480", "workload": "owl_t_stream_shared", "scale": 0.2}


def kwargs(**extra) -> dict:
    return {"params_list": [owl_prefetch_params("gtx480")], **SCENARIO, **extra}


class StepOnly:
    """A fresh twin seen only through ``step``, as an RTL proxy is."""

    def __init__(self, p):
        self.twin = OwlPrefetchTwin(p["BANKS"], p["LINES"], p["LOWER"], p["HIGHER"], p["SCHEME"])

    def step(self, **inputs):
        return self.twin.step(**inputs)


def ignores_demands(p):
    """Mutant scoreboard: prefetches beside pending demands to the open row."""
    class IgnoresDemands(OwlPrefetchTwin):
        def eligible(self, b, hit, other, hold):
            return not other or hold
    return IgnoresDemands(p["BANKS"], p["LINES"], p["LOWER"], p["HIGHER"], p["SCHEME"])


def test_params_follow_the_preset():
    p = owl_prefetch_params("gtx480")
    assert (p["BANKS"], p["LOWER"], p["HIGHER"], p["SCHEME"]) == (16, 8, 16, "b") and p["LINES"] >= 16


def test_port_path_equals_the_twins():
    kw = kwargs()
    ref = gpu_owl_prefetch(None, **kw)["runs"][0]
    port = gpu_owl_prefetch([StepOnly(kw["params_list"][0])], **kw)["runs"][0]
    assert port["stats"] == ref["stats"] and port["block_steps"] == ref["block_steps"] > 200
    assert ref["stats"]["memory"]["prefetch"]["issued"] > 0


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("mode", ["rtl", "lockstep"])
def test_rtl_prefetcher_in_the_loop_equals_the_twins(mode):
    ref = run(kwargs(), "twin")["result"]["runs"][0]
    got = run(kwargs(), mode)
    assert got["mismatch"] is None
    assert got["result"]["runs"][0]["stats"] == ref["stats"]
    assert got["result"]["runs"][0]["block_steps"] == ref["block_steps"] > 200


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
def test_lockstep_in_the_loop_catches_a_prefetcher_ignoring_demands():
    got = run(kwargs(twin=f"{__name__}:ignores_demands"), "lockstep")
    assert got["mismatch"] and ("pf_" in got["mismatch"] or "want" in got["mismatch"]), got["mismatch"]

"""warp_sched Verilog (from Amaranth) under cocotb: Verilator lockstep; Icarus when installed."""

import pytest

from cosim.lockstep import LockstepMismatch
from cosim.runner import run_cosim
from cosim.simulators import available
from gpusched.blocks import get_block, parse_params
from sim.blocks.warp_sched import WarpSchedTwin

SPEC = get_block("warp_sched")
pytestmark = pytest.mark.cosim


@pytest.mark.parametrize("policy", ["lrr", "gto"])
@pytest.mark.parametrize("w", [4, 8, 32, 64])
def test_verilator_lockstep(policy, w):
    params = parse_params(SPEC, {"W": w, "policy": policy})
    report = run_cosim(SPEC, params, 20_000, seed=2000 + w, sim="verilator")
    assert report.cycles == 20_000 and report.mismatches == 0


@pytest.mark.parametrize("policy, w, n", [("old", 32, 1), ("two_level", 16, 6)])
def test_verilator_lockstep_oldest_and_two_level(policy, w, n):
    params = parse_params(SPEC, {"W": w, "policy": policy, "N": n})
    report = run_cosim(SPEC, params, 20_000, seed=2100 + w, sim="verilator")
    assert report.cycles == 20_000 and report.mismatches == 0


@pytest.mark.skipif(not available("icarus"), reason="iverilog not on PATH (optional simulator)")
@pytest.mark.parametrize("policy", ["lrr", "gto"])
def test_icarus_lockstep(policy):
    params = parse_params(SPEC, {"W": 8, "policy": policy})
    report = run_cosim(SPEC, params, 5_000, seed=3, sim="icarus")
    assert report.cycles == 5_000


class LrrFromLastTwin(WarpSchedTwin):
    """Mutation: LRR walks from the last-issued slot itself instead of the slot after it."""

    def pick(self, ready):
        if ready >> self.last & 1:
            return self.last
        return super().pick(ready)


def lrr_from_last(params):
    return LrrFromLastTwin(params["W"], params["policy"])


def test_cosim_reports_mismatch():
    """A twin with a changed priority rule is caught inside the cocotb bench, readably."""
    params = parse_params(SPEC, {"W": 8, "policy": "lrr"})
    with pytest.raises(LockstepMismatch, match=r"mismatch at cycle \d+ on grant"):
        run_cosim(SPEC, params, 2_000, seed=5, sim="verilator", twin=f"{__name__}:lrr_from_last")

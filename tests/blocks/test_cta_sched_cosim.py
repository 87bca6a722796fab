"""cta_sched RTL (Verilog from Amaranth) vs twin under cocotb + Verilator (our test plan for
[IKRA]).

The twin runs with ``check=1``: the property checker of our test plan sees every cycle's outputs,
which the lockstep compare has just found equal to the RTL's. The default suite keeps one short run
(the Verilator build dominates); the 100 000-cycle runs per policy are marked slow.
"""

from __future__ import annotations


import pytest

from cosim.simulators import available
from gpusched.blocks import get_block

pytestmark = [pytest.mark.cosim,
              pytest.mark.skipif(not available("verilator"), reason="verilator not installed")]

POLICIES = ("rr", "chunk", "reset", "flip", "steal")


def _run(params: dict, cycles: int, seed: int):
    from cosim.runner import run_cosim
    spec = get_block("cta_sched")
    report = run_cosim(spec, params | {"check": 1}, cycles, seed, sim="verilator")
    assert report.cycles == cycles
    return report


def test_verilator_lockstep_short_steal():
    """Small steal instance (queue overflows happen with QDEPTH 4), a few thousand cycles."""
    _run({"C": 3, "ID_W": 8, "QDEPTH": 4, "policy": "steal"}, 4000, seed=2)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
def test_verilator_lockstep_100k(policy):
    """16 CUs (> the document's 15), 16-bit ids, QDEPTH 8: 100 000 cycles per policy."""
    r = _run({"C": 16, "ID_W": 16, "QDEPTH": 8, "policy": policy}, 100_000, seed=7)
    print(f"cta_sched {policy}: {r.cycles} cycles, 0 mismatches, {r.cycles_per_s:,.0f} cycles/s")


@pytest.mark.slow
@pytest.mark.parametrize("p", [1, 2, 15])
def test_verilator_lockstep_steal_sizes(p):
    """Steal at the document's default size (ID_W 32, QDEPTH 32) and tiny CU counts."""
    _run({"C": p, "ID_W": 32, "QDEPTH": 32, "policy": "steal"}, 20_000, seed=p)

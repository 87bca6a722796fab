"""socgpu_issue / inorder_issue RTL vs twin under cocotb + Verilator (our test plan for [SOCGPU]).

The default suite runs one short lockstep (N = 2; its Verilator build is cached per hdl
fingerprint, a cold build costs most of the time); the ≥ 100,000-cycle soaks per
N ∈ {2, 4, 8, 16} and for the baseline are marked slow (``--runslow``).
"""

from __future__ import annotations

import pytest

from cosim.runner import run_cosim
from cosim.simulators import available
from gpusched.blocks import get_block, parse_params

pytestmark = [pytest.mark.cosim,
              pytest.mark.skipif(not available("verilator"), reason="verilator not installed")]


def _run(block: str, cycles: int, seed: int, **kv):
    spec = get_block(block)
    params = parse_params(spec, kv)
    rep = run_cosim(spec, params, cycles, seed, sim="verilator")
    assert rep.cycles == cycles and rep.mismatches == 0
    print(f"{block} {kv}: {rep.cycles} cycles, 0 mismatches, {rep.cycles_per_s:,.0f} cycles/s")
    return rep


def test_socgpu_verilator_short():
    _run("socgpu_issue", 5000, seed=1, N=2)


@pytest.mark.slow
@pytest.mark.parametrize("n,policy,dual", [(2, "first", "on"), (4, "oldest", "smart"),
                                           (8, "first", "on"), (16, "random", "smart")])
def test_socgpu_verilator_100k(n, policy, dual):
    _run("socgpu_issue", 100_000, seed=n, N=n, policy=policy, dual=dual)


@pytest.mark.slow
def test_inorder_verilator_100k():
    _run("inorder_issue", 100_000, seed=3)

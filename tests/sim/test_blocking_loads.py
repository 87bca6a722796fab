"""The blocking-load warp model of [OWL §2.1] (``sm.blocking_loads``): a warp with a global load
in flight issues nothing until the data returns; by default it stalls only at the first use
(scoreboard). Stores do not block."""

import pytest

from gpusched.config import ConfigError
from sim.workload.kernel import Instr, Op
from sim_helpers import config, run
from sim_kernels import independent, make_kernel, workload

BLOCK = "sm.blocking_loads=true"
LINE = tuple(range(0, 128, 4))


def _cycles(body, *overrides) -> int:
    return run(workload(make_kernel("k", body)), "tiny", *overrides, memory="fixed")["cycles"]


def _load_then(k: int):
    """LDG r2, k independent ALU ops (not reading r2), then the use of r2."""
    return lambda c, w: ([Instr(Op.LDG, dst=(2,), src=(3,), addrs=LINE)]
                         + [Instr(Op.ALU, dst=(10 + i % 8,), src=(0,)) for i in range(k)]
                         + [Instr(Op.ALU, dst=(4,), src=(2,))])


def test_scoreboard_on_use_hides_independent_work_under_the_load():
    assert _cycles(_load_then(20)) == _cycles(_load_then(0))


def test_a_blocking_load_holds_every_later_instruction_until_its_data_returns():
    # the 20 ALU ops issue only after the data is back, each one cycle apart (alu_ii = 1,
    # issue_interval = 1): 20 more cycles than with none
    assert config().units.alu_ii == 1 and config().sm.issue_interval == 1
    base = _cycles(_load_then(0), BLOCK)
    assert _cycles(_load_then(20), BLOCK) - base == 20
    # without independent work the two models agree: the use waits for the data either way
    assert base == _cycles(_load_then(0))


def test_the_warp_waits_on_memory_while_blocked():
    """The profiler's MemoryBlockCycles: with blocking loads the single warp is memory-blocked
    for the whole load; with the scoreboard it issues its 20 ALU ops meanwhile."""
    def blocked(*o):
        return run(workload(make_kernel("k", _load_then(20))), "tiny", "sm.subcores=1", *o,
                   memory="fixed", profile=("owl",))["owl"]["memory_block_cycles"]
    assert blocked(BLOCK) - blocked() == 20


def test_stores_do_not_block():
    store = lambda c, w: [Instr(Op.STG, src=(3, 5), addrs=LINE)] + independent(20)
    assert _cycles(store, BLOCK) == _cycles(store)


def test_other_warps_still_issue_while_one_is_blocked():
    """Two warps on one scheduler: warp 1's ALU work overlaps warp 0's blocked load."""
    def body(c, w):
        return _load_then(0)(c, w) if w == 0 else independent(40)
    two = run(workload(make_kernel("k", body, block=(64, 1, 1))), "tiny", "sm.subcores=1", BLOCK,
              memory="fixed")["cycles"]
    assert two == _cycles(_load_then(0), "sm.subcores=1", BLOCK)


@pytest.mark.parametrize("bad", [("sm.issue=socgpu", "sm.ib_entries=8"), ("sm.dual_issue=true",)])
def test_only_with_the_in_order_single_issue_stage(bad):
    with pytest.raises(ConfigError, match="sm.blocking_loads"):
        config("tiny", BLOCK, *bad)

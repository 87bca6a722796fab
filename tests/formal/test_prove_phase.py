"""Bounded model checks of the phase-aware schedulers (formal/props_phase.py): the invariants
hold; each case's mutant (two-level: a pending queue that releases a warp before all its
long-latency operations complete) and a wrong sort key are caught with a trace."""

import pytest

from formal import build, cases_for
from formal.bmc import prove
from formal.props_phase import QueuesProps

pytestmark = pytest.mark.synth


def _case(label_part):
    return next(c for c in cases_for("warp_sched") if c.label.endswith(label_part))


@pytest.mark.parametrize("policy", ["policy=phase", "policy=tlrr", "policy=tlgto",
                                    "policy=tlphase", "policy=tlphase_rr"])
def test_invariants_hold_and_the_mutant_is_caught(policy):
    case = _case(policy)
    res = prove(build(case), 8)
    assert res.status == "proved"
    assert prove(build(case, mutant=True), 8).status == "failed"


@pytest.mark.parametrize("policy", ["tlrr", "tlgto", "tlphase", "tlphase_rr"])
def test_a_pending_queue_that_releases_early_is_caught(policy):
    case = _case(f"policy={policy}")
    assert case.make_mutant is not None and "releases a warp before" in case.mutant_doc
    res = prove(build(case, mutant=True), 6)
    assert res.status == "failed"
    assert res.failed.startswith("a warp leaves the pending queue only when")
    assert res.trace["dut.long_out"][res.step] != 0


def test_a_promotion_against_the_sort_key_is_caught():
    from hdl.phase_queues import TwoLevelQueues

    class LongestFirst(TwoLevelQueues):
        def _key_order(self, m, age, released):
            first = super()._key_order(m, age, released)
            return lambda i, j: ~first(i, j)
    res = prove(QueuesProps(LongestFirst(4, 2, "tlphase")), 8)
    assert res.status == "failed"
    assert res.failed == "a promotion takes the smallest key of the active queue"

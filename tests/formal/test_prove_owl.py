"""Bounded model checks of OWL's schedulers (formal/props_owl.py): the group rule holds every
cycle, and a scheduler that ignores the groups is caught with a counterexample."""

import pytest

from formal import build, cases_for
from formal.bmc import prove

pytestmark = pytest.mark.synth


def _owl_cases():
    return [c for c in cases_for("warp_sched") if "owl" in c.label]


@pytest.mark.parametrize("case", _owl_cases(), ids=lambda c: c.label.split()[1])
def test_group_rule_holds_and_the_group_blind_mutant_is_caught(case):
    res = prove(build(case), 10)
    assert res.status == "proved"
    assert any("group" in name for name in res.invariants)
    bad = prove(build(case, mutant=True), 6)
    assert bad.status == "failed" and "group" in bad.failed
    # the counterexample: the lowest ready warp granted while another (of the chosen group) was
    # ready too
    ready, grant = bad.trace["dut.ready"][bad.step], bad.trace["dut.grant"][bad.step]
    assert grant == ready & -ready and ready != grant

"""Unbounded proofs of cta_sched's chunk and steal policies by 1-induction with helper
invariants (formal/props_cta_sched_helpers.py, formal/props_cta_sched_steal.py): chunk here,
steal's induction step in ``--runslow`` and ``gpusched verify`` (about a minute of CPU)."""

import pytest

from formal import build, cases_for
from formal.bmc import prove, prove_inductive

pytestmark = pytest.mark.synth


def _case(policy):
    return next(c for c in cases_for("cta_sched") if c.label.endswith(f"policy={policy}"))


def test_chunk_is_proved_at_every_depth_by_one_induction_step():
    res = prove_inductive(build(_case("chunk"), helpers=True), 1)
    assert res.status == "proved" and res.engine == "induction" and res.frames == 1
    assert "all N dispatched by kernel_done" in res.invariants
    assert "helper: the CUs' ranges are disjoint" in res.invariants


def test_without_the_helpers_the_block_invariants_are_not_inductive():
    """The step really checks something: the block's own invariants alone fail it (from an
    arbitrary state a CU can be offered an id already dispatched)."""
    res = prove_inductive(build(_case("chunk")), 1)
    assert res.status == "unknown" and res.failed in res.invariants


def test_a_wrong_helper_fails_the_base_case_from_reset(monkeypatch):
    """A helper is proved, not assumed: one that claims too much (no id below N left to any
    CU after set-up) is refuted by a trace from reset."""
    import formal.props_cta_sched_helpers as helpers
    real = helpers.id_range
    monkeypatch.setattr(helpers, "id_range", lambda lo, hi, width: real(lo, hi, width) & 0)
    res = prove_inductive(build(_case("chunk"), helpers=True), 8)
    assert res.status == "failed" and res.failed.startswith("helper:")


@pytest.mark.parametrize("policy", ["chunk", "steal"])
def test_the_helpers_do_not_hide_the_mutant(policy):
    """With the helper invariants in, the same-id mutant is still caught from reset, by the
    block invariant it breaks (the helpers' assumptions are not contradictory)."""
    res = prove(build(_case(policy), mutant=True, helpers=True), 9)
    assert res.status == "failed" and res.failed == "no two CUs get the same id in a cycle"
    assert res.step == 7


def test_steal_helpers_hold_from_reset():
    assert prove(build(_case("steal"), helpers=True), 10).status == "proved"


@pytest.mark.slow
def test_steal_is_proved_at_every_depth_by_one_induction_step():
    res = prove_inductive(build(_case("steal"), helpers=True), 1)
    assert res.status == "proved" and res.engine == "induction"
    assert "helper: running: dispatched ids and the ids still to offer partition [0, N)" \
        in res.invariants


def test_socgpu_issue_is_one_inductive_as_it_stands():
    """The DM invariants need no helpers: 1-induction proves them at every depth (PDR was
    undecided after 118 s CPU); the DM-blind mutant breaks the step and the base case."""
    case = cases_for("socgpu_issue")[0]
    assert case.induction == 1
    res = prove_inductive(build(case), 1)
    assert res.status == "proved" and res.engine == "induction"
    bad = prove_inductive(build(case, mutant=True), 2)
    assert bad.status == "failed" and bad.failed == "no entry issues while a bit of its DM row is set"

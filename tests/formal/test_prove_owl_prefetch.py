"""owl_prefetch bounded proofs (formal/props_owl_prefetch.py): the invariants hold for a few
steps with a free environment (``gpusched verify`` proves depth 6), and the prefetcher that
ignores pending demands is caught by the invariant it breaks."""

import pytest

from formal import build, cases_for
from formal.bmc import prove

pytestmark = pytest.mark.synth


@pytest.mark.parametrize("scheme", ["a", "b"])
def test_mutant_ignoring_demands_is_caught(scheme):
    case = next(c for c in cases_for("owl_prefetch") if c.label.endswith(f"SCHEME={scheme}"))
    res = prove(build(case, mutant=True), 4)
    assert res.status == "failed" and res.failed == "no prefetch beside a demand to the open row"


def test_short_proof_holds():
    case = next(c for c in cases_for("owl_prefetch") if c.label.endswith("SCHEME=b"))
    res = prove(build(case), 3)
    assert res.status == "proved" and "no line twice per activation" in res.invariants

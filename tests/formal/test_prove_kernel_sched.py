"""kernel_sched bounded proofs (formal/props_kernel_sched.py): the row invariants hold with a free
environment (``gpusched verify`` proves depth 20), and each policy's mutant is caught by the
invariant it breaks (a mutant our test plan for [SRTF] lists)."""

import pytest

from formal import build, cases_for
from formal.bmc import prove

pytestmark = pytest.mark.synth


@pytest.mark.parametrize("policy, invariant", [
    ("fifo", "fifo: one kernel per SM, the same on every SM"),
    ("srtf", "srtf: while sampling SM 0 allows only the sample"),
    ("srtf_zero", "srtf: outside the sample, run is allowed and first"),
    ("mpmax", "mpmax: a cap above 1 leaves room for one block of the other"),
    ("adaptive", "adaptive: while sharing, two kernels on every SM, the shorter first with a cap of at most 3"),
])
def test_invariants_hold_and_the_mutant_is_caught(policy, invariant):
    case = next(c for c in cases_for("kernel_sched") if c.label.endswith(f"policy={policy}"))
    assert prove(build(case), 8).status == "proved"
    res = prove(build(case, mutant=True), 8)
    assert res.status == "failed" and res.failed == invariant

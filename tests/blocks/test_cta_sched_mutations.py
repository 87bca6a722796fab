"""Mutations of the cta_sched twin that the checks must catch (our test plan for [IKRA]).

Each mutant is a twin subclass. Two nets must each catch it, readably: the property checker of our
test plan on a twin-only run, and RTL-vs-twin lockstep in the Amaranth simulator (the RTL is
correct).
"""

from __future__ import annotations

import pytest

from cosim.lockstep import LockstepMismatch
from sim.blocks.cta_sched import CtaSchedTwin
from sim.blocks.ikra.checker import PropertyViolation
from cta_sched_harness import run_rtl_checked, run_twin_checked


class DropAppend(CtaSchedTwin):
    """A steal that runs the TB but drops the queue entry it should append (the issue's must-show)."""

    def _append(self, i, tb):
        pass


class WrongEndTheft(CtaSchedTwin):
    """A chunk theft that takes the TB the victim would run next instead of last."""

    def _take(self, v, kind):
        if not kind:
            return super()._take(v, kind)
        if self.phase:
            self.cur[v] -= 1
            return self.cur[v]
        self.cur[v] += 1
        return self.cur[v] - 1


class CursorRedispatch(CtaSchedTwin):
    """An append in phase 0 that leaves q_cur behind, so the appended entry is dispatched again."""

    def _append(self, i, tb):
        keep = self.q_cur[i]
        super()._append(i, tb)
        self.q_cur[i] = keep


class RrOffByOne(CtaSchedTwin):
    """G's pointer one CU too far (rotation off by one)."""

    def rr_pointer(self):
        return (self.last_cu + 2) % self.p


MUTANTS = [
    # (mutant, policy, words the checker's message must contain)
    (DropAppend, "steal", "cover broken"),
    (WrongEndTheft, "steal", "last-to-run TB"),
    (CursorRedispatch, "steal", "transferred twice"),
    (RrOffByOne, "rr", "G: CU"),
]


@pytest.mark.parametrize("mutant,policy,words", MUTANTS, ids=[m[0].__name__ for m in MUTANTS])
def test_property_checker_catches(mutant, policy, words):
    p, qdepth = 3, 16
    twin = mutant(p, 12, qdepth, policy)
    with pytest.raises(PropertyViolation) as err:
        run_twin_checked(twin, 30000, seed=4, max_n=200)
    msg = str(err.value)
    assert words in msg and "cycle" in msg and f"P={p}" in msg, msg


@pytest.mark.parametrize("mutant,policy,words", MUTANTS, ids=[m[0].__name__ for m in MUTANTS])
def test_lockstep_catches(mutant, policy, words):
    p, qdepth = 3, 16
    twin = mutant(p, 10, qdepth, policy)
    with pytest.raises(LockstepMismatch) as err:
        run_rtl_checked(p, 10, qdepth, policy, 4000, seed=4, twin=twin, max_n=120)
    msg = str(err.value)
    assert "mismatch at cycle" in msg and "seed=4" in msg and "twin:" in msg and "rtl:" in msg


def test_unmutated_twin_passes_the_same_runs():
    """The same seeds with the real twin raise nothing (so the catches above are the mutations)."""
    for policy in ("steal", "rr"):
        run_twin_checked(CtaSchedTwin(3, 12, 16, policy), 30000, seed=4, max_n=200)
        run_rtl_checked(3, 10, 16, policy, 4000, seed=4, max_n=120)

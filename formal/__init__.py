"""Bounded model checking of block invariants (``gpusched prove``): one properties wrapper per
block in ``formal/props_*.py``, a port-level mutant per block that the prover must catch.

Proofs run at small parameters (the invariants do not depend on the sizes) so that depth 20
is reached in seconds to a minute; see docs/formal.md for the sizes, figures and traces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gpusched.config import ConfigError


@dataclass(frozen=True)
class Case:
    block: str
    label: str                      # parameters of this proof, for reports
    make_dut: Callable[[], object]
    props: type
    mutant: Callable                # corrupt(m, inner) -> {port: value}
    mutant_doc: str


def _cases() -> list[Case]:
    from formal.props_perf_sat import PerfSatProps, mutant_si_overshoots
    from formal.props_warp_sched import WarpSchedProps, mutant_grant_launching
    from hdl.perf_sat import PerfSatCtrl
    from hdl.warp_sched import WarpSched
    cases = [Case("warp_sched", f"W=4 policy={pol}", lambda pol=pol: WarpSched(4, pol),
                  WarpSchedProps, mutant_grant_launching, mutant_grant_launching.__doc__)
             for pol in ("lrr", "gto")]
    cases.append(Case("perf_sat", "n_bits=3 tb_bits=4 period_bits=6 stall_bits=8",
                      lambda: PerfSatCtrl(3, 4, 6, 8), PerfSatProps, mutant_si_overshoots,
                      mutant_si_overshoots.__doc__))
    return cases


def proof_blocks() -> list[str]:
    return sorted({c.block for c in _cases()})


def cases_for(block: str) -> list[Case]:
    found = [c for c in _cases() if c.block == block]
    if not found:
        raise ConfigError("BLOCK", block, "blocks with proofs: " + ", ".join(proof_blocks()))
    return found


def build(case: Case, mutant: bool = False):
    """The properties wrapper of ``case`` around the block (or around its mutant)."""
    from formal.mutant import Mutant
    dut = case.make_dut()
    if mutant:
        dut = Mutant(dut, case.mutant, case.mutant_doc)
    return case.props(dut)

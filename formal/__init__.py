"""Proofs of block invariants (``gpusched prove``): one properties wrapper per block in
``formal/props_*.py``, a mutant per block that the prover must catch.

Proofs run at small parameters (the invariants do not depend on the sizes): unbounded by PDR
(formal/pdr.py) or, for cases with helper invariants, by k-induction (``formal.bmc.
prove_inductive``); ``depth`` is the bound of the BMC fallback (formal/bmc.py) used with
``--depth`` or when PDR times out; see docs/formal.md.
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
    depth: int = 20                 # the depth gpusched verify proves it to
    make_mutant: Callable | None = None   # a mutant block of its own (instead of a port shell)
    pdr: bool = True                # False: PDR is undecided within 10 min, prove by BMC to depth
    induction: int = 0              # k > 0: unbounded by k-induction with the helper invariants


def _cases() -> list[Case]:
    from formal.props_cta_sched import CtaSchedProps, mutant_same_id_twice
    from formal.props_perf_sat import PerfSatProps, mutant_si_overshoots
    from formal.props_warp_sched import WarpSchedProps, mutant_grant_launching
    from formal.props_swm import SwmProps, mutant_sample_withdrawn
    from formal.props_socgpu import SocgpuIssueIgnoringDM, SocgpuProps
    from hdl.socgpu_issue import SocgpuIssue
    from hdl.cta_sched import CtaSched
    from hdl.onac import OnacCtrl
    from hdl.perf_sat import PerfSatCtrl
    from hdl.seq_det import SeqDetCtrl
    from hdl.warp_sched import WarpSched
    cases = [Case("warp_sched", f"W=4 policy={pol}", lambda pol=pol: WarpSched(4, pol),
                  WarpSchedProps, mutant_grant_launching, mutant_grant_launching.__doc__)
             for pol in ("lrr", "gto")]
    for name, cls in (("onac", OnacCtrl), ("seq_det", SeqDetCtrl)):
        cases.append(Case(name, "M=2 count_bits=4 ipc_bits=4 ipc_frac=1",
                          lambda cls=cls: cls(2, 4, 4, 1), SwmProps, mutant_sample_withdrawn,
                          mutant_sample_withdrawn.__doc__))
    for pol in ("rr", "chunk", "steal"):
        cases.append(Case("cta_sched", f"C=2 ID_W=4 QDEPTH=2 policy={pol}",
                          lambda pol=pol: CtaSched(2, 4, 2, pol), None, mutant_same_id_twice,
                          mutant_same_id_twice.__doc__, depth=12, pdr=pol == "rr",
                          induction=0 if pol == "rr" else 1))
    cases.append(Case("perf_sat", "n_bits=3 tb_bits=4 period_bits=6 stall_bits=8",
                      lambda: PerfSatCtrl(3, 4, 6, 8), PerfSatProps, mutant_si_overshoots,
                      mutant_si_overshoots.__doc__))
    soc = dict(N=4, S=2, D=1, RW=3, PW=4, W=1)
    cases.append(Case("socgpu_issue", "N=4 S=2 D=1 RW=3 PW=4 W=1 policy=first dual=on",
                      lambda: SocgpuIssue(**soc), SocgpuProps, None,
                      SocgpuIssueIgnoringDM.__doc__,
                      make_mutant=lambda: SocgpuIssueIgnoringDM(**soc), pdr=False,
                      induction=1))            # 1-inductive as it stands (no helpers needed)
    cases += _owl_cases()
    cases += _phase_cases()
    from formal.props_ck_dispatch import CkDispatchProps, mutant_accepts_over_cap
    from hdl.ck_dispatch import CkDispatch
    for pol in ("baseline", "sequential", "interleaved"):   # depth 10: step 9 alone takes ~35 s in z3
        cases.append(Case("ck_dispatch", f"K=2 NC=2 BW=3 MW=2 policy={pol}",
                          lambda pol=pol: CkDispatch(2, 2, 3, 2, pol),
                          lambda dut: CkDispatchProps(dut, 2, 2, 3, 2), mutant_accepts_over_cap,
                          mutant_accepts_over_cap.__doc__, depth=10))
    from formal.props_owl_prefetch import OwlPrefetchProps
    from hdl.owl_prefetch import OwlPrefetch
    for scheme in ("a", "b"):
        cases.append(Case("owl_prefetch", f"BANKS=2 LINES=4 LOWER=2 HIGHER=3 SCHEME={scheme}",
                          lambda s=scheme: OwlPrefetch(2, 4, 2, 3, s), OwlPrefetchProps, None,
                          "a prefetcher that ignores pending demands (the RTL's ignore_demands)",
                          depth=6,
                          make_mutant=lambda s=scheme: OwlPrefetch(2, 4, 2, 3, s, ignore_demands=True)))
    cases += _kernel_sched_cases()
    return cases


def _kernel_sched_cases() -> list[Case]:
    """kernel_sched at K=2, NSM=2 and narrow values (our test plan for [SRTF];
    formal/props_kernel_sched.py)."""
    from formal.props_kernel_sched import (KernelSchedProps, mutant_fifo_bypass,
                                           mutant_fill_first, mutant_mpmax_cap_plus_one,
                                           mutant_run_on_sample_sm, mutant_share_cap_4)
    from hdl.kernel_sched import KernelSched
    cases = [Case("kernel_sched", f"K=2 NSM=2 CW=4 BW=4 RW=2 policy={pol}",
                  lambda pol=pol: KernelSched(2, 2, 4, 4, 2, policy=pol), KernelSchedProps,
                  mut, mut.__doc__)
             for pol, mut in (("fifo", mutant_fifo_bypass), ("srtf", mutant_run_on_sample_sm),
                              ("srtf_zero", mutant_fill_first))]
    limits = "15,15,15,8,15"        # below 2**FW: caps of 1, 2 and 3 and reservations all occur
    cases.append(Case("kernel_sched", f"K=2 NSM=2 CW=4 BW=4 RW=2 FW=4 LIMITS={limits} policy=mpmax",
                      lambda: KernelSched(2, 2, 4, 4, 2, policy="mpmax", FW=4, LIMITS=limits),
                      KernelSchedProps, mutant_mpmax_cap_plus_one,
                      mutant_mpmax_cap_plus_one.__doc__))
    cases.append(Case("kernel_sched", "K=2 NSM=2 CW=4 BW=4 RW=3 policy=adaptive",
                      lambda: KernelSched(2, 2, 4, 4, 3, policy="adaptive"), KernelSchedProps,
                      mutant_share_cap_4, mutant_share_cap_4.__doc__))
    return cases


def _phase_cases() -> list[Case]:
    """The phase-aware schedulers (formal/props_phase.py), proved as warp_sched policies."""
    from formal.props_phase import PhaseSelectProps, QueuesProps, early_release_queues
    from formal.props_warp_sched import mutant_grant_launching
    from hdl.phase_queues import TwoLevelQueues
    from hdl.phase_select import PhaseAwareSelect
    cases = [Case("warp_sched", "W=4 policy=phase", lambda: PhaseAwareSelect(4), PhaseSelectProps,
                  mutant_grant_launching, mutant_grant_launching.__doc__)]
    for pol in ("tlrr", "tlgto", "tlphase"):
        cases.append(Case("warp_sched", f"W=4 N=2 policy={pol}",
                          lambda pol=pol: TwoLevelQueues(4, 2, pol), QueuesProps,
                          None, early_release_queues.__doc__, depth=12,
                          make_mutant=lambda pol=pol: early_release_queues(4, 2, pol)))
    cases.append(Case("warp_sched", "W=4 N=2 policy=tlphase_rr",
                      lambda: TwoLevelQueues(4, 2, "tlphase_rr"), QueuesProps, None,
                      early_release_queues.__doc__, depth=12,
                      make_mutant=lambda: early_release_queues(4, 2, "tlphase_rr")))
    return cases


def _owl_cases() -> list[Case]:
    """OWL's schedulers at W=4, g_size=2, G=2 (two groups of CTAs reachable in two launches)."""
    from formal.props_owl import OwlProps, mutant_ignore_groups
    from hdl.owl import OwlSched
    return [Case("warp_sched", f"W=4 policy={pol} g_size=2 G=2",
                 lambda pol=pol: OwlSched(4, pol, 2, 2), OwlProps, mutant_ignore_groups,
                 mutant_ignore_groups.__doc__)
            for pol in ("owl_cta", "owl_locality", "owl_blp", "owl_locality_rot", "owl_blp_rot")]


def proof_blocks() -> list[str]:
    return sorted({c.block for c in _cases()})


def cases_for(block: str) -> list[Case]:
    found = [c for c in _cases() if c.block == block]
    if not found:
        raise ConfigError("BLOCK", block, "blocks with proofs: " + ", ".join(proof_blocks()))
    return found


def build(case: Case, mutant: bool = False, helpers: bool = False):
    """The properties wrapper of ``case`` around the block (or around its mutant); ``helpers``
    adds the strengthening invariants a k-induction proof needs (cta_sched)."""
    from formal.mutant import Mutant
    if mutant and case.make_mutant is not None:
        dut = case.make_mutant()
    elif mutant:
        dut = Mutant(case.make_dut(), case.mutant, case.mutant_doc)
    else:
        dut = case.make_dut()
    if case.props is None:        # cta_sched: the wrapper needs the shape
        from formal.props_cta_sched import CtaSchedProps
        return CtaSchedProps(dut, 2, 4, helpers=helpers)
    return case.props(dut)

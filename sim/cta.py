"""Kernels in flight and their CTAs; the occupancy limit of [GPGPU-Sim issue_block2core()]

``KernelRun`` is one launched kernel as the schedulers see it (CTAs handed out in linear id
order, start/end cycles, instruction count). ``CTA`` is one resident thread block: its warps and
its barrier. ``occupancy_limit`` is GPGPU-Sim's ``max_cta()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusched.config import ConfigError, SMConfig
from sim.workload.kernel import Kernel


@dataclass(frozen=True)
class Occupancy:
    """Per-SM CTA limit of one kernel and the term that sets it ([GPGPU-Sim issue_block2core()])."""
    limit: int
    limiter: str            # threads | shared_memory | registers | cta_slots | small_grid
    terms: dict


def occupancy_limit(sm: SMConfig, kernel: Kernel, n_sms: int, clamp_small_grid: bool = True) -> Occupancy:
    """min(threads ÷ padded CTA, smem ÷ CTA smem, regs ÷ (padded × regs rounded up to 4), CTA slots).

    The CTA size is padded to whole warps; the shared-memory and register terms are skipped when
    the kernel uses none; a limit below 1 is an input error. With ``clamp_small_grid`` (default
    kernel mode), a grid with fewer CTAs than limit × SMs gets ceil(CTAs ÷ SMs) per SM.
    """
    padded = kernel.warps_per_cta(sm.warp_size) * sm.warp_size
    terms = {"threads": sm.threads_per_sm // padded, "cta_slots": sm.max_ctas_per_sm}
    if kernel.smem_per_cta:
        terms["shared_memory"] = sm.smem_per_sm // kernel.smem_per_cta
    if kernel.regs_per_thread:
        regs = -(-kernel.regs_per_thread // 4) * 4
        terms["registers"] = sm.regs_per_sm // (padded * regs)
    limiter = min(terms, key=lambda k: (terms[k], k))
    limit = terms[limiter]
    if limit < 1:
        raise ConfigError(f"kernel {kernel.name}", f"block {kernel.block}",
                          f"one CTA does not fit on an SM: {limiter} allow 0 CTAs (CTAs per SM by "
                          f"resource: {terms})")
    if clamp_small_grid and kernel.n_ctas < limit * n_sms:
        clamped = -(-kernel.n_ctas // n_sms)
        if clamped < limit:
            limit, limiter = clamped, "small_grid"
    return Occupancy(limit, limiter, terms)


class KernelRun:
    """One launched kernel: CTA issue cursor, completion count, timing and statistics."""

    __slots__ = ("kernel", "index", "slot", "n_ctas", "warps_per_cta", "padded_threads",
                 "regs_per_cta", "smem_per_cta", "occupancy", "next_cta", "ctas_done",
                 "launched_at", "ready_at", "start", "end", "warp_insts", "ctas", "n_sms",
                 "local_pcs")

    def __init__(self, kernel: Kernel, index: int, sm: SMConfig, n_sms: int, concurrent: bool):
        self.kernel, self.index, self.slot = kernel, index, -1
        self.n_ctas = kernel.n_ctas
        self.warps_per_cta = kernel.warps_per_cta(sm.warp_size)
        self.padded_threads = self.warps_per_cta * sm.warp_size
        self.regs_per_cta = self.padded_threads * (-(-kernel.regs_per_thread // 4) * 4)
        self.smem_per_cta = kernel.smem_per_cta
        self.occupancy = occupancy_limit(sm, kernel, n_sms, clamp_small_grid=not concurrent)
        self.n_sms = n_sms
        # the PCs of its local loads and stores (LDL/STL), whose addresses the SM translates
        self.local_pcs: frozenset[int] = frozenset(kernel.meta.get("local_pcs", ()))
        self.next_cta = 0           # CTAs placed so far = next linear id to hand out in order
        self.ctas_done = 0
        self.launched_at = self.ready_at = self.start = self.end = -1
        self.warp_insts = 0
        self.ctas: list[tuple[int, int, int, int]] = []   # (cta id, sm, start, end)

    @property
    def name(self) -> str:
        return self.kernel.name

    def has_ctas_left(self) -> bool:
        return self.next_cta < self.n_ctas

    def finished(self) -> bool:
        return self.ctas_done == self.n_ctas


class CTA:
    """A resident CTA: its warps, CTA slot, first warp slot, barrier state."""

    __slots__ = ("run", "cta_id", "sm_id", "cta_slot", "warp_base", "warps", "n_warps",
                 "n_exited", "n_finished", "bar_arrived", "start")

    def __init__(self, run: KernelRun, cta_id: int, sm_id: int, cta_slot: int, warp_base: int, start: int):
        self.run, self.cta_id, self.sm_id = run, cta_id, sm_id
        self.cta_slot, self.warp_base, self.start = cta_slot, warp_base, start
        self.warps: list = []
        self.n_warps = run.warps_per_cta
        self.n_exited = self.n_finished = self.bar_arrived = 0

    def barrier_complete(self) -> bool:
        """All warps that have not exited are at the barrier (GPGPU-Sim ``barrier_set_t``:
        an exited warp no longer holds a barrier back)."""
        return self.bar_arrived > 0 and self.bar_arrived + self.n_exited == self.n_warps

"""CTA residency of an SM: launch into free CTA and warp slots, barriers, warp exit and finish,
CTA finish (the base of ``sim.sm.SM``, compiled with it; its fields are declared here)."""

from __future__ import annotations

from sim.cta import CTA, KernelRun
from sim.sm_memory import SMMemory
from sim.warp import WS_DONE, Warp


class SMResidency(SMMemory):
    """Warp and CTA slots of an SM and the resources its resident CTAs hold."""

    n_slots: int
    n_sub: int
    max_ctas: int
    threads_cap: int
    regs_cap: int
    smem_cap: int
    slots: list[Warp | None]
    ctas: list[CTA | None]
    n_ctas: int
    n_warps: int
    threads_used: int
    regs_used: int
    smem_used: int
    warp_used: int
    ib_empty: int
    next_dyn_id: int
    deferred: list[Warp]
    ctas_launched: int

    def poke(self, cycle: int) -> None:
        """Something outside the SM changed its state: run it at ``cycle``."""
        if cycle < self.wake:
            self.wake = cycle
        if cycle < self.core_wake:
            self.core_wake = cycle

    def arrive_barrier(self, w: Warp, now: int) -> None:
        cta = w.cta
        w.at_barrier = True
        cta.bar_arrived += 1
        if cta.barrier_complete():
            self.release_barrier(cta)

    def release_barrier(self, cta: CTA) -> None:
        """Released warps become eligible from the next cycle (re-evaluated after fetch)."""
        cta.bar_arrived = 0
        for w in cta.warps:
            if w.at_barrier:
                w.at_barrier = False
                self.deferred.append(w)

    def exit_warp(self, w: Warp, now: int) -> None:
        w.exited = True
        cta = w.cta
        cta.n_exited += 1
        if cta.barrier_complete():
            self.release_barrier(cta)
        if not w.pending and not w.mem_out:
            self.finish_warp(w, now)

    def finish_warp(self, w: Warp, now: int) -> None:
        w.finished = True
        w.subcore.remove(w)
        w.state = WS_DONE
        cta = w.cta
        cta.run.warp_insts += w.n_insts
        cta.n_finished += 1
        if cta.n_finished == cta.n_warps:
            self.finish_cta(cta, now)

    def finish_cta(self, cta: CTA, now: int) -> None:
        for w in cta.warps:
            self.slots[w.slot] = None
            w.subcore.slots[w.bit.bit_length() - 1] = None
        n = cta.n_warps
        self.warp_used &= ~(((1 << n) - 1) << cta.warp_base)
        self.ctas[cta.cta_slot] = None
        self.n_ctas -= 1
        self.n_warps -= n
        run = cta.run
        self.threads_used -= run.padded_threads
        self.regs_used -= run.regs_per_cta
        self.smem_used -= run.smem_per_cta
        self.gpu.cta_finished(now, self, cta)

    def free_warp_base(self, n: int) -> int:
        """First free range of ``n`` warp slots starting at a multiple of ``n``, or -1."""
        full = (1 << n) - 1
        for base in range(0, self.n_slots - n + 1, n):
            if not (self.warp_used >> base) & full:
                return base
        return -1

    def fits(self, run: KernelRun) -> bool:
        """Room for one more CTA of ``run``: CTA slot, warp slots, threads, registers, smem."""
        return (self.n_ctas < self.max_ctas
                and self.threads_used + run.padded_threads <= self.threads_cap
                and self.regs_used + run.regs_per_cta <= self.regs_cap
                and self.smem_used + run.smem_per_cta <= self.smem_cap
                and self.free_warp_base(run.warps_per_cta) >= 0)

    def launch_cta(self, now: int, run: KernelRun, cta_id: int) -> CTA:
        """Place CTA ``cta_id`` of ``run`` in the lowest free CTA slot (at the end of cycle now)."""
        self.catch_up(now + 1)
        cta_slot = self.ctas.index(None)
        n = run.warps_per_cta
        base = self.free_warp_base(n)
        cta = CTA(run, cta_id, self.sm_id, cta_slot, base, now)
        for sc in self.subcores:        # the launch fields of the warp-scheduler port
            port = sc.port
            port.launch_cta, port.launch_kernel = cta_slot & 63, run.index & 255
            port.warps_per_cta, port.resident_ctas = n & 127, run.occupancy.limit & 127
        stream = run.kernel.stream
        for k in range(n):
            s = base + k
            sc = self.subcores[s % self.n_sub]
            w = Warp(s, self.next_dyn_id, cta, k, stream(cta_id, k), sc, 1 << (s // self.n_sub))
            self.next_dyn_id += 1
            self.slots[s] = w
            sc.add(w)
            cta.warps.append(w)
            self.ib_empty |= 1 << s
        self.warp_used |= ((1 << n) - 1) << base
        self.ctas[cta_slot] = cta
        self.n_ctas += 1
        self.n_warps += n
        self.threads_used += run.padded_threads
        self.regs_used += run.regs_per_cta
        self.smem_used += run.smem_per_cta
        self.ctas_launched += 1
        self.poke(now + 1)
        return cta

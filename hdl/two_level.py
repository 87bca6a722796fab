"""GPGPU-Sim's two-level active warp scheduler, inner LRR / outer SRR ([GPGPU-Sim
two_level_active_scheduler]), on the warp-scheduler port (hdl/params/warp_sched.py; twin:
sim/blocks/two_level.py).

State: ``order``, a permutation of the W slots; its first N entries are the active list (in
order), the rest the pending FIFO (front first). Start-up: slots in order (the N lowest active).

Each cycle, combinationally, before the walk:
1. Demote: active warps that wait — not ``valid`` (empty or exited slots count as waiting), at a
   ``barrier``, or ``mem_wait`` (head reads a long-op register, or a fence) — go, in order, to the
   back of the pending FIFO.
2. Promote: the pending FIFO's front refills the active list to N (nothing checked, so a warp
   just demoted can come straight back).
   Both steps together are one stable partition of ``order`` by a key: kept active (0), pending
   (1), demoted (2); the first N of the result are the new active list.
3. Walk: the first ``ready`` warp of the active list is granted (the inner LRR is the rotation).
4. Rotation on issue (at the clock edge): the active list turns so that the entry after the
   issuer comes first and the issuer goes last (once per issuing warp per cycle, the gpusched
   default of [GPGPU-Sim two_level_active_scheduler]; GPGPU-Sim's per-instruction double rotation
   under dual issue is not built).
The state moves every cycle even without a grant, so the model's registry marks the policy
``every_cycle``.
"""

from __future__ import annotations

from amaranth.hdl import Array, Const, Module, Signal
from amaranth.lib import wiring

from hdl.params.warp_sched import check_params, idx_width, ports

from .common import first_one_hot, signature_of


class TwoLevelActive(wiring.Component):
    """Two-level active scheduler over ``n_warps`` slots with ``n_active`` active warps."""

    def __init__(self, n_warps: int, n_active: int):
        check_params(n_warps, "two_level", n_active)
        self.n_warps, self.n_active = n_warps, n_active
        super().__init__(signature_of(ports(n_warps)))

    def elaborate(self, platform):
        m = Module()
        w, n = self.n_warps, self.n_active
        iw = idx_width(w)
        cw = w.bit_length()                 # counts 0..W
        order = Array(Signal(iw, name=f"order_{i}", init=i) for i in range(w))

        waiting = Signal(w)
        m.d.comb += waiting.eq(~self.valid | self.barrier | self.mem_wait)

        # 1-2: destination of every position in the stable partition (kept, pending, demoted)
        kept_before = Const(0, cw)
        dest = []
        for i in range(w):
            d = Signal(cw, name=f"dest_{i}")
            if i < n:
                wait_i = Signal(name=f"wait_{i}")
                m.d.comb += wait_i.eq(waiting.bit_select(order[i], 1))
                k_i = Signal(cw, name=f"kept_before_{i}")
                m.d.comb += k_i.eq(kept_before)
                demoted_at = Signal(cw, name=f"demoted_dest_{i}")
                dest.append((d, wait_i, k_i, demoted_at, i))
                nxt = Signal(cw, name=f"kept_upto_{i}")
                m.d.comb += nxt.eq(k_i + ~wait_i)
                kept_before = nxt
            else:
                dest.append((d, None, None, None, i))
        n_kept = kept_before
        for d, wait_i, k_i, demoted_at, i in dest:
            if wait_i is None:
                m.d.comb += d.eq(n_kept + (i - n))
            else:
                m.d.comb += demoted_at.eq(n_kept + (w - n) + i - k_i)
                with m.If(wait_i):
                    m.d.comb += d.eq(demoted_at)
                with m.Else():
                    m.d.comb += d.eq(k_i)
        seq = []
        for j in range(w):
            s_j = Signal(iw, name=f"seq_{j}")
            hits = [Signal(iw, name=f"seq_{j}_from_{i}") for i in range(w)]
            for (d, *_), (i, h) in zip(dest, enumerate(hits)):
                m.d.comb += h.eq(order[i] & (d == j).replicate(iw))
            acc = hits[0]
            for h in hits[1:]:
                acc = acc | h
            m.d.comb += s_j.eq(acc)
            seq.append(s_j)

        # 3: the first ready warp of the new active list
        ready_at = Signal(n)
        for j in range(n):
            m.d.comb += ready_at[j].eq(self.ready.bit_select(seq[j], 1))
        pick = first_one_hot(m, ready_at, n, "pick")
        idx = Signal(iw)
        acc = Const(0, iw)
        for j in range(n):
            acc = acc | (seq[j] & pick[j].replicate(iw))
        m.d.comb += idx.eq(acc)
        m.d.comb += [
            self.grant_valid.eq(ready_at.any()),
            self.grant_idx.eq(idx),
            self.grant.eq(ready_at.any() << idx),
        ]

        # 4: next order; the active list rotated to start after the issuer when one issued
        for j in range(w):
            if j >= n:
                m.d.sync += order[j].eq(seq[j])
                continue
            rot = Const(0, iw)
            for p in range(n):
                rot = rot | (seq[(j + p + 1) % n] & pick[p].replicate(iw))
            with m.If(ready_at.any()):
                m.d.sync += order[j].eq(rot)
            with m.Else():
                m.d.sync += order[j].eq(seq[j])
        return m

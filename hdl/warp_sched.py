"""LRR, GTO and oldest-first warp arbiters of one sub-core ([GPGPU-Sim shader.cc]), on the
warp-scheduler port (hdl/params/warp_sched.py; the twin: sim/blocks/warp_sched.py).

They read ``ready`` and ``launch`` only. State and policy rules:

- ``last``: the last-issued slot, updated only in a cycle with a grant (a cycle without issue
  leaves it unchanged; a new warp in that slot does not move it).
- LRR: walk the slots circularly starting after ``last``; at start-up ``last`` = W-1, so the
  first walk starts at slot 0 (same as GPGPU-Sim's "unset pointer → lowest slot").
- GTO: the greedy slot ``last`` first (initially slot 0), then the oldest ready slot.
- ``old``: the oldest ready slot (GTO's age order without the greedy entry, [GPGPU-Sim shader.cc]).
- Age is a full age matrix, one W-bit row per slot naming the slots older than it (W(W-1)
  flops, the AGE[N][N] convention of our SOCGPU blocks); it starts as "lower slot is older".
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring

from hdl.params.warp_sched import check_params, idx_width, ports

from .common import first_one_hot, one_hot_index, prefix_or, signature_of

ARBITERS = ("lrr", "gto", "old")


class WarpSched(wiring.Component):
    """LRR / GTO / oldest warp arbiter for ``n_warps`` slots (policy: a constructor parameter)."""

    def __init__(self, n_warps: int, policy: str):
        check_params(n_warps, policy)
        if policy not in ARBITERS:
            raise ValueError(f"policy = {policy!r}: this arbiter implements {', '.join(ARBITERS)}")
        self.n_warps, self.policy = n_warps, policy
        super().__init__(signature_of(ports(n_warps)))

    def elaborate(self, platform):
        m = Module()
        w = self.n_warps
        init_last = w - 1 if self.policy == "lrr" else 0
        last = Signal(idx_width(w), init=init_last)
        last_hot = Signal(w)
        m.d.comb += last_hot.eq(1 << last)

        if self.policy == "lrr":
            grant = self._lrr(m, last_hot)
        else:
            grant = self._gto(m, last_hot)

        m.d.comb += [
            self.grant.eq(grant),
            self.grant_valid.eq(self.ready.any()),
            self.grant_idx.eq(one_hot_index(m, grant, w, "grant_idx_enc")),
        ]
        with m.If(self.grant_valid):
            m.d.sync += last.eq(self.grant_idx)
        return m

    def _lrr(self, m: Module, last_hot: Signal) -> Signal:
        """First ready slot strictly after ``last``, else the first ready slot (wrap-around)."""
        w = self.n_warps
        seen = prefix_or(m, last_hot, w, "upto_last")
        upper = Signal(w)
        m.d.comb += upper.eq(self.ready & (seen << 1)[:w])
        pick_upper = first_one_hot(m, upper, w, "pick_upper")
        pick_any = first_one_hot(m, self.ready, w, "pick_any")
        grant = Signal(w)
        m.d.comb += grant.eq(Mux(upper.any(), pick_upper, pick_any))
        return grant

    def _gto(self, m: Module, last_hot: Signal) -> Signal:
        """Greedy slot if ready (GTO only), else the oldest ready slot (age matrix)."""
        w = self.n_warps
        full = (1 << w) - 1
        # older_than[i] bit j: slot j holds an older warp than slot i. The diagonal is constant 0
        # and not stored: row[i] keeps the other W-1 bits.
        rows = [Signal(w - 1, name=f"age_row_{i}", init=(1 << i) - 1) for i in range(w)]
        older_than = []
        for i, row in enumerate(rows):
            full_row = Signal(w, name=f"older_than_{i}")
            m.d.comb += full_row.eq(Cat(row[:i], Const(0, 1), row[i:]))
            older_than.append(full_row)
        oldest = Signal(w)
        for i in range(w):
            m.d.comb += oldest[i].eq(self.ready[i] & ~(self.ready & older_than[i]).any())

        grant = Signal(w)
        if self.policy == "gto":
            greedy_ready = Signal()
            m.d.comb += greedy_ready.eq((self.ready & last_hot).any())
            m.d.comb += grant.eq(Mux(greedy_ready, last_hot, oldest))
        else:
            m.d.comb += grant.eq(oldest)

        # Launch: launched slots become younger than every other slot; among themselves the lower
        # slot is older (warps launch in slot order).
        not_self = [Const(full & ~(1 << i), w) for i in range(w)]
        below = [Const((1 << i) - 1, w) for i in range(w)]
        for i in range(w):
            relaunched = (~self.launch | (self.launch & below[i])) & not_self[i]
            stays = older_than[i] & ~self.launch
            new = Signal(w, name=f"age_next_{i}")
            m.d.comb += new.eq(Mux(self.launch[i], relaunched, stays))
            with m.If(self.launch.any()):
                m.d.sync += rows[i].eq(Cat(new[:i], new[i + 1:]))
        return grant

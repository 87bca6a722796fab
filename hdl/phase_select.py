"""Single-level phase-aware warp scheduler ([THESIS §3.4.2.2] ``PhaseAwareSelect``) on the
warp-scheduler port (hdl/params/warp_sched.py; twin: sim/blocks/phase_select.py).

Grant: among the ``ready`` slots, the one with the smallest ``distance`` field (the phase
distance of its next instruction), ties to the oldest warp. Age is an age matrix (one row per
slot naming the slots older than it, W(W-1) flops, as in hdl/warp_sched.py), updated on
``launch``. The minimum is an all-pairs comparison: slot i wins if, for every other ready slot
j, (d_i, age_i) < (d_j, age_j); each unordered pair is compared once (W(W-1)/2 9-bit
comparators), the reverse is its complement since the key is a strict total order.

The helpers ``order_matrix`` and ``min_select`` are shared with hdl/phase_queues.py.
"""

from __future__ import annotations

from typing import Callable

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring

from hdl.params.warp_sched import DIST_BITS, check_params, ports

from .common import one_hot_index, signature_of


def order_matrix(m: Module, event: Value, w: int, name: str) -> list[Signal]:
    """A precedence order of the W slots: ``before[i]`` bit j = slot j precedes slot i. Slots
    with ``event`` set go after all others at the clock edge (lower slot first among them);
    at start-up lower slots precede."""
    full = (1 << w) - 1
    rows = [Signal(w - 1, name=f"{name}_row_{i}", init=(1 << i) - 1) for i in range(w)]
    before = []
    for i, row in enumerate(rows):
        r = Signal(w, name=f"{name}_before_{i}")
        m.d.comb += r.eq(Cat(row[:i], Const(0, 1), row[i:]))
        before.append(r)
    for i in range(w):
        moved = (~event | (event & Const((1 << i) - 1, w))) & Const(full & ~(1 << i), w)
        kept = before[i] & ~event
        new = Signal(w, name=f"{name}_next_{i}")
        m.d.comb += new.eq(Mux(event[i], moved, kept))
        with m.If(event.any()):
            m.d.sync += rows[i].eq(Cat(new[:i], new[i + 1:]))
    return before


def min_select(m: Module, mask: Value, w: int, first: Callable[[int, int], Value],
               name: str) -> Signal:
    """One-hot: the slot of ``mask`` that comes first under a strict total order, given as
    ``first(i, j)`` (i before j) for i < j only; zero when ``mask`` is empty."""
    wins = Signal(w, name=f"{name}_win")
    pair = {}
    for i in range(w):
        for j in range(i + 1, w):
            s = Signal(name=f"{name}_{i}_before_{j}")
            m.d.comb += s.eq(first(i, j))
            pair[i, j] = s
    for i in range(w):
        beats = [~mask[j] | (pair[i, j] if i < j else ~pair[j, i]) for j in range(w) if j != i]
        ok = mask[i]
        for b in beats:
            ok = ok & b
        m.d.comb += wins[i].eq(ok)
    return wins


def distance_fields(dut, w: int) -> list[Value]:
    return [dut.distance[i * DIST_BITS:(i + 1) * DIST_BITS] for i in range(w)]


class PhaseAwareSelect(wiring.Component):
    """Smallest phase distance, then the oldest, over ``n_warps`` slots."""

    def __init__(self, n_warps: int):
        check_params(n_warps, "phase")
        self.n_warps = n_warps
        super().__init__(signature_of(ports(n_warps)))

    def elaborate(self, platform):
        m = Module()
        w = self.n_warps
        older = order_matrix(m, self.launch, w, "age")
        d = distance_fields(self, w)
        grant = min_select(m, self.ready, w,
                           lambda i, j: (d[i] < d[j]) | ((d[i] == d[j]) & older[j][i]), "pick")
        m.d.comb += [
            self.grant.eq(grant),
            self.grant_valid.eq(self.ready.any()),
            self.grant_idx.eq(one_hot_index(m, grant, w, "grant_idx_enc")),
        ]
        return m

"""Helper invariants of cta_sched's Steal policy ([IKRA Steal]); see props_cta_sched_helpers.

Per CU: the ids it *owns* — its chunk [lo, hi) and its queue entries [q_lo, q_hi) — and, while a
kernel runs, the ids it will still *offer*: the walking part of the chunk and the queue ([cur,
hi), [q_cur, q_hi) in phase 0; [lo, cur), [q_lo, q_cur) in phase 1) and its stolen TB. Between
kernels the owned sets partition [0, N) unless a queue overflowed (then the next launch
re-chunks); while a kernel runs the offered sets and the dispatched ids partition [0, N).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from hdl.ikra.params import GRID_WIDTHS

from .props_cta_sched_helpers import id_range


def _queue_set(m: Module, cu, a: Value, b: Value, width: int, qdepth: int, qw: int, name: str):
    """The entries at circular pointers [a, b) as a bit set, and 'no entry twice' for them."""
    length = Signal(qw, name=f"{name}_len")
    m.d.comb += length.eq(b - a)
    inside = []
    for e in range(qdepth):
        off = Signal(qw - 1, name=f"{name}_off{e}")
        m.d.comb += off.eq(Const(e, qw - 1) - a[:qw - 1])
        inside.append(off < length)
    one = Const(1, width + 1)
    hots = [Mux(inside[e], (one << cu.entries[e])[:width], 0) for e in range(qdepth)]
    bits = Signal(width, name=f"{name}_set")
    m.d.comb += bits.eq(_or(hots))
    distinct = Cat(*[~(inside[e] & inside[f]) | (cu.entries[e] != cu.entries[f])
                     for e in range(qdepth) for f in range(e)]).all()
    return bits, distinct


def _or(values):
    out = values[0]
    for v in values[1:]:
        out = out | v
    return out


def _disjoint(sets) -> Value:
    return Cat(*[(a & b) == 0 for i, a in enumerate(sets) for b in sets[:i]]).all()


def steal_helpers(props, m: Module, sh, st, idw: int, p: int) -> None:
    f = st["unit"]["formal"]
    cus, fresh, reinit, prev_dims = f["cus"], f["fresh"], f["reinit"], f["prev_dims"]
    phase = st["unit"]["st_phase"]
    active, il = st["active"], st["init_left"]
    shape = cus[0].sh
    q, qw, width = shape.qdepth, shape.q_w, 1 << idw
    running = active & (il == 0)
    any_overflow = Cat(*[cu.overflow for cu in cus]).any()
    inv = props.invariant

    inv(m, "helper: before the first kernel nothing runs", ~fresh | ~active)
    gx, gy = GRID_WIDTHS[0], GRID_WIDTHS[1]
    inv(m, "helper: the last grid is (N, 1, 1)",
        fresh | ((prev_dims[:gx] == st["n"]) & (prev_dims[gx:gx + gy] == 1)
                 & (prev_dims[gx + gy:] == 1)))
    inv(m, "helper: no overflow between the re-chunking set-up and the run",
        ~active | (il == 0) | ((il != 1) & reinit) | ~any_overflow)

    owned, offered = [], []
    for i, cu in enumerate(cus):
        inv(m, "helper: lo <= hi, a queue holds at most QDEPTH",
            (cu.lo <= cu.hi) & ((cu.q_hi - cu.q_lo)[:qw] <= q))
        inv(m, "helper: running: the cursors lie inside their ranges",
            ~running | ((cu.lo <= cu.cur) & (cu.cur <= cu.hi)
                        & ((cu.q_cur - cu.q_lo)[:qw] <= (cu.q_hi - cu.q_lo)[:qw])))
        inv(m, "helper: no stolen TB outside a run", running | ~cu.stolen_valid)
        chunk = Signal(width, name=f"own_chunk{i}")
        m.d.comb += chunk.eq(id_range(cu.lo, cu.hi, width))
        queue, queue_distinct = _queue_set(m, cu, cu.q_lo, cu.q_hi, width, q, qw, f"fq_own{i}")
        owned.append((chunk, queue, queue_distinct))
        c_left = Signal(width, name=f"left_chunk{i}")
        m.d.comb += c_left.eq(Mux(phase, id_range(cu.lo, cu.cur, width),
                                  id_range(cu.cur, cu.hi, width)))
        q_a = Mux(phase, cu.q_lo, cu.q_cur)
        q_b = Mux(phase, cu.q_cur, cu.q_hi)
        q_left, q_left_distinct = _queue_set(m, cu, q_a, q_b, width, q, qw, f"fq_left{i}")
        stolen = Signal(width, name=f"left_stolen{i}")
        m.d.comb += stolen.eq(Mux(cu.stolen_valid,
                                  (Const(1, width + 1) << cu.stolen_tb)[:width], 0))
        offered += [c_left, q_left, stolen]
        inv(m, "helper: running: no id twice in a CU's queue part still to offer",
            ~running | q_left_distinct)

    owned_ok = ~fresh & ~any_overflow & ~(active & (il >= 2) & reinit)
    own_sets = [s for c, qs, _ in owned for s in (c, qs)]
    inv(m, "helper: without overflow the owned chunks and queues partition [0, N)",
        ~owned_ok | ((_or(own_sets) == sh.mask) & _disjoint(own_sets)
                     & Cat(*[d for _, _, d in owned]).all()))
    inv(m, "helper: running: dispatched ids and the ids still to offer partition [0, N)",
        ~running | (((sh.seen | _or(offered)) == sh.mask) & _disjoint([sh.seen] + offered)))

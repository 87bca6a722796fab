"""G unit (policy ``rr``, our cycle contract for [IKRA]): GPGPU-Sim-style round-robin dispatch.

One global counter ``next_tb``; CUs with ``slot_free`` are ranked in circular order from the
pointer (successor of ``last_cu``), CU i is offered ``next_tb + rank_i`` if that is < N. The offer
is combinational from ``slot_free`` (our cycle contract). At the edge ``next_tb`` advances by the
number of transfers and ``last_cu`` becomes the last served CU, so the next kernel starts after the
CU that received the previous kernel's last TB (our choice; initial ``last_cu`` = P−1).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from .circular import add_mod, latest_in_circular_order, rotate_down
from .control import Control, per_cu
from .params import IkraShape


def build_rr_unit(m: Module, sh: IkraShape, ctl: Control) -> dict[str, Value]:
    p, idw, cw = sh.n_cus, sh.id_w, sh.cu_w
    cnt_w = p.bit_length()                       # counts 0..P
    last_cu = Signal(cw, init=p - 1, name="last_cu")
    next_tb = Signal(idw, name="next_tb")
    ptr = add_mod(m, last_cu, Const(1, cw), p, cw, "rr_ptr")

    # Requests in circular order from the pointer, and how many come before each position.
    req = rotate_down(m, ctl.slot_free, ptr, p, "rr_req")
    before = [Signal(cnt_w, name=f"rr_before_{k}") for k in range(p + 1)]
    m.d.comb += before[0].eq(0)
    for k in range(p):
        m.d.comb += before[k + 1].eq(before[k] + req[k])
    # Back to CU order: rank_i = before[(i - ptr) mod P] (a rotation of the packed counts).
    packed = Cat(*before[:p])
    shift = Signal(range(p * cnt_w + 1), name="rr_rank_shift")
    ranks = Signal(p * cnt_w, name="rr_ranks")
    m.d.comb += [shift.eq((p - ptr) * cnt_w), ranks.eq((Cat(packed, packed) >> shift)[:p * cnt_w])]

    left = Signal(idw, name="rr_left")           # ids not yet handed out
    left_sat = Signal(cnt_w, name="rr_left_sat")
    taken = Signal(cnt_w, name="rr_taken")
    m.d.comb += [
        left.eq(ctl.n - next_tb),
        left_sat.eq(Mux(left >= p, p, left)),
        taken.eq(Mux(before[p] < left_sat, before[p], left_sat)),
    ]
    valid, ids = [], []
    for i in range(p):
        rank = ranks[i * cnt_w:(i + 1) * cnt_w]
        v = Signal(name=f"cu{i}_valid")
        tb = Signal(idw, name=f"cu{i}_tb")
        m.d.comb += [v.eq(ctl.running & ctl.slot_free[i] & (rank < left_sat)),
                     tb.eq(Mux(v, next_tb + rank, 0))]
        valid.append(v)
        ids.append(tb)
    valid_vec = Signal(p, name="rr_valid")
    m.d.comb += valid_vec.eq(Cat(*valid))
    any_xfer, latest = latest_in_circular_order(m, valid_vec, ptr, p, cw, "rr_last_served")

    with m.If(ctl.fire):
        m.d.sync += next_tb.eq(0)
    with m.Elif(ctl.running):
        m.d.sync += next_tb.eq(next_tb + taken)
        with m.If(any_xfer):
            m.d.sync += last_cu.eq(latest)

    out: dict[str, Value] = {"tb_valid": valid_vec, "st_last_cu": last_cu}
    per_cu(out, "tb_id", idw, ids)
    out["nowork"] = Cat(*[ctl.running & (left == 0) for _ in range(p)])
    return out

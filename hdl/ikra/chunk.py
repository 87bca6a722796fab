"""Chunk units ([IKRA Chunk]): the [IKRA Chunk] chunk formula and the C / R / F policies.

C, R and F recompute every CU's chunk at every launch, so a CU keeps only ``[lo, hi)`` and walks
one end of it: ``lo`` up when ascending, ``hi`` down when descending (F in odd launches). That is
the document's "two ids per CU" ([IKRA]); ``st_cur`` reports the walking end. The offer is registered
(our cycle contract): ``tb_id = lo`` (ascending) or ``hi − 1`` (descending).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from .circular import add_mod, latest_in_circular_order
from .control import Control, per_cu
from .params import IkraShape


def chunk_expr(m: Module, sh: IkraShape, pos: Value | int, base: Value, rem: Value,
               name: str) -> tuple[Signal, Signal]:
    """(start, end) of assignment position ``pos``: start = pos·base + min(pos, rem) ([IKRA Chunk]).

    ``pos`` is a constant for R, F and S (s = 0), so the product is a constant shift-add; only C
    needs a small variable multiplier (pos < P).
    """
    pos_v = Const(pos, sh.cu_w) if isinstance(pos, int) else pos
    extra = Signal(name=f"{name}_extra")
    start = Signal(sh.id_w, name=f"{name}_start")
    end = Signal(sh.id_w, name=f"{name}_end")
    m.d.comb += [
        extra.eq(pos_v < rem),
        start.eq(base * pos_v + Mux(extra, pos_v, rem)),
        end.eq(start + base + extra),
    ]
    return start, end


def build_chunk_unit(m: Module, sh: IkraShape, ctl: Control) -> dict[str, Value]:
    """C (rotation s = last_cu + 1), R (s = 0) or F (s = 0, direction toggles per launch)."""
    p, idw, cw = sh.n_cus, sh.id_w, sh.cu_w
    if sh.policy == "flip":
        phase = Signal(init=1, name="phase")   # 1 at reset: the first launch toggles it to 0
        with m.If(ctl.setup2):
            m.d.sync += phase.eq(~phase)
    else:
        phase = Const(0, 1)

    if sh.policy == "chunk":
        last_cu = Signal(cw, init=p - 1, name="last_cu")   # our choice: initial value P-1
        rot_start = Signal(cw, name="rot_start")            # s of the running kernel
        with m.If(ctl.fire):
            m.d.sync += rot_start.eq(add_mod(m, last_cu, Const(1, cw), p, cw, "next_start"))

    valid, ids, nowork, los, his, curs, xfers = [], [], [], [], [], [], []
    for i in range(p):
        lo = Signal(idw, name=f"cu{i}_lo")
        hi = Signal(idw, name=f"cu{i}_hi")
        if sh.policy == "chunk":
            pos = Signal(cw, name=f"cu{i}_pos")
            m.d.comb += pos.eq(Mux(rot_start <= i, i - rot_start, i + p - rot_start))
        else:
            pos = i
        start, end = chunk_expr(m, sh, pos, ctl.base, ctl.rem, f"cu{i}_chunk")
        avail = Signal(name=f"cu{i}_avail")
        v = Signal(name=f"cu{i}_valid")
        tb = Signal(idw, name=f"cu{i}_tb")
        xfer = Signal(name=f"cu{i}_xfer")
        m.d.comb += [
            avail.eq(lo < hi),
            v.eq(ctl.running & avail),
            tb.eq(Mux(v, Mux(phase, hi - 1, lo), 0)),
            xfer.eq(v & ctl.slot_free[i]),
        ]
        with m.If(ctl.setup1):
            m.d.sync += [lo.eq(start), hi.eq(end)]
        with m.Elif(xfer):
            with m.If(phase):
                m.d.sync += hi.eq(hi - 1)
            with m.Else():
                m.d.sync += lo.eq(lo + 1)
        valid.append(v)
        ids.append(tb)
        nowork.append(ctl.running & ~avail)
        los.append(lo)
        his.append(hi)
        curs.append(Mux(phase, hi, lo))
        xfers.append(xfer)

    out: dict[str, Value] = {"tb_valid": Cat(*valid), "nowork": Cat(*nowork), "st_phase": phase}
    per_cu(out, "tb_id", idw, ids)
    per_cu(out, "st_lo", idw, los)
    per_cu(out, "st_hi", idw, his)
    per_cu(out, "st_cur", idw, curs)
    if sh.policy == "chunk":
        xfer_vec = Signal(p, name="xfer_vec")
        m.d.comb += xfer_vec.eq(Cat(*xfers))
        any_xfer, latest = latest_in_circular_order(m, xfer_vec, rot_start, p, cw, "last_served")
        with m.If(ctl.running & any_xfer):
            m.d.sync += last_cu.eq(latest)
        out["st_last_cu"] = last_cu
    return out

"""Steal unit (policy ``steal``, [IKRA Steal]): P ``StealCu`` + the fabric + launch bookkeeping.

At the handshake: reinit = first kernel since reset, or any CU's overflow flag, or grid dims ≠
previous dims ([IKRA Steal]). Set-up cycle 1 re-chunks (s = 0) and empties the queues if reinit;
set-up cycle 2 toggles the single phase bit (all CUs toggle together, so one flop serves all; our
choice: 1 at reset, never reset by reinit) and loads the cursors for the new phase.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal, Value

from .chunk import chunk_expr
from .control import Control, per_cu
from .fabric import build_fabric
from .params import GRID_WIDTHS, IkraShape
from .steal_cu import StealCu


def build_steal_unit(m: Module, sh: IkraShape, ctl: Control) -> dict[str, Value]:
    p, idw, qw = sh.n_cus, sh.id_w, sh.q_w
    phase = Signal(init=1, name="phase")
    fresh = Signal(init=1, name="fresh")           # no kernel since reset
    reinit = Signal(name="reinit")                 # this kernel re-chunks
    prev_dims = Signal(sum(GRID_WIDTHS), name="prev_dims")
    cus = [StealCu(m, sh, i, ctl, phase) for i in range(p)]
    any_overflow = Signal(name="any_overflow")
    m.d.comb += any_overflow.eq(Cat(*[cu.overflow for cu in cus]).any())
    with m.If(ctl.fire):
        m.d.sync += [reinit.eq(fresh | any_overflow | (ctl.grid != prev_dims)),
                     prev_dims.eq(ctl.grid), fresh.eq(0)]
    with m.If(ctl.setup2):
        m.d.sync += phase.eq(~phase)

    res = build_fabric(m, sh, cus)
    for i, cu in enumerate(cus):
        start, end = chunk_expr(m, sh, i, ctl.base, ctl.rem, f"cu{i}_chunk")
        cu.update(reinit, start, end, res.won[i], res.val[i], res.chunk[i], res.victim[i],
                  res.c_taken[i], res.q_taken[i])

    work_left = Signal(name="work_left")           # any region anywhere undispatched
    m.d.comb += work_left.eq(Cat(*[cu.c_av | cu.q_av for cu in cus]).any())
    out: dict[str, Value] = {
        "tb_valid": Cat(*[cu.valid for cu in cus]),
        "nowork": Cat(*[ctl.running & ~work_left & ~cu.stolen_valid for cu in cus]),
        "st_phase": phase,
        "st_overflow": Cat(*[cu.overflow for cu in cus]),
        "st_reinit_pending": fresh | any_overflow,
    }
    # registers the helper invariants read (formal/props_cta_sched_steal.py); no logic
    out["formal"] = {"cus": cus, "fresh": fresh, "reinit": reinit, "prev_dims": prev_dims}
    per_cu(out, "tb_id", idw, [cu.tb_id for cu in cus])
    per_cu(out, "tb_src", 2, [cu.src for cu in cus])
    per_cu(out, "tb_victim", sh.cu_w, [cu.victim for cu in cus])
    for name in ("lo", "hi", "cur"):
        per_cu(out, f"st_{name}", idw, [getattr(cu, name) for cu in cus])
    for name in ("q_lo", "q_hi", "q_cur"):
        per_cu(out, f"st_{name}", qw, [getattr(cu, name) for cu in cus])
    return out

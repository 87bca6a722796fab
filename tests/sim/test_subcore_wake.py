"""A warp that becomes ready lowers its scheduler's ``wake`` only as far as its unit allows: to
the unit's ``free_at`` (never, for an LD/ST unit holding a refused access), so the SM is not
run just to find nothing to issue; an op with no unit (EXIT, BAR, …) can issue at once."""

from __future__ import annotations

from gpusched.config import get_preset
from sim.blocks.warp_sched import WarpSchedTwin
from sim.blocks.provider import TWINS
from sim.run import make_memory
from sim.sm import SM
from sim.subcore import NEVER, SubCore, Unit
from sim.warp import ALU, LDST, NONE, WS_READY, Decoded, Warp
from sim.workload.kernel import Instr, Op


def _subcore(ldst_free_at: int) -> SubCore:
    units = [Unit(ALU, 4, 1), Unit(1, 8, 2), Unit(2, 8, 2), Unit(3, 16, 4), Unit(LDST, 20, 1), None]
    units[LDST].free_at = ldst_free_at
    cfg = get_preset("tiny")    # an SM to hang the sub-core on (only its type matters here)
    sm = SM(0, cfg, make_memory(cfg, "fixed"), TWINS, None, {})
    sc = SubCore(sm=sm, index=0, scheduler=WarpSchedTwin(2, "lrr"), n_slots=2, units=units,
                 issue_interval=1, dual_issue=False)
    sc.wake = NEVER             # as after an issue attempt that found nothing to issue
    return sc


def _ready_warp(sc: SubCore, op: Op) -> Warp:
    w = Warp(0, 0, None, 0, iter(()), sc, 1)
    sc.add(w)
    sc.wake = NEVER
    addrs = tuple(range(0, 128, 4)) if op == Op.LDG else None
    w.ib.append(Decoded(Instr(op, dst=(2,) if op == Op.LDG else (), src=(1,), addrs=addrs)))
    sc.update(w)
    assert w.state == WS_READY
    return w


def test_ready_for_a_refused_ldst_unit_does_not_wake_the_scheduler():
    sc = _subcore(NEVER)
    _ready_warp(sc, Op.LDG)
    assert sc.wake == NEVER
    assert sc.in_use == [sc.units[LDST]]


def test_ready_for_a_busy_unit_wakes_the_scheduler_when_it_frees():
    sc = _subcore(37)
    _ready_warp(sc, Op.LDG)
    assert sc.wake == 37


def test_ready_for_no_unit_wakes_the_scheduler_at_once():
    sc = _subcore(NEVER)
    w = _ready_warp(sc, Op.EXIT)
    assert w.unit == NONE and sc.wake == 0 and sc.in_use == []

"""Per-CU state of Steal ([IKRA Steal]): persistent chunk, cursor, steal queue, stolen TB.

Walking convention: phase 0 walks up (``[cur, hi)`` and ``[q_cur, q_hi)`` undispatched), phase 1
walks down (``[lo, cur)`` and ``[q_lo, q_cur)``). Queue pointers are log2 QDEPTH + 1 bits and
circular (entry = pointer mod QDEPTH). Queue entries are per-entry registers, each with its own
write enable (no signal-indexed array write, our cycle contract); reads are ``word_select`` muxes.

Each CU is its own Amaranth submodule (``steal_cu{i}``) whose signals carry no CU index and whose
per-CU inputs are its own signals, so every instance elaborates to the same RTLIL module body and
synthesis can price one and count the instances (synth/area.py ``hier``).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal, Value

from .control import Control
from .params import SRC_STOLEN_QUEUE, IkraShape


class StealCu:
    """Registers and registered-only availability/offer logic of CU ``i`` ([IKRA Steal], our cycle
    contract)."""

    def __init__(self, m: Module, sh: IkraShape, i: int, ctl: Control, phase: Value):
        self.m, self.sh, self.i, self.ctl, self.phase = Module(), sh, i, ctl, phase
        m.submodules[f"steal_cu{i}"] = self.m
        idw, qw, q = sh.id_w, sh.q_w, sh.qdepth
        self.slot_free = Signal(name="slot_free")       # this CU's bit of ctl.slot_free
        m.d.comb += self.slot_free.eq(ctl.slot_free[i])
        self.parent = m
        self.lo, self.hi, self.cur = (Signal(idw, name=k) for k in ("lo", "hi", "cur"))
        self.q_lo, self.q_hi, self.q_cur = (Signal(qw, name=k) for k in ("q_lo", "q_hi", "q_cur"))
        self.entries = [Signal(idw, name=f"q{e}") for e in range(q)]
        self.stolen_valid = Signal(name="stolen_valid")
        self.stolen_tb = Signal(idw, name="stolen_tb")
        self.stolen_from_chunk = Signal(name="stolen_from_chunk")   # statistics (tb_src)
        self.stolen_victim = Signal(sh.cu_w, name="stolen_victim")   # statistics (tb_victim)
        self.overflow = Signal(name="overflow")

        s = lambda name, w=1: Signal(w, name=name)
        self.c_av, self.q_av, self.c_one, self.q_one = s("c_av"), s("q_av"), s("c_one"), s("q_one")
        self.from_q, self.valid, self.xfer = s("from_q"), s("valid"), s("xfer")
        self.local_c, self.local_q, self.thief = s("local_c"), s("local_q"), s("thief")
        self.c_race, self.q_race = s("c_race"), s("q_race")
        self.tb_id, self.src = s("tb_id", idw), s("src", 2)
        self.victim = s("victim", sh.cu_w)
        self.take_c_val = Signal(idw, name=f"cu{i}_take_c_val")
        self.take_q_val = Signal(idw, name=f"cu{i}_take_q_val")
        self.q_full = s("q_full")
        self._comb()
        self._take_values()

    def _read(self, ptr: Value, name: str) -> Signal:
        """Queue entry at circular pointer ``ptr``."""
        qvec = Cat(*self.entries)
        out = Signal(self.sh.id_w, name=name)
        self.m.d.comb += out.eq(qvec.word_select(ptr[:self.sh.q_w - 1], self.sh.id_w))
        return out

    def _comb(self) -> None:
        m, sh, ph, ctl = self.m, self.sh, self.phase, self.ctl
        qw, idw = sh.q_w, sh.id_w
        diff = lambda a, b, w: (a - b)[:w]
        m.d.comb += [
            self.c_av.eq(Mux(ph, self.lo < self.cur, self.cur < self.hi)),
            self.q_av.eq(Mux(ph, self.q_cur != self.q_lo, self.q_cur != self.q_hi)),
            self.c_one.eq(Mux(ph, diff(self.cur, self.lo, idw), diff(self.hi, self.cur, idw)) == 1),
            self.q_one.eq(Mux(ph, diff(self.q_cur, self.q_lo, qw), diff(self.q_hi, self.q_cur, qw)) == 1),
            self.q_full.eq(diff(self.q_hi, self.q_lo, qw) == sh.qdepth),
            # phase 0: chunk first, then queue; phase 1: queue (reversed) first, then chunk
            self.from_q.eq(Mux(ph, self.q_av, ~self.c_av & self.q_av)),
            self.valid.eq(ctl.running & (self.stolen_valid | self.c_av | self.q_av)),
            self.xfer.eq(self.valid & self.slot_free),
            self.local_c.eq(self.xfer & ~self.stolen_valid & ~self.from_q),
            self.local_q.eq(self.xfer & ~self.stolen_valid & self.from_q),
            self.thief.eq(ctl.running & self.slot_free & ~self.stolen_valid
                          & ~self.c_av & ~self.q_av),
            # the victim keeps its last TB of a region it dispatches from this cycle (our cycle
            # contract)
            self.c_race.eq(self.local_c & self.c_one),
            self.q_race.eq(self.local_q & self.q_one),
        ]
        local_q_val = self._read(Mux(ph, self.q_cur - 1, self.q_cur), "q_rd_local")
        local_c_val = Mux(ph, self.cur - 1, self.cur)
        offer = Mux(self.stolen_valid, self.stolen_tb, Mux(self.from_q, local_q_val, local_c_val))
        m.d.comb += [
            self.tb_id.eq(Mux(self.valid, offer, 0)),
            self.src.eq(Mux(self.valid, Mux(self.stolen_valid,
                                            SRC_STOLEN_QUEUE + self.stolen_from_chunk,
                                            self.from_q), 0)),
            self.victim.eq(Mux(self.valid & self.stolen_valid, self.stolen_victim, 0)),
        ]

    def _take_values(self) -> None:
        """What a thief takes: the TB this CU would have run last ([IKRA Steal]). Built in the
        parent, beside the fabric's victim select it feeds: inside the submodule the
        hierarchical area was 3.1 % above the flat one at C=15, here 1.2 % (docs/area.md)."""
        sh, ph = self.sh, self.phase
        self.parent.d.comb += [
            self.take_c_val.eq(Mux(ph, self.lo, self.hi - 1)),
            self.take_q_val.eq(Cat(*self.entries).word_select(
                Mux(ph, self.q_lo, self.q_hi - 1)[:sh.q_w - 1], sh.id_w)),
        ]

    def update(self, reinit: Value, start: Value, end: Value, won: Value, won_val: Value,
               won_chunk: Value, won_victim: Value, c_taken: Value, q_taken: Value) -> None:
        """Clock-edge updates: launch set-up, local dispatch, being robbed, stealing ([IKRA Steal]).
        The arguments are driven into this CU's own input signals (same names in every CU)."""
        m, sh, ph, ctl = self.m, self.sh, self.phase, self.ctl
        idw, cw = sh.id_w, sh.cu_w
        args = {"reinit": (reinit, 1), "start": (start, idw), "end": (end, idw), "won": (won, 1),
                "won_val": (won_val, idw), "won_chunk": (won_chunk, 1),
                "won_victim": (won_victim, cw), "c_taken": (c_taken, 1), "q_taken": (q_taken, 1)}
        ins = {}
        for name, (value, width) in args.items():
            ins[name] = Signal(width, name=name)
            self.parent.d.comb += ins[name].eq(value)
        reinit, start, end, won, won_val, won_chunk, won_victim, c_taken, q_taken = ins.values()
        sync = m.d.sync
        with m.If(ctl.setup1 & reinit):
            sync += [self.lo.eq(start), self.hi.eq(end), self.q_lo.eq(0), self.q_hi.eq(0),
                     self.overflow.eq(0)]
        with m.If(ctl.setup2):            # phase toggles in this cycle: set cursors for the new one
            sync += [self.cur.eq(Mux(ph, self.lo, self.hi)),
                     self.q_cur.eq(Mux(ph, self.q_lo, self.q_hi))]
        with m.If(self.local_c):
            sync += self.cur.eq(Mux(ph, self.cur - 1, self.cur + 1))
        with m.If(self.local_q):
            sync += self.q_cur.eq(Mux(ph, self.q_cur - 1, self.q_cur + 1))
        with m.If(c_taken):
            with m.If(ph):
                sync += self.lo.eq(self.lo + 1)
            with m.Else():
                sync += self.hi.eq(self.hi - 1)
        with m.If(q_taken):
            with m.If(ph):
                sync += self.q_lo.eq(self.q_lo + 1)
            with m.Else():
                sync += self.q_hi.eq(self.q_hi - 1)
        with m.If(self.xfer & self.stolen_valid):
            sync += self.stolen_valid.eq(0)
        with m.If(won):
            sync += [self.stolen_valid.eq(1), self.stolen_tb.eq(won_val),
                     self.stolen_from_chunk.eq(won_chunk), self.stolen_victim.eq(won_victim)]
            with m.If(self.q_full):
                sync += self.overflow.eq(1)          # not recorded; reinit at next launch
            with m.Else():
                sync += self.q_hi.eq(self.q_hi + 1)
                with m.If(~ph):                      # born dispatched: q_cur moves with q_hi
                    sync += self.q_cur.eq(self.q_cur + 1)
                slot = self.q_hi[:sh.q_w - 1]
                for e, entry in enumerate(self.entries):
                    with m.If(slot == e):
                        sync += entry.eq(won_val)

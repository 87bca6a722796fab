"""Opportunistic prefetch engine of one memory controller ([OWL §4.4]; twin:
sim/blocks/owl_prefetch.py). Ports, cycle semantics and choices: hdl/params/owl_prefetch.py.

Per bank: the 32-bit (LINES) ``fetched`` vector, ``opened``, ``stopped`` and the prefetch count;
per controller the shift-EMA of the demand queue length. The reported command is applied first
(a bypass: clear on ACT, set the line's bit on a column read or a skip, count a prefetch); from
those values a C mux (LOWER / HIGHER by q_len < ⌊avg⌋), per-bank hold / want / stop, a
lowest-bank priority encoder over ``want & bank_ready`` and a find-first-zero over the chosen
bank's vector form the outputs; the clock edge stores the bypassed values, the stop flags and
the new average.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring

from hdl.common import first_one_hot, one_hot_index, signature_of
from hdl.params.owl_prefetch import AVG_FRAC, PrefetchShape


class OwlPrefetch(wiring.Component):
    """BANKS × LINES fetched bits, BANKS prefetch counters, one 7.4 fixed-point average."""

    def __init__(self, BANKS: int = 4, LINES: int = 32, LOWER: int = 8, HIGHER: int = 16,
                 SCHEME: str = "b", ignore_demands: bool = False):
        """``ignore_demands``: mutant for the tests, prefetches even while a demand to the open
        row is pending."""
        self.shape = PrefetchShape(BANKS, LINES, LOWER, HIGHER, SCHEME)
        self.ignore_demands = ignore_demands
        super().__init__(signature_of(self.shape.ports()))

    def elaborate(self, platform):
        m = Module()
        sh = self.shape
        B, L = sh.BANKS, sh.LINES
        full = (1 << L) - 1
        fetched = [Signal(L, name=f"fetched{b}") for b in range(B)]
        count = [Signal(sh.cw, name=f"pf_count{b}") for b in range(B)]
        opened, stopped = Signal(B), Signal(B)
        avg = Signal(sh.avg_w)

        # -- the reported command, applied first (bypass) ------------------------------------------
        line_bit = Signal(L)
        m.d.comb += line_bit.eq(Const(1, L) << self.cmd_line)
        f_now = [Signal(L, name=f"f_now{b}") for b in range(B)]
        c_now = [Signal(sh.cw, name=f"c_now{b}") for b in range(B)]
        op_now, st_now = Signal(B), Signal(B)
        for b in range(B):
            sel = Signal(name=f"sel{b}")
            m.d.comb += sel.eq(self.cmd_bank == b)
            act = sel & self.cmd_act
            c_base = Mux(act, 0, count[b])
            m.d.comb += [
                f_now[b].eq(Mux(act, 0, fetched[b]) | Mux(sel & self.cmd_mark, line_bit, 0)),
                c_now[b].eq(c_base + (sel & self.cmd_pf & (c_base < L))),
                op_now[b].eq(opened[b] | act),
                st_now[b].eq(stopped[b] & ~act),
            ]

        # -- degree C, per-bank decisions ------------------------------------------------------------
        c_high = self.c_high
        m.d.comb += c_high.eq(self.q_len < avg[AVG_FRAC:])
        c_deg = Signal(sh.cw)
        m.d.comb += c_deg.eq(Mux(c_high, sh.HIGHER, sh.LOWER))
        hold, want, stop = Signal(B), Signal(B), Signal(B)
        for b in range(B):
            live = op_now[b] & ~st_now[b] & (f_now[b] != full)
            held = live & (c_now[b] < c_deg) if sh.SCHEME == "b" else Const(0)
            hit = Const(0) if self.ignore_demands else self.hit_pending[b]
            other = self.other_pending[b]
            m.d.comb += [hold[b].eq(held),
                         want[b].eq(live & ~hit & (~other | held)),
                         stop[b].eq(live & ~(~hit & (~other | held)) & ~self.hit_pending[b] & other)]
        m.d.comb += [self.hold.eq(hold), self.want.eq(want)]

        # -- proposal: lowest eligible bank, its lowest unfetched line ---------------------------
        elig = Signal(B)
        m.d.comb += elig.eq(want & self.bank_ready)
        bank_oh = first_one_hot(m, elig, B, "bank_oh")
        bank_ix = one_hot_index(m, bank_oh, B, "bank_ix")
        f_sel = Signal(L)
        m.d.comb += f_sel.eq(Array(f_now)[bank_ix])
        line_oh = first_one_hot(m, ~f_sel & full, L, "line_oh")
        line_ix = one_hot_index(m, line_oh, L, "line_ix")
        m.d.comb += [self.pf_valid.eq(elig.any()),
                     self.pf_bank.eq(Mux(elig.any(), bank_ix, 0)),
                     self.pf_line.eq(Mux(elig.any(), line_ix, 0))]

        # -- clock edge ------------------------------------------------------------------------------
        for b in range(B):
            m.d.sync += [fetched[b].eq(f_now[b]), count[b].eq(c_now[b])]
        m.d.sync += [opened.eq(op_now), stopped.eq(st_now | stop)]
        qv, av = Signal(sh.avg_w + 1), Signal(sh.avg_w + 1)
        diff = Signal(signed(sh.avg_w + 2))
        m.d.comb += [qv.eq(self.q_len << AVG_FRAC), av.eq(avg),
                     diff.eq(qv.as_signed() - av.as_signed())]
        with m.If(self.tick):
            m.d.sync += avg.eq(avg + (diff >> AVG_FRAC))
        return m

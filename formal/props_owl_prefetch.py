"""owl_prefetch invariants ([OWL §4.4]), from shadow state kept here off the ports: no
prefetch into a bank with a pending demand to its open row or into a busy or never-opened bank,
no line twice per activation, scheme A never beside a conflicting demand, scheme B only below C
(c_high checked against a shadow of the running average), hold only in scheme B below C."""

from __future__ import annotations

from amaranth.hdl import Array, Const, Module, Mux, Signal

from formal.props import PropsTop
from hdl.params.owl_prefetch import AVG_FRAC


class OwlPrefetchProps(PropsTop):
    name = "owl_prefetch"

    def properties(self, m: Module, dut) -> None:
        sh = dut.shape
        B, L = sh.BANKS, sh.LINES
        read = [Signal(L, name=f"sh_read{b}") for b in range(B)]
        count = [Signal(sh.cw + 1, name=f"sh_count{b}") for b in range(B)]
        opened = Signal(B, name="sh_opened")
        avg = Signal(sh.avg_w + 1, name="sh_avg")
        self.assume(m, dut.cmd_bank < B)
        # the controller's side: a prefetch reported is the engine's previous proposal
        last_valid, last_bank = Signal(name="sh_last_valid"), Signal(len(dut.pf_bank), name="sh_last_bank")
        last_line = Signal(len(dut.pf_line), name="sh_last_line")
        m.d.sync += [last_valid.eq(dut.pf_valid), last_bank.eq(dut.pf_bank), last_line.eq(dut.pf_line)]
        self.assume(m, ~dut.cmd_pf | (last_valid & (dut.cmd_bank == last_bank) & dut.cmd_mark
                                      & (dut.cmd_line == last_line) & ~dut.cmd_act))
        read_now = [Signal(L, name=f"sh_read_now{b}") for b in range(B)]
        count_now = [Signal(sh.cw + 1, name=f"sh_count_now{b}") for b in range(B)]
        opened_now = Signal(B, name="sh_opened_now")
        for b in range(B):
            sel = dut.cmd_bank == b
            act = sel & dut.cmd_act
            base = Mux(act, 0, count[b])
            m.d.comb += [read_now[b].eq(Mux(act, 0, read[b])
                                        | Mux(sel & dut.cmd_mark, Const(1, L) << dut.cmd_line, 0)),
                         count_now[b].eq(base + (sel & dut.cmd_pf)),
                         opened_now[b].eq(opened[b] | act)]
            m.d.sync += [read[b].eq(read_now[b]), count[b].eq(count_now[b])]
        m.d.sync += opened.eq(opened_now)
        with m.If(dut.tick):
            q = dut.q_len << AVG_FRAC
            m.d.sync += avg.eq(Mux(q >= avg, avg + ((q - avg) >> AVG_FRAC),
                                   avg - ((avg - q + (1 << AVG_FRAC) - 1) >> AVG_FRAC)))
        c = Mux(dut.c_high, sh.HIGHER, sh.LOWER)
        self.invariant(m, "c_high iff q_len below the running average",
                       dut.c_high == (dut.q_len < (avg >> AVG_FRAC)))
        pb = dut.pf_bank
        rd = Signal(L, name="sh_read_sel")
        cn = Signal(sh.cw + 1, name="sh_count_sel")
        m.d.comb += [rd.eq(Array(read_now)[pb]), cn.eq(Array(count_now)[pb])]
        pf = dut.pf_valid
        self.invariant(m, "no prefetch beside a demand to the open row", ~pf | ~dut.hit_pending.bit_select(pb, 1))
        self.invariant(m, "a prefetch only into a ready, opened bank",
                       ~pf | (dut.bank_ready.bit_select(pb, 1) & opened_now.bit_select(pb, 1)))
        self.invariant(m, "no line twice per activation", ~pf | ~rd.bit_select(dut.pf_line, 1))
        self.invariant(m, "at most LINES prefetches per activation", ~pf | (cn < L))
        conflict = pf & dut.other_pending.bit_select(pb, 1)
        if sh.SCHEME == "a":
            self.invariant(m, "scheme A never beside a conflicting demand", ~conflict)
            self.invariant(m, "scheme A holds no row", dut.hold == 0)
        else:
            self.invariant(m, "beside a conflict only below C", ~conflict | (cn < c))
            for b in range(B):
                self.invariant(m, "hold only below C", ~dut.hold[b] | (count_now[b] < c))


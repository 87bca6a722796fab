"""Simple Slicing runtime predictor of one SM ([SRTF Simple Slicing] (cycle contract ours); twin:
sim/blocks/srtf_pred.py).

Ports, widths and the choices beyond the spec: hdl/params/srtf_pred.py.

- Block events update the slot registers, ``occupied`` and the ``Active`` counters in the cycle
  of the event; an end latches the block's duration and kernel and marks the slot pending.
- One sequencer serves the pending ends (lowest slot first), then controller commands
  (``ctl_ready`` = idle, no end pending, no record waiting). A FINISH or SEED job takes PRED_LAT
  cycles: clamp and subtract (reads the entry, writes Done, t, Reslice), BW cycles of shift-add
  multiply, BW + CW cycles of restoring divide, then add and write (reads ``Active``, sets
  pvalid and, for FINISH, writes the update record, which carries Pred: nothing in the block
  reads Pred back, so it is not stored here; the twin keeps it for inspection). The record is held until ``upd_ready``.
- LAUNCH, END and CAP take one cycle (the cycle of the handshake).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring

from hdl.common import signature_of
from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED, PredShape

IDLE, MUL, DIV, FIN = 0, 1, 2, 3


class SrtfPred(wiring.Component):
    """One SM's predictor: K kernel entries, SLOTS block slots, one sequential multiply/divide."""

    def __init__(self, K: int = 8, SLOTS: int = 8, CW: int = 32, BW: int = 16, RW: int = 5,
                 use_rmax: bool = False):
        """``use_rmax``: mutant for the tests, Eq. 2 divides by R_k instead of min(R_k, cap)."""
        self.shape = PredShape(K, SLOTS, CW, BW, RW)
        self.use_rmax = use_rmax
        super().__init__(signature_of(self.shape.ports()))

    def elaborate(self, platform):
        m = Module()
        sh = self.shape
        K, S, CW, BW, RW, PW = sh.K, sh.SLOTS, sh.CW, sh.BW, sh.RW, sh.prod_w
        cmax, bmax = (1 << CW) - 1, (1 << BW) - 1

        def arr(width, n, init=0):
            return Array(Signal(width, init=init, name=f"a{width}_{i}") for i in range(n))
        valid, active, done, total = arr(1, K), arr(CW, K), arr(BW, K), arr(BW, K)
        resident, rmax, t = arr(RW, K, 1), arr(RW, K, 1), arr(CW, K)
        reslice = arr(1, K)
        start, end_dur, slot_k, end_k = arr(CW, S), arr(CW, S), arr(sh.kw, S), arr(sh.kw, S)
        occupied, end_pending = Signal(S), Signal(S)
        now = Signal(CW)
        pvalid = self.pvalid

        # -- block events ------------------------------------------------------------------------
        start_bit = Signal(S)
        m.d.comb += start_bit.eq(Mux(self.blk_start_valid, Const(1, S) << self.blk_start_slot, 0))
        for s in range(S):
            with m.If(self.blk_end[s]):
                m.d.sync += [end_dur[s].eq(now - start[s]), end_k[s].eq(slot_k[s])]
        with m.If(self.blk_start_valid):
            m.d.sync += [start[self.blk_start_slot].eq(now), slot_k[self.blk_start_slot].eq(self.blk_start_k)]
        occ_next = Signal(S)
        m.d.comb += occ_next.eq((occupied & ~self.blk_end) | start_bit)
        m.d.sync += [occupied.eq(occ_next), now.eq(now + 1)]
        for k in range(K):          # Active: cycles with a resident block, saturating
            hit = Cat(occ_next[s] & (Mux(start_bit[s], self.blk_start_k, slot_k[s]) == k)
                      for s in range(S)).any()
            with m.If(hit & (active[k] != cmax)):
                m.d.sync += active[k].eq(active[k] + 1)

        # -- sequencer -----------------------------------------------------------------------------
        stage = Signal(2)
        cnt = Signal(range(PW + 1))
        job_k, job_seed, job_t, job_res = Signal(sh.kw), Signal(), Signal(CW), Signal(RW)
        mplier, mcand, acc = Signal(BW), Signal(PW), Signal(PW)
        div_r = Signal(RW + 1)
        divisor = Signal(RW, name="rmax_used") if self.use_rmax else job_res   # Eq. 2's Resident
        idle = Signal()
        m.d.comb += [idle.eq((stage == IDLE) & ~self.upd_valid),
                     self.ctl_ready.eq(idle & (end_pending == 0))]
        pick = Signal(S)                # lowest pending slot, one-hot
        m.d.comb += pick.eq(end_pending & (~end_pending + 1))
        pick_s = Signal(range(S))
        for s in reversed(range(S)):
            with m.If(pick[s]):
                m.d.comb += pick_s.eq(s)
        picking = Signal()
        m.d.comb += picking.eq(idle & (end_pending != 0))
        m.d.sync += end_pending.eq((end_pending & ~Mux(picking, pick, 0)) | self.blk_end)

        def begin(k, t_use, done_now, is_seed):
            left = Signal(BW, name="left")
            m.d.comb += left.eq(Mux(total[k] > done_now, total[k] - done_now, 0))
            m.d.sync += [job_k.eq(k), job_seed.eq(is_seed), job_t.eq(t_use), job_res.eq(resident[k]),
                         mplier.eq(left), mcand.eq(t_use), acc.eq(0), stage.eq(MUL), cnt.eq(BW - 1)]
            if self.use_rmax:
                m.d.sync += divisor.eq(rmax[k])

        with m.If(picking):                                   # FINISH: clamp and subtract
            k = Signal(sh.kw, name="fin_k")
            m.d.comb += k.eq(end_k[pick_s])
            t_use, done1 = Signal(CW, name="t_use"), Signal(BW, name="done1")
            m.d.comb += [t_use.eq(Mux(reslice[k], end_dur[pick_s], t[k])),
                         done1.eq(Mux(done[k] == bmax, bmax, done[k] + 1))]
            m.d.sync += [done[k].eq(done1), t[k].eq(t_use), reslice[k].eq(0)]
            begin(k, t_use, done1, 0)
        with m.Elif(self.ctl_ready & self.ctl_valid):
            ck = self.ctl_k
            with m.Switch(self.ctl_kind):
                with m.Case(CTL_LAUNCH):
                    for j in range(K):
                        with m.If(valid[j]):
                            m.d.sync += reslice[j].eq(1)
                    r = Mux(self.ctl_res == 0, 1, self.ctl_res)
                    m.d.sync += [valid[ck].eq(1), active[ck].eq(0), done[ck].eq(0),
                                 total[ck].eq(self.ctl_total), resident[ck].eq(r), rmax[ck].eq(r),
                                 t[ck].eq(0), pvalid.bit_select(ck, 1).eq(0),
                                 reslice[ck].eq(1)]
                with m.Case(CTL_END):
                    for j in range(K):
                        with m.If(valid[j] & (ck != j)):
                            m.d.sync += reslice[j].eq(1)
                    m.d.sync += [valid[ck].eq(0), pvalid.bit_select(ck, 1).eq(0)]
                with m.Case(CTL_CAP):
                    r = Mux(self.ctl_res < rmax[ck], self.ctl_res, rmax[ck])
                    m.d.sync += [resident[ck].eq(Mux(r == 0, 1, r)), reslice[ck].eq(1)]
                with m.Case(CTL_SEED):
                    with m.If(~pvalid.bit_select(ck, 1)):
                        m.d.sync += t[ck].eq(self.ctl_t)
                        begin(ck, self.ctl_t, done[ck], 1)

        with m.If(self.upd_valid & self.upd_ready):
            m.d.sync += self.upd_valid.eq(0)
        with m.Switch(stage):
            with m.Case(MUL):                                 # shift-add, LSB of the multiplier first
                m.d.sync += [acc.eq(acc + Mux(mplier[0], mcand, 0)), mcand.eq(mcand << 1),
                             mplier.eq(mplier >> 1), cnt.eq(cnt - 1)]
                with m.If(cnt == 0):
                    m.d.sync += [stage.eq(DIV), cnt.eq(PW - 1), div_r.eq(0)]
            with m.Case(DIV):                                 # restoring: acc becomes the quotient
                r2 = Signal(RW + 2, name="r2")
                m.d.comb += r2.eq(Cat(acc[PW - 1], div_r))
                ge = r2 >= divisor
                m.d.sync += [div_r.eq(Mux(ge, r2 - divisor, r2)), acc.eq(Cat(ge, acc[:PW - 1])),
                             cnt.eq(cnt - 1)]
                with m.If(cnt == 0):
                    m.d.sync += stage.eq(FIN)
            with m.Case(FIN):                                 # add and write
                rem, total_pred = Signal(CW, name="rem"), Signal(CW + 1, name="sum")
                m.d.comb += [rem.eq(Mux(acc > cmax, cmax, acc)), total_pred.eq(active[job_k] + rem)]
                p = Mux(total_pred > cmax, cmax, total_pred)
                m.d.sync += [pvalid.bit_select(job_k, 1).eq(1), stage.eq(IDLE)]
                with m.If(~job_seed):
                    m.d.sync += [self.upd_valid.eq(1), self.upd_k.eq(job_k), self.upd_rem.eq(rem),
                                 self.upd_pred.eq(p), self.upd_t.eq(job_t), self.upd_res.eq(job_res)]
        return m

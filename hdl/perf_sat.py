"""Perf-Sat: per-SM detection of the CTA count that minimises stalled cycles ([THESIS §4.3.2.2]).

Ports (twin: sim/blocks/perf_sat.py, same names and timing):

- ``kernel_start`` (in, 1): a new kernel reaches this SM; (re)starts detection from any state.
  ``n_max`` (in, n_bits) is captured then (the occupancy limit N_max ≥ 1; 0 counts as 1).
- ``cta_done`` (in, 1): a CTA of this SM completed this cycle.
- ``stalls`` (in, 2): schedulers of this SM that had a stalled cycle this cycle (issued nothing
  while a warp was blocked by the scoreboard or a structural hazard; idle excluded, our choice).
- ``cta_limit`` (out, n_bits): the per-SM max-resident-CTA limit the CTA dispatcher checks;
  always in [1, N_max]. ``done`` (out): detection finished (limit kept for the kernel, our choice).
  ``state`` (out, 3): PerfSatState (debug). All outputs are registers.

Timing. MEASURE counts cycles from kernel start to the first CTA completion (One_TB, inclusive,
saturating at 2^tb_bits − 1); the sample period One_TB × N_max is formed by shift-add ([THESIS
§4.3]) and saturates at 2^period_bits − 1. Windows start immediately (our choice: at the first
completion; also right after each limit change) and are ``period`` cycles long; the stall
accumulator sums ``stalls`` over a window (the last cycle included) and the FSM steps at the
window's last cycle.

FSM on a window's stall count ``cur`` ([THESIS §4.3.2.2], Fig. 4.4 reconstructed, with our choices):
INIT: prev ← cur, N ← N0 + 1, WI (N0 = ⌈N_max/2⌉; N_max = 1 stops at 1). Weak states without a
direction need two agreeing samples (hist) before going strong; a disagreement flips WI↔WD with
hist ← 0 (the symmetric reading), and the 4th such flip stops at N0 + 1. A strong state steps N
each window while stalls fall; the first rise discards that sample and drops to the weak state
with N kept; the next sample stops at the last good N if stalls are again above prev, else goes
back to strong (the 4th such return stops at the last good N). Saturation: SI at N_max stops at
N_max, SD at 1 stops at 1.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring

from hdl.common import signature_of
from hdl.params.perf_sat import PerfSatState, check_params, ports  # noqa: F401


class PerfSatCtrl(wiring.Component):
    """Per-SM Perf-Sat controller. Widths default to our choices ([THESIS §4.3] gives none): N 5 b, One_TB 24 b,
    period 28 b, stall counter and prev 32 b, toggle counters 3 b."""

    def __init__(self, n_bits: int = 5, tb_bits: int = 24, period_bits: int = 28,
                 stall_bits: int = 32):
        check_params(n_bits, tb_bits, period_bits, stall_bits)
        self.n_bits, self.tb_bits = n_bits, tb_bits
        self.period_bits, self.stall_bits = period_bits, stall_bits
        super().__init__(signature_of(ports(n_bits)))

    def elaborate(self, platform):
        m = Module()
        nb, pb = self.n_bits, self.period_bits
        st, n = self.state, self.cta_limit
        n_max = Signal(nb, init=1)
        timer = Signal(pb)
        period = Signal(pb)
        acc = Signal(self.stall_bits)
        prev = Signal(self.stall_bits)
        dir_, hist = Signal(), Signal()
        tog_weak, tog_strong = Signal(3), Signal(3)      # WI↔WD flips; weak→strong returns
        m.d.comb += self.done.eq(st == PerfSatState.DONE)

        n_max_in = Signal(nb)
        m.d.comb += n_max_in.eq(Mux(self.n_max == 0, 1, self.n_max))
        n0 = Signal(nb)
        m.d.comb += n0.eq((n_max + 1) >> 1)

        # One_TB (inclusive count) and period = One_TB × N_max by shift-add, both saturating
        tb_max = (1 << self.tb_bits) - 1
        one_tb = Signal(self.tb_bits)
        m.d.comb += one_tb.eq(Mux(timer >= tb_max, tb_max, timer + 1))
        partial = [Mux(n_max[k], one_tb << k, 0) for k in range(nb)]
        period_raw = Signal(self.tb_bits + nb)
        m.d.comb += period_raw.eq(sum(partial[1:], partial[0]))
        p_max = (1 << pb) - 1
        period_next = Signal(pb)
        m.d.comb += period_next.eq(Mux(period_raw > p_max, p_max, period_raw))

        cur = Signal(self.stall_bits)
        last = Signal()
        m.d.comb += [cur.eq(acc + self.stalls), last.eq(timer + 1 >= period)]
        lower, higher = Signal(), Signal()
        m.d.comb += [lower.eq(cur < prev), higher.eq(cur > prev)]

        def finish(value):
            m.d.sync += [n.eq(value), st.eq(PerfSatState.DONE)]

        def go(state, value=None, keep_prev=False):
            m.d.sync += st.eq(state)
            if value is not None:
                m.d.sync += n.eq(value)
            if not keep_prev:
                m.d.sync += prev.eq(cur)

        with m.If(self.kernel_start):
            m.d.sync += [n_max.eq(n_max_in), n.eq((n_max_in + 1) >> 1), timer.eq(0), acc.eq(0),
                         dir_.eq(0), hist.eq(0), tog_weak.eq(0), tog_strong.eq(0),
                         st.eq(PerfSatState.MEASURE)]
        with m.Elif(st == PerfSatState.MEASURE):
            m.d.sync += timer.eq(Mux(timer >= tb_max, tb_max, timer + 1))
            with m.If(self.cta_done):
                m.d.sync += [period.eq(period_next), timer.eq(0), acc.eq(0),
                             st.eq(PerfSatState.INIT)]
        with m.Elif((st >= PerfSatState.INIT) & (st <= PerfSatState.SD)):
            with m.If(~last):
                m.d.sync += [timer.eq(timer + 1), acc.eq(cur)]
            with m.Else():
                m.d.sync += [timer.eq(0), acc.eq(0)]
                self._window_end(m, st, n, n_max, n0, dir_, hist, tog_weak, tog_strong,
                                 lower, higher, finish, go)
        return m

    @staticmethod
    def _window_end(m, st, n, n_max, n0, dir_, hist, tog_weak, tog_strong, lower, higher,
                    finish, go):
        S = PerfSatState
        with m.Switch(Cat(st, dir_)):
            with m.Case(S.INIT, S.INIT | 8):
                with m.If(n0 >= n_max):
                    finish(n_max)
                with m.Else():
                    go(S.WI, n0 + 1)
            for weak, strong, up, edge, back in ((S.WI, S.SI, True, n_max, n0),
                                                 (S.WD, S.SD, False, 1, n0 + 1)):
                ahead = n + 1 if up else n - 1           # next N in this direction
                behind = n - 1 if up else n + 1          # the last good N after an overshoot
                with m.Case(weak):                       # no direction yet
                    with m.If(lower):
                        with m.If(~hist):
                            m.d.sync += hist.eq(1)
                        with m.Else():
                            m.d.sync += dir_.eq(1)
                            with m.If(n == edge):
                                finish(edge)
                            with m.Else():
                                go(strong, ahead)
                    with m.Else():
                        with m.If(tog_weak == 3):
                            finish(n0 + 1)
                        with m.Else():
                            m.d.sync += [tog_weak.eq(tog_weak + 1), hist.eq(0)]
                            go(S.WD if weak == S.WI else S.WI, back)
                with m.Case(strong | 8, strong):         # strong: step while stalls fall
                    with m.If(lower):
                        with m.If(n == edge):
                            finish(edge)
                        with m.Else():
                            go(strong, ahead)
                    with m.Else():                       # overshoot: discard cur, keep N
                        m.d.sync += [hist.eq(0), st.eq(weak)]
                with m.Case(weak | 8):                   # weak after an overshoot
                    with m.If(higher | (tog_strong == 3)):
                        finish(behind)
                    with m.Else():
                        m.d.sync += tog_strong.eq(tog_strong + 1)
                        with m.If(n == edge):
                            finish(edge)
                        with m.Else():
                            go(strong, ahead)

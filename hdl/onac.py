"""ONAC: optimal number of active cores, detected by secant estimates in the SWM ([THESIS §4.4]).

``OnacCtrl`` = the shared SWM skeleton (hdl/onac_parts/swm.py: ports, handshakes, CST, per-SM
IPC, drain and gating) plus the estimation-records (ER) table and the secant datapath:

- ER table: prev-est and cur-est {n, ipc} registers (and all-cores = (M, ipc_all) in the
  skeleton). At start prev = cur = (0, 0); after the one-core sample cur = (1, IPC_1), so the
  secant through prev and cur gives the first estimate ⌈thr / IPC_1⌉ with the same datapath
  ([THESIS §4.4.2] "Derived properties").
- DECIDE: a sample at n with chip IPC ≥ thr accepts n ([THESIS §4.4.2.3] Opt Det); otherwise
  prev ← cur, cur ← (n, IPC) and EST.
- EST: non-positive-slope guard (our choice): IPC_cur ≤ IPC_prev → n + 1. Otherwise one shared
  multiplier forms (thr − IPC_cur)·(n_cur − n_prev) and the shared restoring divider divides it
  by IPC_cur − IPC_prev (EST_DIV); the step is rounded up (quotient + [remainder ≠ 0]) and
  N_next = n_cur + step is clamped to [n_cur + 1, M] (our choice).
- APPLY: N_next = M is accepted without sampling (our choice); else sample at N_next.

The same multiplier forms the threshold IPC_all·251 (>> 8) in the first DECIDE, so the block
has exactly one multiplier (ipc_bits × 8) and one divider.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal, Value

from .onac_parts.swm import THR_NUM, THR_SHIFT, SwmDetector, SwmState


class OnacCtrl(SwmDetector):
    """ONAC detector for ``n_sms`` SMs (ports: see hdl/onac_parts/swm.py)."""

    def elaborate(self, platform):
        w = self.w
        self.prev_n, self.cur_n = Signal(w.n_bits), Signal(w.n_bits)
        self.prev_ipc, self.cur_ipc = Signal(w.ipc_bits), Signal(w.ipc_bits)
        self.n_next = Signal(w.n_bits)
        self.mul_a, self.mul_b = Signal(w.ipc_bits), Signal(8)
        self.product = Signal(w.ipc_bits + 8)
        m = super().elaborate(platform)
        # the shared multiplier: secant numerator in EST, threshold (IPC_all × 251) otherwise
        in_est = Signal()
        m.d.comb += [
            in_est.eq(self.state == SwmState.EST),
            self.mul_a.eq(Mux(in_est, self.thr - self.cur_ipc, self.ipc_sum)),
            self.mul_b.eq(Mux(in_est, self.cur_n - self.prev_n, THR_NUM)),
            self.product.eq(self.mul_a * self.mul_b),
        ]
        return m

    def _on_start(self, m: Module) -> None:
        m.d.sync += [self.prev_n.eq(0), self.prev_ipc.eq(0), self.cur_n.eq(0), self.cur_ipc.eq(0)]

    def _count_after_init(self) -> Value:
        return 1

    def _threshold(self, m: Module, ipc_all: Value) -> Value:
        return self.product >> THR_SHIFT

    def _decide(self, m: Module) -> None:
        with m.If(self.ipc_sum >= self.thr):
            self._finish(m, self.n_est)
        with m.Else():
            m.d.sync += [self.prev_n.eq(self.cur_n), self.prev_ipc.eq(self.cur_ipc),
                         self.cur_n.eq(self.n_est), self.cur_ipc.eq(self.ipc_sum),
                         self.state.eq(SwmState.EST)]

    def _extra_states(self, m: Module) -> None:
        w, div = self.w, self.div
        with m.Case(SwmState.EST):
            with m.If(self.cur_ipc <= self.prev_ipc):      # non-positive slope guard
                m.d.sync += [self.n_next.eq(self.cur_n + 1), self.state.eq(SwmState.APPLY)]
            with m.Else():
                m.d.comb += [div.start.eq(1), div.dividend.eq(self.product),
                             div.divisor.eq(self.cur_ipc - self.prev_ipc)]
                m.d.sync += self.state.eq(SwmState.EST_DIV)
        with m.Case(SwmState.EST_DIV):
            with m.If(~div.busy):
                round_up = Signal()
                raw = Signal(w.n_bits + 2)
                m.d.comb += [round_up.eq(div.remainder != 0),
                             raw.eq(self.cur_n + div.quotient[:w.n_bits + 1] + round_up)]
                over = (div.quotient >= w.m) | (raw >= w.m)
                low = raw < self.cur_n + 1
                m.d.sync += [self.n_next.eq(Mux(over, w.m, Mux(low, self.cur_n + 1, raw))),
                             self.state.eq(SwmState.APPLY)]
        with m.Case(SwmState.APPLY):
            with m.If(self.n_next >= w.m):
                m.d.sync += self.n_est.eq(w.m)           # the estimate, accepted unsampled
                self._finish(m, w.m)
            with m.Else():
                self._set_count(m, self.n_next)

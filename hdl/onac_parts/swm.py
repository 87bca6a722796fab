"""Detection skeleton shared by the SM Work Manager (SWM) detectors ONAC and Seq-Det.

The SWM runs the active-core detection of [THESIS §4.4.2.3] against M SMs. Everything except the
choice of the next core count is common to ONAC (secant estimates) and Seq-Det (one core fewer
per sample), so it lives here; a subclass fills in DECIDE (and may add states).

Port protocol (flat vectors: bit i / field i = SM i; multi-bit per-SM fields are packed
``vec[i*W:(i+1)*W]``):

- ``start`` (in, 1): kernel start; (re)starts detection from any state, un-gates every SM.
- ``pause_req`` (out, M): the CST *paused* bit. 4-phase handshake with ``pause_ack`` (in, M):
  the SM stops issuing, acks once nothing is in flight, and drops the ack after ``pause_req``
  falls. A paused SM keeps its resident CTAs ([THESIS §4.4.2.3] "Core pausing").
- ``sample_req`` (out, M): 4-phase handshake with ``sample_done`` (in, M). The SM quiesces,
  counts over a 4-wave window (hdl/core_sampler.py) and raises ``sample_done`` with
  ``sample_instr`` (in, M×(count_bits+2)) and ``sample_cycles`` (in, M×count_bits) held stable
  until ``sample_req`` falls.
- ``sm_idle`` (in, M): SM i holds no CTA (used to power-gate drained SMs).
- ``active`` (out, M): the CST *active* bit; CTAs may go to SM i iff active & ~pause_req &
  ~power_gate. ``power_gate`` (out, M): SM i is gated.
- ``sm_ipc`` (out, M×ipc_bits): the CST IPC sample of each SM from the last sample that
  included it (U(ipc_bits-ipc_frac).ipc_frac warp instructions per cycle = ⌊instr·2^F / cycles⌋,
  saturating; 0 cycles gives the maximum; [THESIS §4.4.2.3]; U6.10 is ours). The chip IPC is their
  saturating sum.
- ``n_est`` (out): core count of the current / last sample; ``n_opt`` (out): detected count;
  ``done`` (out): detection finished and every excess SM gated; ``state`` (out, 4): SwmState.

Sequence: IDLE → (start) SETTLE → SAMPLE → COLLECT/DIV (per-SM IPC = instr·2^F / cycles on the
shared divider, summed into the chip IPC) → DECIDE. The first DECIDE stores IPC_all and the
threshold ⌊IPC_all·251/256⌋ (our choice: 0.98 as ×251/256). A new count n is applied by pausing SMs
n..M-1 (SMs 0..n-1 run; core 0 is the one-core sample, our choice) and going back to SETTLE, which
waits until every ack matches its request and no ``sample_done`` is left high. Detection ends by
making SMs n_opt..M-1 inactive and un-paused so they drain (our choice), then DRAIN gates each once
idle.
"""

from __future__ import annotations

from amaranth.hdl import Array, Module, Mux, Signal, Value
from amaranth.lib import wiring

from hdl.common import signature_of
from hdl.params.swm import (THR_NUM, THR_SHIFT, SwmState, SwmWidths,  # noqa: F401
                             check_params, ports)

from .divider import RestoringDivider


class SwmDetector(wiring.Component):
    """Common SWM detection FSM; subclasses implement ``_decide`` (and optional extra states)."""

    def __init__(self, n_sms: int, count_bits: int = 24, ipc_bits: int = 16, ipc_frac: int = 10):
        self.w = w = SwmWidths(n_sms, count_bits, ipc_bits, ipc_frac)
        super().__init__(signature_of(ports(w)))

    # -- helpers for subclasses ------------------------------------------------------------
    def _set_count(self, m: Module, n: Value) -> None:
        """Next sample with SMs 0..n-1 running: pause the rest, then SETTLE."""
        m.d.comb += self.n_target.eq(n)
        m.d.sync += [self.n_est.eq(n), self.pause_req.eq(self.target_mask),
                     self.state.eq(SwmState.SETTLE)]

    def _finish(self, m: Module, n: Value) -> None:
        """Detected n: SMs n..M-1 become inactive and un-paused (they drain), then DRAIN."""
        m.d.comb += self.n_target.eq(n)
        m.d.sync += [self.n_opt.eq(n), self.active.eq(~self.target_mask),
                     self.pause_req.eq(0), self.state.eq(SwmState.DRAIN)]

    def _decide(self, m: Module) -> None:
        raise NotImplementedError

    def _extra_states(self, m: Module) -> None:
        """Extra ``m.Case`` blocks of a subclass (none by default)."""

    def _threshold(self, m: Module, ipc_all: Value) -> Value:
        raise NotImplementedError

    # -- the FSM ---------------------------------------------------------------------------
    def elaborate(self, platform):
        m = Module()
        w, n = self.w, self.w.m
        m.submodules.div = div = self.div = RestoringDivider(w.dividend_bits, w.divisor_bits)

        self.n_target = Signal(w.n_bits)
        self.target_mask = Signal(n)
        for i in range(n):      # per-entry comparator: SM i paused iff i >= n_target
            m.d.comb += self.target_mask[i].eq(self.n_target <= i)

        self.ipc_sum = Signal(w.ipc_bits)        # chip IPC of the sample being collected
        self.ipc_all = Signal(w.ipc_bits)        # ER all-cores record: (M, IPC_all)
        self.thr = Signal(w.ipc_bits)
        self.init_phase = Signal()               # the sample in flight is the all-cores one
        self.idx = Signal(range(n + 1))
        cst_ipc = [Signal(w.ipc_bits, name=f"cst_ipc_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += self.sm_ipc[i * w.ipc_bits:(i + 1) * w.ipc_bits].eq(cst_ipc[i])
        m.d.comb += self.done.eq(self.state == SwmState.DONE)

        # per-SM operands for the division, selected by idx
        instr = Array(self.sample_instr[i * w.instr_bits:(i + 1) * w.instr_bits] for i in range(n))
        cycles = Array(self.sample_cycles[i * w.count_bits:(i + 1) * w.count_bits] for i in range(n))
        sampled = Signal()
        m.d.comb += sampled.eq((self.sample_req >> self.idx)[0])
        sm_instr, sm_cycles = Signal(w.instr_bits), Signal(w.count_bits)
        m.d.comb += [sm_instr.eq(instr[self.idx]), sm_cycles.eq(cycles[self.idx])]

        q_ipc = Signal(w.ipc_bits)               # divider quotient saturated to the IPC field
        m.d.comb += q_ipc.eq(Mux(div.quotient > w.ipc_max, w.ipc_max, div.quotient[:w.ipc_bits]))
        sum_next = Signal(w.ipc_bits + 1)
        m.d.comb += sum_next.eq(self.ipc_sum + q_ipc)

        with m.If(self.start):
            m.d.sync += [self.pause_req.eq(0), self.sample_req.eq(0), self.active.eq(w.all_sms),
                         self.power_gate.eq(0), self.n_est.eq(n), self.n_opt.eq(0),
                         self.init_phase.eq(1), self.state.eq(SwmState.SETTLE)]
            self._on_start(m)
        with m.Else():
            with m.Switch(self.state):
                with m.Case(SwmState.SETTLE):
                    quiet = Signal()
                    m.d.comb += quiet.eq((self.pause_ack == self.pause_req) & ~self.sample_done.any())
                    with m.If(quiet):
                        m.d.sync += [self.sample_req.eq(~self.pause_req & self.active),
                                     self.ipc_sum.eq(0), self.idx.eq(0),
                                     self.state.eq(SwmState.SAMPLE)]
                with m.Case(SwmState.SAMPLE):
                    with m.If((self.sample_done & self.sample_req) == self.sample_req):
                        m.d.sync += self.state.eq(SwmState.COLLECT)
                with m.Case(SwmState.COLLECT):
                    with m.If(self.idx == n):
                        m.d.sync += [self.sample_req.eq(0), self.state.eq(SwmState.DECIDE)]
                    with m.Elif(sampled):
                        m.d.comb += [div.start.eq(1),
                                     div.dividend.eq(sm_instr << w.ipc_frac),
                                     div.divisor.eq(sm_cycles)]
                        m.d.sync += self.state.eq(SwmState.DIV)
                    with m.Else():
                        m.d.sync += self.idx.eq(self.idx + 1)
                with m.Case(SwmState.DIV):
                    with m.If(~div.busy):
                        for i in range(n):
                            with m.If(self.idx == i):
                                m.d.sync += cst_ipc[i].eq(q_ipc)
                        m.d.sync += [
                            self.ipc_sum.eq(Mux(sum_next > w.ipc_max, w.ipc_max, sum_next)),
                            self.idx.eq(self.idx + 1), self.state.eq(SwmState.COLLECT)]
                with m.Case(SwmState.DECIDE):
                    with m.If(self.init_phase):
                        m.d.sync += [self.ipc_all.eq(self.ipc_sum),
                                     self.thr.eq(self._threshold(m, self.ipc_sum)),
                                     self.init_phase.eq(0)]
                        self._set_count(m, self._count_after_init())
                    with m.Else():
                        self._decide(m)
                self._extra_states(m)
                with m.Case(SwmState.DRAIN):
                    gate_now = Signal(n)
                    m.d.comb += gate_now.eq(self.power_gate | (~self.active & self.sm_idle))
                    m.d.sync += self.power_gate.eq(gate_now)
                    with m.If((self.active | self.power_gate) == w.all_sms):
                        m.d.sync += self.state.eq(SwmState.DONE)
        return m

    def _on_start(self, m: Module) -> None:
        """Subclass reset of its own records at kernel start."""

    def _count_after_init(self) -> Value:
        raise NotImplementedError

"""CoreSampler: per-SM IPC sampling window and pause quiesce for ONAC / Seq-Det ([THESIS §4.4.2.3],
with our choices where it is silent).

Ports (twin: sim/blocks/core_sampler.py, same names and timing):

- ``pause_req`` (in, 1) / ``pause_ack`` (out, 1): 4-phase pause handshake with the SWM. While
  ``pause_req`` is high the SM stops issuing (``issue_hold``); ``pause_ack`` (a register) rises
  the cycle after a cycle with ``pause_req`` high and nothing in flight, and falls the cycle after
  ``pause_req`` falls. Issue is already held in that cycle, so nothing can be in flight while the
  ack is high ([THESIS §4.4.2.3] "Core pausing").
- ``sample_req`` (in, 1) / ``sample_done`` (out, 1): 4-phase sample handshake. On a request the
  SM quiesces (``issue_hold`` until nothing is in flight, our choice "in-flight wait"), then counts
  cycles, issued warp instructions (``instr``, in, 2) and CTA completions (``cta_done``, in, 1)
  until K × ``cta_limit`` CTAs have completed (K = 4 waves, our choice; ``cta_limit`` (in) is
  captured when counting starts, 0 counts as 1) or the cycle counter is full. ``sample_done`` then
  stays high with ``sample_instr`` / ``sample_cycles`` (out) held until ``sample_req`` falls.
  A pause request aborts a sample in progress (the SWM never asks for both).
- ``in_flight`` (in, 1): some instruction of this SM is still in flight; what counts is the
  integrator's choice (the GPU model: pipeline and memory while a pause is requested, the pipeline
  only during the pre-sample quiesce, our choice where the thesis is silent; sim/policies/onac_ctrl.py).
- ``issue_hold`` (out, 1, combinational): the warp schedulers must not issue this cycle.
- ``state`` (out, 2): SamplerState (debug).
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring

from hdl.common import signature_of
from hdl.params.core_sampler import SamplerState, check_params, ports  # noqa: F401


class CoreSampler(wiring.Component):
    """Sampling window of one SM: K × limit CTA completions (instruction and cycle counters)."""

    def __init__(self, waves: int = 4, count_bits: int = 24, limit_bits: int = 5):
        check_params(waves, count_bits, limit_bits)
        self.waves, self.count_bits, self.limit_bits = waves, count_bits, limit_bits
        self.cta_bits = limit_bits + waves.bit_length()
        super().__init__(signature_of(ports(count_bits, limit_bits)))

    def elaborate(self, platform):
        m = Module()
        st = self.state
        cyc_max = (1 << self.count_bits) - 1
        ctas = Signal(self.cta_bits)
        target = Signal(self.cta_bits)
        limit = Signal(self.limit_bits)
        m.d.comb += [
            limit.eq(Mux(self.cta_limit == 0, 1, self.cta_limit)),
            self.issue_hold.eq(self.pause_req | (st == SamplerState.QUIESCE)),
            self.sample_done.eq(st == SamplerState.DONE),
        ]
        m.d.sync += self.pause_ack.eq(self.pause_req & ~self.in_flight)

        ctas_next = Signal(self.cta_bits + 1)
        m.d.comb += ctas_next.eq(ctas + self.cta_done)
        with m.If(self.pause_req | ~self.sample_req):
            m.d.sync += st.eq(SamplerState.IDLE)
        with m.Else():
            with m.Switch(st):
                with m.Case(SamplerState.IDLE):
                    m.d.sync += st.eq(SamplerState.QUIESCE)
                with m.Case(SamplerState.QUIESCE):
                    with m.If(~self.in_flight):
                        m.d.sync += [self.sample_instr.eq(0), self.sample_cycles.eq(0),
                                     ctas.eq(0), target.eq(limit * self.waves),
                                     st.eq(SamplerState.COUNT)]
                with m.Case(SamplerState.COUNT):
                    m.d.sync += [self.sample_cycles.eq(self.sample_cycles + 1),
                                 self.sample_instr.eq(self.sample_instr + self.instr),
                                 ctas.eq(ctas_next)]
                    with m.If((ctas_next >= target) | (self.sample_cycles + 1 == cyc_max)):
                        m.d.sync += st.eq(SamplerState.DONE)
        return m

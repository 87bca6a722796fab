"""perf_sat invariants ([THESIS §4.3.2.2]): the CTA limit stays within [1, N_max] of the kernel
that started detection (1 before any kernel), and ``done`` means the DONE state."""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal

from formal.props import PropsTop
from hdl.perf_sat import PerfSatState


class PerfSatProps(PropsTop):
    name = "perf_sat"

    def properties(self, m: Module, dut) -> None:
        # shadow of the captured N_max (the port value at kernel_start; 0 counts as 1)
        n_max = Signal(len(dut.cta_limit), init=1)
        with m.If(dut.kernel_start):
            m.d.sync += n_max.eq(Mux(dut.n_max == 0, 1, dut.n_max))
        lim = dut.cta_limit
        self.invariant(m, "cta_limit >= 1", lim >= 1)
        self.invariant(m, "cta_limit <= N_max", lim <= n_max)
        self.invariant(m, "done iff state DONE", dut.done == (dut.state == PerfSatState.DONE))


def mutant_si_overshoots(m: Module, inner) -> dict:
    """A strong-increase step that goes one past N_max."""
    return {"cta_limit": Mux(inner.state == PerfSatState.SI, inner.cta_limit + 1, inner.cta_limit)}

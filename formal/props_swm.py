"""onac / seq_det invariants ([THESIS §4.4], the SWM skeleton of hdl/onac_parts/swm.py):
the core count stays within [1, M], SM 0 stays active, and neither 4-phase handshake (pause,
sample) ever withdraws a request before its acknowledgement, nor raises a new one before the
old acknowledgement fell — i.e. a request bit changes only when its ack equals it.

Environment (assumed): acks start low and move only towards their request (a well-behaved SM);
sample data and ``sm_idle`` are free. A kernel ``start`` may abort a handshake: the cycle after
a start is exempt.
"""

from __future__ import annotations

from amaranth.asserts import Initial
from amaranth.hdl import Module, Signal

from formal.props import PropsTop


class SwmProps(PropsTop):
    name = "swm"

    def properties(self, m: Module, dut) -> None:
        n_sms = len(dut.pause_req)
        past = {k: Signal(n_sms, name=f"past_{k}")
                for k in ("pause_req", "pause_ack", "sample_req", "sample_done")}
        past_start = Signal()
        m.d.sync += [sig.eq(getattr(dut, k)) for k, sig in past.items()] + [past_start.eq(dut.start)]
        first = Initial()
        for req, ack in (("pause_req", "pause_ack"), ("sample_req", "sample_done")):
            a, pa, pr = getattr(dut, ack), past[ack], past[req]
            self.assume(m, ~first | (a == 0))
            moved = a ^ pa
            self.assume(m, first | ((moved & (a ^ pr)) == 0))   # an ack moves only to its req
        self.invariant(m, "1 <= n_est <= M", (dut.n_est >= 1) & (dut.n_est <= n_sms))
        self.invariant(m, "n_opt <= M (and >= 1 once done)",
                       (dut.n_opt <= n_sms) & (~dut.done | (dut.n_opt >= 1)))
        self.invariant(m, "SM 0 stays active and ungated", dut.active[0] & ~dut.power_gate[0])
        for req, ack in (("pause_req", "pause_ack"), ("sample_req", "sample_done")):
            r, pr, pa = getattr(dut, req), past[req], past[ack]
            self.invariant(m, f"{req} changes only once acknowledged",
                           first | past_start | (((r ^ pr) & (pa ^ pr)) == 0))


def mutant_sample_withdrawn(m: Module, inner) -> dict:
    """The sample request of every SM is withdrawn as soon as the first SM answers."""
    return {"sample_req": inner.sample_req & ~inner.sample_done.any().replicate(len(inner.sample_req))}

"""Shared restoring divider: N // P and N % P for the constant CU count P ([IKRA Chunk]; the cycle
contract is ours).

One quotient bit per cycle, MSB first, so a launch spends exactly ID_W cycles here before the two
chunk set-up cycles. The divisor is a constant, so the trial subtraction is a compare with P.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class RestoringDivider(wiring.Component):
    """``load`` latches the dividend; each ``step`` shifts in one quotient bit."""

    def __init__(self, id_w: int, divisor: int):
        self.id_w, self.divisor = id_w, divisor
        self.rem_w = max(1, (divisor - 1).bit_length())
        super().__init__({
            "load": In(1), "dividend": In(id_w), "step": In(1),
            "quotient": Out(id_w), "remainder": Out(self.rem_w),
        })

    def elaborate(self, platform):
        m = Module()
        q = Signal(self.id_w)              # dividend bits not yet consumed, then quotient bits
        r = Signal(self.rem_w)             # partial remainder, always < divisor
        trial = Signal(self.rem_w + 1)
        fits = Signal()
        m.d.comb += [
            trial.eq(Cat(q[-1], r)),
            fits.eq(trial >= self.divisor),
            self.quotient.eq(q),
            self.remainder.eq(r),
        ]
        with m.If(self.load):
            m.d.sync += [q.eq(self.dividend), r.eq(0)]
        with m.Elif(self.step):
            m.d.sync += [q.eq(Cat(fits, q[:-1])),
                         r.eq(Mux(fits, trial - self.divisor, trial)[:self.rem_w])]
        return m

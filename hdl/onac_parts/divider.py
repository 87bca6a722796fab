"""Sequential restoring divider: ``quotient, remainder = dividend // divisor, dividend % divisor``.

One quotient bit per cycle ([THESIS] suggests one small sequential divider for ONAC instead
of a combinational one). Protocol:

- ``start`` (in): load ``dividend`` / ``divisor`` at this clock edge (a start while busy restarts).
- ``busy`` (out): high for exactly ``dividend_bits`` cycles after the start cycle.
- ``quotient`` / ``remainder`` (out): valid from the first cycle with ``busy`` low after a start,
  held until the next start.

Division by zero gives an all-ones quotient (every restoring step "fits"); the remainder is then
unspecified. Callers that care guard against it.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class RestoringDivider(wiring.Component):
    """``dividend_bits``-cycle divider of an unsigned ``dividend_bits`` by a ``divisor_bits`` value."""

    def __init__(self, dividend_bits: int, divisor_bits: int):
        self.dividend_bits, self.divisor_bits = dividend_bits, divisor_bits
        super().__init__({
            "start": In(1),
            "dividend": In(dividend_bits),
            "divisor": In(divisor_bits),
            "busy": Out(1),
            "quotient": Out(dividend_bits),
            "remainder": Out(divisor_bits),
        })

    def elaborate(self, platform):
        m = Module()
        dw, dv = self.dividend_bits, self.divisor_bits
        # ``acc`` shifts the dividend out at the top while quotient bits shift in at the bottom.
        acc = Signal(dw)
        rem = Signal(dv + 1)
        divisor = Signal(dv)
        count = Signal(range(dw + 1))

        shifted = Signal(dv + 2)
        diff = Signal(dv + 2)
        fits = Signal()
        m.d.comb += [
            shifted.eq(Cat(acc[dw - 1], rem)),
            diff.eq(shifted - divisor),
            fits.eq(shifted >= divisor),
            self.busy.eq(count != 0),
            self.quotient.eq(acc),
            self.remainder.eq(rem[:dv]),
        ]
        with m.If(self.start):
            m.d.sync += [acc.eq(self.dividend), divisor.eq(self.divisor), rem.eq(0),
                         count.eq(dw)]
        with m.Elif(self.busy):
            m.d.sync += [
                rem.eq(Mux(fits, diff, shifted)),
                acc.eq(Cat(fits, acc[:dw - 1])),
                count.eq(count - 1),
            ]
        return m


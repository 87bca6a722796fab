"""warp_sched invariants ([GPGPU-Sim scheduler_unit::cycle()]): at most one grant, only to a ready
warp, and a grant whenever some warp is ready; ``grant_idx`` names the granted slot."""

from __future__ import annotations

from amaranth.hdl import Module

from formal.props import PropsTop


class WarpSchedProps(PropsTop):
    name = "warp_sched"

    def properties(self, m: Module, dut) -> None:
        g = dut.grant
        self.invariant(m, "at most one grant", (g & (g - 1)) == 0)
        self.invariant(m, "a grant only to a ready warp", (g & ~dut.ready) == 0)
        self.invariant(m, "some warp granted iff some warp ready", g.any() == dut.ready.any())
        self.invariant(m, "grant_valid iff a grant", dut.grant_valid == g.any())
        self.invariant(m, "grant_idx names the granted slot",
                       ~dut.grant_valid | (g == (1 << dut.grant_idx)[:len(g)]))


def mutant_grant_launching(m: Module, inner) -> dict:
    """A warp being launched into slot 0 is granted even before it is ready."""
    from amaranth.hdl import Mux
    g = Mux(inner.launch[0] & ~inner.ready.any(), 1, inner.grant)
    return {"grant": g}

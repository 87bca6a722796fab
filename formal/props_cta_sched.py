"""cta_sched invariants (our test plan for [IKRA]): within a kernel every thread block is dispatched
at most once, only ids below N, never two CUs the same id in one cycle, and — with the retirements
the CUs report — all N exactly once by ``kernel_done``; nothing is offered between kernels; a
CU's own cursor advances only in a cycle its slot was free (never dispatches to a full CU).

Environment (assumed): grid N = grid_x in [1, 2^ID_W) (y = z = 1, the caller's contract), and a
CU retires only blocks it received.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Elaboratable, Module, Signal

from formal.props import PropsTop
from hdl.ikra.params import TB_DONE_W


class CtaSchedProps(PropsTop):
    name = "cta_sched"

    def __init__(self, dut, n_cus: int, id_w: int, helpers: bool = False):
        self.n_cus, self.id_w, self.helpers = n_cus, id_w, helpers
        super().__init__(dut)

    def instance(self, platform):
        """With ``helpers``, the block (inside its mutant shell, if any) is elaborated here so
        the helper invariants can read its registers (``CtaSched.formal_state``)."""
        if not self.helpers:
            return self.dut
        real = getattr(self.dut, "inner", self.dut)
        real._MustUse__silence = True          # elaborated here, not by Amaranth: not unused
        body = real.elaborate(platform)
        self.state = real.formal_state
        if real is self.dut:
            return body
        self.dut.inner = _Elaborated(real, body)
        return self.dut

    def properties(self, m: Module, dut) -> None:
        p, idw = self.n_cus, self.id_w
        ids = [dut.tb_id[i * idw:(i + 1) * idw] for i in range(p)]
        take = [dut.tb_valid[i] & dut.slot_free[i] for i in range(p)]
        self.assume(m, (dut.grid_x >= 1) & (dut.grid_x < (1 << idw)) & (dut.grid_y == 1)
                    & (dut.grid_z == 1))
        # shadow state: N, the ids dispatched this kernel, blocks held per CU, set-up cycles left
        fire = Signal()
        m.d.comb += fire.eq(dut.launch_valid & dut.launch_ready)
        n = Signal(idw)
        seen = Signal(1 << idw)
        held = [Signal(8, name=f"held{i}") for i in range(p)]
        setup = Signal(range(idw + 4))
        got = Signal(1 << idw)
        hots = []
        for i in range(p):
            hot = Signal(1 << idw, name=f"hot{i}")
            m.d.comb += hot.eq((take[i] << ids[i])[:1 << idw])
            hots.append(hot)
        m.d.comb += got.eq(_or(hots))
        with m.If(fire):
            m.d.sync += [n.eq(dut.grid_x[:idw]), seen.eq(0), setup.eq(idw + 3)]
        with m.Else():
            m.d.sync += seen.eq(seen | got)
            with m.If(setup != 0):
                m.d.sync += setup.eq(setup - 1)
        for i in range(p):
            done_i = dut.tb_done[i * TB_DONE_W:(i + 1) * TB_DONE_W]
            self.assume(m, done_i <= held[i])
            m.d.sync += held[i].eq(held[i] + take[i] - done_i)

        self.invariant(m, "nothing offered between kernels", ~dut.launch_ready | (dut.tb_valid == 0))
        for i in range(p):
            self.invariant(m, "a dispatched id is below N", ~take[i] | (ids[i] < n))
            self.invariant(m, "no id dispatched twice in a kernel", (hots[i] & seen) == 0)
            for j in range(i):
                self.invariant(m, "no two CUs get the same id in a cycle",
                               ~(take[i] & take[j]) | (ids[i] != ids[j]))
        mask = Signal(1 << idw)
        m.d.comb += mask.eq((1 << n) - 1)
        self.invariant(m, "all N dispatched by kernel_done", ~dut.kernel_done | ((seen | got) == mask))
        if self.helpers:
            from formal.props_cta_sched_helpers import add_helpers
            add_helpers(self, m, dut, Shadow(n, seen, held, setup, mask))
        # a CU's own cursor moves only when it dispatched (slot free), outside launch set-up
        past_cur = Signal(len(dut.st_cur))
        past_qcur = Signal(len(dut.st_q_cur))
        past_free = Signal(p)
        past_busy = Signal()
        m.d.sync += [past_cur.eq(dut.st_cur), past_qcur.eq(dut.st_q_cur),
                     past_free.eq(dut.slot_free), past_busy.eq(fire | (setup != 0))]
        qw = len(dut.st_q_cur) // p
        for i in range(p):
            moved = ((dut.st_cur[i * idw:(i + 1) * idw] != past_cur[i * idw:(i + 1) * idw])
                     | (dut.st_q_cur[i * qw:(i + 1) * qw] != past_qcur[i * qw:(i + 1) * qw]))
            self.invariant(m, "a cursor moves only when its CU had a free slot",
                           past_busy | ~moved | past_free[i])


@dataclass
class Shadow:
    """The wrapper's own registers the helper invariants relate to the block's."""
    n: Signal            # N latched at the launch
    seen: Signal         # ids dispatched in this kernel before this cycle
    held: list           # thread blocks each CU holds (dispatched, not yet retired)
    setup: Signal        # launch set-up cycles left (+1)
    mask: Signal         # the ids below N


class _Elaborated(Elaboratable):
    """A block already elaborated (its body), standing in for it inside a mutant shell."""

    def __init__(self, block, body):
        self._block, self._body = block, body

    def __getattr__(self, name):
        return getattr(self._block, name)

    def elaborate(self, platform):
        return self._body


def _or(values):
    out = values[0]
    for v in values[1:]:
        out = out | v
    return out


def mutant_same_id_twice(m: Module, inner) -> dict:
    """CU 1 is offered CU 0's thread block whenever both have an offer."""
    from amaranth.hdl import Mux
    idw = len(inner.tb_id) // len(inner.tb_valid)
    both = inner.tb_valid[0] & inner.tb_valid[1]
    return {"tb_id": Mux(both, Cat(inner.tb_id[:idw], inner.tb_id[:idw], inner.tb_id[2 * idw:]),
                         inner.tb_id)}


CtaSchedProps.trace_ports = lambda self: [f"dut.{n}" for n in (
    "launch_valid", "grid_x", "launch_ready", "slot_free", "tb_done", "tb_valid", "tb_id",
    "kernel_done", "st_cur")]

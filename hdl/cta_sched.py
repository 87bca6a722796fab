"""GPU-level CTA scheduler ``cta_sched``: IKRA's G / C / R / F / S policies ([IKRA]).

``CtaSched(n_cus, id_w=32, qdepth=32, policy, victim_first="right")``; ports and packing in
``hdl.ikra.params`` (per-CU fields packed CU 0 lowest). The twin ``sim.blocks.cta_sched.CtaSchedTwin`` has the same
ports and cycle behaviour.

Our cycle contract and the choices taken where the spec leaves one:

- Launch: ``launch_ready`` = no kernel active. ``launch_valid & launch_ready`` latches the dims
  and N = gx·gy·gz (truncated to ID_W; N ≥ 1 and < 2^ID_W is the caller's contract). The next
  ID_W + 2 cycles initialise (ID_W restoring-divider steps for N // P, N % P, then two chunk
  set-up cycles) for every policy, G included (G does not need the divider and has none, only
  the counter); the first offer can come in the cycle after.
- ``tb_done`` counts only while the kernel runs; ``kernel_done`` is a registered one-cycle pulse
  in the cycle after the retirements that bring the count to N, and ``launch_ready`` rises in
  that same cycle (a new launch may handshake while ``kernel_done`` is high).
- ``nowork`` is low outside a running kernel (idle and initialisation).
- ``tb_id``, ``tb_src``, ``tb_victim`` are 0 when ``tb_valid`` is low.
- Status ports (``st_*``) show the registers; fields a policy lacks read 0. For C / R / F,
  ``st_cur`` is the walking end of ``[lo, hi)``; ``st_phase`` is one global bit.
  ``st_reinit_pending`` (S) = no kernel since reset or some overflow flag set: the next launch
  re-chunks whatever its dims.

Our defaults where [IKRA] is silent (numbered as in docs/mechanisms/ikra.md): (1) victims by CU
index, right neighbour first as in the paper's Fig 3 (``victim_first="right"``: i+1, i−1, i+2, …;
"left": i−1, i+1, …), all queues before any chunk; (2) a queue theft takes the end the victim would reach last;
(3) G / C rotate from the CU that received the last TB (latest in circular order on ties),
initially P−1; (4) phase 0 for the first kernel, toggling at every launch, never reset by reinit;
(5) a CU steals once it has *dispatched* all its work; (6) overflow = an append that finds the
queue full; (8) lowest-index thief wins a region, the victim keeps its last TB in a same-cycle
race; (9) ID_W + 2 cycles of launch latency for every policy.

Structure (ours): ``ikra.divider`` (shared restoring divider), ``ikra.rr`` (G unit),
``ikra.chunk`` ([IKRA Chunk] formula, C / R / F), ``ikra.steal`` + ``ikra.steal_cu`` +
``ikra.fabric`` (S: per-CU chunk/cursor/queue registers, victim choice and per-region arbitration).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from .common import signature_of
from .ikra.chunk import build_chunk_unit
from .ikra.control import Control
from .ikra.divider import RestoringDivider
from .ikra.params import GRID_WIDTHS, POLICIES, TB_DONE_W, IkraShape, check_params
from .ikra.rr import build_rr_unit
from .ikra.steal import build_steal_unit

__all__ = ["CtaSched", "POLICIES", "check_params"]


class CtaSched(wiring.Component):
    """IKRA CTA scheduler for ``n_cus`` CUs; ``policy`` in rr, chunk, reset, flip, steal."""

    def __init__(self, n_cus: int, id_w: int = 32, qdepth: int = 32, policy: str = "steal",
                 victim_first: str = "right"):
        self.shape = IkraShape(n_cus, id_w, qdepth, policy, victim_first)
        super().__init__(signature_of(self.shape.ports()))

    def elaborate(self, platform):
        m = Module()
        sh = self.shape
        p, idw = sh.n_cus, sh.id_w

        active = Signal(name="active")                       # launched, not yet fully retired
        init_left = Signal(range(sh.init_cycles + 1), name="init_left")
        n = Signal(idw, name="n_tbs")
        retired = Signal(idw, name="retired")
        done_pulse = Signal(name="done_pulse")
        fire = Signal(name="fire")
        running = Signal(name="running")
        m.d.comb += [
            self.launch_ready.eq(~active),
            fire.eq(self.launch_valid & ~active),
            running.eq(active & (init_left == 0)),
            self.kernel_done.eq(done_pulse),
        ]

        gx, gy, gz = self.grid_x, self.grid_y, self.grid_z
        n_in = Signal(idw, name="n_in")
        m.d.comb += n_in.eq(((gx[:min(idw, GRID_WIDTHS[0])] * gy)[:idw] * gz)[:idw])

        with m.If(fire):
            m.d.sync += [active.eq(1), init_left.eq(sh.init_cycles), n.eq(n_in), retired.eq(0)]
        with m.Elif(init_left != 0):
            m.d.sync += init_left.eq(init_left - 1)

        # Retirements: kernel_done pulses the cycle after the count reaches N.
        done_sum = Signal(TB_DONE_W + p.bit_length(), name="done_sum")
        retired_next = Signal(idw + 1, name="retired_next")
        m.d.comb += [
            done_sum.eq(sum(self.tb_done[i * TB_DONE_W:(i + 1) * TB_DONE_W] for i in range(p))),
            retired_next.eq(retired + done_sum),
        ]
        m.d.sync += done_pulse.eq(0)
        with m.If(running):
            m.d.sync += retired.eq(retired_next)
            with m.If(retired_next >= n):
                m.d.sync += [active.eq(0), done_pulse.eq(1)]

        setup1 = Signal(name="setup1")
        setup2 = Signal(name="setup2")
        m.d.comb += [setup1.eq(init_left == 2), setup2.eq(init_left == 1)]
        if sh.policy == "rr":
            base, rem = Const(0, idw), Const(0, 1)
        else:
            m.submodules.divider = div = RestoringDivider(idw, p)
            m.d.comb += [div.load.eq(fire), div.dividend.eq(n_in), div.step.eq(init_left > 2)]
            base, rem = div.quotient, div.remainder

        ctl = Control(fire=fire, setup1=setup1, setup2=setup2, running=running, n=n, base=base,
                      rem=rem, grid=Cat(gx, gy, gz), slot_free=self.slot_free)
        if sh.policy == "rr":
            outs = build_rr_unit(m, sh, ctl)
        elif sh.policy == "steal":
            outs = build_steal_unit(m, sh, ctl)
        else:
            outs = build_chunk_unit(m, sh, ctl)
        # registered state for the helper invariants of formal/props_cta_sched.py (no logic)
        self.formal_state = {"active": active, "init_left": init_left, "n": n, "retired": retired,
                             "done_pulse": done_pulse, "quotient": base, "remainder": rem,
                             "unit": outs}
        for name in sh.outputs():
            if name in ("launch_ready", "kernel_done"):
                continue
            port = getattr(self, name)
            m.d.comb += port.eq(outs.get(name, 0))
        return m

"""OWL warp-scheduler invariants ([OWL §4.1–§4.3]): the warp_sched ones, plus the group rule —
never a grant outside the chosen group while that group has a ready warp.

The wrapper keeps its own shadow of the warp → group map, written at every launch from a
group formation unit (``hdl.owl.GroupFormation``, checked against Algorithm 1 separately), and of
the chosen group: Locality the lowest group with a ready warp; BLP the top group
``sm_id mod g_core`` latched at launch; CTA-aware the group of the last grant (sticky); the A3 (b)
variants the head, shadowed from the rules in hdl/params/owl.py (refills to the tail, the head
advancing once its group, seen live, has no live warp).
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal

from formal.props_warp_sched import WarpSchedProps
from hdl.owl import GroupFormation
from hdl.params.owl import ROTATING


class OwlProps(WarpSchedProps):
    name = "warp_sched"

    def __init__(self, dut):
        block = getattr(dut, "inner", dut)            # the block itself, or inside its mutant
        self.policy, self.g_size, self.n_groups = block.policy, block.g_size, block.n_groups
        super().__init__(dut)

    def properties(self, m: Module, dut) -> None:
        super().properties(m, dut)
        w, gn = len(dut.ready), self.n_groups
        m.submodules.shadow_formation = form = GroupFormation(self.g_size, gn)
        m.d.comb += [form.k.eq(dut.warps_per_cta), form.n_ctas.eq(dut.resident_ctas),
                     form.cta.eq(dut.launch_cta)]
        group = [Signal(len(form.group), name=f"shadow_group_{s}") for s in range(w)]
        launch_group = Signal(len(form.group), name="shadow_launch_group")
        for s in range(w):
            with m.If(dut.launch[s]):
                m.d.sync += group[s].eq(launch_group)
        member = [Signal(w, name=f"shadow_member_{g}") for g in range(gn)]
        for g in range(gn):
            m.d.comb += member[g].eq(sum((group[s] == g) << s for s in range(w)))
        head = None
        if self.policy in ROTATING:
            head = self._shadow_head(m, dut, form, member, launch_group)
        else:
            m.d.comb += launch_group.eq(form.group)
        granted_group = Signal(len(form.group))
        acc = 0
        for s in range(w):
            acc = acc | (group[s] & dut.grant[s].replicate(len(form.group)))
        m.d.comb += granted_group.eq(acc)
        if self.policy == "owl_locality":
            for h in range(gn - 1):
                self.invariant(m, "no grant below a higher-priority group with a ready warp",
                               ~dut.grant_valid | (granted_group <= h)
                               | ~(dut.ready & member[h]).any())
            return
        chosen = Signal(len(form.group), name="shadow_chosen")
        if head is not None:
            m.d.comb += chosen.eq(head)
        elif self.policy == "owl_blp":
            with m.If(dut.launch.any()):
                m.d.sync += chosen.eq(dut.sm_id % form.g_core)
        else:                                     # owl_cta: sticky on the last grant's group
            with m.If(dut.grant_valid):
                m.d.sync += chosen.eq(granted_group)
        chosen_mask = Signal(w)
        m.d.comb += chosen_mask.eq(sum(member[g] & (chosen == g).replicate(w)
                                       for g in range(gn)))
        self.invariant(m, "no grant outside the chosen group while it has a ready warp",
                       ~(dut.ready & chosen_mask).any() | (dut.grant & chosen_mask).any())

    def _shadow_head(self, m: Module, dut, form, member: list, launch_group: Signal) -> Signal:
        """A3 (b)'s head, written from its rules, and the group of a launching CTA."""
        w, gn = len(dut.ready), self.n_groups
        bits = len(launch_group)
        head, seen = Signal(bits, name="shadow_head"), Signal(name="shadow_seen")
        gcore = Signal(range(gn + 1), name="shadow_g_core", init=1)
        kernel, known = Signal(len(dut.launch_kernel), name="shadow_kernel"), Signal(name="shadow_known")
        used = Signal(w, name="shadow_used")
        live = Signal(name="shadow_head_live")
        in_head = sum(member[g] & (head == g).replicate(w) for g in range(gn))
        m.d.comb += live.eq((dut.valid & in_head).any())
        advance = seen & ~live & (gcore > 1)
        after = Signal(bits, name="shadow_head_after")
        m.d.comb += after.eq(Mux(advance, Mux(head == gcore - 1, 0, head + 1), head))
        launching = dut.launch.any()
        new_kernel = launching & (~known | (dut.launch_kernel != kernel))
        refill = launching & ~new_kernel & (dut.launch & used).any()
        m.d.comb += launch_group.eq(Mux(refill, Mux(after == 0, gcore - 1, after - 1), form.group))
        first = dut.sm_id % form.g_core if ROTATING[self.policy] == "owl_blp" else 0
        m.d.sync += [head.eq(after), seen.eq(Mux(advance, 0, seen | live))]
        with m.If(launching):
            m.d.sync += [gcore.eq(form.g_core), used.eq(used | dut.launch)]
        with m.If(new_kernel):
            m.d.sync += [head.eq(first), seen.eq(0), kernel.eq(dut.launch_kernel), known.eq(1),
                         used.eq(dut.launch)]
        return head


def mutant_ignore_groups(m: Module, inner) -> dict:
    """The lowest ready warp is granted, whatever its group (a one-level scheduler)."""
    from hdl.common import first_one_hot, one_hot_index
    w = len(inner.ready)
    g = first_one_hot(m, inner.ready, w, "mutant_first")
    return {"grant": g, "grant_idx": one_hot_index(m, g, w, "mutant_idx")}

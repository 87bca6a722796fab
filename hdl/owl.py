"""OWL's warp schedulers ([OWL §4.1–§4.3]) and the two-level scheduler of [44] on the
warp-scheduler port (hdl/params/warp_sched.py; twin: sim/blocks/owl.py; rules and defaults:
hdl/params/owl.py).

Four parts, one concern each:
1. ``GroupFormation``: Algorithm 1 for the launching CTA, combinational (no FSM: every loop of
   Algorithm 1 is a count of true comparisons against constants).
2. Group priority: a sticky current group with RR advance (CTA-aware, TL), a fixed priority
   encoder (Locality) or one rotated to start at the top group ``sm_id mod g_core`` (BLP),
   latched at each launch (g_pri is fixed per kernel, as Algorithm 1 computes it).
3. Warp → group map: a group-id register per warp slot written when its CTA launches (TL:
   constant wiring by slot), giving one W-bit member mask per group.
4. Two-level select: ``group_ready[g] = OR(ready & member_g)``, level 2 picks the group, level 1
   is a round-robin arbiter over the W slots masked by that group, after the group's own
   last-grant pointer.
The grant is a same-cycle function of the inputs and the registers; the registers (group map,
BLP's top group, RR pointers, current group) change at the clock edge, only on a grant or a
launch. The A3 (b) variants ``owl_locality_rot`` / ``owl_blp_rot`` replace the latched top group
by a rotating head (``_rotating_head``: head, seen bit, g_core, kernel id, used-slot mask), which
also moves when the head group's last live warp is gone (``valid``), and send refills to the tail.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.params.owl import CTA_GROUPED, ROTATING, STICKY, n_groups_of
from hdl.params.warp_sched import (CTA_BITS, KERNEL_BITS, RESIDENT_BITS, WPC_BITS, check_params,
                                   idx_width, ports)

from .common import first_one_hot, one_hot_index, prefix_or, signature_of


def _bits(n_values: int) -> int:
    return max(1, (n_values - 1).bit_length())


class GroupFormation(wiring.Component):
    """Algorithm 1 ([OWL §4.1, §4.3, Algorithm 1]) for one CTA slot: ``n`` = min CTAs per group,
    ``g_core`` (A2 clamp to 1, at most ``n_groups``), and ``group`` of CTA slot ``cta``.

    n - 1 = #{i in 1..g_size-1 : i*k < g_size} = #{i : k <= (g_size-1) // i};
    g_core - 1 = #{j in 1..G-1 : (j+1)*n <= N};
    group = #{j in 1..G-1 : j*n <= cta and (j+1)*n <= N} (the remainder joins the last group).
    """

    def __init__(self, g_size: int, n_groups: int):
        self.g_size, self.n_groups = g_size, n_groups
        super().__init__({
            "k": In(WPC_BITS), "n_ctas": In(RESIDENT_BITS), "cta": In(CTA_BITS),
            "n": Out(range(g_size + 1)), "g_core": Out(range(n_groups + 1)),
            "group": Out(_bits(n_groups)),
        })

    def elaborate(self, platform):
        m = Module()
        gs, gn = self.g_size, self.n_groups
        short = [self.k <= (gs - 1) // i for i in range(1, gs)]
        m.d.comb += self.n.eq(1 + sum(short, Const(0, range(gs + 1))))
        # boundary j: CTAs j*n .. belong to group >= j when group j exists ((j+1)*n <= N)
        exists = [Signal(name=f"group_{j}_exists") for j in range(1, gn)]
        past = [Signal(name=f"cta_past_boundary_{j}") for j in range(1, gn)]
        for j, (e, p) in enumerate(zip(exists, past), start=1):
            m.d.comb += [e.eq(self.n * (j + 1) <= self.n_ctas), p.eq(self.n * j <= self.cta)]
        zero = Const(0, range(gn + 1))
        m.d.comb += [
            self.g_core.eq(1 + sum(exists, zero)),
            self.group.eq(sum((e & p for e, p in zip(exists, past)), zero)),
        ]
        return m


class OwlSched(wiring.Component):
    """``owl_cta`` / ``owl_locality`` / ``owl_blp`` / ``tl_narasiman`` (and the A3 (b)
    ``owl_locality_rot`` / ``owl_blp_rot``) over ``n_warps`` slots."""

    def __init__(self, n_warps: int, policy: str, g_size: int = 8, n_groups: int = 8):
        check_params(n_warps, policy, g_size=g_size, n_groups=n_groups)
        self.n_warps, self.policy, self.g_size = n_warps, policy, g_size
        self.n_groups = n_groups_of(policy, n_warps, g_size, n_groups)
        super().__init__(signature_of(ports(n_warps)))

    def elaborate(self, platform):
        m = Module()
        w, gn = self.n_warps, self.n_groups
        launch_group = Signal(_bits(gn), name="launch_group")     # group of a launching CTA
        member, g_core, form = self._group_map(m, launch_group)   # g_core: of the launching kernel
        if form is not None and self.policy not in ROTATING:
            m.d.comb += launch_group.eq(form.group)
        group_ready = Signal(gn)
        m.d.comb += group_ready.eq(Cat((self.ready & member[g]).any() for g in range(gn)))

        # 2: level 2, the group that issues
        cur = Signal(_bits(gn))
        if self.policy in STICKY:
            chosen = self._first_from(m, group_ready, cur, gn, "group_from_cur")
        elif self.policy in ROTATING:
            head = self._rotating_head(m, member, g_core, form, launch_group)
            chosen = self._first_from(m, group_ready, head, gn, "group_from_head")
        elif self.policy == "owl_blp":
            # g_pri is fixed per kernel (Algorithm 1): the top group is latched at each launch
            top = Signal(_bits(gn))
            top_next = self._blp_top(m, g_core)
            with m.If(self.launch.any()):
                m.d.sync += top.eq(top_next)
            chosen = self._first_from(m, group_ready, top, gn, "group_from_top")
        else:
            chosen = first_one_hot(m, group_ready, gn, "group_first")
        chosen_idx = one_hot_index(m, chosen, gn, "chosen_group")

        # 4: level 1, RR inside the chosen group after its last grant
        cand = Signal(w)
        m.d.comb += cand.eq(self.ready & self._or_masks(member, chosen, w))
        last = Array(Signal(idx_width(w), name=f"rr_last_{g}", init=w - 1) for g in range(gn))
        last_hot = Signal(w)
        m.d.comb += last_hot.eq(1 << last[chosen_idx])
        after = Signal(w)
        m.d.comb += after.eq(cand & (prefix_or(m, last_hot, w, "upto_last") << 1)[:w])
        pick = Signal(w)
        m.d.comb += pick.eq(Mux(after.any(), first_one_hot(m, after, w, "pick_after"),
                                 first_one_hot(m, cand, w, "pick_any")))
        m.d.comb += [
            self.grant.eq(pick),
            self.grant_valid.eq(group_ready.any()),
            self.grant_idx.eq(one_hot_index(m, pick, w, "grant_idx_enc")),
        ]
        with m.If(self.grant_valid):
            m.d.sync += last[chosen_idx].eq(self.grant_idx)
            if self.policy in STICKY:
                m.d.sync += cur.eq(chosen_idx)
        return m

    def _blp_top(self, m: Module, g_core: Value) -> Signal:
        """BLP's top group ``sm_id mod g_core`` for this cycle's launch (0 when g_core = 1)."""
        gn = self.n_groups
        top_next = Signal(_bits(gn), name="blp_top_next")
        with m.Switch(g_core):
            for c in range(2, gn + 1):
                with m.Case(c):
                    m.d.comb += top_next.eq(self._mod_const(m, self.sm_id, c))
        return top_next

    def _rotating_head(self, m: Module, member: list, g_core: Value, form, launch_group: Signal
                       ) -> Signal:
        """A3 (b) (hdl/params/owl.py): the head register and the group of a launching CTA (its
        Algorithm 1 group, or the tail after this cycle's head advance for a refill)."""
        gn, w = self.n_groups, self.n_warps
        head = Signal(_bits(gn), name="head")
        seen = Signal(name="head_seen")
        gcore = Signal(range(gn + 1), name="g_core_reg", init=1)
        kernel = Signal(KERNEL_BITS, name="kernel")
        kvalid = Signal(name="kernel_valid")
        used = Signal(w, name="used_slots")
        live, adv = Signal(name="head_live"), Signal(name="head_advance")
        new_head, tail = Signal(_bits(gn), name="head_next"), Signal(_bits(gn), name="tail")
        m.d.comb += [
            live.eq((self.valid & Array(member)[head]).any()),
            adv.eq(seen & ~live & (gcore > 1)),
            new_head.eq(Mux(adv, Mux(head + 1 >= gcore, 0, head + 1), head)),
            tail.eq(Mux(new_head == 0, gcore - 1, new_head - 1)),
        ]
        launching = self.launch.any()
        fresh, refill = Signal(name="new_kernel"), Signal(name="refill")
        m.d.comb += [
            fresh.eq(launching & (~kvalid | (self.launch_kernel != kernel))),
            refill.eq(launching & ~fresh & (self.launch & used).any()),
            launch_group.eq(Mux(refill, tail, form.group)),
        ]
        first = self._blp_top(m, g_core) if ROTATING[self.policy] == "owl_blp" else Const(0)
        m.d.sync += [head.eq(new_head), seen.eq(Mux(adv, 0, seen | live))]
        with m.If(launching):
            m.d.sync += [gcore.eq(g_core), used.eq(used | self.launch)]
        with m.If(fresh):
            m.d.sync += [head.eq(first), seen.eq(0), kernel.eq(self.launch_kernel),
                         kvalid.eq(1), used.eq(self.launch)]
        return head

    @staticmethod
    def _mod_const(m: Module, value: Value, c: int) -> Value:
        """``value mod c`` for a small constant c: each bit adds its residue 2^i mod c, then the
        small sum is reduced by a lookup (a shallow adder tree, not a divider)."""
        total = sum((value[i] * ((1 << i) % c) for i in range(len(value))), Const(0, 1))
        bound = sum((1 << i) % c for i in range(len(value))) + 1
        partial = Signal(range(bound), name=f"sm_residue_sum_{c}")
        m.d.comb += partial.eq(total)
        out = Signal(range(c), name=f"sm_mod_{c}")
        with m.Switch(partial):
            for v in range(bound):
                with m.Case(v):
                    m.d.comb += out.eq(v % c)
        return out

    @staticmethod
    def _or_masks(member: list, chosen: Signal, w: int) -> Value:
        acc = Const(0, w)
        for g, mask in enumerate(member):
            acc = acc | (mask & chosen[g].replicate(w))
        return acc

    def _group_map(self, m: Module, launch_group: Signal) -> tuple[list, Value, GroupFormation | None]:
        """3: per-group W-bit member masks (a group register per slot, set to ``launch_group``
        at its launch), g_core of this cycle's launch and the group formation unit."""
        w, gn = self.n_warps, self.n_groups
        if self.policy not in CTA_GROUPED:          # TL: fixed groups of g_size slots
            masks = [Const(sum(1 << s for s in range(w) if s // self.g_size == g), w)
                     for g in range(gn)]
            return masks, Const(gn, range(gn + 1)), None
        m.submodules.formation = form = GroupFormation(self.g_size, gn)
        m.d.comb += [form.k.eq(self.warps_per_cta), form.n_ctas.eq(self.resident_ctas),
                     form.cta.eq(self.launch_cta)]
        group = [Signal(_bits(gn), name=f"group_of_{s}") for s in range(w)]
        for s in range(w):
            with m.If(self.launch[s]):
                m.d.sync += group[s].eq(launch_group)
        masks = []
        for g in range(gn):
            mask = Signal(w, name=f"member_{g}")
            m.d.comb += mask.eq(Cat(group[s] == g for s in range(w)))
            masks.append(mask)
        return masks, form.g_core, form

    @staticmethod
    def _first_from(m: Module, vec: Signal, start: Signal, width: int, name: str) -> Signal:
        """One-hot of the first set bit of ``vec`` at or after index ``start``, circularly."""
        start_hot = Signal(width, name=f"{name}_start")
        m.d.comb += start_hot.eq(1 << start)
        upper = Signal(width, name=f"{name}_upper")
        m.d.comb += upper.eq(vec & prefix_or(m, start_hot, width, f"{name}_from"))
        out = Signal(width, name=name)
        m.d.comb += out.eq(Mux(upper.any(), first_one_hot(m, upper, width, f"{name}_up"),
                                first_one_hot(m, vec, width, f"{name}_wrap")))
        return out

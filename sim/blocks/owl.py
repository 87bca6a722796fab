"""Twin of ``hdl.owl.OwlSched``: OWL's CTA-aware, Locality and BLP warp schedulers and the
two-level scheduler of [44] ([OWL §3, §4.1–§4.3]), with identical port timing. The rules and the
defaults chosen where the paper is silent are in hdl/params/owl.py.

State: the group of every warp slot (set when a CTA launches, from its CTA slot; TL: fixed by
slot), g_core and BLP's top group of the last launch, one RR pointer per group (the slot it last
granted) and, for the sticky policies, the current group. The A3 (b) variants (``*_rot``) keep
the top group as a rotating head instead, with a seen bit, the kernel id and the warp slots used
by the kernel (refills join the tail group).
"""

from __future__ import annotations

from hdl.params.owl import (CTA_GROUPED, ROTATING, STICKY, group_of_cta, groups_on_core,
                            n_groups_of, next_head, tail_group, top_group)
from hdl.params.warp_sched import check_params

from .warp_sched import WarpSchedulerTwin


class OwlSchedTwin(WarpSchedulerTwin):
    """Two-level group scheduler: pick a group (sticky RR or strict priority), then RR in it."""

    def __init__(self, n_warps: int, policy: str, g_size: int = 8, n_groups: int = 8):
        check_params(n_warps, policy, g_size=g_size, n_groups=n_groups)
        super().__init__(n_warps)
        self.policy, self.g_size = policy, g_size
        self.n_groups = n_groups_of(policy, n_warps, g_size, n_groups)
        self.sticky = policy in STICKY
        self.cta_grouped = policy in CTA_GROUPED
        self.group = [0 if self.cta_grouped else w // g_size for w in range(n_warps)]
        self.last = [n_warps - 1] * self.n_groups
        self.cur = 0
        self.g_core = 1
        self.top = 0
        self.rotate = policy in ROTATING      # A3 (b): top is the rotating head
        self.seen = False                     # the head group has had a live warp
        self.used = 0                         # warp slots that held a warp of this kernel
        self.kernel = -1                      # the kernel of the last launch (-1: none yet)
        self.masks = self._masks()

    def _masks(self) -> list[int]:
        masks = [0] * self.n_groups
        for w, g in enumerate(self.group):
            masks[g] |= 1 << w
        return masks

    def top_at_launch(self, sm_id: int, g_core: int) -> int:
        """The group with g_pri = 0 for a kernel with ``g_core`` groups (latched at launch)."""
        return top_group(self.policy, sm_id, g_core)

    def chosen_group(self, ready: int) -> int:
        """Level 2: the group that issues this cycle, or -1 when no warp is ready."""
        masks, n = self.masks, self.n_groups
        start = self.cur if self.sticky else self.top
        for i in range(n):
            g = (start + i) % n
            if ready & masks[g]:
                return g
        return -1

    def rr_pick(self, ready: int, g: int) -> int:
        """Level 1: the first ready warp of group ``g`` after its last grant, circularly."""
        cand = ready & self.masks[g]
        last = self.last[g]
        upper = cand >> (last + 1)
        if upper:
            return last + 1 + ((upper & -upper).bit_length() - 1)
        return (cand & -cand).bit_length() - 1

    def choose(self, inputs: dict) -> int:
        ready = inputs.get("ready", 0)
        g = self.chosen_group(ready)
        return -1 if g < 0 else self.rr_pick(ready, g)

    def advance(self, inputs: dict, g: int) -> None:
        if g >= 0:
            grp = self.group[g]
            self.last[grp] = g
            self.cur = grp
        launch = inputs.get("launch", 0)
        if self.rotate:
            self.rotate_head(inputs.get("valid", 0))
        if launch and self.cta_grouped:
            k, n_ctas = inputs.get("warps_per_cta", 0), inputs.get("resident_ctas", 0)
            grp = group_of_cta(inputs.get("launch_cta", 0), n_ctas, k, self.g_size, self.n_groups)
            fresh = True
            if self.rotate:
                kernel = inputs.get("launch_kernel", 0)
                fresh = kernel != self.kernel
                if not fresh and launch & self.used:        # a refill: the tail group
                    grp = self.refill_group()
                if fresh:
                    self.kernel, self.used, self.seen = kernel, 0, False
                self.used |= launch
            self.g_core = groups_on_core(n_ctas, k, self.g_size, self.n_groups)
            if fresh:
                self.top = self.top_at_launch(inputs.get("sm_id", 0), self.g_core)
            for w in range(self.n_warps):
                if launch >> w & 1:
                    self.group[w] = grp
            self.masks = self._masks()
        super().advance(inputs, g)

    def rotate_head(self, valid: int) -> None:
        """A3 (b): advance the head once its group, seen live, has no live warp left."""
        live = valid & self.masks[self.top]
        if self.seen and not live and self.g_core > 1:
            self.top = next_head(self.top, self.g_core)
            self.seen = False
        elif live:
            self.seen = True

    def refill_group(self) -> int:
        """A3 (b): the group a refilling CTA joins: the tail, after this cycle's head advance."""
        return tail_group(self.top, self.g_core)


def group_rule_violation(twin: OwlSchedTwin, inputs: dict, g: int) -> str | None:
    """The per-cycle group rule of [OWL §4.1–§4.3], checked against the twin's state before the
    edge: a grant goes to a ready warp whenever one is ready, and never outside the chosen group
    while that group has a ready warp (sticky: the current group; Locality/BLP: no group with a
    better Algorithm 1 priority g_pri has a ready warp). None if it holds, else what broke."""
    from hdl.params.owl import group_priority
    ready, sm_id = inputs.get("ready", 0), inputs.get("sm_id", 0)
    if g < 0:
        return "no grant while a warp is ready" if ready else None
    if not ready >> g & 1:
        return f"slot {g} granted but not ready"
    grp, masks = twin.group[g], twin.masks
    if twin.sticky:
        if ready & masks[twin.cur] and grp != twin.cur:
            return f"slot {g} of group {grp} granted while current group {twin.cur} has a ready warp"
        return None
    if twin.rotate:         # A3 (b): priority from the head (its rule: rotate_head, tests)
        top = twin.top

        def prio(h: int) -> int:
            return (h - top) % twin.g_core
    else:
        top = top_group(twin.policy, sm_id, twin.g_core)

        def prio(h: int) -> int:
            return group_priority(twin.policy, h, sm_id, twin.g_core)
    if ready & masks[top] and grp != top:
        return f"slot {g} of group {grp} granted while top group {top} has a ready warp"
    if grp < twin.g_core:
        mine = prio(grp)
        for h in range(twin.g_core):
            if ready & masks[h] and prio(h) < mine:
                return f"slot {g} of group {grp} granted while better group {h} has a ready warp"
    return None


class CheckedOwlTwin(OwlSchedTwin):
    """The twin with ``group_rule_violation`` asserted every cycle (tests, debug runs)."""

    def step(self, **inputs) -> dict[str, int]:
        from hdl.params.warp_sched import granted
        g = self.choose(inputs)
        broken = group_rule_violation(self, inputs, g)
        if broken:
            raise AssertionError(f"{self.policy}: {broken} (inputs {inputs})")
        self.advance(inputs, g)
        return granted(g)

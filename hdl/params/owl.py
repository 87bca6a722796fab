"""OWL's warp schedulers ([OWL §4.1–§4.3]) and the two-level scheduler of
Narasiman et al. [44] ([OWL §3]): policy names, parameters and the group arithmetic, shared by
the RTL (hdl/owl.py), the twin (sim/blocks/owl.py), the block entry and the tests.

They are policies of the ``warp_sched`` block (port v2 of hdl/params/warp_sched.py):

- ``owl_cta``: CTA-aware (scheme 1): groups along CTA boundaries, a sticky current group served
  round-robin (RR) inside; when it has no ready warp, the next group in RR order with one.
- ``owl_locality``: scheme 2: the same groups, strict priority ``g_pri = g`` at every issue slot.
- ``owl_blp``: scheme 3: ``g_pri = (g - core) mod g_core``; the top group of SM ``core`` is
  ``core mod g_core``.
- ``tl_narasiman``: fetch groups of ``g_size`` consecutive warp slots, sticky and RR as owl_cta.

Choices where [OWL] is silent (each labelled as in docs/mechanisms/owl.md):
- A1: ``g_size`` is a parameter, default 8 (the paper's evaluation).
- A2: Algorithm 1 with n = 1 initially, the remainder to the last group, and the clamp
  ``g_core = 0 -> one group``; recomputed at every CTA launch from the port's ``warps_per_cta``
  (k) and ``resident_ctas`` (N, the kernel's occupancy limit). k = 0 (never sent by the model)
  counts as "no n reaches g_size": n stops at g_size.
- A3 (a) slot-static: a warp's group is its CTA slot's group, fixed when the CTA launches (a CTA
  refilling a freed slot inherits that slot's group and priority); g_pri is fixed per kernel.
  A3 (b) rotating head, the ablation ``owl_locality_rot`` / ``owl_blp_rot``: a head pointer h
  (0, or BLP's ``core mod g_core``, at the kernel's first launch) gives ``g_pri = (g - h) mod
  g_core``. A CTA launched into warp slots that already held a warp of this kernel (a refill)
  joins the tail group ``(h - 1) mod g_core``, i.e. the lowest priority; a CTA in never-used
  slots takes its Algorithm 1 group. When the head group has been seen with a live warp
  (``valid``) and then has none, h advances by one (refills never join the head while g_core
  >= 2, so "every CTA of the head group finished" is "no live warp in it"); the tail's h is the
  one after this cycle's advance. Registers beyond (a): h, a seen bit, g_core, the kernel id and
  a used bit per warp slot.
- A4: Locality/BLP pick the highest-priority group with a ready warp at every issue slot (strict);
  CTA-aware and TL stay on their group until it has no ready warp (sticky), then move RR. One RR
  pointer per group (the slot it last granted), so a group resumes where it stopped.
- A5: "ready" is the port's ``ready`` (every readiness check applied): a group with no ready warp
  is blocked, whatever the reason (memory, barrier, structural hazard, finished).
- Hardware bound: ``G`` group registers (default 8 = 64 warps / g_size 8). A kernel whose
  Algorithm 1 makes more than G groups gets G; the CTAs beyond join the last group, as the
  remainder does. TL has ceil(W / g_size) fixed groups.
- Group ids a previous kernel left in still-running warps keep their value; priority order is
  circular over the G ids from the top group, which equals ``(g - core) mod g_core`` for every
  id below g_core.
"""

from __future__ import annotations

OWL_POLICIES = ("owl_cta", "owl_locality", "owl_blp", "tl_narasiman")
STICKY = frozenset({"owl_cta", "tl_narasiman"})      # sticky current group, RR across groups
CTA_GROUPED = frozenset({"owl_cta", "owl_locality", "owl_blp"})   # groups from CTA slots
# A3 (b) rotating-head variants ([OWL §4.2, Fig. 4B]) and the policy whose initial head they take
ROTATING = {"owl_locality_rot": "owl_locality", "owl_blp_rot": "owl_blp"}
OWL_POLICIES += tuple(ROTATING)
CTA_GROUPED |= set(ROTATING)
G_SIZE_DEFAULT, G_DEFAULT = 8, 8
MAX_G_SIZE, MAX_G = 32, 16


def check_owl(policy: str, n_warps: int, g_size: int, n_groups: int) -> None:
    """Parameter rules of the OWL policies (ValueError naming the parameter)."""
    if not 1 <= g_size <= MAX_G_SIZE:
        raise ValueError(f"g_size = {g_size}: allowed: 1..{MAX_G_SIZE} ([OWL §4.1, §5.2])")
    if not 2 <= n_groups <= MAX_G:
        raise ValueError(f"G = {n_groups}: allowed: 2..{MAX_G} (group registers per scheduler)")


def n_groups_of(policy: str, n_warps: int, g_size: int, n_groups: int) -> int:
    """How many group ids the scheduler holds: G, or TL's ceil(W / g_size) fixed groups."""
    if policy == "tl_narasiman":
        return max(1, -(-n_warps // g_size))
    return n_groups


def ctas_per_group(k: int, g_size: int) -> int:
    """Algorithm 1's n: the smallest n >= 1 with n*k >= g_size (g_size when k = 0)."""
    n = 1
    while n < g_size and n * k < g_size:
        n += 1
    return n


def groups_on_core(n_ctas: int, k: int, g_size: int, n_groups: int = MAX_G) -> int:
    """g_core = floor(N / n), at least 1 (A2 clamp) and at most ``n_groups``."""
    return max(1, min(n_groups, n_ctas // ctas_per_group(k, g_size)))


def group_of_cta(cta_slot: int, n_ctas: int, k: int, g_size: int, n_groups: int = MAX_G) -> int:
    """The group of CTA slot ``cta_slot``: slots taken n at a time, the rest in the last group."""
    n = ctas_per_group(k, g_size)
    return min(cta_slot // n, groups_on_core(n_ctas, k, g_size, n_groups) - 1)


def form_groups(n_ctas: int, k: int, g_size: int) -> tuple[int, list[int]]:
    """FORM_GROUPS of Algorithm 1 ([OWL §4.3, Algorithm 1]): (n, group sizes in CTAs), A2's clamp
    applied."""
    n = ctas_per_group(k, g_size)
    g_core = n_ctas // n
    if g_core == 0:
        return n_ctas, [n_ctas]
    sizes = [n] * g_core
    sizes[-1] += n_ctas % n
    return n, sizes


def top_group(policy: str, sm_id: int, g_core: int) -> int:
    """The group with g_pri = 0: ``core mod g_core`` for BLP, group 0 for Locality (the
    rotating variants: their head at the kernel's first launch)."""
    return sm_id % g_core if ROTATING.get(policy, policy) == "owl_blp" else 0


def next_head(head: int, g_core: int) -> int:
    """A3 (b): the head after ``head`` (mod g_core, g_core >= 1)."""
    return 0 if head + 1 >= g_core else head + 1


def tail_group(head: int, g_core: int) -> int:
    """A3 (b): the lowest-priority group, ``(head - 1) mod g_core``: where refills go."""
    return g_core - 1 if head == 0 else head - 1


def group_priority(policy: str, g: int, sm_id: int, g_core: int) -> int:
    """Algorithm 1's g_pri[g][core] (lower = higher priority; 0 for every group of CTA-aware)."""
    if policy == "owl_blp":
        return (g - sm_id) % g_core
    if policy == "owl_locality":
        return g
    return 0

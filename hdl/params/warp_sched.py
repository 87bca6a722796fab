"""Warp scheduler of one sub-core ([GPGPU-Sim shader.cc]): policies, parameters, port v2.

One port for every warp-scheduling policy (ARCHITECTURE.md "scheduling points"); a policy reads
the inputs it needs and ignores the rest (synthesis removes them). W = warp slots of the
sub-core; slot w is bit w of every per-slot vector.

Per warp slot (W bits each):
- ``ready``: the warp can issue this cycle (every readiness check applied, its unit is free).
- ``launch``: a new warp enters the slot this cycle. Launches are in slot order, so within one
  cycle a lower slot is older; every launched slot becomes younger than all others. That order
  *is* the dynamic age (GPGPU-Sim's dynamic warp id seen by one scheduler, [GPGPU-Sim
  scheduler_unit::cycle()]): a policy that ranks by age keeps its own order from this port, as GTO's
  age matrix does.
- ``valid``: the slot holds a live warp (launched and not exited).
- ``mem_wait``: the warp waits on memory: its head instruction reads a long-latency result (a
  register a global load or atomic will write, GPGPU-Sim's long-op check of [GPGPU-Sim
  two_level_active_scheduler]) or it is a fence with memory requests outstanding.
- ``barrier``: the warp waits at a CTA barrier.
Per launch (valid in a cycle with ``launch`` non-zero; one CTA per SM per cycle):
- ``launch_cta``: the CTA slot of the launched warps; ``launch_kernel``: their kernel (index mod
  256); ``warps_per_cta``: warps per CTA of that kernel; ``resident_ctas``: how many CTAs of that
  kernel an SM holds when full (its occupancy limit, [GPGPU-Sim issue_block2core()]: OWL's N).
Per SM: ``sm_id`` (mod 256).
Phase-aware inputs ([THESIS §3.4.2.2], with our choices where it is silent; appended after the
outputs, read only by the ``phase`` and two-level-queue policies):
- ``distance``: per slot the phase distance of the warp's next instruction (sim/workload/
  phases.py), ``DIST_BITS`` bits per slot (slot w at bits w*DIST_BITS…), saturated at 511.
- ``long_out``: per slot, the warp has long-latency results outstanding (any global load or
  atomic not yet written back), whether or not its next instruction needs one.

Outputs: ``grant`` (one-hot), ``grant_valid``, ``grant_idx``: the warp that issues, a same-cycle
pick from the inputs and the registered state (as GPGPU-Sim's scheduler cycle); state updates at
the clock edge.

Time: the GPU model skips cycles in which nothing can change. A policy whose state moves every
cycle even without a grant or a launch (two-level demotion and promotion) is marked
``every_cycle`` in the model's registry (sim/policies/warp_sched.py): the model then steps it
every cycle while its sub-core holds a warp, so skipping stays exact (an elapsed-cycles input is
not needed).
"""

from __future__ import annotations

from . import Param, Ports, port
from .owl import G_DEFAULT, G_SIZE_DEFAULT, MAX_G, MAX_G_SIZE, OWL_POLICIES, check_owl

# policies with RTL (``policy`` parameter of the block); the model-level names and their
# parameter syntax are in sim/policies/warp_sched.py
POLICIES = ("lrr", "gto", "old", "two_level")
POLICIES += OWL_POLICIES        # OWL's schedulers and two-level [44] (hdl/params/owl.py)
POLICIES += ("phase", "tlrr", "tlgto", "tlphase")        # [THESIS §3.4.2.2] (hdl/phase_*.py)
TWO_LEVEL_QUEUES = ("tlrr", "tlgto", "tlphase")          # sort key rr / gto / phase
POLICIES += ("tlphase_rr",)             # tlphase, RR in the ready queue: ours, [THESIS] is silent
TWO_LEVEL_QUEUES += ("tlphase_rr",)
RR_INSIDE = ("tlrr", "tlphase_rr")      # two-level policies that issue by LRR inside the ready queue
DIST_BITS = 9
MIN_W, MAX_W = 2, 64
CTA_BITS, KERNEL_BITS, WPC_BITS, RESIDENT_BITS, SM_BITS = 6, 8, 7, 7, 8

PARAMS = {
    "W": Param(int, 32, f"an integer in {MIN_W}..{MAX_W}", lambda v: MIN_W <= v <= MAX_W),
    "policy": Param(str, "gto", "one of " + ", ".join(POLICIES), lambda v: v in POLICIES),
    "N": Param(int, 4, "an integer >= 1 (two_level: active warps per scheduler; tlrr, tlgto, "
                       "tlphase, tlphase_rr: ready-queue entries; <= W)",
               lambda v: v >= 1),
    "g_size": Param(int, G_SIZE_DEFAULT, f"an integer in 1..{MAX_G_SIZE} (OWL policies: minimum "
                    "warps per group, [OWL §4.1, §5.2])", lambda v: 1 <= v <= MAX_G_SIZE),
    "G": Param(int, G_DEFAULT, f"an integer in 2..{MAX_G} (OWL policies: group registers)",
               lambda v: 2 <= v <= MAX_G),
}


def check_params(n_warps: int, policy: str, n_active: int = 1, g_size: int = G_SIZE_DEFAULT,
                 n_groups: int = G_DEFAULT) -> None:
    """Shared parameter check for the RTL and the twins."""
    if policy not in POLICIES:
        raise ValueError(f"policy = {policy!r}: allowed: {', '.join(POLICIES)}")
    if not MIN_W <= n_warps <= MAX_W:
        raise ValueError(f"W = {n_warps}: allowed: {MIN_W}..{MAX_W}")
    if policy in ("two_level",) + TWO_LEVEL_QUEUES and not 1 <= n_active <= n_warps:
        raise ValueError(f"N = {n_active}: allowed: 1..W = {n_warps} "
                         "([GPGPU-Sim two_level_active_scheduler])")
    if policy in OWL_POLICIES:
        check_owl(policy, n_warps, g_size, n_groups)


def idx_width(n_warps: int) -> int:
    return max(1, (n_warps - 1).bit_length())


def ports(n_warps: int) -> Ports:
    w = n_warps
    return {
        "ready": port("in", w),
        "launch": port("in", w),
        "valid": port("in", w),
        "mem_wait": port("in", w),
        "barrier": port("in", w),
        "launch_cta": port("in", CTA_BITS),
        "launch_kernel": port("in", KERNEL_BITS),
        "warps_per_cta": port("in", WPC_BITS),
        "resident_ctas": port("in", RESIDENT_BITS),
        "sm_id": port("in", SM_BITS),
        "grant": port("out", w),
        "grant_valid": port("out", 1),
        "grant_idx": port("out", idx_width(w)),
        "distance": port("in", w * DIST_BITS),
        "long_out": port("in", w),
    }


def granted(g: int) -> dict[str, int]:
    """The output dict of a grant to slot ``g`` (no grant for g < 0)."""
    if g < 0:
        return {"grant": 0, "grant_valid": 0, "grant_idx": 0}
    return {"grant": 1 << g, "grant_valid": 1, "grant_idx": g}

"""Twins of the warp schedulers (hdl/warp_sched.py, hdl/two_level.py) on the warp-scheduler port
(hdl/params/warp_sched.py), with identical port timing.

``step(**inputs)`` returns this cycle's outputs (a same-cycle pick from the inputs and the
state) and then advances the state as the clock edge would. Masks are Python ints (bit w = slot
w). ``WarpSchedulerTwin`` is the template a new policy fills in: ``choose`` (the pick, no state
change) and ``advance`` (the edge); launch ages are kept by the base.

The GPU model reaches every warp scheduler (twin, RTL or lockstep) through ``step_port`` with
its sub-core's ``WarpSchedPort`` (sim/blocks/port_block.py): the generic one goes through
``step``; the stock arbiter's reads ``ready`` and ``launch`` from the record without building a
dict (same state update as ``step``).

Compiled with mypyc when ``sim.accel`` has built the model (``sim.compiled.CORE``): the classes
declare their fields, and the policies of other modules subclass them as interpreted classes.
"""

from __future__ import annotations

from typing import cast

from mypy_extensions import mypyc_attr

from hdl.params.warp_sched import check_params, granted
from sim.blocks.port_block import PortBlock, PortRecord


class WarpSchedPort(PortRecord):
    """The warp-scheduler port of one sub-core (hdl/params/warp_sched.py) as one record: the
    sub-core fills the inputs each cycle it steps its scheduler, the block writes the grant.
    ``phase``: the policy reads ``distance`` and ``long_out`` (only then are they inputs)."""

    ready: int
    launch: int
    valid: int
    mem_wait: int
    barrier: int
    launch_cta: int
    launch_kernel: int
    warps_per_cta: int
    resident_ctas: int
    sm_id: int
    distance: int
    long_out: int
    phase: bool
    grant: int
    grant_valid: int
    grant_idx: int

    def __init__(self, sm_id: int = 0, phase: bool = False):
        self.ready = self.launch = self.valid = self.mem_wait = self.barrier = 0
        self.launch_cta = self.launch_kernel = self.warps_per_cta = self.resident_ctas = 0
        self.sm_id = sm_id & 255
        self.distance = self.long_out = 0
        self.phase = phase
        self.grant = self.grant_valid = self.grant_idx = 0

    def inputs(self) -> dict[str, int]:
        ins = {"ready": self.ready, "launch": self.launch, "valid": self.valid,
               "mem_wait": self.mem_wait, "barrier": self.barrier,
               "launch_cta": self.launch_cta, "launch_kernel": self.launch_kernel,
               "warps_per_cta": self.warps_per_cta, "resident_ctas": self.resident_ctas,
               "sm_id": self.sm_id}
        if self.phase:
            ins["distance"] = self.distance
            ins["long_out"] = self.long_out
        return ins

    def set_outputs(self, out: dict[str, int]) -> None:
        self.grant, self.grant_valid = out["grant"], out["grant_valid"]
        self.grant_idx = out["grant_idx"]


@mypyc_attr(allow_interpreted_subclasses=True)
class WarpSchedulerTwin(PortBlock):
    """Template of a warp-scheduler twin: the launch-order age of every slot (smaller = older;
    at start-up lower slots are older), ``choose`` and ``advance`` to fill in."""

    n_warps: int
    age: list[int]
    next_age: int

    def __init__(self, n_warps: int):
        self.n_warps = n_warps
        self.age = list(range(n_warps))
        self.next_age = n_warps

    def choose(self, inputs: dict) -> int:
        """The slot granted for these inputs, or -1; no state change."""
        raise NotImplementedError("a warp-scheduler twin defines choose()")

    def advance(self, inputs: dict, g: int) -> None:
        """The clock edge after a cycle that granted ``g`` (-1: none): launched slots, in slot
        order, become the youngest."""
        launch = inputs.get("launch", 0)
        while launch:
            low = launch & -launch
            self.age[low.bit_length() - 1] = self.next_age
            self.next_age += 1
            launch ^= low

    def step(self, **inputs) -> dict[str, int]:
        """One clock cycle: outputs for ``inputs``, then the edge's state update."""
        g = self.choose(inputs)
        self.advance(inputs, g)
        return granted(g)

    def oldest(self, ready: int) -> int:
        """The ready slot with the smallest age, or -1."""
        age = self.age
        best, best_age = -1, None
        while ready:                       # visit set bits only, lowest slot first
            low = ready & -ready
            w = low.bit_length() - 1
            if best_age is None or age[w] < best_age:
                best, best_age = w, age[w]
            ready ^= low
        return best


@mypyc_attr(allow_interpreted_subclasses=True)
class WarpSchedTwin(WarpSchedulerTwin):
    """Behavioral LRR / GTO / oldest arbiter for ``n_warps`` slots (reads ready and launch)."""

    policy: str
    lrr: bool
    greedy: bool
    last: int
    order: list[int]        # slots oldest first (``age`` sorted), [] after a launch: rebuilt
    by_slot: bool           # ``order`` is slot order: the oldest ready slot is the lowest

    def __init__(self, n_warps: int, policy: str):
        check_params(n_warps, policy)
        if policy not in ("lrr", "gto", "old"):
            raise ValueError(f"policy = {policy!r}: this twin implements lrr, gto, old")
        super().__init__(n_warps)
        self.policy = policy
        self.lrr = policy == "lrr"
        self.greedy = policy == "gto"
        self.last = n_warps - 1 if policy == "lrr" else 0
        self.order = []
        self.by_slot = False

    def pick(self, ready: int) -> int:
        """Slot that issues for this ready mask, or -1; no state change."""
        if not ready:
            return -1
        last = self.last
        if self.lrr:
            upper = ready >> (last + 1)
            if upper:
                return last + 1 + ((upper & -upper).bit_length() - 1)
            return (ready & -ready).bit_length() - 1
        if self.greedy and (ready >> last) & 1:
            return last
        return self.oldest(ready)

    def choose(self, inputs: dict) -> int:
        return self.pick(inputs.get("ready", 0))

    def advance(self, inputs: dict, g: int) -> None:
        if g >= 0:
            self.last = g
        if inputs.get("launch", 0):
            self.order = []
        super().advance(inputs, g)

    def oldest_ready(self, ready: int) -> int:
        """``oldest`` by a walk over the slots in age order (ages are distinct), kept until the
        next launch: most picks end after a few slots."""
        order = self.order
        if not order:
            age = self.age
            order = self.order = sorted(range(self.n_warps), key=lambda w: age[w])
            self.by_slot = order == list(range(self.n_warps))
        if self.by_slot:
            return (ready & -ready).bit_length() - 1
        for w in order:
            if (ready >> w) & 1:
                return w
        return -1

    def step_port(self, port: PortRecord) -> None:
        """``step`` reading ``ready`` and ``launch`` from the sub-core's record and writing the
        grant into it, without a dict (the model's hot call)."""
        p = cast(WarpSchedPort, port)
        ready = p.ready
        if ready:
            last = self.last
            if self.lrr:
                upper = ready >> (last + 1)
                g = (last + 1 + ((upper & -upper).bit_length() - 1) if upper
                     else (ready & -ready).bit_length() - 1)
            elif self.greedy and (ready >> last) & 1:
                g = last
            else:
                g = self.oldest_ready(ready)
            self.last = g
            p.grant, p.grant_valid, p.grant_idx = 1 << g, 1, g
        else:
            p.grant = p.grant_valid = p.grant_idx = 0
        launch = p.launch
        if launch:
            self.order = []
            age = self.age
            while launch:
                low = launch & -launch
                age[low.bit_length() - 1] = self.next_age
                self.next_age += 1
                launch ^= low

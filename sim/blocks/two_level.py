"""Twin of ``hdl.two_level.TwoLevelActive``: GPGPU-Sim's two-level active scheduler ([GPGPU-Sim
two_level_active_scheduler]) with identical port timing. ``order`` is the active list (first N)
followed by the pending FIFO; see the RTL module for the rules."""

from __future__ import annotations

from hdl.params.warp_sched import check_params

from .warp_sched import WarpSchedulerTwin


class TwoLevelActiveTwin(WarpSchedulerTwin):
    """Two-level active scheduler: N active warps walked in list order, a pending FIFO."""

    every_cycle = True

    def __init__(self, n_warps: int, n_active: int):
        check_params(n_warps, "two_level", n_active)
        super().__init__(n_warps)
        self.n_active = n_active
        self.order = list(range(n_warps))
        self.full = (1 << n_warps) - 1

    def partition(self, inputs: dict) -> list[int]:
        """The order after this cycle's demotion and promotion (a stable partition)."""
        waiting = (~inputs.get("valid", 0) & self.full) | inputs.get("barrier", 0) \
            | inputs.get("mem_wait", 0)
        n = self.n_active
        active = self.order[:n]
        kept = [s for s in active if not waiting >> s & 1]
        demoted = [s for s in active if waiting >> s & 1]
        return kept + self.order[n:] + demoted

    def choose(self, inputs: dict) -> int:
        ready = inputs.get("ready", 0)
        for s in self.partition(inputs)[:self.n_active]:
            if ready >> s & 1:
                return s
        return -1

    def advance(self, inputs: dict, g: int) -> None:
        seq = self.partition(inputs)
        if g >= 0:
            n = self.n_active
            p = seq.index(g)
            seq = seq[p + 1:n] + seq[:p + 1] + seq[n:]
        self.order = seq
        super().advance(inputs, g)

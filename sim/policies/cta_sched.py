"""CTA schedulers: which SM gets the next CTA, once per cycle after the SMs ran.

Protocol (besides the ``Policy`` hooks): ``issue(now) -> int`` places CTAs for cycle ``now``
through ``gpu.dispatch.pick(now, sm)`` (the ``tb_dispatch`` contract: which kernel, if any,
``sm`` may take a block of now; sim/policies/tb_dispatch.py) and ``gpu.launch_cta(now, sm, run)``, and returns how many it placed. The GPU calls it only while a
placement may be possible (after a CTA finished, a kernel became ready, an SM resumed, or
``gpu.request_cta_issue()``); a pass that places nothing must leave the policy's state as it was.
"""

from __future__ import annotations

from sim.policies.base import Policy


class RoundRobinCTAScheduler(Policy):
    """GPGPU-Sim ``issue_block2core`` ([GPGPU-Sim issue_block2core()]): one CTA per cluster per
    cycle.

    Every cycle each cluster gets one turn, in circular order starting after the last cluster
    that launched a CTA in the previous pass (cluster 0 first). Inside a cluster, SMs are tried
    circularly starting after the SM that last received a CTA (SM 0 first); the first SM whose
    kernel has CTAs left and that can accept one gets one, ending the cluster's turn.
    """

    def __init__(self, cfg):
        self.per_cluster = cfg.sm.sms_per_cluster
        self.n_clusters = cfg.sm.count // self.per_cluster
        self.last_cluster = self.n_clusters - 1
        self.next_core = [self.per_cluster - 1] * self.n_clusters

    def issue(self, now: int) -> int:
        placed = 0
        last = self.last_cluster
        n = self.n_clusters
        for i in range(n):
            c = (i + last + 1) % n
            if self.issue_cluster(now, c):
                self.last_cluster = c
                placed += 1
        return placed

    def issue_cluster(self, now: int, c: int) -> bool:
        gpu, k = self.gpu, self.per_cluster
        for i in range(k):
            core = (i + self.next_core[c] + 1) % k
            sm = gpu.sms[c * k + core]
            run = gpu.dispatch.pick(now, sm)
            if run is not None:
                gpu.launch_cta(now, sm, run)
                self.next_core[c] = core
                return True
        return False

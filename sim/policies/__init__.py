"""Pluggable scheduling policies of the GPU model, with one baseline each (ARCHITECTURE.md).

Four kinds, each a small class with a documented protocol (see the modules):

- ``kernel_scheduler`` (kernel_sched.py): fifo (baseline), sm_partition (concurrent kernels);
- ``cta_scheduler`` (cta_sched.py): rr (baseline); ikra_rr, ikra_chunk, ikra_reset, ikra_flip,
  ikra_steal (ikra_cta.py: the ``cta_sched`` block's twin driven through its ports);
- ``cta_limit`` (cta_limit.py): max_occupancy (baseline); perf_sat (perf_sat_limit.py);
  ctas_<n> (fixed_limit.py: oracle sweeps);
- ``sm_controller`` (active_sm.py): all_active (baseline); onac, seq_det (onac_ctrl.py;
  onac_skip<k> / seq_det_skip<k>: k ramp-up waves before detection instead of one);
  active_<n> (fixed_active.py: oracle sweeps).

``make_policy(kind, spec, cfg)`` accepts a registered name, a class / factory taking ``cfg``, or
a ready instance. New policies are added to ``POLICIES``.
"""

from __future__ import annotations

from gpusched.config import ConfigError

from .active_sm import AllActive
from .base import Policy
from .cta_limit import MaxOccupancy
from .cta_sched import RoundRobinCTAScheduler
from .fixed_active import FIXED_ACTIVE_CONTROLLERS
from .fixed_limit import FIXED_CTA_LIMITS
from .ikra_cta import IKRA_CTA_SCHEDULERS
from .kernel_sched import FIFOKernelScheduler, SMPartitionKernelScheduler
from .onac_ctrl import SKIP_VARIANTS, OnacController, SeqDetController
from .perf_sat_limit import PerfSatLimit

POLICIES: dict[str, dict[str, type]] = {
    "kernel_scheduler": {"fifo": FIFOKernelScheduler, "sm_partition": SMPartitionKernelScheduler},
    "cta_scheduler": {"rr": RoundRobinCTAScheduler, **IKRA_CTA_SCHEDULERS},
    "cta_limit": {"max_occupancy": MaxOccupancy, "perf_sat": PerfSatLimit, **FIXED_CTA_LIMITS},
    "sm_controller": {"all_active": AllActive, "onac": OnacController, "seq_det": SeqDetController,
                      **SKIP_VARIANTS, **FIXED_ACTIVE_CONTROLLERS},
}
BASELINES = {"kernel_scheduler": "fifo", "cta_scheduler": "rr", "cta_limit": "max_occupancy",
             "sm_controller": "all_active"}


def make_policy(kind: str, spec, cfg) -> Policy:
    """A policy instance of ``kind`` from a name, a class/factory(cfg) or an instance."""
    if kind not in POLICIES:
        raise ConfigError("policy", kind, "known kinds: " + ", ".join(POLICIES))
    if spec is None:
        spec = BASELINES[kind]
    if isinstance(spec, str):
        known = POLICIES[kind]
        if spec not in known:
            raise ConfigError(kind, spec, "known: " + ", ".join(known))
        return known[spec](cfg)
    if isinstance(spec, Policy):
        return spec
    return spec(cfg)


__all__ = ["Policy", "POLICIES", "BASELINES", "make_policy", "AllActive", "MaxOccupancy",
           "RoundRobinCTAScheduler", "FIFOKernelScheduler", "SMPartitionKernelScheduler"]

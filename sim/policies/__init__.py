"""Pluggable scheduling policies of the GPU model, with one baseline each (ARCHITECTURE.md).

Four kinds, each a small class with a documented protocol (see the modules):

- ``kernel_scheduler`` (kernel_sched.py): fifo (baseline), sm_partition (concurrent kernels);
  srtf, adaptive, mpmax, srtf_fifo (srtf.py: the ``kernel_sched`` twin with one ``srtf_pred`` per SM);
  ck_baseline, ck_sequential, ck_interleaved[:<share>] (ck_dispatch.py: the ``ck_dispatch`` twin,
  [THESIS ch. 5]);
- ``cta_scheduler`` (cta_sched.py): rr (baseline); ikra_rr, ikra_chunk, ikra_reset, ikra_flip,
  ikra_steal (ikra_cta.py: the ``cta_sched`` block's twin driven through its ports);
- ``cta_limit`` (cta_limit.py): max_occupancy (baseline); perf_sat (perf_sat_limit.py);
  fixed:<N> (fixed_limit.py: oracle sweeps);
- ``sm_controller`` (active_sm.py): all_active (baseline); onac[:<skip>], seq_det[:<skip>]
  (onac_ctrl.py; skip: ramp-up waves before detection, default 1); fixed:<N> (fixed_active.py:
  oracle sweeps).

Names with parameters use the family syntax of ``sim.policies.names`` (as the warp schedulers
of sim/policies/warp_sched.py do). The names of earlier versions stay valid for stored results
and grids: ``ctas_<n>`` = ``fixed:<n>`` (cta_limit), ``active_<n>`` = ``fixed:<n>`` and
``onac_skip<k>`` = ``onac:<k>`` (sm_controller).

``make_policy(kind, spec, cfg)`` accepts a registered name, a class / factory taking ``cfg``, or
a ready instance. New policies are added to ``POLICIES`` (plain names) or ``FAMILIES`` (names
with parameters), or declared in ``POLICY_FAMILIES`` of their own module (discover.py), which
changes no file that other policies' runs execute.
"""

from __future__ import annotations

import re

from gpusched.config import ConfigError

from .active_sm import AllActive
from .base import Policy
from .cta_limit import MaxOccupancy
from .cta_sched import RoundRobinCTAScheduler
from .fixed_active import FixedActive
from .fixed_limit import FixedLimit
from .ikra_cta import IKRA_CTA_SCHEDULERS
from .kernel_sched import FIFOKernelScheduler, SMPartitionKernelScheduler
from .discover import families as discovered_families
from .names import Arg, Family, parse
from .onac_ctrl import OnacController, SeqDetController
from .perf_sat_limit import PerfSatLimit
from .srtf import SRTF_FAMILIES, SRTF_KERNEL_SCHEDULERS
from .ck_dispatch import CK_KERNEL_SCHEDULERS

POLICIES: dict[str, dict[str, type]] = {
    "kernel_scheduler": {"fifo": FIFOKernelScheduler, "sm_partition": SMPartitionKernelScheduler,
                         **SRTF_KERNEL_SCHEDULERS, **CK_KERNEL_SCHEDULERS},
    "cta_scheduler": {"rr": RoundRobinCTAScheduler, **IKRA_CTA_SCHEDULERS},
    "cta_limit": {"max_occupancy": MaxOccupancy, "perf_sat": PerfSatLimit},
    "sm_controller": {"all_active": AllActive},
}
_SKIP = Arg("skip", lo=0, default=1,
            doc="ramp-up waves before detection (our choice where [THESIS] is silent)")
FAMILIES: dict[str, dict[str, Family]] = {
    "kernel_scheduler": {"ck_interleaved": Family(
        "ck_interleaved", lambda cfg, a: CK_KERNEL_SCHEDULERS["ck_interleaved"](cfg, a["share"]),
        "interleaved concurrent kernels, <share> CTAs per SM of each kernel while sharing "
        "([THESIS §5.4])", args=(Arg("share", lo=1),)), **SRTF_FAMILIES},
    "cta_scheduler": {},
    "cta_limit": {"fixed": Family(
        "fixed", lambda cfg, a: FixedLimit(cfg, a["N"]),
        "at most N CTAs per SM, never above the occupancy limit (oracle sweeps)",
        args=(Arg("N", lo=1),))},
    "sm_controller": {
        "onac": Family("onac", lambda cfg, a: OnacController(cfg, skip_waves=a["skip"]),
                       "ONAC active-SM detection, secant estimates ([THESIS §4.4])", args=(_SKIP,)),
        "seq_det": Family("seq_det", lambda cfg, a: SeqDetController(cfg, skip_waves=a["skip"]),
                          "Seq-Det: one SM fewer per sample ([THESIS §4.4])", args=(_SKIP,)),
        "fixed": Family("fixed", lambda cfg, a: FixedActive(cfg, a["N"]),
                        "SMs 0..N-1 active, the rest power-gated (oracle sweeps)",
                        args=(Arg("N", lo=1),)),
    },
}
for _kind in FAMILIES:
    FAMILIES[_kind].update(discovered_families(_kind))
# names of earlier versions (stored results, grids): regex → family form
ALIASES: dict[str, list[tuple[str, str]]] = {
    "cta_limit": [(r"ctas_(\d+)", r"fixed:\1")],
    "sm_controller": [(r"active_(\d+)", r"fixed:\1"), (r"(onac|seq_det)_skip(\d+)", r"\1:\2")],
}
BASELINES = {"kernel_scheduler": "fifo", "cta_scheduler": "rr", "cta_limit": "max_occupancy",
             "sm_controller": "all_active"}


def policy_names(kind: str) -> list[str]:
    """The plain names and the family forms of ``kind`` (for help and errors)."""
    return [*POLICIES[kind], *(f.usage() for f in FAMILIES[kind].values())]


def resolve_policy(kind: str, name: str):
    """``(factory(cfg), None)`` for a plain name or ``(family, args)`` for a family name;
    ConfigError naming ``kind`` and the bad part otherwise."""
    if name in POLICIES[kind]:
        return POLICIES[kind][name], None
    for pattern, form in ALIASES.get(kind, ()):
        if re.fullmatch(pattern, name):
            name = re.sub(pattern, form, name)
            break
    head = name.split(":")[0]
    if head not in FAMILIES[kind]:
        raise ConfigError(kind, name, "known: " + ", ".join(policy_names(kind)))
    return parse(kind, name, FAMILIES[kind])


def make_policy(kind: str, spec, cfg) -> Policy:
    """A policy instance of ``kind`` from a name, a class/factory(cfg) or an instance."""
    if kind not in POLICIES:
        raise ConfigError("policy", kind, "known kinds: " + ", ".join(POLICIES))
    if spec is None:
        spec = BASELINES[kind]
    if isinstance(spec, str):
        made, args = resolve_policy(kind, spec)
        return made(cfg) if args is None else made.make(cfg, args)
    if isinstance(spec, Policy):
        return spec
    return spec(cfg)


__all__ = ["Policy", "POLICIES", "FAMILIES", "BASELINES", "make_policy", "resolve_policy",
           "policy_names", "AllActive", "MaxOccupancy",
           "RoundRobinCTAScheduler", "FIFOKernelScheduler", "SMPartitionKernelScheduler"]

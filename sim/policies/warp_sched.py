"""Warp-scheduler registry: the policy families behind ``sm.warp_sched`` / ``--warp-scheduler``
([GPGPU-Sim shader.cc]). Each family makes one twin per sub-core (``make(n_slots, args)``);
``every_cycle`` marks a policy whose state moves every cycle (hdl/params/warp_sched.py); ``rtl``
names the ``warp_sched`` block policy that implements it in hardware (None: model only).

A new policy is a twin (a ``WarpSchedulerTwin`` subclass) whose module declares its family in
``POLICY_FAMILIES`` (sim/policies/discover.py; docs/adding-a-scheduler.md): no entry here.
"""

from __future__ import annotations

from typing import Any

from gpusched.config import ConfigError
from hdl.params.owl import G_DEFAULT, G_SIZE_DEFAULT, MAX_G, MAX_G_SIZE
from sim.blocks.owl import OwlSchedTwin
from sim.blocks.phase_queues import TwoLevelQueuesTwin
from sim.blocks.phase_select import PhaseAwareSelectTwin
from sim.blocks.two_level import TwoLevelActiveTwin
from sim.blocks.warp_sched import WarpSchedTwin
from sim.policies.discover import families as discovered_families
from sim.policies.names import Arg, Family, describe, parse


def _arbiter(policy: str):
    return lambda n_slots, args: WarpSchedTwin(n_slots, policy)


def _owl(policy: str):
    return lambda n_slots, a: OwlSchedTwin(n_slots, policy, a["g_size"], a["G"])


_OWL_ARGS = (Arg("g_size", lo=1, hi=MAX_G_SIZE, default=G_SIZE_DEFAULT,
                 doc="minimum warps per group ([OWL §4.1, §5.2]; TL: warps per fetch group)"),
             Arg("G", lo=2, hi=MAX_G, default=G_DEFAULT,
                 doc="group registers: CTAs beyond G groups join the last (hdl/params/owl.py)"))


def _queues(policy: str, doc: str) -> Family:
    """A two-level ready/active/pending-queue family ([THESIS §3.4.2.2]): ``NAME[:<N>]``."""
    return Family(policy, lambda n_slots, a: TwoLevelQueuesTwin(n_slots, min(a["N"], n_slots),
                                                                policy), doc,
                  args=(Arg("N", lo=1, default=6,
                            doc="ready-queue entries per scheduler (<= its warp slots; "
                                "Table 3.1: 6; left out: 6, or all slots if fewer)"),),
                  extra={"rtl": policy, "every_cycle": True, "phase_inputs": True})


WARP_SCHEDULERS: dict[str, Family] = {f.name: f for f in (
    Family("lrr", _arbiter("lrr"), "loose round-robin from the slot after the last issuer",
           extra={"rtl": "lrr"}),
    Family("gto", _arbiter("gto"), "greedy-then-oldest: the last issuer, then the oldest",
           extra={"rtl": "gto"}),
    Family("old", _arbiter("old"), "oldest first (GTO's age order without the greedy warp)",
           extra={"rtl": "old"}),
    Family("two_level_active", lambda n_slots, a: TwoLevelActiveTwin(n_slots, a["N"]),
           "GPGPU-Sim's two-level active scheduler: N active warps, a pending FIFO ([GPGPU-Sim two_level_active_scheduler])",
           args=(Arg("N", lo=1, doc="active warps per scheduler (<= its warp slots)"),
                 Arg("inner", words=("lrr",), aliases={"0": "lrr"}, default="lrr",
                     doc="inner level: lrr (GPGPU-Sim 0); the only one GPGPU-Sim implements"),
                 Arg("outer", words=("srr",), aliases={"1": "srr"}, default="srr",
                     doc="outer level: srr (GPGPU-Sim 1); the only one GPGPU-Sim implements")),
           extra={"rtl": "two_level", "every_cycle": True}),
    *(Family(name, _owl(name), doc, args=_OWL_ARGS, extra={"rtl": name}) for name, doc in (
        ("owl_cta", "OWL CTA-aware: groups along CTA boundaries, sticky group, RR in and across "
                    "groups ([OWL §4.1])"),
        ("owl_locality", "OWL CTA-aware-Locality: strict group priority g_pri = g ([OWL §4.2])"),
        ("owl_blp", "OWL CTA-aware-Locality-BLP: g_pri = (g - SM id) mod g_core ([OWL §4.3])"),
        ("tl_narasiman", "two-level of Narasiman et al. [44]: groups of g_size warp slots, "
                         "sticky, RR ([OWL §3])"))),
    Family("phase", lambda n_slots, a: PhaseAwareSelectTwin(n_slots),
           "phase-aware: smallest phase distance of the next instruction, ties by age "
           "([THESIS §3.4.2.2])", extra={"rtl": "phase", "phase_inputs": True}),
    _queues("tlrr", "two-level RR: ready/active/pending queues, FIFO active queue, RR inside "
            "the ready queue ([THESIS §3.4.2.2])"),
    _queues("tlgto", "two-level GTO: active queue by age, GTO inside the ready queue "
            "([THESIS §3.4.2.2])"),
    _queues("tlphase", "two-level phase-aware: active queue by the length of the phase each "
            "warp resumes in, ties by age; GTO inside ([THESIS §3.4.2.2], with our choices "
            "where it is silent)"),
    *(Family(name, _owl(name), doc, args=_OWL_ARGS, extra={"rtl": name}) for name, doc in (
        ("owl_locality_rot", "owl_locality with the rotating head of [OWL §4.2, Fig. 4B]: "
                             "a rotating head group; refilled CTAs join the lowest-priority group (ablation)"),
        ("owl_blp_rot", "owl_blp with the rotating head of [OWL §4.2, Fig. 4B]: the head "
                        "starts at SM id mod g_core and rotates; refilled CTAs join the lowest-priority group (ablation)"))),
    _queues("tlphase_rr", "two-level phase-aware with RR inside the ready queue: active queue "
            "as tlphase, loose round-robin issue (our alternative where [THESIS] is silent)"),
)}
WARP_SCHEDULERS.update(discovered_families("warp_scheduler"))
MAX_SLOTS = 64      # warp slots per scheduler the twins and the RTL take (hdl/params/warp_sched.py)


def parse_warp_scheduler(name: str, where: str = "sm.warp_sched") -> tuple[Family, dict[str, Any]]:
    return parse(where, name, WARP_SCHEDULERS)


def make_warp_scheduler(n_slots: int, policy: str):
    """The twin of ``policy`` for one sub-core of ``n_slots`` warp slots (a 1-slot sub-core
    gets a 2-slot scheduler whose second slot never holds a warp: the RTL needs W >= 2)."""
    fam, args = parse_warp_scheduler(policy)
    return fam.make(max(2, n_slots), args)


def rtl_params(n_slots: int, policy: str) -> dict:
    """The ``warp_sched`` block parameters of ``policy`` for a sub-core of ``n_slots`` slots;
    ConfigError for a model-only policy."""
    fam, args = parse_warp_scheduler(policy)
    rtl = fam.extra.get("rtl")
    if rtl is None:
        raise ConfigError("sm.warp_sched", policy, "a model-only policy: the warp_sched block "
                          "has no RTL for it")
    params = {"W": max(2, n_slots), "policy": rtl}
    params.update((k, min(v, params["W"]) if k == "N" else v) for k, v in args.items()
                  if k in ("N", "g_size", "G"))
    return params


def every_cycle(policy: str) -> bool:
    """Must the model step this policy every cycle (while its SM holds a CTA)?"""
    return bool(parse_warp_scheduler(policy)[0].extra.get("every_cycle"))


def phase_inputs(policy: str):
    """The function giving this policy's sub-core the port's phase inputs, or None."""
    if not parse_warp_scheduler(policy)[0].extra.get("phase_inputs"):
        return None
    from sim.workload.phases import port_inputs
    return port_inputs


def check_warp_scheduler(policy: str, slots_per_scheduler: int) -> None:
    """Config-level check of ``sm.warp_sched`` against the sub-core's slot count."""
    fam, args = parse_warp_scheduler(policy)
    if slots_per_scheduler > MAX_SLOTS:
        raise ConfigError("sm.warps_per_sm", slots_per_scheduler,
                          f"warp slots per scheduler (sm.warps_per_sm / sm.subcores) must be "
                          f"<= {MAX_SLOTS}, the warp schedulers' limit")
    n = args.get("N")
    if n is not None and ":" in policy and n > max(2, slots_per_scheduler):
        raise ConfigError("sm.warp_sched", policy,
                          f"<N> = {n} exceeds the {slots_per_scheduler} warp slots of a scheduler "
                          f"(sm.warps_per_sm / sm.subcores; "
                          f"[GPGPU-Sim two_level_active_scheduler])")


def check_config(cfg) -> None:
    """``sm.warp_sched`` of ``cfg`` names a registered family with valid arguments for its
    sub-core size (the config does not know the model's registry: the model checks it when a
    GPU is built, the CLI when it shows a config)."""
    check_warp_scheduler(cfg.sm.warp_sched, cfg.sm.warps_per_sm // cfg.sm.subcores)


def help_text() -> str:
    return describe(WARP_SCHEDULERS)

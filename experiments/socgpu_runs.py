"""The ``socgpu`` runner kind of experiments/socgpu.py: each point simulates one issue-stage
``variant`` (``VARIANTS``) and its in-order baseline on the same machine, with our choice energy
proxy and the variant's sweep coordinates (``setup``). The workload is a catalogue stand-in or a
CUDA program (``program:NAME[:options]``); a program's ``scale`` may be ``quick`` or ``default``,
its ``INFO`` scale. Kept apart from the report module so that
editing the report (tables, plots, names) leaves the stored runs valid: a point's model
fingerprint covers its kind's module (gpusched/experiment/fingerprint.py)."""

from __future__ import annotations

import functools

from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

KIND = "socgpu"
ISSUE_POWER_UW = {"baseline": 1104.0, "socgpu": 1553.4}      # per warp, [SOCGPU area]

_BASE = {"sm.issue": "inorder_issue", "sm.dual_issue": True}
_SOC = {"sm.issue": "socgpu", "sm.ib_entries": 8, "sm.local_policy": "first",
        "sm.dual_issue": True}
_WARPS = {48: {"sm.warps_per_sm": 48, "sm.regs_per_sm": 49152, "sm.threads_per_sm": 1536},
          32: {"sm.warps_per_sm": 32, "sm.regs_per_sm": 32768, "sm.threads_per_sm": 1024}}
VARIANTS: dict[str, dict] = {
    "baseline_single": {**_BASE, "sm.dual_issue": False},
    "baseline": _BASE,
    "socgpu_single": {**_SOC, "sm.dual_issue": False},
    "socgpu_n2": {**_SOC, "sm.ib_entries": 2},
    "socgpu_n4": {**_SOC, "sm.ib_entries": 4},
    "socgpu": _SOC,
    "socgpu_n16": {**_SOC, "sm.ib_entries": 16},
    "socgpu_n32": {**_SOC, "sm.ib_entries": 32},
    "socgpu_n64": {**_SOC, "sm.ib_entries": 64},
    **{f"socgpu_{p}": {**_SOC, "sm.local_policy": p}
       for p in ("oldest", "youngest", "most_ready", "least_ready", "random")},
    "socgpu_w48": {**_SOC, **_WARPS[48]},
    "socgpu_w32": {**_SOC, **_WARPS[32]},
    "socgpu_smart": {**_SOC, "sm.smart_dual": True},
    "gpgpusim": {"sm.issue": "inorder", "sm.dual_issue": True},
}
SWEEP_N = ["socgpu_n2", "socgpu_n4", "socgpu", "socgpu_n16", "socgpu_n32", "socgpu_n64"]
SWEEP_POLICY = ["socgpu"] + [f"socgpu_{p}" for p in ("oldest", "youngest", "most_ready",
                                                      "least_ready", "random")]
SWEEP_WARPS = ["socgpu", "socgpu_w48", "socgpu_w32"]
SWEEP_DUAL = ["baseline_single", "baseline", "socgpu_single", "socgpu", "socgpu_smart"]


def setup(variant: str) -> dict:
    """Plot coordinates of a variant in each sweep: IB size N, local policy, warps per SM and
    dual-issue label. Outside a sweep a coordinate takes that sweep's first level: the sweep's
    metric is None there, so the point only keeps the axis in the intended order."""
    o = VARIANTS[variant]
    soc = o["sm.issue"] == "socgpu"
    dual = ("smart" if o.get("sm.smart_dual") else "dual") if o["sm.dual_issue"] else "single"
    return {"variant": variant,
            "N": o["sm.ib_entries"] if variant in SWEEP_N else 2,
            "policy": o["sm.local_policy"] if variant in SWEEP_POLICY else "first",
            "warps": o.get("sm.warps_per_sm", 64) if variant in SWEEP_WARPS else 64,
            "dual": (f"{'SOC' if soc else 'in-order'} {dual}" if variant in SWEEP_DUAL
                     else "in-order single")}


def energy_j(stats: dict, cfg, issue_uw: float) -> float:
    """Our choice energy proxy (J) of one run on ``cfg``."""
    n_sm, cycles, e = cfg.sm.count, stats["cycles"], stats["energy"]
    uncore = e["static_uncore_pj"] * n_sm / 28
    issue = issue_uw * 1e-3 * cfg.sm.warps_per_sm * n_sm * cycles * 1e3 / cfg.core_clock_mhz
    return (e["total_pj"] - e["static_uncore_pj"] + uncore + issue) * 1e-12


def _overrides(point: Point) -> dict:
    variant = point.params.get("variant")
    if variant not in VARIANTS:
        raise ConfigError("variant", variant, "one of " + ", ".join(VARIANTS))
    return {**point.overrides, **VARIANTS[variant]}


def resolve_scale(workload: str, scale, preset: str | None = None, run: bool = True) -> float:
    """The point's ``scale`` as a number (experiments/program_scale.py: quick / default / fill
    name a program's scale; ``run=False``: checked, not run)."""
    from experiments.program_scale import resolve
    return resolve(workload, scale, preset, run=run)


@functools.lru_cache(maxsize=64)
def _simulate(preset: str, overrides: tuple, workload: str, seed: int, scale: float) -> dict:
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.run import load_workload, simulate
    cfg = resolve_config(preset, override_strings(dict(overrides)))
    stats = simulate(cfg, load_workload(workload, seed=seed, scale=scale, preset=preset),
                     seed=seed, memory="hierarchy")
    power = ISSUE_POWER_UW["socgpu" if cfg.sm.issue == "socgpu" else "baseline"]
    stats["energy_j"] = energy_j(stats, cfg, power)
    return stats


def run_point(point: Point) -> dict:
    """Simulate the point's variant and its baseline; stats + ``setup`` + ``vs_baseline``."""
    scale = resolve_scale(point.workload, point.params.get("scale", 1.0), point.preset)
    key = (point.preset, point.workload, point.seed, scale)
    stats = dict(_simulate(point.preset, tuple(sorted(_overrides(point).items())), *key[1:]))
    base = _simulate(point.preset, tuple(sorted({**point.overrides, **_BASE}.items())), *key[1:])
    stats["setup"] = {**setup(point.params["variant"]), "scale": scale}
    stats["vs_baseline"] = {"speedup": base["cycles"] / stats["cycles"],
                            "energy": stats["energy_j"] / base["energy_j"],
                            "baseline_cycles": base["cycles"]}
    return stats


def check_point(point: Point) -> None:
    """Config, params and workload name valid (a program is checked by name and options, not
    run: its functional execution happens once, in the first point that needs it)."""
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.workload.catalogue import get_workload
    from sim.workload.program import check_options, load_module, program_path, split_options
    resolve_config(point.preset, override_strings(_overrides(point)))
    unknown = set(point.params) - {"variant", "scale"}
    if unknown:
        raise ConfigError(", ".join(sorted(unknown)), "", "known params: variant, scale")
    scale = resolve_scale(point.workload, point.params.get("scale", 1.0), point.preset, run=False)
    if point.workload.startswith("program:"):
        check_options(load_module(program_path(point.workload)), point.workload,
                      split_options(point.workload)[1])
    else:
        get_workload(point.workload, seed=point.seed, scale=scale)


register_kind(KIND, run_point, check_point)

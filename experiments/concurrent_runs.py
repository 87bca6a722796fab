"""Runner kind ``ck_pair`` for the concurrent-kernel reproduction (experiments/concurrent.py):
one point = one add/stream pair (``A+B``, both at cycle 0) or one kernel alone, on the ch.5
machine, through sim/multiprog/concurrent.py.

Point: ``preset`` thesis_ch5 with Fig 5.3's 64 warps per core (``sm.warps_per_sm`` 64,
``sm.threads_per_sm`` 2048 as overrides) and ``sm.warp_sched`` (gto, tlrr, tlgto); params
``policy`` (``ck_sequential`` = left-over, ``ck_interleaved[:share]``, ``ck_baseline`` = spatial
multitasking; a kernel alone runs under ``ck_sequential``), ``scale`` (the catalogue's: CTAs,
never the loop count x), ``profile`` (``warp-states`` attaches the profiler; cycles are
unchanged) and ``share`` (``oracle``: each kernel at its offline-optimal CTA count from a cached
standalone sweep, sim/multiprog/concurrent.py ``optimal_ctas``: a pair gets it as each kernel's
share, a kernel alone runs at it as a fixed CTA limit). Every input is checked before the sweep starts (one line naming the field).
"""

from __future__ import annotations

from gpusched.config import ConfigError
from gpusched.experiment.grid import Grid
from gpusched.experiment.point import Point, override_strings
from gpusched.experiment.runners import register_kind

KIND = "ck_pair"
PARAMS = ("policy", "scale", "profile", "share")
SHARES = ("", "oracle")
POLICIES = ("ck_sequential", "ck_interleaved", "ck_baseline")
PROFILES = ("", "warp-states")
CH5 = {"sm.warps_per_sm": 64, "sm.threads_per_sm": 2048}


def _inputs(point: Point):
    from gpusched.config import resolve_config
    from sim.multiprog.concurrent import check_names
    p = dict(point.params)
    unknown = set(p) - set(PARAMS)
    if unknown:
        name = sorted(unknown)[0]
        raise ConfigError(name, p[name], "unknown parameter; known: " + ", ".join(PARAMS))
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    policy = str(p.get("policy", "ck_interleaved"))
    if policy.split(":")[0] not in POLICIES:
        raise ConfigError("policy", policy, "allowed: " + ", ".join(POLICIES)
                          + " (ck_interleaved:<share>)")
    profile = str(p.get("profile", ""))
    if profile not in PROFILES:
        raise ConfigError("profile", profile, "allowed: '', warp-states")
    scale = float(p.get("scale", 1.0))
    if not 0 < scale <= 1000:
        raise ConfigError("scale", scale, "must be in (0, 1000]")
    share = str(p.get("share", ""))
    if share not in SHARES:
        raise ConfigError("share", share, "allowed: '', oracle")
    if not cfg.kernels.concurrent_sm:
        raise ConfigError("kernels.concurrent_sm", False, "must be true (kernels share SMs)")
    check_names(point.workload)
    return cfg, policy, scale, profile, share


def check_pair(point: Point) -> None:
    from sim.policies import make_policy
    cfg, policy, _scale, _profile, _share = _inputs(point)
    make_policy("kernel_scheduler", policy, cfg)       # bad share / config: one line


def run_pair(point: Point) -> dict:
    from sim.multiprog.concurrent import optimal_ctas, run_concurrent
    cfg, policy, scale, profile, share = _inputs(point)
    profiles = (profile,) if profile else ()
    if share != "oracle":
        out = run_concurrent(cfg, point.workload, policy, point.seed, scale, profile=profiles)
        out["warp_sched"] = cfg.sm.warp_sched           # for the tables (stats-only metrics)
        return out
    names = point.workload.split("+")
    sweeps = {n: optimal_ctas(cfg, n, point.seed, scale) for n in names}
    shares = {n: s["limit"] for n, s in sweeps.items()}
    if len(names) == 1:
        out = run_concurrent(cfg, point.workload, policy, point.seed, scale, profile=profiles,
                             cta_limit=f"fixed:{shares[names[0]]}")
    else:
        out = run_concurrent(cfg, point.workload, policy, point.seed, scale, profile=profiles,
                             shares=shares)
    out.update(shares=shares, sweeps={n: sorted(s["cycles"].items()) for n, s in sweeps.items()},
               warp_sched=cfg.sm.warp_sched)
    return out


register_kind(KIND, run_pair, check_pair)


def part(name: str, workloads: list[str], policies: list[str], warp_sched: list[str],
         scale: float, profile: str = "", share: str = "") -> Grid:
    """One cartesian piece of the reproduction's grid."""
    params = {"policy": policies, "scale": [scale], "profile": [profile]}
    if share:
        params["share"] = [share]
    return Grid(name=name, workloads=workloads, preset=["thesis_ch5"], kind=KIND,
                overrides={**{k: [v] for k, v in CH5.items()}, "sm.warp_sched": warp_sched},
                params=params, source=__file__)

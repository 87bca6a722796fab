"""Concurrent-kernel study ([THESIS §5.5.1]): one pair (or one kernel alone) run on the ch.5
machine under a ``ck_dispatch`` kernel scheduler, summarised, and the pair metrics of Table 5.2.

Runs go through the pair composer (sim/multiprog/compose.py), so a kernel runs the same blocks
alone and in its pair. Every kernel of a pair arrives at cycle 0 (Table 5.2 launches both
together).

Metrics, for a pair A+B with standalone runtimes T_A, T_B ([THESIS §5.5.1]):

- sequential time: T_A + T_B (Table 5.2 sums the isolated runs) and, separately, the measured
  left-over run (``ck_sequential``: B's CTAs start once A's are all issued, so tails overlap);
- max speedup = (T_A + T_B) / max(T_A, T_B) (the ideal overlap; the thesis's
  wording is inverted, its numbers follow this form);
- achieved speedup = (T_A + T_B) / T_interleaved; interleaved efficiency = achieved / max;
- compute-throughput utilisation = IPC / peak IPC (``sm.count × sm.subcores /
  sm.issue_interval`` warp instructions per cycle; dual issue off on the ch.5 machine) and
  memory-bandwidth utilisation = DRAM bytes / cycles / peak bytes per cycle, for every run;
- interference: a kernel's slowdown in the pair = its cycles there (first CTA to last) over its
  standalone cycles under the same warp scheduler (TLRR vs TLGTO, [THESIS ch. 5]).

Rodinia-like pairs run each kernel at its offline-optimal CTA count ([THESIS §5.4], our choice where it is silent):
``optimal_ctas`` sweeps the kernel alone over fixed per-SM limits 1..R_k and takes Perf-Sat's
oracle rule ([THESIS Table 4.2]: the smallest n whose n + 1 gains less than 2 %, speed = 1 /
cycles); the pair then gives each kernel that count as its launch-side share
(``kernel.meta["ck_share"]``, sim/policies/ck_dispatch.py) and the standalone runs use the same count (Figs 5.11/5.12 compare
at the optimal CTA count). Sweeps are cached like the standalone runtimes.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from gpusched.config import ConfigError, GPUConfig
from sim.multiprog.standalone import DEFAULT_CACHE

PRESET = "thesis_ch5"
# Fig 5.3's 64 warps per core (8 CTAs × 8 warps) exceed [THESIS Table 5.1]'s 48 (an inconsistency in
# the thesis)
FIG_5_3 = ("sm.warps_per_sm=64", "sm.threads_per_sm=2048")
SCHEDULERS = {"sequential": "ck_sequential", "interleaved": "ck_interleaved",
              "spatial": "ck_baseline"}


def ch5_config(extra: tuple[str, ...] = ()) -> GPUConfig:
    """The Table 5.1 machine with Fig 5.3's 64 warps per core, plus ``extra`` overrides."""
    from gpusched.config import resolve_config
    return resolve_config(PRESET, [*FIG_5_3, *extra])


def peak_ipc(cfg: GPUConfig) -> float:
    """Warp instructions per cycle the whole GPU can issue."""
    per_sm = cfg.sm.subcores / cfg.sm.issue_interval * (2 if cfg.sm.dual_issue else 1)
    return cfg.sm.count * per_sm


def summarize(stats: dict, cfg: GPUConfig) -> dict:
    """The numbers the study keeps from one run's stats (JSON-ready, small)."""
    d = stats["memory"]["dram"] if "dram" in stats.get("memory", {}) else None
    cycles = stats["cycles"]
    out = {"cycles": cycles, "ipc": stats["ipc"],
           "compute_util": stats["ipc"] / peak_ipc(cfg),
           "kernels": [{"name": k["name"], "start": k["start"], "end": k["end"],
                        "cycles": k["cycles"], "ipc": k["ipc"],
                        "occupancy_limit": k["occupancy_limit"]} for k in stats["kernels"]]}
    if d is not None:
        moved = d["bytes_read"] + d["bytes_written"]
        out.update(dram_bytes=moved, mem_util=moved / cycles / d["peak_bytes_per_cycle"])
    if "warp_states" in stats:
        out["warp_states"] = stats["warp_states"]
    return out


def check_names(workload: str) -> list[str]:
    """The members of ``A+B`` (or ``A``), each checked against the catalogue."""
    from sim.multiprog.compose import check_member
    names = workload.split("+")
    if len(names) > 2 or not all(names):
        raise ConfigError("workload", workload, "one kernel or a pair A+B")
    if len(set(names)) != len(names):
        raise ConfigError("workload", workload, "the two kernels must differ")
    for n in names:
        check_member(n)
    return names


def run_concurrent(cfg: GPUConfig, workload: str, kernel_scheduler: str = "ck_interleaved",
                   seed: int = 0, scale: float = 1.0, memory: str = "hierarchy",
                   profile: tuple[str, ...] = (), shares: dict[str, int] | None = None,
                   cta_limit: str | None = None) -> dict:
    """Run ``A+B`` (both at cycle 0) or ``A`` alone and return ``summarize``'s dict.
    ``shares``: member → its launch-side CTAs per SM while sharing; ``cta_limit``: a
    ``cta_limit`` policy for the run (``fixed:<n>``: the standalone sweep)."""
    from dataclasses import replace

    from sim.multiprog.compose import Member, compose
    from sim.run import simulate
    from sim.workload.kernel import Workload
    names = check_names(workload)
    if not cfg.kernels.concurrent_sm:
        raise ConfigError("kernels.concurrent_sm", False, "must be true (kernels share SMs)")
    wl = compose([Member(n) for n in names], seed, scale, cfg.kernels.max_concurrent,
                 preset=cfg.name)
    if shares:
        wl = Workload(wl.name, [replace(k, meta={**k.meta, "ck_share": shares[m]})
                                if (m := k.meta.get("member", k.name)) in shares else k
                                for k in wl.kernels], wl.description, wl.meta)
    extra = {"cta_limit": cta_limit} if cta_limit else {}
    stats = simulate(cfg, wl, seed=seed, memory=memory, kernel_scheduler=kernel_scheduler,
                     profile=profile, **extra)
    return summarize(stats, cfg)


def oracle_limit(cycles: dict[int, int], gain: float = 0.02) -> int:
    """Perf-Sat's oracle ([THESIS Table 4.2]): the smallest n with speed(n + 1) < (1 + gain) ×
    speed(n), speed = 1 / cycles; the largest n when every step gains."""
    ns = sorted(cycles)
    for a, b in zip(ns, ns[1:]):
        if 1 / cycles[b] < (1 + gain) / cycles[a]:
            return a
    return ns[-1]


def optimal_ctas(cfg: GPUConfig, name: str, seed: int = 0, scale: float = 1.0,
                 memory: str = "hierarchy", cache_dir: str | Path | None = DEFAULT_CACHE) -> dict:
    """``{"limit": n, "cycles": {n: cycles}}``: ``name`` alone at every fixed CTA limit per SM
    from 1 to its occupancy limit (a program's launches: the largest of theirs; the limit
    applies to each launch), and the oracle's choice (cached in ``cache_dir``)."""
    from sim.multiprog.standalone import cache_key
    path = None
    if cache_dir is not None:
        key = cache_key(f"{name}@ctas", cfg, "cycle", seed, scale, "ck_sequential", memory)
        path = Path(cache_dir) / f"{key}.json"
        try:
            got = json.loads(path.read_text())
            return {"limit": got["limit"], "cycles": {int(n): c for n, c in got["cycles"].items()}}
        except (OSError, ValueError, KeyError):
            pass
    top = run_concurrent(cfg, name, "ck_sequential", seed, scale, memory)
    limit = max(k["occupancy_limit"] for k in top["kernels"])     # a program: its kernels' widest
    cycles = {limit: top["cycles"]}
    for n in range(1, limit):
        cycles[n] = run_concurrent(cfg, name, "ck_sequential", seed, scale, memory,
                                   cta_limit=f"fixed:{n}")["cycles"]
    out = {"limit": oracle_limit(cycles), "cycles": dict(sorted(cycles.items()))}
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"member": name, "preset": cfg.name, **out}, f)
        os.replace(tmp, path)
    return out


def kernel_cycles(run: dict) -> dict[str, int]:
    """Kernel name → its cycles (first CTA placed to last CTA done) in ``run``."""
    return {k["name"]: k["cycles"] for k in run["kernels"]}


def pair_metrics(alone: dict[str, int], interleaved: int, leftover: int | None = None) -> dict:
    """Table 5.2's columns from the standalone runtimes (kernel → cycles) and the interleaved
    (and, if given, the measured left-over) runtime of the pair."""
    if len(alone) != 2 or min(alone.values()) <= 0 or interleaved <= 0:
        raise ValueError(f"pair metrics need two positive standalone runtimes: {alone}")
    seq = sum(alone.values())
    best = seq / max(alone.values())
    achieved = seq / interleaved
    out = {"sequential": seq, "max_speedup": best, "achieved": achieved,
           "efficiency": achieved / best}
    if leftover is not None:
        out.update(leftover=leftover, achieved_vs_leftover=leftover / interleaved)
    return out


def slowdowns(pair: dict, alone: dict[str, int]) -> dict[str, float]:
    """Kernel → its cycles in the pair over its standalone cycles (interference, ≥ 1 when
    sharing costs it time)."""
    return {name: c / alone[name] for name, c in kernel_cycles(pair).items() if alone.get(name)}

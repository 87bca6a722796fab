"""Characterisation of the program suite beside the papers' tables (issue 33, docs/workloads.md).

Per program and preset, a few model runs (runner kind ``characterize``, one per variant):
RR (LRR warp scheduler, with OWL's profiler: CINV and MemoryBlockCycles [OWL Table 2, Fig. 3]), GTO,
Perfect-L1 and Perfect-L2 (PMEM = IPC(Perfect-L1)/IPC(RR), the Type-1 test of [OWL §3]), and
the CTA-limit sweep ``fixed:1..8`` behind the thesis's ch.4 type ([THESIS §4.3.1.2]: C-strong when
the oracle N_opt — the count beyond which one more CTA gains less than 2 % — is N_max, C-weak when
IPC saturates before N_max, MEM when it drops beyond N_opt). The RR run also reports what does
not depend on the machine's policy: the phase table of every kernel from its PTX ([THESIS §3.4.2.1])
and the consecutive-CTA DRAM-row sharing and CTAs per row of its accesses ([OWL Table 4]).
"""

from __future__ import annotations

from statistics import mean

from gpusched.experiment.point import Point
from gpusched.experiment.runners import register_kind

# the preset each paper's experiments run on
PAPER_PRESET = {"owl": "owl", "socgpu": "gp102", "thesis_ch3": "thesis_ch3", "thesis_ch4": "thesis",
                "thesis_ch5": "thesis_ch5", "srtf": "gtx480", "ikra": "ikra_15cu"}
MAX_CTAS = 8                                       # the CTA-limit sweep's top (Table 4.2's N_max ≤ 8)
VARIANTS = {"rr": {"sm.warp_sched": "lrr"}, "gto": {"sm.warp_sched": "gto"},
            "perfect_l1": {"sm.warp_sched": "lrr", "l1.perfect": True},
            "perfect_l2": {"sm.warp_sched": "lrr", "l2.perfect": True},
            **{f"ctas_{n}": {"sm.warp_sched": "lrr"} for n in range(1, MAX_CTAS + 1)}}
GAIN = 0.02                                        # the oracle's 2 % ([THESIS §4.3])


# the variants a paper's columns need; thesis_ch4's type and N_opt take all of VARIANTS
BASIC = ("rr", "gto", "perfect_l1", "perfect_l2")
PAPER_VARIANTS = {p: BASIC for p in ("owl", "thesis_ch3", "thesis_ch5", "socgpu", "srtf", "ikra")}


def points(program: str, preset: str, scale: float, seed: int = 0,
           variants: tuple[str, ...] | None = None) -> list[Point]:
    return [Point(kind="characterize", preset=preset, workload=f"program:{program}", seed=seed,
                  params={"variant": v, "scale": scale}) for v in variants or VARIANTS]


def run_characterize(point: Point) -> dict:
    """One variant of one program (see the module docstring)."""
    from gpusched.config import resolve_config
    from sim.run import load_workload, simulate
    variant = point.params["variant"]
    sets = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in VARIANTS[variant].items()]
    cfg = resolve_config(point.preset, sets)
    scale = float(point.params.get("scale", 1.0))
    wl = load_workload(point.workload, seed=point.seed, scale=scale, preset=cfg.name)
    policies = {"cta_limit": f"fixed:{variant[5:]}"} if variant.startswith("ctas_") else {}
    profile = ("owl",) if variant == "rr" else ()
    stats = simulate(cfg, wl, seed=point.seed, memory="hierarchy", profile=profile, **policies)
    if variant == "rr":
        from sim.workload.phases import kernel_phases
        from sim.workload.row_profile import row_sharing
        seen: dict[str, dict] = {}
        for k in wl.kernels:
            if k.name not in seen:
                seen[k.name] = kernel_phases(k).table()
        stats["phases"] = seen
        stats["row_sharing"] = row_sharing(wl, cfg.dram, cfg.l1.line_bytes)
    return stats


def _check(point: Point) -> None:
    from gpusched.config import ConfigError
    if point.params.get("variant") not in VARIANTS:
        raise ConfigError("params.variant", point.params.get("variant"),
                          "allowed: " + ", ".join(VARIANTS))


register_kind("characterize", run_characterize, _check)


def oracle_limit(curve: dict[int, float], gain: float = GAIN) -> int:
    """The CTA count beyond which one more CTA improves IPC by less than ``gain``."""
    ns = sorted(curve)
    for a, b in zip(ns, ns[1:]):
        if curve[b] < curve[a] * (1 + gain):
            return a
    return ns[-1]


def ch4_type(curve: dict[int, float], n_max: int) -> tuple[str, int]:
    usable = {n: v for n, v in curve.items() if n <= n_max}
    n_opt = oracle_limit(usable)
    if n_opt >= n_max:
        return "C-strong", n_opt
    if usable[n_max] >= usable[n_opt] * (1 - GAIN):
        return "C-weak", n_opt
    return "MEM", n_opt


def summarise(by_variant: dict[str, dict]) -> dict:
    """One characterisation row from the runs of one program on one preset."""
    rr = by_variant["rr"]
    ipc = rr["ipc"]
    main = max(rr["kernels"], key=lambda k: k["warp_insts"])
    n_max = max(k["occupancy_limit"] for k in rr["kernels"])
    curve = {int(v[5:]): s["ipc"] for v, s in by_variant.items() if v.startswith("ctas_")}
    kind, n_opt = ch4_type(curve, min(n_max, MAX_CTAS)) if curve else ("", 0)
    gto = by_variant["gto"]["ipc"] / ipc if ipc else 0.0
    phases = rr.get("phases", {})
    owl = rr.get("owl", {})
    mem = rr["memory"]
    return {
        "warp_insts": rr["warp_insts"], "ipc": ipc, "kernels": len(rr["kernels"]),
        "ctas_per_sm": main["occupancy_limit"], "limited_by": main["occupancy_limiter"],
        "pmem": by_variant["perfect_l1"]["ipc"] / ipc if ipc else None,
        "perfect_l2": by_variant["perfect_l2"]["ipc"] / ipc if ipc else None,
        "cinv": owl.get("cinv"), "memory_block": owl.get("memory_block_fraction"),
        "l1_miss": 1 - mem["l1"]["hit_rate"] if "l1" in mem else None,
        "l2_miss": 1 - mem["l2"]["hit_rate"] if "l2" in mem else None,
        "row_sharing": rr.get("row_sharing", {}).get("cons_cta_row_sharing"),
        "ctas_per_row": rr.get("row_sharing", {}).get("ctas_per_row"),
        "phases": {k: (v["phases"], v["longest"], v["shortest"]) for k, v in phases.items()},
        "main_phases": phases[main["name"]]["phases"] if main.get("name") in phases else None,
        "gto_over_rr": gto,
        "gto_rr_class": "GTO" if gto > 1.01 else "RR" if gto < 0.99 else "same",
        "ch4_type": kind, "n_opt": n_opt, "n_max": n_max,
    }


def mean_abs_difference(pairs: list[tuple[float, float]], relative: bool = True) -> float | None:
    """Mean |ours − paper| (relative to the paper's value when ``relative``)."""
    diffs = [abs(o - p) / abs(p) if relative and p else abs(o - p) for o, p in pairs
             if o is not None and p is not None]
    return mean(diffs) if diffs else None

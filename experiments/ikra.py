"""IKRA ([IKRA]): thread-block schedulers Chunk / Reset / Flip / Steal against round-robin (G).

Execution time, a dynamic-energy proxy and network traffic of each policy, normalised to G, on
``ikra_15cu`` with the full memory hierarchy and L1 data kept across kernel boundaries (the
preset's DeNovo-style default). G is the ``cta_sched`` twin's ``rr`` policy, so every policy runs
through the same block. Averages are arithmetic means of per-application ratios (our choice where
[IKRA] is silent), with harmonic and geometric means beside them.

``EXPERIMENT`` (``gpusched reproduce ikra``) runs the paper's 17 programs from the suite (each
program whose ``INFO["papers"]`` names ikra; runner kind ``ikra_program``,
experiments/ikra_program_runs.py): the 8 regular iterative apps, the 4 irregular graph apps on
both of the paper's graphs (cond_mat, olesnik0) and the 5 non-iterative apps, at their default
scale (the paper's input sizes where the program has them). Its quick grid runs the programs
whose kernels still have more TBs than the machine holds at once (the only case where a Steal
thief can find undispatched work) on the paper's microbenchmark CU count (3 CUs; the memory
system of ``ikra_15cu``), at ``steal_quick`` scales. ``CATALOGUE`` (``--catalogue``) is the
earlier run on catalogue workloads that mimic the applications, plus the microbenchmarks.

Energy proxy (our choice where [IKRA] is silent): dynamic energy only = the memory system's
per-event energy (L1, scratchpad, L2, interconnect, DRAM) + one ``energy.warp_inst_pj`` per warp
instruction for the core; static/idle energy excluded. Traffic: bytes injected into the interconnect
in both directions (reads, writes and write-backs together; flit-hop accounting is not modelled
yet).
"""

from __future__ import annotations

from gpusched.config import get_preset
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

POLICIES = ["ikra_rr", "ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal"]
REGULAR = ["ikra_hotspot", "ikra_pathfinder", "ikra_srad", "ikra_stencil", "ikra_kmeans"]
IRREGULAR = ["ikra_graph_coloring", "ikra_graph_coloring_banded"]
MICRO = ["ikra_gpu_small", "ikra_gpu_medium", "ikra_gpu_large", "ikra_work_stealing"]
WARP_INST_PJ = get_preset("ikra_15cu").energy.warp_inst_pj


def energy_uj(stats: dict) -> float:
    """Dynamic energy proxy in µJ: memory events + core instructions (no static energy)."""
    return (stats["energy"]["memory_pj"] + stats["warp_insts"] * WARP_INST_PJ) / 1e6


def traffic_kb(stats: dict) -> float:
    icnt = stats["memory"]["icnt"]
    return (icnt["up"]["bytes"] + icnt["down"]["bytes"]) / 1024


def _vs_rr(metric: str, workloads: list[str], policy: str = "ikra_steal"):
    """Arithmetic mean over ``workloads`` of mean(metric | policy) / mean(metric | G)."""
    def ours(results: ResultSet) -> float:
        ratios = []
        for w in workloads:
            num = results.mean(metric, {"cta_scheduler": policy, "workload": w})
            den = results.mean(metric, {"cta_scheduler": "ikra_rr", "workload": w})
            if den and num == num and den == den:
                ratios.append(num / den)
        return sum(ratios) / len(ratios) if ratios else float("nan")
    return ours


def steals(stats: dict) -> float | None:
    """CTAs stolen in the run (Steal only: its scheduler's counters; None for the others)."""
    report = stats.get("policy_reports", {}).get("cta_scheduler", {})
    if report.get("policy") != "steal":
        return None
    counters = report.get("stats", {})
    return counters.get("steals_queue", 0) + counters.get("steals_chunk", 0)


def _steal_caveat(workloads: list[str]):
    """The headline's caveat: whether any steal fired in its workloads' Steal runs (without
    one, Steal places every CTA as Flip does and Steal/G is Flip/G)."""
    def caveat(results: ResultSet) -> str:
        runs = [v for w in workloads for v in results.select(
            {"cta_scheduler": "ikra_steal", "workload": w}).values("steals")]
        if not runs:
            return ""
        if sum(runs) == 0:
            which = "the Steal run" if len(runs) == 1 else f"any of the {len(runs)} Steal runs"
            return (f"no steal fired in {which} of these workloads: Steal acted as Flip, so "
                    "this is Flip/G")
        return f"{sum(runs):,.0f} CTAs stolen over {len(runs)} Steal runs"
    return caveat


def _grid(name: str, workloads: list[str], scale: float) -> Grid:
    return Grid(name=name, preset=["ikra_15cu"], workloads=workloads, seeds=[0],
                params={"cta_scheduler": POLICIES, "memory": ["hierarchy"], "scale": [scale]},
                source=__file__)


from experiments.ikra_program_runs import KIND as PROGRAM_KIND  # noqa: E402 (registers the kind)


def _mean_vs_rr(metric: str, workloads: list[str], mean: str, policy: str = "ikra_steal"):
    """The ``mean`` (arith, harm, geo) over ``workloads`` of policy/G per workload."""
    def ours(results: ResultSet) -> float:
        ratios = _ratios(results, metric, workloads, policy)
        if not ratios:
            return float("nan")
        if mean == "harm":
            return len(ratios) / sum(1 / r for r in ratios)
        if mean == "geo":
            return geomean(ratios)
        return sum(ratios) / len(ratios)
    return ours


def _ratios(results: ResultSet, metric: str, workloads: list[str], policy: str) -> list[float]:
    out = []
    for w in workloads:
        num = results.mean(metric, {"cta_scheduler": policy, "workload": w})
        den = results.mean(metric, {"cta_scheduler": "ikra_rr", "workload": w})
        if den and num == num and den == den:
            out.append(num / den)
    return out


def _headline(regular: list[str], irregular: list[str], means: bool) -> list[Headline]:
    rows = []
    for cls, apps, paper in (("regular", regular, (0.81, 0.89, 0.58)),
                             ("irregular", irregular, (0.90, 0.92, 0.84))):
        for (metric, what), value in zip((("cycles", "time"), ("energy", "energy"),
                                          ("traffic", "network traffic")), paper):
            rows.append(Headline(f"{cls}: {what}, Steal/G", "×", _vs_rr(metric, apps),
                                 paper=value, caveat=_steal_caveat(apps),
                                 note=_NOTE.format(cls, f"paper: −{round((1 - value) * 100)} %")))
            if means and metric == "cycles":
                for mean in ("harm", "geo"):
                    rows.append(Headline(
                        f"{cls}: time, Steal/G, {'harmonic' if mean == 'harm' else 'geometric'} "
                        "mean", "×", _mean_vs_rr(metric, apps, mean),
                        note="the same per-program ratios (paper: arithmetic mean only)"))
    return rows


def _experiment(name: str, title: str, grid: Grid, quick: Grid, regular: list[str],
                irregular: list[str], names: dict[str, str] | None = None,
                sections: tuple = ()) -> Experiment:
    """One IKRA report (program suite or catalogue): the same metrics, tables and plots."""
    return Experiment(
        name=name,
        title=title,
        description=__doc__,
        grid=grid,
        quick=quick,
        metrics=METRICS,
        tables=[Table(m, columns="cta_scheduler") for m in
                ("cycles", "energy", "traffic", "l1_hit", "prev_hits", "dram_kb", "steals")],
        plots=PLOTS,
        headline=_headline(regular, irregular, means=names is not None),
        labels={"cta_scheduler": "thread-block scheduler", "workload": "workload"},
        names={"cta_scheduler": {"ikra_rr": "G", "ikra_chunk": "Chunk", "ikra_reset": "Reset",
                                 "ikra_flip": "Flip", "ikra_steal": "Steal"},
               **({"workload": names} if names else {})},
        sections=sections,
    )


METRICS = [
    Metric("cycles", "Execution time", "core cycles"),
    Metric("energy", "Dynamic energy (proxy)", "µJ", compute=energy_uj),
    Metric("traffic", "Network traffic", "KiB", compute=traffic_kb),
    Metric("l1_hit", "L1 hit rate", "%", stat="memory.l1.hit_rate", scale=100),
    Metric("prev_hits", "L1 hits on the previous kernel's data", "hits",
           stat="memory.l1.hits_prev_kernel"),
    Metric("dram_kb", "DRAM traffic", "KiB",
           compute=lambda s: (s["memory"]["traffic"]["dram_to_l2_bytes"]
                              + s["memory"]["traffic"]["l2_to_dram_bytes"]) / 1024),
    Metric("steals", "Steals", "CTAs stolen", compute=steals),
]
PLOTS = [Plot("cycles", "time.png", series="cta_scheduler", title="Execution time per policy",
              normalize="ikra_rr", mean=("arith",)),
         Plot("energy", "energy.png", series="cta_scheduler",
              title="Dynamic energy (proxy) per policy", normalize="ikra_rr", mean=("arith",)),
         Plot("traffic", "traffic.png", series="cta_scheduler",
              title="Network traffic per policy", normalize="ikra_rr", mean=("arith",)),
         Plot("prev_hits", "reuse.png", series="cta_scheduler",
              title="L1 hits on data left by the previous kernel")]


# ---- the paper's programs from the suite ---------------------------------------------------
# [IKRA]'s application lists; labels as each program's INFO["papers"]["ikra"]
REGULAR_PROGRAMS = {label: f"program:{name}" for label, name in (
    ("Hotspot", "hotspot"), ("Kmeans", "kmeans"), ("LUD", "lud"), ("NW", "nw"),
    ("Pathfinder", "pathfinder"), ("SRAD v1", "srad_v1"), ("SRAD v2", "srad_v2"),
    ("Stencil", "stencil"))}
IRREGULAR_PROGRAMS = {f"{label} {graph}": f"program:{name}:graph={graph}"
                      for label, name in (("Dijkstra", "sssp"), ("Graph Coloring", "color"),
                                          ("MIS", "mis"), ("PageRank", "pagerank"))
                      for graph in ("cond_mat", "olesnik0")}
NONITERATIVE_PROGRAMS = {label: f"program:{name}" for label, name in (
    ("Backprop", "backprop"), ("ConvolutionSeparable", "convsep"), ("LavaMD", "lavamd"),
    ("Nearest Neighbor", "nn"), ("SGEMM", "sgemm"))}
PROGRAMS = {**REGULAR_PROGRAMS, **IRREGULAR_PROGRAMS, **NONITERATIVE_PROGRAMS}
# quick: programs whose kernels at their steal_quick scale (experiments/ikra_program_runs.py)
# exceed the 3-CU machine's resident TBs, so a thief can find work
PROGRAM_QUICK = ["Hotspot", "SRAD v1", "Graph Coloring olesnik0", "Dijkstra olesnik0"]
QUICK_MACHINE = {"sm.count": 3}


def _program_grid(name: str, labels: list[str], scale: str, machine: dict,
                  policies: list[str]) -> Grid:
    return Grid(name=name, kind=PROGRAM_KIND, preset=["ikra_15cu"],
                workloads=[PROGRAMS[label] for label in labels], seeds=[0],
                overrides={k: [v] for k, v in machine.items()},
                params={"cta_scheduler": policies, "scale": [scale]}, source=__file__)


def per_program_table(results: ResultSet) -> list[str]:
    """Per program: its TBs per kernel beside the paper's, each policy / G in time, and
    the CTAs Steal stole (0 = the mechanism never fired: Steal ran as Flip)."""
    from sim.workload.program import load_module, program_path
    lines = ["### Per program (time / G; the paper gives class means only)", "",
             "| program | class | paper TBs/kernel | ours TBs/kernel (max) | Chunk | Reset | "
             "Flip | Steal | steals |", "|---|---|---|---|---|---|---|---|---|"]
    for label, w in PROGRAMS.items():
        rows = results.select({"workload": w})
        if not len(rows.values("cycles")):
            continue
        cls = ("regular" if label in REGULAR_PROGRAMS else
               "irregular" if label in IRREGULAR_PROGRAMS else "non-iterative")
        info = load_module(program_path(w)).INFO.get("paper_values", {}).get("ikra", {})
        if "graph=" in w:
            info = info.get(w.rsplit("=", 1)[1], {})
        ours = rows.values("setup.tbs_mean")
        most = rows.values("setup.tbs_max")
        tbs = f"{ours[0]:.0f} ({most[0]})" if ours else "—"
        cells = []
        for policy in ("ikra_chunk", "ikra_reset", "ikra_flip", "ikra_steal"):
            r = _ratios(results, "cycles", [w], policy)
            cells.append(f"{r[0]:.3f}" if r else "—")
        stolen = rows.select({"cta_scheduler": "ikra_steal"}).values("steals")
        steal = f"{sum(stolen):,.0f}" if stolen else "—"
        lines.append(f"| {label} | {cls} | {info.get('tbs_per_kernel', '—')} | {tbs} | "
                     + " | ".join(cells) + f" | {steal} |")
    return lines


_NOTE = "Steal / G, arithmetic mean over the {} workloads of this grid ({})"
EXPERIMENT = _experiment(
    "ikra", "IKRA thread-block schedulers vs round-robin (programs, ikra_15cu)",
    grid=_program_grid("ikra", list(PROGRAMS), "default", {}, POLICIES),
    quick=_program_grid("ikra_quick", PROGRAM_QUICK, "steal_quick", QUICK_MACHINE, POLICIES),
    regular=list(REGULAR_PROGRAMS.values()), irregular=list(IRREGULAR_PROGRAMS.values()),
    names={w: label for label, w in PROGRAMS.items()}, sections=(per_program_table,))

QUICK_REGULAR, QUICK_IRREGULAR = ["ikra_hotspot", "ikra_pathfinder"], ["ikra_graph_coloring"]
CATALOGUE = _experiment(
    "ikra-catalogue", "IKRA thread-block schedulers vs round-robin (ikra_15cu, catalogue)",
    grid=_grid("ikra", REGULAR + IRREGULAR + MICRO, 1.0),
    quick=_grid("ikra_quick", QUICK_REGULAR + QUICK_IRREGULAR + ["ikra_work_stealing"], 0.3),
    regular=REGULAR, irregular=IRREGULAR)

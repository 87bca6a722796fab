"""Thesis ch.5 ([THESIS ch. 5]): workload-aware intra-core concurrent kernels. Pairs of the
compute micro-benchmark ``add_x_loops`` and the memory one ``stream_x_words`` (640 CTAs of 256
threads each, Fig 5.3) on the Table 5.1 machine (``thesis_ch5``) with Fig 5.3's 64 warps per
core, under three ``ck_dispatch`` kernel schedulers: left-over sequential (``ck_sequential``),
interleaved (``ck_interleaved``: 4 + 4 CTAs per core while both have CTAs to issue, then the
survivor's full occupancy) and spatial multitasking (``ck_baseline``, SM-granularity, the
thesis's ref. [5], [THESIS ch. 5]) as a baseline. SMK and Warped-Slicer are not built: the thesis
gives one line each.

Table 5.2 metrics ([THESIS §5.5.1], sim/multiprog/concurrent.py): sequential = sum of the
standalone runtimes, max speedup, achieved speedup, interleaved efficiency; also the achieved
speedup over the measured left-over run. Compute-throughput (IPC / peak) and memory-bandwidth
(DRAM bytes / peak) utilisation of each pair interleaved against its kernels alone (Figs
5.11/5.12). Interference under sharing: each kernel's slowdown in the interleaved pair against
itself alone, under the two-level schedulers TLRR and TLGTO ([THESIS ch. 5]; 6-entry ready queue).
Micro-benchmarks ([THESIS §5.3.1]): add_x_loops runtime against x; stream_x_words runtime and DRAM
utilisation against x. The warp-state plot (Fig 5.3 / 5.8) of a length-balanced add/stream
pair, sequential and interleaved.

The thesis's Table 5.2 pairs use its stream_x (≈ 28 k–126 k cycles for x = 1..4); ours stream at
~97 % of peak and are ≈ 3.5× shorter (docs/mechanisms/concurrent-kernels.md), so the grid adds
stream_8 and stream_16, whose runtimes reach add_10's: the pairs where the ideal overlap is as
large as the thesis's.
TLRR / TLGTO runs use a quarter of the CTAs (the two-level schedulers cost ~8× gto's model time).
Quick grid: 320 CTAs per kernel (scale 0.5), two pairs, five kernels alone; TLRR / TLGTO at 64
CTAs per kernel (scale 0.1: one interleaved wave).
"""

from __future__ import annotations

from experiments.concurrent_figures import (draw_micro, draw_pairs, draw_utilisation,
                                            draw_warp_states)
from experiments.concurrent_runs import KIND, part
from experiments.thesis_runs import GridUnion
from gpusched.experiment.plots import FigurePlot
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Table
from sim.multiprog.concurrent import pair_metrics

SEQ, INTER, SPATIAL = "ck_sequential", "ck_interleaved", "ck_baseline"
POLICIES = [SEQ, INTER, SPATIAL]
LABEL = {SEQ: "left-over", INTER: "interleaved", SPATIAL: "spatial"}
AXIS = "sm.warp_sched"
BASE_WS = "gto"             # thesis_ch5's warp scheduler (Table 5.2 does not name one)
TWO_LEVEL = ["tlrr", "tlgto"]
PLOT_PAIR = "add_10_loops+stream_16_words"


def add(x: int) -> str:
    return f"add_{x}_loops"


def stream(x: int) -> str:
    return f"stream_{x}_words"


def _grid(name: str, pairs: list[str], alone: list[str], scale: float,
          tl_scale: float, rodinia: list[str] = ()) -> GridUnion:
    kernels_of_plot = PLOT_PAIR.split("+")
    unprofiled = [p for p in pairs if p != PLOT_PAIR]
    parts = [part(f"{name}_pairs", unprofiled, POLICIES, [BASE_WS], scale),
             part(f"{name}_plot", [PLOT_PAIR], [SEQ, INTER], [BASE_WS], scale, "warp-states"),
             part(f"{name}_plot_spatial", [PLOT_PAIR], [SPATIAL], [BASE_WS], scale),
             part(f"{name}_alone", alone, [SEQ], [BASE_WS], scale),
             part(f"{name}_tl_pair", [PLOT_PAIR], [INTER], TWO_LEVEL, tl_scale),
             part(f"{name}_tl_alone", kernels_of_plot, [SEQ], TWO_LEVEL, tl_scale)]
    if rodinia:
        members = list(dict.fromkeys(n for p in rodinia for n in p.split("+")))
        parts += [part(f"{name}_rodinia_alone", members, [SEQ], [BASE_WS], 1.0, share="oracle"),
                  part(f"{name}_rodinia", list(rodinia), POLICIES, [BASE_WS], 1.0,
                       share="oracle")]
    workloads = list(dict.fromkeys(pairs + [PLOT_PAIR] + alone + list(rodinia)))
    return GridUnion(name=name, workloads=workloads, preset=["thesis_ch5"], seeds=[0], kind=KIND,
                     parts=tuple(parts))


FULL_PAIRS = [f"{add(a)}+{stream(s)}" for a, s in
              [(10, 1), (10, 3), (10, 4), (10, 8), (10, 16), (20, 3), (20, 16)]]
FULL_ALONE = [add(x) for x in (5, 10, 15, 20)] + [stream(x) for x in (1, 2, 3, 4, 6, 8, 16)]
# Rodinia-like pairs ([THESIS ch. 5]'s saturating kernels, the Perf-Sat stand-ins of
# [THESIS Table 4.2]: pathfinder = C-weak, LUD = MEM, B+tree = C-strong), 180 CTAs each, at their
# optimal CTA counts
RODINIA = ["perfsat_c_weak+perfsat_mem", "perfsat_c_strong+perfsat_mem",
           "perfsat_c_strong+perfsat_c_weak"]
# The two-level schedulers cost ~8x gto's run time in the model: their runs are shorter.
GRID = _grid("concurrent", FULL_PAIRS, FULL_ALONE, 1.0, 0.25, RODINIA)
QUICK = _grid("concurrent_quick", [f"{add(10)}+{stream(3)}", PLOT_PAIR],
              [add(5), add(10), stream(1), stream(3), stream(16)], 0.5, 0.1, RODINIA[:1])


# ---- rows -----------------------------------------------------------------------------------

def row(results: ResultSet, workload: str, policy: str, ws: str = BASE_WS) -> dict | None:
    """The run of ``workload`` under ``policy`` and warp scheduler ``ws`` (profiled or not)."""
    for r in results.rows:
        if r["workload"] == workload and r.get("policy") == policy and r.get(AXIS) == ws \
                and r.get("cycles") is not None:
            return r
    return None


def alone_cycles(results: ResultSet, name: str, ws: str = BASE_WS) -> int | None:
    r = row(results, name, SEQ, ws)
    return r["cycles"] if r else None


def full_grid_cycles(results: ResultSet, name: str) -> float:
    """Cycles of ``name`` alone scaled to Fig 5.3's 640 CTAs (quick runs have fewer CTAs and
    the runtime is about linear in the CTA count past the first wave)."""
    r = row(results, name, SEQ)
    return r["cycles"] / float(r.get("scale", 1.0))


def is_rodinia(workload: str) -> bool:
    """A Rodinia pair (run at the kernels' optimal CTA counts): the Perf-Sat stand-ins, or the
    suite's programs."""
    return workload.startswith(("perfsat_", "program:"))


def pairs(results: ResultSet, rodinia: bool = False) -> list[str]:
    """The add/stream pairs (or the Rodinia-like ones) with an interleaved run."""
    return [w for w in results.levels("workload")
            if "+" in w and row(results, w, INTER) and is_rodinia(w) == rodinia]


def metrics_of(results: ResultSet, pair: str, policy: str = INTER, ws: str = BASE_WS) -> dict:
    """Table 5.2's columns of ``pair`` (policy's run as the concurrent one)."""
    alone = {n: alone_cycles(results, n, ws) for n in pair.split("+")}
    run, left = row(results, pair, policy, ws), row(results, pair, SEQ, ws)
    if run is None or None in alone.values():
        raise ValueError(f"{pair}: missing runs under {policy} / alone ({ws})")
    return pair_metrics(alone, run["cycles"], left["cycles"] if left else None)


def over_pairs(metric: str, fn=max, policy: str = INTER, rodinia: bool = False):
    def ours(results: ResultSet) -> float:
        xs = [metrics_of(results, p, policy)[metric] for p in pairs(results, rodinia)
              if row(results, p, policy)]
        if not xs:
            raise ValueError(f"no pairs under {policy}")
        return fn(xs)
    return ours


def slowdown(ws: str, which: int):
    """Mean over the interference pair's kernel ``which`` (0 add, 1 stream) of its cycles in the
    interleaved pair over its cycles alone, under warp scheduler ``ws``."""
    def ours(results: ResultSet) -> float:
        r = row(results, PLOT_PAIR, INTER, ws)
        name = PLOT_PAIR.split("+")[which]
        k = next(k for k in r["kernels"] if k["name"] == name)
        return k["cycles"] / alone_cycles(results, name, ws)
    return ours


def pair_speedup(ws: str):
    return lambda results: metrics_of(results, PLOT_PAIR, INTER, ws)["achieved"]


def add_slope(results: ResultSet) -> float:
    """Least-squares cycles per unit of x over the add_x_loops runs alone."""
    pts = [(int(w.split("_")[1]), full_grid_cycles(results, w))
           for w in results.levels("workload")
           if w.startswith("add_") and "+" not in w and alone_cycles(results, w)]
    if len(pts) < 2:
        raise ValueError("need two add_x_loops runs")
    n, sx, sy = len(pts), sum(p[0] for p in pts), sum(p[1] for p in pts)
    sxx, sxy = sum(p[0] ** 2 for p in pts), sum(p[0] * p[1] for p in pts)
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def stream_util(x: int):
    return lambda results: row(results, stream(x), SEQ)["mem_util"] * 100.0


def util_of(workload: str, column: str, policy: str = INTER):
    return lambda results: row(results, workload, policy)[column] * 100.0


def util_alone_mean(column: str):
    """Mean of ``column`` over PLOT_PAIR's kernels alone, weighted by their runtimes."""
    def ours(results: ResultSet) -> float:
        runs = [row(results, n, SEQ) for n in PLOT_PAIR.split("+")]
        return 100.0 * sum(r[column] * r["cycles"] for r in runs) / sum(r["cycles"] for r in runs)
    return ours


def gto_only(column: str, scale: float = 1.0):
    """A per-run metric for the tables: ``column`` of the gto runs only (the TLRR / TLGTO runs
    are of other grids), None otherwise."""
    return lambda stats: (stats[column] * scale if stats.get("warp_sched") == BASE_WS
                          and stats.get(column) is not None else None)


def _headline(rodinia: str = "Rodinia-like pairs") -> list[Headline]:
    H = Headline
    a, s = PLOT_PAIR.split("+")
    return [
        H("best achieved speedup over sequential (interleaved)", "×", over_pairs("achieved"),
          paper=1.57, note="sequential = sum of the standalone runs (Table 5.2)"),
        H("interleaved efficiency, lowest pair", "of ideal", over_pairs("efficiency", min),
          paper=0.80, note="achieved / max speedup"),
        H("interleaved efficiency, highest pair", "of ideal", over_pairs("efficiency", max),
          paper=0.97),
        H("best max speedup (ideal overlap)", "×", over_pairs("max_speedup")),
        H("best achieved speedup over the measured left-over run", "×",
          over_pairs("achieved_vs_leftover"), note="ck_sequential: tails overlap"),
        H("best achieved speedup, spatial multitasking", "×",
          over_pairs("achieved", policy=SPATIAL), note="ck_baseline: SMs dealt per kernel"),
        H("spatial multitasking efficiency, highest pair", "of ideal",
          over_pairs("efficiency", max, SPATIAL)),
        H("add_10_loops alone, per 640 CTAs", "cycles", lambda r: full_grid_cycles(r, add(10)),
          paper=133_750, note="thesis 133.2-134.3 k; quick runs scaled by 640 / CTAs"),
        H("add_x_loops: cycles per unit of x, per 640 CTAs", "cycles", add_slope, paper=13_200,
          note="least squares over x; runtime linear in x"),
        H("stream_1_words DRAM utilisation", "% of peak", stream_util(1)),
        H("stream_3_words DRAM utilisation", "% of peak", stream_util(3), paper=70.0,
          note="thesis: saturates from x = 3 at about 70 %"),
        H(f"{PLOT_PAIR} interleaved: compute utilisation", "% of peak IPC",
          util_of(PLOT_PAIR, "compute_util")),
        H(f"{PLOT_PAIR} alone (time-weighted): compute utilisation", "% of peak IPC",
          util_alone_mean("compute_util")),
        H(f"{PLOT_PAIR} interleaved: DRAM utilisation", "% of peak",
          util_of(PLOT_PAIR, "mem_util")),
        H(f"{PLOT_PAIR} alone (time-weighted): DRAM utilisation", "% of peak",
          util_alone_mean("mem_util")),
        H(f"{rodinia} at the optimal CTA counts: best achieved speedup", "×",
          over_pairs("achieved", rodinia=True),
          note="sequential = sum of the kernels alone at their optimal counts"),
        H(f"{rodinia}: lowest interleaved efficiency", "of ideal",
          over_pairs("efficiency", min, rodinia=True)),
        H(f"{rodinia}: highest interleaved efficiency", "of ideal",
          over_pairs("efficiency", max, rodinia=True)),
        H(f"{rodinia}: best max speedup (ideal overlap)", "×",
          over_pairs("max_speedup", rodinia=True)),
        H(f"{rodinia}: best achieved speedup, spatial multitasking", "×",
          over_pairs("achieved", policy=SPATIAL, rodinia=True)),
        H(f"TLRR: {PLOT_PAIR} achieved speedup", "×", pair_speedup("tlrr")),
        H(f"TLGTO: {PLOT_PAIR} achieved speedup", "×", pair_speedup("tlgto")),
        H(f"TLRR: {a} slowdown when sharing", "×", slowdown("tlrr", 0)),
        H(f"TLGTO: {a} slowdown when sharing", "×", slowdown("tlgto", 0)),
        H(f"TLRR: {s} slowdown when sharing", "×", slowdown("tlrr", 1)),
        H(f"TLGTO: {s} slowdown when sharing", "×", slowdown("tlgto", 1)),
    ]


def _experiment(name: str, title: str, grid, quick, rodinia: str, description: str):
    return Experiment(
        name=name,
        title=title,
        grid=grid,
        quick=quick,
        metrics=[Metric("cycles", "Execution time", "core cycles"),
                 Metric("cycles_gto", "Execution time (gto runs)", "core cycles",
                        compute=gto_only("cycles")),
                 Metric("compute_gto", "Compute utilisation (gto runs)", "% of peak IPC",
                        compute=gto_only("compute_util", 100.0)),
                 Metric("mem_gto", "DRAM utilisation (gto runs)", "% of peak",
                        compute=gto_only("mem_util", 100.0)),
                 Metric("ipc", "IPC", "warp instructions/cycle"),
                 Metric("compute_pct", "Compute utilisation", "% of peak IPC", stat="compute_util",
                        scale=100.0),
                 Metric("mem_pct", "DRAM utilisation", "% of peak", stat="mem_util", scale=100.0)],
        tables=[Table("cycles_gto", rows="workload", columns="policy",
                      title="Cycles per workload and kernel scheduler, gto (alone: ck_sequential)"),
                Table("mem_gto", rows="workload", columns="policy",
                      title="DRAM utilisation, % of peak, gto"),
                Table("compute_gto", rows="workload", columns="policy",
                      title="Compute utilisation, % of peak IPC, gto")],
        plots=[FigurePlot("cycles", "pairs.png", title="Table 5.2: speedups over sequential",
                          draw=draw_pairs, caption="Sequential = sum of the standalone runs; max = "
                          "ideal overlap; ★ the thesis's best (1.57×)."),
               FigurePlot("cycles", "micro.png", title="Micro-benchmarks (thesis §5.3.1)", draw=draw_micro,
                          caption="Kernels alone; ★ the thesis's numbers."),
               FigurePlot("cycles", "utilisation.png", title="Utilisation, interleaved vs alone",
                          draw=draw_utilisation, caption="Compute: IPC / peak; memory: DRAM bytes "
                          "/ peak; alone: each kernel by itself."),
               FigurePlot("cycles", "warp_states_sequential.png",
                          title=f"Warp states, {PLOT_PAIR}, left-over",
                          draw=lambda e, r, plt: draw_warp_states(e, r, plt, SEQ, PLOT_PAIR)),
               FigurePlot("cycles", "warp_states_interleaved.png",
                          title=f"Warp states, {PLOT_PAIR}, interleaved",
                          draw=lambda e, r, plt: draw_warp_states(e, r, plt, INTER, PLOT_PAIR))],
        headline=_headline(rodinia),
        labels={"policy": "kernel scheduler", AXIS: "warp scheduler"},
        description=description,
    )


CATALOGUE = _experiment(
    "concurrent-catalogue", "Thesis ch.5: workload-aware intra-core concurrent kernels "
    "(thesis_ch5, 64 warps; catalogue stand-ins)", GRID, QUICK, "Rodinia-like pairs", __doc__)

# On the program suite: the suite's two ch.5 programs ([THESIS ch. 5]'s saturating CFD and
# Gaussian, INFO["papers"]["thesis_ch5"]) as a pair at their optimal CTA counts, beside the
# add/stream pairs ([THESIS §5.3.1]'s micro-benchmarks: the catalogue builds them as the thesis
# describes them; the suite has no such programs). Each member's launches stay in order (one stream
# per member, sim/multiprog/compose.py); its scale is part of its name.
PROGRAM_PAIRS = ["program:cfd@{c}+program:gaussian@{g}", "program:gaussian@{g}+program:cfd@{c}"]
PROGRAM_QUICK = {"c": 0.0156, "g": 0.01}          # the programs' INFO quick scales
PROGRAM_FULL = {"c": 0.0625, "g": 0.04}
PROGRAM_DOC = """Thesis ch.5 ([THESIS ch. 5]) on the program suite: CFD + Gaussian (both launch
orders) at each program's offline-optimal CTA count under left-over, interleaved and spatial
``ck_dispatch`` scheduling, and the add/stream pairs of the catalogue study ([THESIS §5.3.1]'s
micro-benchmarks, which the suite does not have as programs). Quick grid: CFD at scale 0.0156 and
Gaussian at 0.01 (their INFO quick scales: 25 and 40 dependent launches), add/stream as the
catalogue's quick grid. Full grid: CFD 0.0625, Gaussian 0.04, add/stream as the catalogue's full
grid. docs/mechanisms/concurrent-kernels.md "On the program suite" has the numbers.
"""
EXPERIMENT = _experiment(
    "concurrent", "Thesis ch.5: workload-aware intra-core concurrent kernels (thesis_ch5, 64 "
    "warps; CFD and Gaussian programs, add/stream micro-benchmarks)",
    _grid("concurrent_programs", FULL_PAIRS, FULL_ALONE, 1.0, 0.25,
          [p.format(**PROGRAM_FULL) for p in PROGRAM_PAIRS]),
    _grid("concurrent_programs_quick", [f"{add(10)}+{stream(3)}", PLOT_PAIR],
          [add(5), add(10), stream(1), stream(3), stream(16)], 0.5, 0.1,
          [p.format(**PROGRAM_QUICK) for p in PROGRAM_PAIRS]),
    "CFD + Gaussian", PROGRAM_DOC)

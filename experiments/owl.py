"""OWL ([OWL]): CTA-aware, locality- and BLP-aware warp scheduling plus opportunistic prefetch.

``EXPERIMENT`` (``gpusched reproduce owl``) runs the paper's programs from the suite
(experiments/owl_programs.py). ``CATALOGUE`` (``gpusched reproduce owl --catalogue``,
reports/owl-catalogue) is the reproduction on the catalogue's archetypes, described here:
every point runs one *scheme* (``SCHEMES``: a set of config overrides) of one ``owl_t_*``
archetype (ours, toward [OWL Table 4]) on the ``owl`` preset ([OWL Table 1]: 28 cores, 8 MCs × 4
banks) with the full memory hierarchy. IPC is normalised per workload to RR (``lrr``) and averaged
over the Type-1 archetypes with the arithmetic (the paper's default), harmonic and geometric means.

- RR = ``lrr``; TL = ``tl_narasiman`` (8-warp groups by warp id: our choice, [OWL] does not give
  [44]'s configuration); CTA-Aware,
  +Locality, +BLP = ``owl_cta``, ``owl_locality_rot``, ``owl_blp_rot`` (g_size = 8; A3 (b),
  the rotating head: priority moves to the next group only once the head group has completed,
  as Fig 4B describes, and refilled CTAs join the lowest-priority group); OWL = ``owl_blp_rot``
  + the opportunistic prefetcher, scheme B (``dram.prefetch = owl_b``, our default where [OWL §4.4]
  is silent) when the model has it, otherwise ``owl_blp_rot`` alone (the headline note then says
  so); prefetch ablations (with the prefetcher): OWL with scheme A (``owl_a``) and OWL with the
  above-misses order (``owl_b_hi``: prefetches above row-miss demands, ``dram.prefetch_priority =
  above_misses``); Perfect-L2 and Perfect-L1 = RR with ``l2.perfect`` / ``l1.perfect`` (Perfect-L1
  only for PMEM = IPC(Perfect-L1) / IPC(RR), the Type-1 test); Slot-static ablations: +Locality and
  +BLP with slot-static groups (``owl_locality``, ``owl_blp``: [OWL Algorithm 1] read literally, a
  refilled CTA inherits its slot's group).
- Type-1 = the memory-bound archetypes (``TYPE1``); Type-2 (our do-no-harm check) = ``TYPE2``
  (compute-bound, ≤ 6 warps per core); they are reported apart and never enter the means.
- Metrics ([OWL §5]): L1 miss rate (loads, ``1 − memory.l1.hit_rate``), BLP (per MC, averaged over
  MCs: ``memory.dram.blp_per_channel``; the GPU-wide figure beside it), RBL (aggregate row-hit
  rate of demand column accesses, ``memory.dram.row_hit_rate``), and from the OWL metrics
  profiler (``--profile owl``, attached to every point) the exact OWL metric counters: CINV,
  MemoryBlockCycles (the strict reading of [OWL Fig. 3], and ``memory_stall`` also counting warps
  held at a busy LD/ST unit), NoWarpCycles and RBL as a mean over banks (demand, and with
  prefetches). Prefetch accuracy and coverage for the OWL variants. The Table 4 row profile
  (consecutive-CTA row sharing, CTAs per row) of each archetype is a property of its addresses, not
  of a run: ``row_table`` (sim/workload/row_profile.py). The runner kind lives in
experiments/owl_runs.py.
"""

from __future__ import annotations

from experiments.owl_metrics import (LABELS, PLOTTED, PREFETCHING, SCHEDULING,  # noqa: F401
                                     dram_busy_pct, l1_miss_pct, mean_of, only, per_run_metrics,
                                     per_workload, plotted_metrics)
from experiments.owl_metrics import gain as _gain
from experiments.owl_metrics import gap_to_perfect_l2 as _gap
from experiments.owl_metrics import worst
from experiments.owl_program_runs import PROGRAM_KIND  # noqa: F401 (registers the kind)
from experiments.owl_programs import program_experiment
from experiments.owl_runs import (KIND, SCHEMES, check_point,  # noqa: F401 (registers the kind)
                                  run_point)
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table

PRESET = "owl"
TYPE1 = ["owl_t_reuse", "owl_t_stream_shared", "owl_t_stream_private", "owl_t_irregular",
         "owl_t_mixed"]
TYPE2 = ["owl_t_compute", "owl_t_small"]
IRREGULAR = ["owl_t_irregular"]
ROTATING = ["rr", "locality", "blp", "locality_static", "blp_static", "owl"]


# ---- headline (over the catalogue's Type-1 archetypes) -----------------------------------------

def gain(scheme: str, base: str = "rr", kind: str = "arith", workloads: list[str] = TYPE1):
    """Headline value: (mean over workloads of IPC(scheme)/IPC(base)) − 1, in %."""
    return _gain(scheme, base, kind, workloads)


def gap_to_perfect_l2(results: ResultSet) -> float:
    """How far OWL is below Perfect-L2 on the Type-1 archetypes, in % of Perfect-L2."""
    return _gap(TYPE1)(results)


def type2_worst(results: ResultSet) -> float:
    """The worst Type-2 IPC change of OWL over RR, in % (paper: no Type-2 app is harmed)."""
    return worst("owl", TYPE2)(results)


def pmem_min(results: ResultSet) -> float:
    """The smallest PMEM = IPC(Perfect-L1)/IPC(RR) over the Type-1 archetypes (≥ 1.4×)."""
    ratios = per_workload(results, "perfect_l1", "rr", TYPE1)
    return min(ratios) if ratios else float("nan")


# The quick grid's machine: a quarter of the owl GPU (7 cores, 2 MCs, 2 L2 slices; cores per
# MC, per-core L1 and per-MC L2 as Table 1) with a quarter of each grid, so a core still holds
# as many CTAs and every CTA does its full work. The 2-channel map moves bank and row down.
QUARTER = {"sm.count": 7, "dram.channels": 2, "l2.slices": 2, "dram.bank_bit": 12,
           "dram.row_bit": 14}


def _grid(name: str, workloads: list[str], schemes: list[str], scale: float,
          overrides: dict | None = None) -> Grid:
    return Grid(name=name, kind=KIND, preset=[PRESET], workloads=workloads, seeds=[0],
                overrides={k: [v] for k, v in (overrides or {}).items()},
                params={"scheme": schemes, "scale": [scale], "memory": ["hierarchy"]},
                source=__file__)


_MAIN = ["rr", "tl", "cta", "locality", "blp", "owl", "perfect_l2"]
_ABLATION = ["owl_a", "owl_b_hi", "locality_static", "blp_static"]
_AR = "IPC / RR IPC, arithmetic mean over the Type-1 archetypes, − 1"
CATALOGUE = Experiment(
    name="owl-catalogue",
    title="OWL on the catalogue archetypes: CTA-aware warp scheduling and opportunistic "
          "prefetching vs RR (owl preset)",
    description=__doc__,
    grid=_grid("owl", TYPE1 + TYPE2, _MAIN + _ABLATION + ["perfect_l1"], 1.0),
    quick=_grid("owl_quick", TYPE1 + TYPE2, _MAIN + _ABLATION + ["perfect_l1"], 0.25,
                QUARTER),
    metrics=[
        *plotted_metrics(),
        *per_run_metrics(),
        Metric("ipc_t1", "IPC, Type-1", "warp instructions/cycle",
               compute=only("ipc", PLOTTED, TYPE1)),
        Metric("ipc_rot", "IPC, Type-1, A3 (a) vs (b)", "warp instructions/cycle",
               compute=only("ipc", ROTATING, TYPE1)),
        Metric("ipc_bound", "IPC, Type-1", "warp instructions/cycle",
               compute=only("ipc", ["rr", "owl", "perfect_l2"], TYPE1)),
        Metric("ipc_t2", "IPC, Type-2", "warp instructions/cycle",
               compute=only("ipc", workloads=TYPE2)),
        Metric("ipc_pf", "IPC, prefetch ablation", "warp instructions/cycle",
               compute=only("ipc", ["rr", "blp"] + PREFETCHING)),
    ],
    tables=[Table(m, columns="scheme") for m in
            ("ipc", "l1_miss", "l2_hit", "blp", "blp_gpu", "rbl", "dram_busy", "dram_queue",
             "fetch_latency", "mem_block", "mem_stall",
             "no_warp",
             "pf_accuracy", "pf_coverage", "row_sharing", "ctas_per_row")
            + ("rbl_bank", "rbl_pf", "cinv")],
    plots=[Plot("ipc_t1", "ipc.png", series="scheme", normalize="rr", mean=("arith", "geo"),
                title="Type-1: IPC normalised to RR"),
           Plot("ipc_bound", "perfect_l2.png", series="scheme", normalize="rr",
                mean=("arith", "geo"), title="Type-1: OWL and Perfect-L2, IPC normalised to RR"),
           Plot("ipc_t2", "type2.png", series="scheme", normalize="rr",
                title="Type-2 (do no harm): IPC normalised to RR"),
           Plot("ipc_pf", "prefetch.png", series="scheme", normalize="rr",
                title="Prefetch ablation: scheme B, A, B with the above-misses order; IPC / RR"),
           Plot("pf_accuracy", "pf_accuracy.png", series="scheme",
                title="Prefetch accuracy per variant"),
           Plot("ipc_rot", "a3b.png", series="scheme", normalize="rr", mean=("arith", "geo"),
                title="OWL group refill: slot-static groups (a) vs rotating head (b); IPC / RR"),
           Plot("l1_miss_p", "l1_miss.png", series="scheme", title="L1 miss rate per scheme"),
           Plot("blp_p", "blp.png", series="scheme", title="Bank-level parallelism per MC"),
           Plot("rbl_p", "rbl.png", series="scheme", title="Row-buffer locality (hit rate)"),
           Plot("mem_stall_p", "mem_block.png", series="scheme",
                title="Memory-blocked core cycles incl. warps held at the LD/ST unit")],
    headline=[
        Headline("OWL over RR, IPC (arithmetic mean)", "%", gain("owl"), paper=33.0,
                 note=_AR),
        Headline("OWL over RR, IPC (harmonic mean)", "%", gain("owl", kind="harm"), paper=23.0,
                 note="harmonic mean of the same ratios"),
        Headline("OWL over RR, IPC (geometric mean)", "%", gain("owl", kind="geo"), paper=28.0,
                 note="geometric mean of the same ratios"),
        Headline("CTA-Aware over RR", "%", gain("cta"), paper=14.0, note=_AR),
        Headline("+Locality over RR", "%", gain("locality"), paper=25.0, note=_AR),
        Headline("+BLP over RR", "%", gain("blp"), paper=31.0, note=_AR),
        Headline("OWL over CTA-Aware", "%", gain("owl", "cta"), paper=19.0,
                 note="IPC(OWL)/IPC(CTA-Aware), arithmetic mean, − 1"),
        Headline("OWL over two-level (TL)", "%", gain("owl", "tl"), paper=19.0,
                 note="IPC(OWL)/IPC(TL), arithmetic mean, − 1"),
        Headline("TL over RR", "%", gain("tl"), note="no paper number"),
        Headline("OWL with scheme A over RR", "%", gain("owl_a"),
                 note="ablation: stop prefetching at a conflicting demand; " + _AR),
        Headline("OWL with the above-misses order over RR", "%", gain("owl_b_hi"),
                 note="ablation: scheme B, prefetch above row-miss demands; " + _AR),
        Headline("+Locality, A3 (a) slot-static groups, over RR", "%", gain("locality_static"),
                 note="ablation: a refilled CTA inherits its slot's group; " + _AR),
        Headline("+BLP, A3 (a) slot-static groups, over RR", "%", gain("blp_static"),
                 note="ablation: a refilled CTA inherits its slot's group; " + _AR),
        Headline("OWL over RR without owl_t_irregular", "%",
                 gain("owl", workloads=[w for w in TYPE1 if w not in IRREGULAR]),
                 note="arithmetic mean over the other Type-1 archetypes (scheme B's cost on "
                      "random rows left out)"),
        Headline("Irregular: OWL over +BLP", "%", gain("owl", "blp", workloads=IRREGULAR),
                 note="owl_t_irregular, IPC(OWL)/IPC(+BLP) − 1 (the prefetcher's effect alone)"),
        Headline("Irregular: OWL scheme A over +BLP", "%",
                 gain("owl_a", "blp", workloads=IRREGULAR),
                 note="owl_t_irregular, IPC(OWL, scheme A)/IPC(+BLP) − 1"),
        Headline("OWL below Perfect-L2", "%", gap_to_perfect_l2, paper=11.0,
                 note="1 − mean(OWL/RR) / mean(Perfect-L2/RR); paper: within 11 %"),
        Headline("Type-2: worst OWL change over RR", "%", type2_worst, paper=0.0,
                 note="min over " + ", ".join(TYPE2) + " of IPC(OWL)/IPC(RR) − 1; paper: "
                      "Type-2 unharmed (not evaluated there)"),
        Headline("Type-1: smallest PMEM", "×", pmem_min, paper=1.4,
                 note="min over the Type-1 archetypes of IPC(Perfect-L1)/IPC(RR); Type-1 "
                      "means ≥ 1.4×"),
    ],
    labels={"scheme": "scheme", "workload": "workload"},
    names={"scheme": LABELS},
)

EXPERIMENT = program_experiment()

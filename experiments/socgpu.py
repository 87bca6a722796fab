"""SOCGPU ([SOCGPU]): out-of-order issue inside a warp against the in-order baseline.

Every point runs one *variant* (a set of issue-stage overrides, ``VARIANTS``) of one workload.
``EXPERIMENT`` runs the paper's 22 benchmarks from the program suite (``PROGRAMS``: the 14 Rodinia
programs and the 8 DeepBench layers, each program whose ``INFO["papers"]`` names socgpu; the
DeepBench programs' ``mode``/``cell`` options select one layer each) on ``gp102`` (28 SMs, the
paper's GTX 1080 Ti) at each program's default scale; its quick grid runs 6 of them at their
``quick_scale`` on a slice of ``gp102`` (5 SMs, 2 DRAM channels, 4 L2 slices: about 5/28 of the
GPU, so that small inputs still fill the SMs; a choice). ``CATALOGUE`` is the earlier run on the
catalogue's stand-ins (``sim/workload/socgpu_suite.py``: 6 DeepBench and 12 Rodinia) on the
same slice; both use the full memory hierarchy. The runner kind ``socgpu`` (experiments/socgpu_runs.py) also runs the variant's baseline (same
workload, seed and scale; cached per process) so each point carries its own speedup and
energy ratio and the sweeps plot directly.

- Baseline ([SOCGPU baseline]): ``sm.issue = inorder_issue`` — 2-entry IB, head-only issue, RAW/WAW
  and WAR scoreboard held to write-back (unbounded, our choice), dual issue, GTO, 64 warps, the
  same fetch and flush rule. ``gpgpusim`` is the model's default ``inorder`` stage (RAW/WAW only,
  no wrong-path fetch) for reference.
- SOCGPU: N = 8, ``first``, non-smart dual issue, GTO across warps ([SOCGPU] headline setup).
- Sweeps: N ∈ {2, 4, 8, 16, 32, 64}; the six local policies at N = 8; 48 and 32 warps per SM
  (registers scaled to 49,152 / 32,768) against the 64-warp baseline; dual issue (baseline
  single/dual, SOCGPU single/non-smart/smart).
- Speedup = baseline cycles / cycles. Averages: arithmetic mean of per-workload ratios (our choice),
  harmonic and geometric means beside it. The paper gives no per-benchmark values, only
  the mean (1.58×) and that no benchmark loses.
- Energy (our choice): (P_static + P_issue) × time + dynamic events, with P_static = SM static ×
  SMs + uncore static × SMs / 28, P_issue = per-warp issue power ([SOCGPU area]: 1,104 µW baseline,
  1,553.4 µW SOCGPU) × warps × SMs, dynamic = memory events + ``energy.warp_inst_pj`` per warp
  instruction (the run's ``energy`` object, ``sim.memory.energy.gpu_energy``).
- Area: ``experiments/socgpu_area.py`` (Yosys, sky130hd; cached), SOCGPU N = 8 / baseline per
  warp, beside the paper's 5.09× (SAED 14 nm).
"""

from __future__ import annotations

import math

from experiments.socgpu_runs import (ISSUE_POWER_UW, KIND, SWEEP_DUAL,  # noqa: F401 (registers
                                     SWEEP_N, SWEEP_POLICY, SWEEP_WARPS,  # the kind; re-exported)
                                     VARIANTS, check_point, energy_j, run_point, setup)
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet, geomean
from gpusched.experiment.registry import Experiment, Headline, Metric, Plot, Table
from sim.workload.socgpu_suite import DEEPBENCH, RODINIA

PRESET = "gp102"
SLICE = {"sm.count": 5, "dram.channels": 2, "l2.slices": 4, "dram.bank_bit": 12,
         "dram.row_bit": 16}
WORKLOADS = DEEPBENCH + RODINIA        # sim/workload/socgpu_suite.py: 6 + 12 stand-ins


# ---- metrics and headline ------------------------------------------------------------------

def _in(variants: list[str], value=lambda s: s["vs_baseline"]["speedup"]):
    """A metric defined only on the points of ``variants`` (one sweep)."""
    def compute(stats: dict) -> float | None:
        return value(stats) if stats.get("setup", {}).get("variant") in variants else None
    return compute


def _mean_ratio(variant: str, what: str = "speedup", geo: bool = False,
                mean: str | None = None):
    """Mean over workloads of the variant's per-workload ratio to the baseline: ``mean`` =
    arith (default), geo (or ``geo=True``) or harm."""
    kind = mean or ("geo" if geo else "arith")

    def ours(results: ResultSet) -> float:
        rows = results.select(variant=variant)
        per = [rows.mean(f"vs_baseline.{what}", {"workload": w}) for w in rows.levels("workload")]
        per = [v for v in per if not math.isnan(v)]
        if not per:
            return float("nan")
        if kind == "geo":
            return geomean(per)
        if kind == "harm":
            return len(per) / sum(1 / v for v in per)
        return sum(per) / len(per)
    return ours


def _losers(results: ResultSet) -> float:
    """How many workloads SOCGPU (N = 8) slows down."""
    rows = results.select(variant="socgpu")
    per = [rows.mean("vs_baseline.speedup", {"workload": w}) for w in rows.levels("workload")]
    return float(sum(v < 1 for v in per)) if per else float("nan")


def _worst(results: ResultSet) -> float:
    rows = results.select(variant="socgpu")
    return min((rows.mean("vs_baseline.speedup", {"workload": w})
                for w in rows.levels("workload")), default=float("nan"))


def _area_ratio(results: ResultSet) -> float:
    """SOCGPU N = 8 / baseline per warp (Yosys GE, cached by synth.area)."""
    from experiments.socgpu_area import measure
    try:
        return measure([8])["rows"][0]["ratio"]
    except Exception as e:          # no Yosys here: the row says why
        raise ValueError(f"area not synthesised ({type(e).__name__}: {e})") from None


def _grid(name: str, workloads: list[str], variants: list[str], scale: float | str,
          machine: dict | None = None) -> Grid:
    machine = SLICE if machine is None else machine
    return Grid(name=name, kind=KIND, preset=[PRESET], workloads=workloads, seeds=[0],
                overrides={k: [v] for k, v in machine.items()},
                params={"variant": variants, "scale": [scale]}, source=__file__)


QUICK_WORKLOADS = ["sg_gemm_train", "sg_conv_inf", "sg_lstm", "sg_hotspot", "sg_srad", "sg_bfs"]
QUICK_VARIANTS = [v for v in VARIANTS if v in {     # in VARIANTS order: axes follow it
    "baseline", "socgpu_n2", "socgpu", "socgpu_n16", "socgpu_oldest", "socgpu_w32",
    "baseline_single", "socgpu_single", "socgpu_smart", "gpgpusim"}]
_MEAN = "arithmetic mean over workloads of baseline cycles / SOCGPU cycles"


# ---- the paper's benchmarks from the program suite ------------------------------------------

def _deepbench(program: str, label: str, options: list[str]) -> dict[str, str]:
    return {f"{label}-{'inference' if o.endswith('infer') else 'train'}":
            f"program:{program}:{o}" for o in options}


# The paper's 22 ([SOCGPU]): Rodinia 3.1 by its own name (each program's INFO["papers"]["socgpu"]),
# DeepBench layers in train and inference shapes (their programs' options).
RODINIA_PROGRAMS = {label: f"program:{name}" for label, name in (
    ("b+tree", "btree"), ("backprop", "backprop"), ("bfs", "bfs"), ("dwt2d", "dwt2d"),
    ("gaussian", "gaussian"), ("hotspot", "hotspot"), ("hybridsort", "hybridsort"),
    ("kmeans", "kmeans"), ("lavaMD", "lavamd"), ("lud", "lud"), ("nn", "nn"),
    ("particlefilter-float", "particlefilter"), ("pathfinder", "pathfinder"),
    ("srad_v1", "srad_v1"))}
DEEPBENCH_PROGRAMS = {
    **_deepbench("deepbench_conv", "conv", ["mode=train", "mode=infer"]),
    **_deepbench("deepbench_gemm", "gemm", ["mode=train", "mode=infer"]),
    **_deepbench("deepbench_rnn", "rnn-lstm", ["cell=lstm,mode=train", "cell=lstm,mode=infer"]),
    **_deepbench("deepbench_rnn", "rnn-gru", ["cell=gru,mode=train", "cell=gru,mode=infer"])}
PROGRAMS = {**DEEPBENCH_PROGRAMS, **RODINIA_PROGRAMS}          # paper label → workload
PROGRAM_QUICK = ["gemm-train", "conv-inference", "rnn-lstm-inference", "hotspot", "srad_v1",
                 "bfs"]                                        # the catalogue quick grid's six
# Full grid: the headline point only (each point also runs its baseline): ~2 sims per program at
# default scale, estimated 2–2.5 h on 2 idle cores (docs/mechanisms/socgpu.md); the sweeps
# (N, policies, warps, dual issue) stay on the catalogue grid and the quick grid's N = 16.
PROGRAM_VARIANTS = ["socgpu"]
PROGRAM_QUICK_VARIANTS = ["baseline", "socgpu", "socgpu_n16"]
PAPER_MACHINE: dict = {}                                       # gp102 as the paper ran it


def _experiment(name: str, title: str, grid: Grid, quick: Grid,
                names: dict[str, str] | None = None) -> Experiment:
    """One SOCGPU report (program suite or catalogue): the same metrics, plots and headline."""
    return Experiment(
        name=name,
        title=title,
        description=__doc__,
        grid=grid,
        quick=quick,
        metrics=[
            Metric("ipc", "IPC", "warp instructions/cycle"),
            Metric("cycles", "Run time", "core cycles"),
            Metric("speedup", "Speedup over the in-order baseline", "×",
                   stat="vs_baseline.speedup"),
            Metric("energy_rel", "Energy relative to the baseline", "×", stat="vs_baseline.energy"),
            Metric("speedup_main", "Speedup of SOCGPU (N=8, first, dual)", "×",
                   compute=_in(["socgpu"])),
            Metric("speedup_n", "Speedup over the baseline", "×", compute=_in(SWEEP_N)),
            Metric("speedup_policy", "Speedup over the baseline", "×", compute=_in(SWEEP_POLICY)),
            Metric("speedup_warps", "Speedup over the 64-warp baseline", "×",
                   compute=_in(SWEEP_WARPS)),
            Metric("speedup_dual", "Speedup over the baseline (dual issue)", "×",
                   compute=_in(SWEEP_DUAL)),
            Metric("energy_main", "SOCGPU energy / baseline energy", "×",
                   compute=_in(["socgpu"], lambda s: s["vs_baseline"]["energy"])),
            Metric("flushes", "Flushes per 100 warp instructions", "",
                   stat="issue_stage.flushes_per_100"),
            Metric("serial", "Serial instructions", "%", stat="issue_stage.serial_share", scale=100),
            Metric("ib_occupancy", "IB entries in use per warp", "entries",
                   stat="issue_stage.ib_occupancy"),
            Metric("candidates", "Warps offering a candidate per scheduler-cycle", "warps",
                   stat="issue_stage.candidates"),
            Metric("issue_util", "Issue-slot utilisation", "%",
                   compute=lambda s: 100 * s["issue"]["issued"] / max(1, sum(s["issue"].values()))),
        ],
        tables=[Table(m, columns="variant") for m in
                ("speedup", "ipc", "energy_rel", "flushes", "serial", "ib_occupancy", "candidates",
                 "issue_util")],
        plots=[Plot("speedup_main", "speedup.png", series=None, reference=1.0, mean=("arith", "geo"),
                    title="SOCGPU speedup over the in-order baseline"),
               Plot("speedup_n", "ib_size.png", x="setup.N", series=None, style="line", reference=1.0,
                    whiskers="workloads", title="Speedup vs IB size N"),
               Plot("speedup_policy", "policy.png", x="setup.policy", series=None, reference=1.0,
                    whiskers="workloads", title="Local policy, N = 8"),
               Plot("speedup_warps", "warps.png", x="setup.warps", series=None, style="line",
                    reference=1.0, whiskers="workloads", title="Fewer warps vs 64-warp baseline"),
               Plot("speedup_dual", "dual.png", x="setup.dual", series=None, reference=1.0,
                    whiskers="workloads", title="Dual issue"),
               Plot("energy_main", "energy.png", series=None, reference=1.0, mean=("arith",),
                    title="SOCGPU energy relative to the baseline")],
        headline=[
            Headline("speedup SOCGPU (N=8, first, dual, 64 warps) over in-order GTO", "×",
                     _mean_ratio("socgpu"), paper=1.58, note=_MEAN),
            Headline("speedup SOCGPU, harmonic mean", "×", _mean_ratio("socgpu", mean="harm"),
                     note="harmonic mean of the same ratios (paper: not given)"),
            Headline("speedup SOCGPU, geometric mean", "×", _mean_ratio("socgpu", geo=True),
                     note="geometric mean of the same ratios (paper: not given)"),
            Headline("worst workload speedup", "×", _worst,
                     note="paper: no benchmark loses performance (≥ 1)"),
            Headline("workloads slowed down by SOCGPU", "", _losers, paper=0.0,
                     note="workloads with speedup < 1 (paper: none)"),
            Headline("speedup with N = 2", "×", _mean_ratio("socgpu_n2"),
                     note=_MEAN.replace("SOCGPU", "SOCGPU N=2") + " (paper: per-point values "
                          "not given)"),
            Headline("speedup with N = 16", "×", _mean_ratio("socgpu_n16"),
                     note=_MEAN.replace("SOCGPU", "SOCGPU N=16") + " (paper: not given)"),
            Headline("energy SOCGPU / baseline", "×", _mean_ratio("socgpu", "energy"), paper=0.824,
                     note="arithmetic mean of per-workload energy ratios, our choice "
                          "(paper: −17.6 %)"),
            Headline("area per warp, SOCGPU N=8 / baseline", "×", _area_ratio, paper=5.09,
                     note="Yosys GE on sky130hd (ours) vs SAED 14 nm µm² (paper); baseline with "
                          "CAM 8/16 scoreboard"),
        ],
        labels={"variant": "variant", "workload": "workload", "setup.N": "IB entries N",
                "setup.policy": "local policy", "setup.warps": "warps per SM",
                "setup.dual": "issue / dual mode"},
        names={"workload": names or {}},
    )


EXPERIMENT = _experiment(
    "socgpu", "SOCGPU: out-of-order issue inside a warp vs the in-order baseline (programs, gp102)",
    grid=_grid("socgpu", list(PROGRAMS.values()), PROGRAM_VARIANTS, "default", PAPER_MACHINE),
    quick=_grid("socgpu_quick", [PROGRAMS[p] for p in PROGRAM_QUICK], PROGRAM_QUICK_VARIANTS,
                "quick"),
    names={w: label for label, w in PROGRAMS.items()})
CATALOGUE = _experiment(
    "socgpu-catalogue",
    "SOCGPU: out-of-order issue inside a warp vs the in-order baseline (gp102 slice, catalogue)",
    grid=_grid("socgpu", WORKLOADS, list(VARIANTS), 1.0),
    quick=_grid("socgpu_quick", QUICK_WORKLOADS, QUICK_VARIANTS, 0.5))

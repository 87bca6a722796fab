"""ONAC on the program suite ([THESIS §4.4, Table 4.4]): which kernel of which program each Table
4.4 label names, the grids and the per-kernel table (experiments/onac.py declares the
experiment and its metrics; the cross-run analysis there reads these runs once each row's
``workload`` is the Table 4.4 label, ``relabel``).

Kernels: the programs whose ``INFO["papers"]`` has a ``thesis_ch4`` entry with an ONAC type
(``onac_type``); each point runs that kernel's launches alone (runner kind ``onac_program``,
experiments/onac_program_runs.py) on Table 4.3's 32-core machine (the ``thesis`` preset). ONAC
detects once per launch, so the grids use the kernels launched once (BP-K1/K2, BT-K1/K2, NN,
CVSEP); the multi-launch ones (KM, LUD, SRAD, FWT, Pathfinder, Hotspot, DXTC) launch grids of a
few waves each at the scales the functional run affords, too short for a 4-wave-per-sample
detection (docs/mechanisms/onac.md, On the program suite).

Controller runs at ``scale``; the oracle sweep (``active_1..M``) at ``sweep_scale`` × n / M
(``sweep``), so each count runs about the same number of waves on its own SMs, as the
catalogue grid. Quick: the quarter chip (8 SMs, 3 partitions, as the catalogue quick grid),
BP-K2 (type A) and BP-K1 (type B), the headline controllers only.
"""

from __future__ import annotations

import math

from experiments.onac_program_runs import KIND
from experiments.thesis_runs import GridUnion
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet, geomean

PRESET = "thesis"
# Table 4.4 label -> (program, kernel, type). BP-K1/K2: backprop's forward layer / weight update;
# BT-K1/K2: b+tree's find_k / find_range_k; CVSEP: the row pass (the SDK's first kernel).
KERNELS = {
    "BP-K2": ("backprop", "bp_adjust_weights", "A"), "BT-K2": ("btree", "find_range_k", "A"),
    "NN": ("nn", "nn_distance", "A"), "CVSEP": ("convsep", "convolution_rows", "A"),
    "BP-K1": ("backprop", "bp_layer_forward", "B"), "BT-K1": ("btree", "find_k", "B"),
}
PAPER_ORACLE = {"BP-K2": 12, "BT-K2": 31}          # [THESIS §4.4] known N_oracle values of 32
REFERENCE = "BP-K2"        # memory-bound kernel the static share is calibrated on (as catalogue)
# scales: controllers ~100 waves on 32 SMs (full) / ~40 on 8 (quick); sweep ~16-20 waves on n
FULL_SCALE = {"backprop": 4.0, "btree": 0.6, "nn": 20.0, "convsep": 8.0}
FULL_SWEEP = {prog: s / 5 for prog, s in FULL_SCALE.items()}
QUICK_SCALE = {"backprop": 0.4}
QUICK_SWEEP = {"backprop": 0.16}
QUICK_LABELS = ["BP-K2", "BP-K1"]
# The quarter chip: 8 SMs and 3 of the 12 memory partitions (the bandwidth per SM of the full
# chip), as the catalogue quick grid, plus the uncore's static power (L2, interconnect, memory
# controllers: 10 W for the 12 partitions) cut to its 3 partitions' quarter; at the full 10 W
# the uncore was 45 % of the quarter chip's static power against 17 % on the full chip, which
# capped what gating SMs can save (docs/mechanisms/onac.md, On the program suite).
QUARTER_CHIP = {"sm.count": 8, "dram.channels": 3, "l2.slices": 3, "dram.bank_bit": 13,
                "dram.row_bit": 16, "energy.uncore_static_mw": 2500.0}
LABEL_OF = {(prog, kernel): label for label, (prog, kernel, _) in KERNELS.items()}


def of_type(t: str) -> list[str]:
    return [lab for lab, (_, _, kind) in KERNELS.items() if kind == t]


def grid(name: str, labels: list[str], scales: dict[str, float], sweep: dict[str, float],
         n_sms: int, controllers: list[str], machine: dict | None = None) -> GridUnion:
    """Per kernel: the controller runs at its program's scale and the oracle sweep."""
    overrides = {k: [v] for k, v in (machine or {}).items()}
    parts = []
    for label in labels:
        prog, kernel, _ = KERNELS[label]
        common = dict(kind=KIND, preset=[PRESET], workloads=[f"program:{prog}"], seeds=[0],
                      overrides=overrides, source=__file__)
        parts.append(Grid(name=f"{name}_{label}_controllers", params={
            "kernel": [kernel], "sm_controller": controllers, "scale": [scales[prog]]}, **common))
        parts.append(Grid(name=f"{name}_{label}_oracle", params={
            "kernel": [kernel], "sm_controller": [f"active_{n}" for n in range(1, n_sms + 1)],
            "scale": [sweep[prog]], "sweep": [True]}, **common))
    return GridUnion(name=name, workloads=list(dict.fromkeys(w for p in parts
                                                             for w in p.workloads)),
                     preset=[PRESET], seeds=[0], kind=KIND, source=__file__, parts=tuple(parts))


def relabel(results: ResultSet) -> ResultSet:
    """The rows with ``workload`` = the Table 4.4 label of (program, kernel)."""
    rows = []
    for r in results.rows:
        label = LABEL_OF.get((str(r.get("workload", "")).removeprefix("program:"),
                              r.get("kernel")))
        rows.append({**r, "workload": label} if label else r)
    return ResultSet(rows)


def means(values: list[float]) -> dict[str, float]:
    """Arithmetic, harmonic and geometric means (the last two nan unless all values > 0)."""
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return {k: float("nan") for k in ("arith", "harm", "geo")}
    pos = all(v > 0 for v in vals)
    return {"arith": sum(vals) / len(vals),
            "harm": len(vals) / sum(1 / v for v in vals) if pos else float("nan"),
            "geo": geomean(vals) if pos else float("nan")}
